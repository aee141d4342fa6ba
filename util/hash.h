/* SPDX-License-Identifier: GPL-2.0 */
/* Hashing for prec's in-memory tables. */
#ifndef PREC_UTIL_HASH_H
#define PREC_UTIL_HASH_H

#include <stdint.h>

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

#endif
