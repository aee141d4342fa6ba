/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An open-addressing hash index over an array the caller owns: slots hold an array index + 1.
 * The caller keeps its entries where it likes, hashes and compares them through callbacks; the
 * index only remembers where they are. Linear probing, grown (and rehashed) when half full.
 *
 *	if (!hash_index_reserve(&x, hash_at, tab))
 *		return -ENOMEM;
 *	s = hash_index_find(&x, hash(&key), eq, tab, &key, &i);
 *	if (i < 0) {
 *		tab->e[tab->nr] = key;		(room in the array is the caller's)
 *		hash_index_set(&x, s, tab->nr++);
 *	}
 */
#ifndef PREC_UTIL_HASH_INDEX_H
#define PREC_UTIL_HASH_INDEX_H

#include <stdbool.h>
#include <stdint.h>

struct hash_index {
	uint32_t *slot;
	uint32_t mask; /* capacity - 1; 0 when empty */
	uint32_t used;
};

/* The hash of the caller's entry i, and whether entry i is key. */
typedef uint64_t (*hash_index_hash_fn)(const void *ctx, uint32_t i);
typedef bool (*hash_index_eq_fn)(const void *ctx, uint32_t i, const void *key);

/*
 * Slots looked at by hash_index_find() on this thread: the unit tests bound them, so that a
 * table whose lookups turn into long walks fails a test instead of slowing prec report down.
 * Nothing else reads it.
 */
extern _Thread_local uint64_t hash_index_probes;

/**
 * hash_index_free - free the slots; the index is empty (and usable) again.
 */
void hash_index_free(struct hash_index *x);

/**
 * hash_index_reserve - room for one more entry: the index grows, rehashing every entry with
 * hash, when it would be half full.
 *
 * Return: true, or false without memory (the index is unchanged).
 */
bool hash_index_reserve(struct hash_index *x, hash_index_hash_fn hash, const void *ctx);

/**
 * hash_index_find - among the entries of hash h, the one eq() accepts as key.
 * @i: set to its array index, or to -1 when there is none
 *
 * The index must have slots: hash_index_reserve() first.
 *
 * Return: its slot, or the empty slot where it goes (for hash_index_set()).
 */
uint32_t hash_index_find(const struct hash_index *x, uint64_t h, hash_index_eq_fn eq,
			 const void *ctx, const void *key, int64_t *i);

/**
 * hash_index_set - put array index i into the empty slot s that hash_index_find() returned.
 */
void hash_index_set(struct hash_index *x, uint32_t s, uint32_t i);

#endif
