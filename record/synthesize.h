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

/* The kernel map [kernel.kallsyms]_text (pgoff = address of _text) and one MMAP per module. */
int synthesize_kernel_maps(const struct perf_event_attr *attr, struct pd_buf *out);
/*
 * COMM (per thread) and MMAP2 (executable maps; all maps when data_maps) of one process, or of
 * every process when pid is -1.
 */
int synthesize_process(const struct perf_event_attr *attr, pid_t pid, bool data_maps,
		       struct pd_buf *out);
int synthesize_all_processes(const struct perf_event_attr *attr, bool data_maps,
			     struct pd_buf *out);

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
int buildid_feature(struct buildid_tracker *t, struct pd_buf *payload);

#endif
