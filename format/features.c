// SPDX-License-Identifier: GPL-2.0
/*
 * Feature section payloads, laid out as perf 6.1's write_*() functions in util/header.c lay them
 * out (see docs/perf-data-compat.md section 1.4). Strings are perf's: a u32 length that counts
 * the NUL and the zero padding up to a multiple of 64, then the bytes.
 */
#include <string.h>

#include "format/internal.h"

/**
 * pd_feat_nrcpus - NRCPUS: CPUs available (present) and online.
 */
void pd_feat_nrcpus(struct pd_buf *b, u32 avail, u32 online)
{
	pd_buf_u32(b, avail);
	pd_buf_u32(b, online);
}

/**
 * pd_feat_total_mem - TOTAL_MEM in kB.
 */
void pd_feat_total_mem(struct pd_buf *b, u64 kib)
{
	pd_buf_u64(b, kib);
}

/**
 * pd_feat_cmdline - CMDLINE: the argument count, then each argument as a string.
 */
void pd_feat_cmdline(struct pd_buf *b, int argc, const char *const *argv)
{
	int i;

	pd_buf_u32(b, argc > 0 ? (u32)argc : 0);
	for (i = 0; i < argc; i++)
		pd_buf_string(b, argv[i] ? argv[i] : "");
}

/**
 * pd_feat_sample_time - SAMPLE_TIME: the first and last sample times, in the samples' clock.
 */
void pd_feat_sample_time(struct pd_buf *b, u64 first, u64 last)
{
	pd_buf_u64(b, first);
	pd_buf_u64(b, last);
}

/**
 * pd_feat_clockid - CLOCKID: the resolution of the sampling clock in ns.
 */
void pd_feat_clockid(struct pd_buf *b, u64 res_ns)
{
	pd_buf_u64(b, res_ns);
}

/**
 * pd_feat_clock_data - CLOCK_DATA (version 1): a wall-clock time and the sampling clock's time
 * taken at the same moment, so that perf can print wall-clock times.
 */
void pd_feat_clock_data(struct pd_buf *b, u32 clockid, u64 tod_ns, u64 clockid_ns)
{
	struct pd_clock_data_feature f = {
		.version = 1,
		.clockid = clockid,
		.tod_ns = tod_ns,
		.clockid_ns = clockid_ns,
	};

	pd_buf_append(b, &f, sizeof(f));
}

static void string_list(struct pd_buf *b, u32 n, const char *const *s)
{
	u32 i;

	pd_buf_u32(b, n);
	for (i = 0; i < n; i++)
		pd_buf_string(b, s[i] ? s[i] : "");
}

/**
 * pd_feat_cpu_topology - CPU_TOPOLOGY, as write_cpu_topology() lays it out.
 *
 * The die block is left out when nr_die_sib is 0, as perf does on machines without die
 * topology; perf reads the file fine either way.
 */
void pd_feat_cpu_topology(struct pd_buf *b, u32 nr_core_sib, const char *const *core_sib,
			  u32 nr_thread_sib, const char *const *thread_sib, u32 nr_cpus,
			  const u32 *core_id, const u32 *socket_id, u32 nr_die_sib,
			  const char *const *die_sib, const u32 *die_id)
{
	u32 i;

	string_list(b, nr_core_sib, core_sib);
	string_list(b, nr_thread_sib, thread_sib);
	for (i = 0; i < nr_cpus; i++) {
		pd_buf_u32(b, core_id[i]);
		pd_buf_u32(b, socket_id[i]);
	}
	if (!nr_die_sib)
		return;
	string_list(b, nr_die_sib, die_sib);
	for (i = 0; i < nr_cpus; i++)
		pd_buf_u32(b, die_id[i]);
}

/**
 * pd_feat_build_id_add - append one BUILD_ID entry (a perf_record_header_build_id).
 *
 * pid is -1: perf puts the binary on the host machine; any other pid would make it invent a
 * guest. The filename is padded to 64 bytes as perf's write_buildid() pads it.
 */
void pd_feat_build_id_add(struct pd_buf *b, u16 misc, const u8 *id, u8 id_size,
			  const char *filename)
{
	size_t n = strlen(filename) + 1;
	size_t padded = (n + PD_NAME_ALIGN - 1) / PD_NAME_ALIGN * PD_NAME_ALIGN;
	struct pd_record_header h = {
		.type = 0,
		.misc = misc | PD_BUILD_ID_MISC_SIZE,
	};
	struct pd_build_id_body body = { .pid = -1 };
	u8 *dst;

	if (id_size > sizeof(body.data))
		id_size = sizeof(body.data);
	memcpy(body.data, id, id_size);
	body.size = id_size;
	if (sizeof(h) + sizeof(body) + padded > PD_RECORD_MAX) {
		/* No real path is this long; an entry perf could not read is worse than none. */
		pd_log(0, "build-id entry for a %zu-byte file name left out", n);
		return;
	}
	h.size = (u16)(sizeof(h) + sizeof(body) + padded);
	pd_buf_append(b, &h, sizeof(h));
	pd_buf_append(b, &body, sizeof(body));
	dst = pd_buf_append(b, NULL, padded);
	if (dst)
		memcpy(dst, filename, n);
}

/**
 * pd_feat_next_string - decode one feature string at *pos, advancing *pos.
 *
 * Return: the string (NUL-terminated inside the payload), or NULL if it runs past len or has
 * no NUL within its length; *pos is then left alone.
 */
const char *pd_feat_next_string(const void *payload, size_t len, size_t *pos)
{
	const u8 *p = payload;
	u32 slen;

	if (!payload || *pos > len || len - *pos < sizeof(slen))
		return NULL;
	memcpy(&slen, p + *pos, sizeof(slen));
	if (slen == 0 || slen > len - *pos - sizeof(slen))
		return NULL;
	if (!memchr(p + *pos + sizeof(slen), '\0', slen))
		return NULL;
	*pos += sizeof(slen) + slen;
	return (const char *)(p + *pos - slen);
}
