/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Calibrations kept between the recordings of one boot. The stolen time per sample, the cost of
 * a side-band record and that of the tracepoint collector are properties of the kernel, the
 * machine and the event, not of the workload; measuring them spins every CPU for about 0.35 s,
 * which would be most of what a short recording costs. prec record measures them once and
 * reuses them for OVERHEAD_CALIB_CACHE_MAX_AGE_NS on the same boot, with the same event, and
 * says so (facts: calibration.age_ns); --recalibrate measures anew.
 *
 * The cache is a text file, ${XDG_CACHE_HOME:-$HOME/.cache}/prec/calibration:
 *
 *	prec-calibration 1
 *	BOOT_ID KIND KEY CPU BOOTTIME_NS NS MIN_NS MAX_NS RUNS REJECTED UNITS LOOP_NS GAP_NS HANDLER_NS
 *
 * one line per calibration and CPU (CPU -1 for the side-band ones), BOOTTIME_NS the
 * CLOCK_BOOTTIME of the measurement. KIND and KEY are words without spaces: what was calibrated
 * and the event it was calibrated for (calib_cache_key()). Only figures measured without a
 * caveat are kept (overhead_calib.reason empty). Lines of another boot, unknown or damaged lines
 * are dropped when the file is written again; a file that cannot be read or written is no cache
 * and no error.
 */
#ifndef PREC_OVERHEAD_CALIB_CACHE_H
#define PREC_OVERHEAD_CALIB_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "overhead/calibrate.h"

#define OVERHEAD_CALIB_CACHE_MAX_AGE_NS (3600ULL * 1000000000ULL)

struct calib_cache;

/**
 * calib_cache_open - the cache of this user and boot.
 *
 * Return: the cache (possibly empty), or NULL when there is none to use (no HOME, no boot id).
 */
struct calib_cache *calib_cache_open(void);

/**
 * calib_cache_open_at - the cache in file path for boot boot_id at CLOCK_BOOTTIME now_ns (tests).
 */
struct calib_cache *calib_cache_open_at(const char *path, const char *boot_id, u64 now_ns);

/**
 * calib_cache_key - the key of a calibration for the event attr: its type, configs,
 * sample_type, exclusions, precision, stack depth, clock and rate (or period), as one word.
 */
void calib_cache_key(const struct perf_event_attr *attr, char *buf, size_t len);

/**
 * calib_cache_get - the cached calibration of kind and key for cpu, not older than the limit.
 * @out: filled when found (cpu, figures, runs; reason empty; elapsed_ns 0)
 * @age_ns: set to its age
 *
 * Return: true when found.
 */
bool calib_cache_get(const struct calib_cache *cc, const char *kind, const char *key, int cpu,
		     struct overhead_calib *out, u64 *age_ns);

/**
 * calib_cache_put - keep a calibration (one measured now, without a caveat; others are ignored).
 */
void calib_cache_put(struct calib_cache *cc, const char *kind, const char *key,
		     const struct overhead_calib *c);

/**
 * calib_cache_save - write the cache back (to a new file renamed over the old one), when put
 * changed it.
 *
 * Return: 0, or a negative errno (nothing is lost but the cache).
 */
int calib_cache_save(struct calib_cache *cc);

void calib_cache_close(struct calib_cache *cc);

#endif
