/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Side-band for what existed before the recording started, so that perf resolves symbols without
 * warnings: COMM and MMAP2 of existing processes and threads from /proc, the kernel map with
 * _text and the modules, THREAD_MAP and CPU_MAP. And build-ids: the binaries that samples hit go
 * into the BUILD_ID feature (libelf), collected without a second pass over the file.
 *
 * Records are appended to out, laid out for attr (the first attr of the file: its sample_type
 * and sample_id_all decide the trailer).
 */
#ifndef PREC_RECORD_SYNTHESIZE_H
#define PREC_RECORD_SYNTHESIZE_H

#include <stdbool.h>
#include <sys/types.h>

#include "format/perf-data.h"

/*
 * The kernel map [kernel.kallsyms]_text (pgoff = address of _text), x86's PTI entry trampolines
 * when kallsyms lists them, and one MMAP per module.
 * Returns 0, or -EACCES when kallsyms shows zero addresses (kptr_restrict: nothing appended, fall
 * back to user-only as perf does), or another negative errno.
 */
int synthesize_kernel_maps(const struct perf_event_attr *attr, struct pd_buf *out);
/*
 * COMM (per thread) and MMAP2 (executable maps; all maps when data_maps) of one process (-p), or
 * of every process when pid is -1. -ESRCH when the process does not exist.
 */
int synthesize_process(const struct perf_event_attr *attr, pid_t pid, bool data_maps,
		       struct pd_buf *out);
/* -t: COMM of the thread (and of its leader when it is not one), MMAP2 of its process. */
int synthesize_thread(const struct perf_event_attr *attr, pid_t tid, bool data_maps,
		      struct pd_buf *out);
/* -a: FORK and COMM per thread, MMAP2 per process, as perf_event__synthesize_threads(). */
int synthesize_all_processes(const struct perf_event_attr *attr, bool data_maps,
			     struct pd_buf *out);
/*
 * The same reading ROOT/proc, ROOT/sys, ROOT/lib/modules instead of /proc, /sys, /lib/modules
 * (tests).
 */
int synthesize_kernel_maps_at(const struct perf_event_attr *attr, const char *root,
			      struct pd_buf *out);
int synthesize_process_at(const struct perf_event_attr *attr, const char *root, pid_t pid,
			  bool data_maps, struct pd_buf *out);

/*
 * Build-id collection. buildid_note_record() sees every record as the recorder passes it on (it
 * must stay cheap: it tracks MMAP/MMAP2/COMM/FORK/EXIT and which maps samples land in);
 * buildid_feature() then reads the build-ids of the hit binaries with libelf and appends the
 * BUILD_ID feature payload.
 */
struct buildid_tracker;

struct buildid_tracker *buildid_tracker_new(void);
void buildid_tracker_free(struct buildid_tracker *t);
/* attr_of: the attr layout for a record (samples may come from different attrs). */
void buildid_note_record(struct buildid_tracker *t, const struct pd_record_header *h,
			 const struct perf_event_attr *attr);
/*
 * Every whole record in buf, all laid out for attr: hand the synthesized records over with this
 * before the first FINISHED_ROUND. FINISHED_ROUND records must be passed too: records are
 * applied in time order, round by round, by perf's rule (see record/build-id.c).
 */
void buildid_note_records(struct buildid_tracker *t, const void *buf, size_t len,
			  const struct perf_event_attr *attr);
/* Returns the number of entries appended, or a negative errno. */
int buildid_feature(struct buildid_tracker *t, struct pd_buf *payload);
/* --buildid-all: every binary mapped goes into the feature and the cache, not only hit ones. */
void buildid_tracker_set_all(struct buildid_tracker *t);
/*
 * The same binaries into the build-id cache dir (util/buildid-cache.h); returns how many are
 * there now, with *added made by this call and *failed the first error (0 for none).
 */
int buildid_cache_fill(struct buildid_tracker *t, const char *dir, int *added, int *failed);
/* Whether a sample fell in the binary of that name (tests, debugging). */
bool buildid_is_hit(struct buildid_tracker *t, const char *name);

#endif
