// SPDX-License-Identifier: GPL-2.0
/*
 * The open-addressing hash index (util/hash-index.h) over an array the test owns: entries are
 * found again after the index grows, absent keys are absent, colliding hashes are told apart by
 * the caller's comparison, and a lookup looks at few slots.
 */
#include <stdint.h>
#include <stdlib.h>

#include "tests/tap.h"
#include "util/hash-index.h"
#include "util/hash.h"

struct table {
	uint64_t *key;
	uint32_t nr;
	bool collide; /* every key hashes alike: only the comparison tells them apart */
};

static uint64_t key_hash(const struct table *t, uint64_t key)
{
	return t->collide ? 7 : hash_mix64(key);
}

static uint64_t hash_at(const void *ctx, uint32_t i)
{
	const struct table *t = ctx;

	return key_hash(t, t->key[i]);
}

static bool eq(const void *ctx, uint32_t i, const void *key)
{
	return ((const struct table *)ctx)->key[i] == *(const uint64_t *)key;
}

/* The array index of key, added when missing if add; -1 when absent (or without memory). */
static int64_t lookup(struct hash_index *x, struct table *t, uint64_t key, bool add)
{
	int64_t i;
	uint32_t s;

	if (!hash_index_reserve(x, hash_at, t))
		return -1;
	s = hash_index_find(x, key_hash(t, key), eq, t, &key, &i);
	if (i >= 0 || !add)
		return i;
	t->key[t->nr] = key;
	hash_index_set(x, s, t->nr);
	return t->nr++;
}

static void fill(struct hash_index *x, struct table *t, uint32_t n, const char *what)
{
	bool found = true, absent = true, once = true;
	char desc[128];

	for (uint32_t k = 0; k < n; k++)
		once &= lookup(x, t, 1000 + 3 * (uint64_t)k, true) == (int64_t)k;
	for (uint32_t k = 0; k < n; k++) {
		found &= lookup(x, t, 1000 + 3 * (uint64_t)k, false) == (int64_t)k;
		absent &= lookup(x, t, 1001 + 3 * (uint64_t)k, false) == -1;
	}
	snprintf(desc, sizeof(desc), "%s: %u keys added once each, in order", what, n);
	ok(once && t->nr == n, desc);
	snprintf(desc, sizeof(desc), "%s: each found again after the index grew", what);
	ok(found, desc);
	snprintf(desc, sizeof(desc), "%s: keys never added are absent", what);
	ok(absent, desc);
}

int main(void)
{
	const uint32_t n = 100000;
	struct hash_index x = {0};
	struct table t = {calloc(n, sizeof(uint64_t)), 0, false};
	uint64_t probes;

	if (!t.key)
		return 1;
	fill(&x, &t, n, "mixed hashes");
	ok(x.used == n && x.mask + 1 >= 2 * n, "the index holds them at most half full");

	/* Linear probing at most half full: a few slots per lookup, not a walk over the table. */
	probes = hash_index_probes;
	for (uint32_t k = 0; k < n; k++)
		lookup(&x, &t, 1000 + 3 * (uint64_t)k, false);
	probes = hash_index_probes - probes;
	ok(probes <= 4 * (uint64_t)n, "lookups look at a few slots each");
	diag("%llu slots for %u lookups", (unsigned long long)probes, n);

	hash_index_free(&x);
	ok(!x.slot && !x.mask && !x.used, "freed: empty");
	t.nr = 0;
	t.collide = true;
	fill(&x, &t, 200, "one hash for all");
	hash_index_free(&x);
	free(t.key);
	return done_testing();
}
