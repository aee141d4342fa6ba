// SPDX-License-Identifier: GPL-2.0
/* The open-addressing hash index (util/hash-index.h). */
#include "util/hash-index.h"

#include <stdlib.h>
#include <string.h>

_Thread_local uint64_t hash_index_probes;

/**
 * hash_index_free - free the slots.
 */
void hash_index_free(struct hash_index *x)
{
	free(x->slot);
	memset(x, 0, sizeof(*x));
}

/* Rebuild with room for more; hashes come from the callback. */
static bool hash_index_grow(struct hash_index *x, hash_index_hash_fn hash, const void *ctx)
{
	uint32_t cap = x->mask ? (x->mask + 1) * 2 : 64, *slot;

	slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return false;
	for (uint32_t s = 0; x->mask && s <= x->mask; s++) {
		uint32_t i = x->slot[s], p;

		if (!i)
			continue;
		for (p = (uint32_t)hash(ctx, i - 1) & (cap - 1); slot[p]; p = (p + 1) & (cap - 1))
			;
		slot[p] = i;
	}
	free(x->slot);
	x->slot = slot;
	x->mask = cap - 1;
	return true;
}

/**
 * hash_index_reserve - room for one more entry.
 *
 * Return: true, or false without memory.
 */
bool hash_index_reserve(struct hash_index *x, hash_index_hash_fn hash, const void *ctx)
{
	return (x->used + 1) * 2 <= x->mask + 1 || hash_index_grow(x, hash, ctx);
}

/**
 * hash_index_find - the entry of hash h that eq() accepts.
 *
 * Return: its slot, or the empty slot where it goes.
 */
uint32_t hash_index_find(const struct hash_index *x, uint64_t h, hash_index_eq_fn eq,
			 const void *ctx, const void *key, int64_t *i)
{
	uint32_t s;

	for (s = (uint32_t)h & x->mask; x->slot[s]; s = (s + 1) & x->mask) {
		hash_index_probes++;
		if (eq(ctx, x->slot[s] - 1, key)) {
			*i = x->slot[s] - 1;
			return s;
		}
	}
	hash_index_probes++;
	*i = -1;
	return s;
}

/**
 * hash_index_set - put array index i into the empty slot s.
 */
void hash_index_set(struct hash_index *x, uint32_t s, uint32_t i)
{
	x->slot[s] = i + 1;
	x->used++;
}
