/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf.data format as perf 6.1 reads it: every magic number, record type, feature bit and
 * field layout prec knows lives here. Kernel record types and sample_type bits come from
 * <linux/perf_event.h> (6.1 UAPI, so perf_event_attr is 128 bytes, PERF_ATTR_SIZE_VER7); the
 * user-space record types and the file structures are perf's own (tools/perf/util/header.h,
 * tools/lib/perf/include/perf/event.h). All values are little-endian on disk.
 */
#ifndef PREC_FORMAT_ONDISK_H
#define PREC_FORMAT_ONDISK_H

#include <endian.h>
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

/*
 * Fields at any alignment, in the files' byte order (little-endian): records, feature payloads
 * and raw tracepoint data do not keep their fields aligned, so they are read and written through
 * memcpy, which compiles to a plain load or store where the CPU allows it.
 */
static inline u16 pd_get_u16(const void *p)
{
	u16 v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

static inline u32 pd_get_u32(const void *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline u64 pd_get_u64(const void *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static inline void pd_put_u16(void *p, u16 v)
{
	v = htole16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void pd_put_u32(void *p, u32 v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void pd_put_u64(void *p, u64 v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

/* "PERFILE2" read as a little-endian u64. Byte-swapped means a big-endian file. */
#define PD_MAGIC 0x32454c4946524550ULL
#define PD_MAGIC_SWAPPED 0x50455246494c4532ULL

/* perf 6.1 rejects attrs larger than PERF_ATTR_SIZE_VER7 ("incompatible file format"). */
#define PD_ATTR_SIZE 128
/* Bytes of one attrs-section entry: the attr followed by its ids section. */
#define PD_FILE_ATTR_SIZE (PD_ATTR_SIZE + 16)

/* Strings in features are padded to a multiple of this, and their u32 length counts the pad. */
#define PD_NAME_ALIGN 64

/* A record is at most this long: header.size is a u16. */
#define PD_RECORD_MAX 65535

struct pd_file_section {
	u64 offset;
	u64 size;
};

/* struct perf_file_header, 104 bytes. */
struct pd_file_header {
	u64 magic;
	u64 size;      /* sizeof(struct pd_file_header); 72 is the old header without features */
	u64 attr_size; /* PD_FILE_ATTR_SIZE: used only to count attrs */
	struct pd_file_section attrs;
	struct pd_file_section data;
	struct pd_file_section event_types; /* ignored by perf; zeros */
	u64 features[4];                    /* 256-bit feature bitmap, bit n in word n / 64 */
};

/* Pipe mode starts with this instead: magic and size 16, then records only. */
struct pd_pipe_file_header {
	u64 magic;
	u64 size;
};

/* User-space record types (64 and up); 0..PERF_RECORD_MAX-1 are the kernel's. */
enum pd_user_record_type {
	PD_RECORD_HEADER_ATTR = 64,
	PD_RECORD_HEADER_EVENT_TYPE = 65, /* deprecated; perf ignores the payload */
	PD_RECORD_HEADER_TRACING_DATA = 66,
	PD_RECORD_HEADER_BUILD_ID = 67,
	PD_RECORD_FINISHED_ROUND = 68,
	PD_RECORD_ID_INDEX = 69,
	PD_RECORD_AUXTRACE_INFO = 70,
	PD_RECORD_AUXTRACE = 71,
	PD_RECORD_AUXTRACE_ERROR = 72,
	PD_RECORD_THREAD_MAP = 73,
	PD_RECORD_CPU_MAP = 74,
	PD_RECORD_STAT_CONFIG = 75,
	PD_RECORD_STAT = 76,
	PD_RECORD_STAT_ROUND = 77,
	PD_RECORD_EVENT_UPDATE = 78,
	PD_RECORD_TIME_CONV = 79,
	PD_RECORD_HEADER_FEATURE = 80,
	PD_RECORD_COMPRESSED = 81,
	PD_RECORD_FINISHED_INIT = 82,
	PD_RECORD_HEADER_MAX = 83, /* perf 6.1 fails with -EINVAL at and above this */
};

/* Kernel record types perf 6.1 knows: PERF_RECORD_MAX in its headers. */
#define PD_KERNEL_RECORD_MAX 22

/* Feature bits (enum starting at HEADER_TRACING_DATA = 1 in util/header.h). */
enum pd_feature {
	PD_FEAT_RESERVED = 0,
	PD_FEAT_TRACING_DATA = 1,
	PD_FEAT_BUILD_ID,
	PD_FEAT_HOSTNAME,
	PD_FEAT_OSRELEASE,
	PD_FEAT_VERSION,
	PD_FEAT_ARCH,
	PD_FEAT_NRCPUS,
	PD_FEAT_CPUDESC,
	PD_FEAT_CPUID,
	PD_FEAT_TOTAL_MEM,
	PD_FEAT_CMDLINE,
	PD_FEAT_EVENT_DESC,
	PD_FEAT_CPU_TOPOLOGY,
	PD_FEAT_NUMA_TOPOLOGY,
	PD_FEAT_BRANCH_STACK,
	PD_FEAT_PMU_MAPPINGS,
	PD_FEAT_GROUP_DESC,
	PD_FEAT_AUXTRACE,
	PD_FEAT_STAT,
	PD_FEAT_CACHE,
	PD_FEAT_SAMPLE_TIME,
	PD_FEAT_MEM_TOPOLOGY,
	PD_FEAT_CLOCKID,
	PD_FEAT_DIR_FORMAT,
	PD_FEAT_BPF_PROG_INFO,
	PD_FEAT_BPF_BTF,
	PD_FEAT_COMPRESSED,
	PD_FEAT_CPU_PMU_CAPS,
	PD_FEAT_CLOCK_DATA,
	PD_FEAT_HYBRID_TOPOLOGY,
	PD_FEAT_PMU_CAPS,
	PD_FEAT_LAST_KNOWN, /* 32: perf 6.1 visits only bits below this */
	PD_FEAT_BITS = 256,
};

/*
 * A feature bit at or above PD_FEAT_LAST_KNOWN is ignored by perf 6.1 but still needs its table
 * entry. prec keeps its own file-level facts (the overhead source, the calibration) there.
 */
#define PD_FEAT_PREC 64

/*
 * perf's own misc bit on the FORK records it synthesizes (tools/perf/util/event.h): the child's
 * maps follow as MMAP2 records, so perf must not copy the parent's. Not in the kernel UAPI.
 */
#define PD_RECORD_MISC_FORK_EXEC (1 << 13)

/* The record header every record starts with (struct perf_event_header). */
struct pd_record_header {
	u32 type;
	u16 misc;
	u16 size; /* of the whole record, header included; at least 8, a multiple of 8 */
};

/*
 * Record bodies, after the header. Records ending in a sample_id trailer (sample_id_all) carry
 * pid/tid, time, id, stream_id, cpu, identifier as the attr's sample_type says; the trailer is
 * not part of these structs.
 */
struct pd_comm_body {
	u32 pid, tid;
	/* char comm[]: NUL-terminated, padded to 8 */
};

struct pd_mmap_body {
	u32 pid, tid;
	u64 start, len, pgoff;
	/* char filename[]: NUL-terminated, padded to 8 */
};

struct pd_mmap2_body {
	u32 pid, tid;
	u64 start, len, pgoff;
	union {
		struct {
			u32 maj, min;
			u64 ino, ino_generation;
		};
		struct { /* misc & PERF_RECORD_MISC_MMAP_BUILD_ID */
			u8 build_id_size;
			u8 reserved1;
			u16 reserved2;
			u8 build_id[20];
		};
	};
	u32 prot, flags;
	/* char filename[]: NUL-terminated, padded to 8 */
};

struct pd_fork_body { /* FORK and EXIT */
	u32 pid, ppid;
	u32 tid, ptid;
	u64 time;
};

struct pd_lost_body {
	u64 id;
	u64 lost;
};

struct pd_lost_samples_body {
	u64 lost;
};

struct pd_throttle_body { /* THROTTLE and UNTHROTTLE */
	u64 time;
	u64 id;
	u64 stream_id;
};

struct pd_ksymbol_body { /* KSYMBOL */
	u64 addr;
	u32 len;
	u16 ksym_type; /* PERF_RECORD_KSYMBOL_TYPE_* */
	u16 flags;     /* PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER */
	/* char name[]: NUL-terminated, padded to 8 */
};

struct pd_switch_cpu_wide_body { /* SWITCH_CPU_WIDE; SWITCH has no body */
	u32 next_prev_pid;
	u32 next_prev_tid;
};

struct pd_thread_map_entry {
	u64 pid;
	char comm[16];
};

struct pd_thread_map_body {
	u64 nr;
	/* struct pd_thread_map_entry entries[nr] */
};

enum pd_cpu_map_type {
	PD_CPU_MAP_CPUS = 0,  /* u16 nr, u16 cpu[nr]; 0xffff is -1 ("any") */
	PD_CPU_MAP_MASK = 1,  /* u16 nr, u16 long_size, [pad], masks */
	PD_CPU_MAP_RANGE = 2, /* u8 any_cpu, u8 pad, u16 start, u16 end */
};

enum pd_stat_config_tag {
	PD_STAT_CONFIG_AGGR_MODE = 0,
	PD_STAT_CONFIG_INTERVAL = 1, /* ms */
	PD_STAT_CONFIG_SCALE = 2,
};

enum pd_aggr_mode {
	PD_AGGR_NONE = 0,
	PD_AGGR_GLOBAL = 1,
	PD_AGGR_SOCKET = 2,
	PD_AGGR_DIE = 3,
	PD_AGGR_CORE = 4,
	PD_AGGR_THREAD = 5,
	PD_AGGR_NODE = 7,
};

struct pd_stat_config_entry {
	u64 tag;
	u64 val;
};

/* PERF_RECORD_STAT, 48 bytes with the header. Values are cumulative. */
struct pd_stat_body {
	u64 id;
	u32 cpu;    /* a CPU number that must be in the CPU_MAP */
	u32 thread; /* an index into the THREAD_MAP */
	u64 val, ena, run;
};

/*
 * The ids prec record --count gives a logical event that reads another event's counter (a
 * shared reading, man/prec-data.5): PD_PREC_SHARED_ID_BASE up to PD_PREC_SHARED_ID_END
 * (excluded), above the kernel's ids and prec's synthetic ones. They say which readings are
 * shared when the facts section is missing (pipe mode).
 */
#define PD_PREC_SHARED_ID_BASE 0x7072656380000000ULL
#define PD_PREC_SHARED_ID_END 0x7072656400000000ULL

enum pd_stat_round_type {
	PD_STAT_ROUND_INTERVAL = 0,
	PD_STAT_ROUND_FINAL = 1,
};

struct pd_stat_round_body {
	u64 type;
	u64 time; /* ns since the start for interval rounds */
};

enum pd_event_update_type {
	PD_EVENT_UPDATE_UNIT = 0,
	PD_EVENT_UPDATE_SCALE = 1,
	PD_EVENT_UPDATE_NAME = 2,
	PD_EVENT_UPDATE_CPUS = 3,
};

struct pd_event_update_body {
	u64 type;
	u64 id;
	/* unit/name: char[] padded to 8; scale: double; cpus: a cpu_map body */
};

struct pd_time_conv_body {
	u64 time_shift;
	u64 time_mult;
	u64 time_zero;
	u64 time_cycles;
	u64 time_mask;
	u8 cap_user_time_zero;
	u8 cap_user_time_short;
	u8 reserved[6];
};

struct pd_id_index_entry {
	u64 id, idx, cpu, tid;
};

/* HEADER_ATTR in pipe mode: the attr (attr.size bytes) then its u64 ids to the record's end. */

/* HEADER_BUILD_ID record and BUILD_ID feature entry (struct perf_record_header_build_id). */
#define PD_BUILD_ID_MISC_SIZE 0x8000 /* misc flag: the size byte is valid */
struct pd_build_id_body {
	s32 pid; /* -1: the host machine; anything else makes perf invent a guest */
	u8 data[20];
	u8 size;
	u8 reserved[3];
	/* char filename[]: NUL-terminated, padded to PD_NAME_ALIGN */
};

/* HEADER_COMPRESSED feature payload. */
#define PD_COMP_ZSTD 1
struct pd_compressed_feature {
	u32 version; /* 0 */
	u32 type;    /* PD_COMP_ZSTD */
	u32 level;
	u32 ratio;
	u32 mmap_len; /* perf's decompression buffer per record: bound the output by it */
};

/* CLOCK_DATA feature payload. */
struct pd_clock_data_feature {
	u32 version; /* 1 */
	u32 clockid;
	u64 tod_ns;
	u64 clockid_ns;
};

/* Tracing data: the magic that opens it, and the version perf 6.1 writes. */
#define PD_TRACING_MAGIC "\027\010\104tracing"
#define PD_TRACING_MAGIC_LEN 10
#define PD_TRACING_VERSION "0.6"

/* Tracepoint IDs prec gives its own synthetic events: far above what kernels assign. */
#define PD_PREC_EVENT_ID_BASE 65000
#define PD_PREC_EVENT_ID_MAX 65534

#endif
