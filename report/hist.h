/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The profile of prec report: samples added up per event into rows ("hist entries") by the sort
 * keys, with their call chains, as perf report builds its histograms (--no-children). The printers
 * read it: the table (text and JSON, report/top.h), folded stacks and the flame graph
 * (report/flame.h); the profile view (report/profile.c) builds it and calls one of them.
 *
 * Call chains are where the time goes on big files, so a sample's chain is turned into frame
 * numbers (session_resolve(), cached) and counted in a hash table keyed by (row, command, frames):
 * most samples repeat a chain seen before. The trees the views print are built from the distinct
 * chains only, after the file has been read.
 */
#ifndef PREC_REPORT_HIST_H
#define PREC_REPORT_HIST_H

#include <regex.h>
#include <stdbool.h>
#include <stdio.h>

#include "report/report.h"
#include "report/session.h"
#include "util/hash-index.h"

/* A row. */
struct hist_entry {
	/* the key: what the sort keys compare (fields of keys not in use are zero) */
	const char *comm;	/* interned */
	const char *dso_name;	/* interned short name; NULL without a map */
	u64 sym_start, sym_end; /* a symbol, by its address range in its binary, as perf compares */
	const struct sym *inl;	/* an inlined function's symbol (perf compares those by name) */
	bool resolved;
	u64 rel; /* unresolved: the map-relative address */
	int tid, cpu;
	char level;
	const char *srcline; /* the sort key srcline: one pointer per text (report/srcline.h) */
	const char *parent;  /* the sort key parent: interned; NULL for perf's [other] */
	u32 hash;
	/* what it shows */
	u32 frame;	       /* the frame of its first sample */
	struct thread *thread; /* the thread of its first sample */
	u64 period, samples;
	u64 period_sys, period_us; /* of period: kernel and user samples (--show-cpu-utilization) */
	u64 acc_period, acc_samples; /* --children: with the samples of chains through it */
	u32 chain_root;		     /* the root of its call-chain tree; 0 for none */
	u32 gid;		     /* a number unique across events */
	int attr;		     /* its event */
};

struct hist_bucket {
	u32 hash, idx; /* idx UINT32_MAX: empty */
};

struct hists {
	struct hist_entry *v;
	u32 nr, cap;
	struct hist_bucket *table;
	u32 mask;
	u64 total_period;
	u64 nr_samples; /* what the samples stand for: WEIGHT each when counted in the kernel */
	u64 nr_records; /* the SAMPLE records: perf report's count */
	u64 nr_filtered; /* samples counted in the totals but left out by --comm, --pid, --tid */
	u64 filtered_period; /* and their period (--percentage relative leaves them out) */
	u32 *sorted;	 /* the entries in output order, after hists_finish() */
};

/* A node of a call-chain tree (per row) or of the folded-stack tree (all samples). */
struct cnode {
	u32 key; /* a frame number, or in the folded tree a name number */
	u32 parent, first_child, next_sibling;
	u64 hit;	       /* period of the chains that end here */
	u64 cumul;	       /* period of the chains through here (ending here too) */
	u64 count_self, count; /* the same in samples */
};

/*
 * A distinct chain: its counts, then what identifies it (row, command, frames). They follow each
 * other in one arena, each padded to 8 bytes, found through a table of (hash, offset) buckets.
 */
struct chain_rec {
	u64 count, period;
	const char *comm;
	u32 gid;
	u32 n; /* frames that follow; the top bit: no callchain, the sample's own frame */
	u32 frames[]; /* and with -g address, n places (struct chain_loc numbers) after them */
};

/* With -g address, a chain entry's place: its frame at an address, and the source line there. */
struct chain_loc {
	u32 frame;
	u64 ip;
	const char *line; /* interned by report/srcline.h; NULL: none shown */
};

struct chain_bucket {
	u32 hash;
	u32 off; /* in 8-byte words into the arena; UINT32_MAX: empty */
};

struct profile {
	struct session s;
	struct report_opts *o;
	struct hists *ev;
	u32 nr_ev;
	u32 next_gid;
	bool want_chains; /* collect chains: graph, folded or flame graph */
	bool want_folded; /* folded stacks or a flame graph: samples without chains too */
	bool user_stacks; /* chains are shown, and the file's events record user stacks */
	/* distinct chains */
	u64 *arena;
	size_t arena_len, arena_cap; /* in 8-byte words */
	struct chain_bucket *buckets;
	u32 bucket_mask, nr_chains;
	u64 memo_hits;	 /* samples whose chain was their thread's previous one (-vv) */
	u64 row_lookups; /* samples whose row was not one of their thread's last (-vv) */
	struct row_cache_entry *row_cache;
	u64 resolves; /* chain addresses resolved (not taken from the memo) */
	u32 *scratch; /* chain_frames()'s per-entry frames and modes */
	u32 scratch_cap;
	/* the trees */
	struct cnode *nodes;
	u32 nr_nodes, cap_nodes;
	u32 *node_table, node_mask;
	u32 folded_root;
	/* per frame: the interned short name of its dso, and its folded name */
	const char **frame_dso;
	u32 *frame_name;
	u32 frame_cache_len;
	/* what could not be resolved: samples whose ip has no symbol, and those with no map */
	u64 unresolved, unresolved_nomap;
	u64 filtered; /* samples that a --comm, --pid or --tid filter left out */
	u64 samples_shown;
	struct hist_entry **by_gid;
	struct srclines *srclines; /* line tables: the sort key srcline's, inlined frames' */
	bool srcline_key;	   /* the sort key srcline is in use */
	bool inlines;		   /* add inlined functions to unwound user frames */
	u32 *cframes;		   /* a sample's frames */
	u32 cframes_cap;
	u32 *xframes;		   /* and with the inlined functions */
	u32 *xlocs;		   /* with -g address: their places */
	u32 xframes_cap;
	bool addr_key;		   /* -g address: chains hold the places of their frames too */
	struct chain_loc *locs;	   /* the places, numbered from 1, found through loc_ix */
	u32 nr_locs, cap_locs;
	struct hash_index loc_ix;
	u32 max_chain;		   /* the most frames of a distinct chain */
	u32 *tree_buf;		   /* room for three chains, while the trees are built */
	regex_t *parent_re;	   /* the sort key parent's; NULL without that key */
	u8 *parent_match;	   /* per frame: 0 not tried, 1 matches, 2 does not */
	u32 parent_match_len;
};

/**
 * profile_run - read the file of rep and build the profile with the options o.
 *
 * Return: 0, or -1 after printing an error.
 */
int profile_run(struct profile *p, struct report *rep, struct report_opts *o);
/* Free the profile and its session. */
void profile_free(struct profile *p);

/**
 * file_has_chains - whether some event of the file read by r records call chains.
 *
 * Return: true when one does. Pipe mode declares events as it goes: ask after reading.
 */
bool file_has_chains(struct pd_reader *r);

/**
 * profile_chains_build - make the call-chain trees of every row (callee or caller order) and
 * the folded tree, from the distinct chains.
 */
void profile_chains_build(struct profile *p);

/* What a row's share is of: its own period, or with --children what passed through it. */
static inline u64 entry_shown_period(const struct report_opts *o, const struct hist_entry *e)
{
	return o->children ? e->acc_period : e->period;
}

/* The period percentages are of: the event's, or with --percentage relative what was shown. */
static inline u64 hists_pct_total(const struct report_opts *o, const struct hists *hs)
{
	return o->pct_relative ? hs->total_period - hs->filtered_period : hs->total_period;
}

/* The smallest period a call graph of event hs shows (perf's min_callchain_hits). */
static inline u64 hists_min_chain_hit(const struct report_opts *o, const struct hists *hs)
{
	return (u64)((double)hists_pct_total(o, hs) * o->chain_min / 100.0);
}

/* Room for the text of a chain entry: a symbol's name, its source line and "(inlined)". */
#define CHAIN_NAME_MAX 4400

/*
 * The text shown for a call-graph node's key f (perf's callchain_list__sym_name()): a frame, or
 * with -g address a place.
 */
const char *frame_chain_name(struct profile *p, u32 f, char *buf, size_t len);
/* The name of a frame in folded stacks: its symbol, else [dso] or [unknown]. */
const char *frame_folded_name(struct profile *p, u32 f);
/* The interned short dso name of frame f (NULL without a map). */
const char *frame_dso_name(struct profile *p, u32 f);

/* The summary of what could not be resolved, one line (malloc'ed); NULL when all was. */
char *profile_unresolved_line(struct profile *p, bool header);
/* The dsos with unresolved samples, most first (malloc'ed array of *nr). */
struct dso **profile_unresolved_dsos(struct profile *p, u32 *nr);

#endif
