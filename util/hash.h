/* SPDX-License-Identifier: GPL-2.0 */
/* Hashing for prec's in-memory tables. */
#ifndef PREC_UTIL_HASH_H
#define PREC_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_FNV32_BASIS 2166136261u
#define HASH_FNV64_BASIS 14695981039346656037ULL

/*
 * hash_mix64 - scatter the bits of x over all 64 (MurmurHash3's finaliser): keys made of
 * addresses, pids and small counters differ in few bits, and the tables take the low ones.
 */
static inline uint64_t hash_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* hash_fnv1a32 - FNV-1a over n bytes: names, comms and dso paths, which differ anywhere. */
static inline uint32_t hash_fnv1a32(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint32_t h = HASH_FNV32_BASIS;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 16777619u;
	return h;
}

/* hash_fnv1a32_str - hash_fnv1a32() of a NUL-terminated string. */
static inline uint32_t hash_fnv1a32_str(const char *s)
{
	uint32_t h = HASH_FNV32_BASIS;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/*
 * hash_fnv1a64_str - 64-bit FNV-1a of a NUL-terminated string, continuing from h
 * (HASH_FNV64_BASIS to start), so that several strings make one key.
 */
static inline uint64_t hash_fnv1a64_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

#endif
