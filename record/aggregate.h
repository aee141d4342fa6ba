/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-kernel aggregation of prec record (--aggregate): a BPF program on every sampling event
 * counts the samples by key in the kernel and returns 0, so that the rings carry side-band only;
 * every --aggregate-interval and at the end the hook turns the maps into one SAMPLE per key
 * (man/prec-record.1, man/prec-data.5):
 *
 *	PERIOD	the summed period of the key's samples
 *	WEIGHT	how many samples the kernel took (both bits are added to the attr)
 *	TIME	the last time the key was seen (the events run on CLOCK_MONOTONIC, as -k monotonic)
 *	CALLCHAIN the key's stacks, with perf's context markers; a stack the map could not hold is
 *		one frame at BPF_STACK_LOST_IP, which a KSYMBOL names "[lost stack]"
 *		(record/bpf-stack.h) in every drain that uses it
 *
 * Keys the count map had no room for become LOST_SAMPLES records, per CPU; the program's own
 * run time and its losses go to the session (record_set_aggregate()), which the overhead hook
 * writes as prec:overhead "aggregate" and "lost" records. The file has no FINISHED_ROUND
 * (record_set_no_rounds()): the samples come after side-band that is newer than them.
 *
 * A hook of the record session (record/hook.h):
 *
 *	declare	off without --aggregate; the programs loaded, one per event that may sample (so
 *		that a kernel that refuses them fails the recording before anything runs), the
 *		tick set
 *	open	one program per sampling event (at most AGGREGATE_MAX_EVENTS), attached to its
 *		fds, PERIOD and WEIGHT added to their attrs
 *	start	the time no sample is older than
 *	tick	one drain of the maps
 *	stop	the last drain
 */
#ifndef PREC_RECORD_AGGREGATE_H
#define PREC_RECORD_AGGREGATE_H

#include "record/hook.h"

/*
 * The default size of each map: 16384 keys hold 2 s of -F 4000 on two CPUs even if no two
 * samples shared a key, and the two generations of stack maps (127 frames each) take 32 MB.
 */
#define AGGREGATE_ENTRIES_DEFAULT 16384ULL
/* The most: the two stack maps (1016 bytes a stack) then take 508 MiB of kernel memory. */
#define AGGREGATE_ENTRIES_MAX 262144ULL
#define AGGREGATE_INTERVAL_DEFAULT_NS 1000000000ULL

extern const struct record_hook aggregate_hook;

#endif
