// SPDX-License-Identifier: GPL-2.0
/*
 * prec stat's output in perf stat 6.1's layout (record/stat-print.h). The widths are perf's: an
 * 18-wide count, a 4-wide unit, a 32-wide name (25 for a line without a count), a 35-wide metric
 * column, " CPU%-7d" before the count with -A. The metric of a software event is perf's shadow
 * metric: a clock event's time over the wall time ("CPUs utilized"), any other event per second
 * of the clock events' time in the same slot ("/sec", with K, M or G above a thousand); without a
 * clock event in the slot there is none.
 */
#include <math.h>
#include <string.h>

#include "record/stat-print.h"

#define COUNT_WIDTH 18
#define UNIT_WIDTH 4
#define NAME_WIDTH 32
#define NAME_WIDTH_UNCOUNTED 25
#define METRIC_WIDTH 35
#define INTERVAL_HEADER_EVERY 25

static const char *sep_of(const struct stat_print *p)
{
	return p->sep ? p->sep : " ";
}

static bool counted(const struct stat_print_value *v)
{
	return v->run > 0 && v->ena > 0;
}

/* The count scaled up to the time the event was enabled, as perf scales a multiplexed one. */
static double scaled(const struct stat_print_value *v)
{
	if (v->run > 0 && v->run < v->ena)
		return v->val * v->ena / v->run;
	return v->val;
}

/* The clock events' mean time in a slot (ns), or -1 when none was counted there. */
static double slot_nsecs(const struct stat_print_event *ev, int nr,
			 const struct stat_print_value *v, int stride, int slot)
{
	double sum = 0;
	int n = 0;

	for (int e = 0; e < nr; e++) {
		const struct stat_print_value *x = &v[e * stride + slot];

		if (ev[e].clock && ev[e].supported && counted(x)) {
			sum += scaled(x);
			n++;
		}
	}
	return n ? sum / n : -1;
}

/* One metric: its value (perf's "%8.3f") and its unit, or an empty column when unit is NULL. */
static void print_metric(const struct stat_print *p, const char *unit, double val)
{
	char buf[64];
	const char *s, *e;

	if (!p->sep) {
		int n;

		if (!unit) {
			fprintf(p->out, "%-*s", METRIC_WIDTH, "");
			return;
		}
		n = fprintf(p->out, " # ");
		n += fprintf(p->out, "%8.3f", val);
		fprintf(p->out, " %-*s", METRIC_WIDTH - n - 1, unit);
		return;
	}
	if (!unit) {
		fprintf(p->out, "%s%s", p->sep, p->sep);
		return;
	}
	snprintf(buf, sizeof(buf), "%8.3f", val);
	for (s = buf; *s == ' '; s++)
		;
	for (e = s; (*e >= '0' && *e <= '9') || *e == '.'; e++)
		;
	fprintf(p->out, "%s%.*s%s%s", p->sep, (int)(e - s), s, p->sep, unit);
}

static void print_shadow(const struct stat_print *p, const struct stat_print_event *ev,
			 double val, double nsecs, double walltime_ns)
{
	static const char units[] = "KMG";
	char unit[16] = "/sec";
	double ratio = 0;

	if (ev->clock) {
		print_metric(p, "CPUs utilized", walltime_ns ? val / walltime_ns : 0);
		return;
	}
	if (nsecs < 0) {
		print_metric(p, NULL, 0);
		return;
	}
	if (nsecs)
		ratio = 1e9 * val / nsecs;
	for (int i = 0; i < 3 && ratio > 1000.0; i++) {
		ratio /= 1000.0;
		snprintf(unit, sizeof(unit), "%c/sec", units[i]);
	}
	print_metric(p, unit, ratio);
}

static void print_noise(const struct stat_print *p, double pct)
{
	if (p->run_count <= 1)
		return;
	if (p->sep)
		fprintf(p->out, "%s%.2f%%", p->sep, pct);
	else if (pct)
		fprintf(p->out, "  ( +-%6.2f%% )", pct);
}

static void print_running(const struct stat_print *p, double run, double ena)
{
	if (p->sep) {
		/* perf divides its u64 times here: a whole percentage */
		double pct = run != ena ? floor(100 * run / ena) : 100;

		fprintf(p->out, "%s%.0f%s%.2f", p->sep, run, p->sep, pct);
	} else if (run != ena) {
		fprintf(p->out, "  (%.2f%%)", 100.0 * run / ena);
	}
}

static void print_line(const struct stat_print *p, const struct stat_print_event *ev,
		       const struct stat_print_value *v, int cpu, double nsecs,
		       double walltime_ns, const char *prefix)
{
	const char *sep = sep_of(p);
	double val;

	if (prefix)
		fputs(prefix, p->out);
	if (cpu >= 0)
		fprintf(p->out, "CPU%*d%s", p->sep ? 0 : -7, cpu, sep);
	if (!ev->supported || !counted(v)) {
		fprintf(p->out, "%*s%s", p->sep ? 0 : COUNT_WIDTH,
			ev->supported ? "<not counted>" : "<not supported>", sep);
		fprintf(p->out, "%-*s%s", p->sep ? 0 : UNIT_WIDTH, ev->unit, sep);
		fprintf(p->out, "%*s", p->sep ? 0 : -NAME_WIDTH_UNCOUNTED, ev->name);
		if (!p->sep)
			print_metric(p, NULL, 0);
		print_noise(p, v->noise_pct);
		print_running(p, v->run, v->ena);
		if (p->sep)
			print_metric(p, NULL, 0);
		fputc('\n', p->out);
		return;
	}
	val = scaled(v);
	/* two decimals for a count in a unit (msec), none for a plain count */
	if (p->sep && floor(ev->scale) != ev->scale)
		fprintf(p->out, "%.2f%s", val * ev->scale, sep);
	else if (p->sep)
		fprintf(p->out, "%.0f%s", val * ev->scale, sep);
	else if (floor(ev->scale) != ev->scale)
		fprintf(p->out, "%'18.2f%s", val * ev->scale, sep);
	else
		fprintf(p->out, "%'18.0f%s", val * ev->scale, sep);
	fprintf(p->out, "%-*s%s", p->sep ? 0 : UNIT_WIDTH, ev->unit, sep);
	fprintf(p->out, "%-*s", p->sep ? 0 : NAME_WIDTH, ev->name);
	if (p->sep) {
		print_noise(p, v->noise_pct);
		print_running(p, v->run, v->ena);
	}
	print_shadow(p, ev, val, nsecs, walltime_ns);
	if (!p->sep) {
		print_noise(p, v->noise_pct);
		print_running(p, v->run, v->ena);
	}
	fputc('\n', p->out);
}

void stat_print_counters(struct stat_print *p, const struct stat_print_event *ev, int nr,
			 const struct stat_print_value *v, double walltime_ns, const char *prefix)
{
	int slots = p->no_aggr ? p->nr_cpus : 1;

	for (int e = 0; e < nr; e++) {
		for (int s = 0; s < slots; s++) {
			double nsecs = p->clock_ns ? p->clock_ns[s] : slot_nsecs(ev, nr, v, slots, s);

			print_line(p, &ev[e], &v[e * slots + s], p->no_aggr ? p->cpus[s] : -1,
				   nsecs, walltime_ns, prefix);
		}
	}
}

void stat_print_header(const struct stat_print *p, const char *what)
{
	if (p->sep)
		return;
	fprintf(p->out, "\n Performance counter stats for %s", what);
	if (p->run_count > 1)
		fprintf(p->out, " (%d runs)", p->run_count);
	fputs(":\n\n", p->out);
}

void stat_print_interval_header(struct stat_print *p)
{
	if (!p->sep && p->nr_intervals == 0) {
		if (p->no_aggr)
			fprintf(p->out, "#           time CPU                    counts %*s events\n",
				UNIT_WIDTH, "unit");
		else
			fprintf(p->out, "#           time             counts %*s events\n",
				UNIT_WIDTH, "unit");
	}
	if (++p->nr_intervals == INTERVAL_HEADER_EVERY)
		p->nr_intervals = 0;
}

/* Two digits more than the standard deviation's first significant one, as perf shows it. */
static int elapsed_precision(double sd)
{
	if (sd > 1)
		return 2;
	if (sd <= 0)
		return 9;
	return (int)lround(ceil(-log10(sd))) + 2;
}

void stat_print_footer(const struct stat_print *p, double elapsed_s, double elapsed_sd_s,
		       const struct rusage *ru)
{
	if (p->sep)
		return;
	fputc('\n', p->out);
	if (p->run_count <= 1) {
		fprintf(p->out, " %17.9f seconds time elapsed", elapsed_s);
		if (ru) {
			fprintf(p->out, "\n\n %17.9f seconds user\n",
				ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6);
			fprintf(p->out, " %17.9f seconds sys\n",
				ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6);
		}
	} else {
		int prec = elapsed_precision(elapsed_sd_s);

		fprintf(p->out, " %17.*f +- %.*f seconds time elapsed", prec, elapsed_s, prec,
			elapsed_sd_s);
		if (elapsed_s && elapsed_sd_s)
			fprintf(p->out, "  ( +-%6.2f%% )", 100.0 * elapsed_sd_s / elapsed_s);
	}
	fputs("\n\n", p->out);
}

void stat_print_timestamp(const struct stat_print *p, unsigned long long ts_ns, char *buf,
			  size_t len)
{
	snprintf(buf, len, "%6llu.%09llu%s", ts_ns / 1000000000ULL, ts_ns % 1000000000ULL,
		 sep_of(p));
}

double stat_print_sd_mean(double sum, double sumsq, int n)
{
	double mean, var;

	if (n < 2)
		return 0;
	mean = sum / n;
	var = (sumsq - n * mean * mean) / (n - 1);
	return var > 0 ? sqrt(var / n) : 0;
}
