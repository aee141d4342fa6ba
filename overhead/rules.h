/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rules behind the findings (overhead/model.h), which overhead_model_judge() runs on a
 * finished model, and what the model and its rules share: the findings being gathered and the
 * arithmetic of the figures. Inside overhead/ only: the model's callers use overhead/model.h.
 */
#ifndef PREC_OVERHEAD_RULES_H
#define PREC_OVERHEAD_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "overhead/model.h"

#define NS_PER_S 1e9

/* The findings being gathered: each rule appends its own. */
struct om_findings {
	struct om_finding *f;
	int nr, cap;
	bool oom;	  /* a rule ran out of memory: the judgement fails */
	const char *rule; /* the id of the rule that runs: its findings' id */
	double budget;	  /* --budget, in % of a CPU */
};

/* part as a share of whole, in %; -1 when whole is not positive (unknown). */
static inline double pct_of(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : -1;
}

/* n per second over wall_ns; 0 when the time is unknown. */
static inline double rate_of(u64 n, u64 wall_ns)
{
	return wall_ns ? (double)n * NS_PER_S / (double)wall_ns : 0;
}

/* a + b, held at the largest u64: figures from a damaged file must not wrap around. */
static inline u64 sat_add(u64 a, u64 b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/**
 * overhead_rules_run - apply every rule to a finished model, in the rules' order; a finding
 * that needs memory it cannot get sets fs->oom.
 */
void overhead_rules_run(const struct overhead_model *m, struct om_findings *fs);

/**
 * om_event_cpu_samples - the samples of event ev on cpu (overhead/model.c).
 *
 * Return: their number; 0 for an event or CPU the model has no samples of.
 */
u64 om_event_cpu_samples(const struct overhead_model *m, u32 ev, int cpu);

#endif
