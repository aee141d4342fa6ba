// SPDX-License-Identifier: GPL-2.0
/*
 * perf report's filters, as perf 6.1 applies them: --time drops the samples outside its ranges
 * before anything counts them; --dsos, --symbols and --symbol-filter hide rows whose samples
 * still count in the event's total (the percentages stay those of the whole file);
 * --hide-unresolved drops the samples without a symbol, and the frames without one from call
 * chains; --max-stack keeps that many entries of each chain, counted from the end the chains are
 * shown from (the sample's function, or with caller order the outermost caller).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/filter.h"
#include "util/log.h"
#include "util/xalloc.h"

/* "SEC[.NSEC]" (up to nine digits after the point), as perf reads a time; "" leaves it open. */
static int parse_time(const char *s, const char *end, u64 *ns)
{
	u64 sec = 0, frac = 0;
	int digits = 0;
	const char *p = s;

	*ns = 0;
	if (p == end)
		return 0;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (sec > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		sec = sec * 10 + (u64)(*p - '0');
	}
	if (p < end && *p == '.') {
		for (p++; p < end && *p >= '0' && *p <= '9'; p++) {
			if (++digits > 9)
				return -EINVAL;
			frac = frac * 10 + (u64)(*p - '0');
		}
	}
	if (p != end || sec > UINT64_MAX / 1000000000ULL - 1)
		return -EINVAL;
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = sec * 1000000000ULL + frac;
	return 0;
}

/* "12.5%" with the '%' at end[-1]: a fraction from 0 to 1. */
static int parse_pct(const char *s, const char *end, double *v)
{
	char buf[64], *e;

	if (end - s < 2 || end[-1] != '%' || (size_t)(end - s) >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, (size_t)(end - s - 1));
	buf[end - s - 1] = '\0';
	*v = strtod(buf, &e) / 100.0;
	if (e == buf || *e || !(*v >= 0.0 && *v <= 1.0))
		return -EINVAL;
	return 0;
}

/*
 * The range between fractions a and b of [first, last]; the end stops a nanosecond short of the
 * next slice unless it is the last sample, so that slices do not share a sample.
 */
static void pct_range(struct time_range *r, double a, double b, u64 first, u64 last)
{
	u64 span = last - first;

	r->start = first + (u64)llround(a * (double)span);
	r->end = first + (u64)llround(b * (double)span);
	if (r->end > r->start && r->end != last)
		r->end--;
}

/* One percent item: "10%/2" (the second tenth), "0%-10%" or "10%" (the first tenth). */
static int parse_pct_item(const char *s, const char *end, u64 first, u64 last, struct time_range *r)
{
	const char *slash = memchr(s, '/', (size_t)(end - s));
	const char *dash = memchr(s, '-', (size_t)(end - s));
	double a, b;

	if (slash) {
		char buf[32], *e;
		long i;

		if (parse_pct(s, slash, &a) || a <= 0.0 || (size_t)(end - slash) >= sizeof(buf) ||
		    end - slash < 2)
			return -EINVAL;
		memcpy(buf, slash + 1, (size_t)(end - slash - 1));
		buf[end - slash - 1] = '\0';
		errno = 0;
		i = strtol(buf, &e, 10);
		if (*e || errno || a * (double)(i - 1) < 0.0 || a * (double)i > 1.0)
			return -EINVAL;
		pct_range(r, a * (double)(i - 1), a * (double)i, first, last);
		return 0;
	}
	if (dash) {
		if (parse_pct(s, dash, &a) || parse_pct(dash + 1, end, &b))
			return -EINVAL;
		pct_range(r, a, b, first, last);
		return 0;
	}
	if (parse_pct(s, end, &a))
		return -EINVAL;
	pct_range(r, 0.0, a, first, last);
	return 0;
}

int filter_time_parse(const char *str, u64 first, u64 last, struct time_range **out, u32 *nr)
{
	const char *p = str, *end = str + strlen(str);
	struct time_range *v = NULL;
	u32 n = 0;
	int ret = 0;

	*out = NULL;
	*nr = 0;
	if (!*str)
		return -EINVAL;
	if (strchr(str, '%')) {
		/* percent items, comma-separated, all of the kind of the first ("/" or "-") */
		bool slash = strchr(str, '/'), dash = !slash && strchr(str, '-');

		for (;;) {
			const char *c = memchr(p, ',', (size_t)(end - p)), *e = c ? c : end;

			if ((slash && !memchr(p, '/', (size_t)(e - p))) ||
			    (dash && !memchr(p, '-', (size_t)(e - p))) || (!slash && !dash && c)) {
				ret = -EINVAL;
				break;
			}
			v = xrealloc(v, (n + 1) * sizeof(*v));
			ret = parse_pct_item(p, e, first, last, &v[n]);
			if (ret)
				break;
			n++;
			if (!c)
				break;
			p = c + 1;
		}
	} else {
		/* "START,STOP", several of them separated by spaces, in order, not overlapping */
		for (;;) {
			const char *c, *e;

			while (*p == ' ')
				p++;
			c = strchr(p, ',');
			if (!c) {
				ret = -EINVAL;
				break;
			}
			e = c + 1 + strcspn(c + 1, " ,");
			if (*e == ',') {
				ret = -EINVAL;
				break;
			}
			v = xrealloc(v, (n + 1) * sizeof(*v));
			if (parse_time(p, c, &v[n].start) || parse_time(c + 1, e, &v[n].end) ||
			    (v[n].end && v[n].end < v[n].start) ||
			    (n && v[n - 1].end >= v[n].start)) {
				ret = -EINVAL;
				break;
			}
			n++;
			p = e;
			while (*p == ' ')
				p++;
			if (!*p)
				break;
		}
	}
	if (ret) {
		free(v);
		return ret;
	}
	*out = v;
	*nr = n;
	return 0;
}

int filter_time_setup(struct report *rep, struct filter_opts *f)
{
	const u64 *st;
	size_t len;
	u64 first = 0, last = 0;

	if (!f->time_str)
		return 0;
	st = pd_reader_feature(rep->r, PD_FEAT_SAMPLE_TIME, &len);
	if (st && len >= 16) {
		memcpy(&first, st, 8);
		memcpy(&last, (const u8 *)st + 8, 8);
	}
	if (strchr(f->time_str, '%') && !first && !last)
		return error("%s: --time with percentages needs the times of the first and last "
			     "samples, which the file does not record",
			     rep->name);
	free(f->times);
	if (filter_time_parse(f->time_str, first, last, &f->times, &f->nr_times))
		return error("--time: '%s' is not a time range", f->time_str);
	return 0;
}

bool filter_time_skip(const struct filter_opts *f, u64 time)
{
	if (!f->nr_times || !time)
		return false;
	for (u32 i = 0; i < f->nr_times; i++) {
		const struct time_range *r = &f->times[i];

		if (f->nr_times == 1) {
			/* one range: an end of 0 is open */
			return (r->start && time < r->start) || (r->end && time > r->end);
		}
		if (time >= r->start && (!r->end || time <= r->end))
			return false;
	}
	return true;
}

static bool in_list(char *const *list, u32 nr, const char *s)
{
	for (u32 i = 0; i < nr; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

bool filter_frame_skip(const struct filter_opts *f, u32 attr, const struct frame *fr)
{
	if (f->nr_dsos && (!fr->dso || !(in_list(f->dsos, f->nr_dsos, fr->dso->short_name) ||
					 in_list(f->dsos, f->nr_dsos, fr->dso->name))))
		return true;
	if (f->nr_syms && (!fr->sym || !in_list(f->syms, f->nr_syms, sym_name(fr->sym))))
		return true;
	/* perf 6.1 gives --symbol-filter to the histogram of its first event alone */
	if (f->sym_substr && attr == 0 && (!fr->sym || !strstr(sym_name(fr->sym), f->sym_substr)))
		return true;
	return false;
}

static bool in_ints(const int *v, u32 nr, int x)
{
	for (u32 i = 0; i < nr; i++)
		if (v[i] == x)
			return true;
	return false;
}

bool thread_filtered(const struct report_opts *o, const struct thread *t)
{
	return (o->nr_comms && !in_list(o->comms, o->nr_comms, t->comm)) ||
	       (o->nr_pids && !in_ints(o->pids, o->nr_pids, t->pid)) ||
	       (o->nr_tids && !in_ints(o->tids, o->nr_tids, t->tid));
}

u32 filter_sample_skip(const struct report_opts *o, struct session *s, struct thread *t,
		       const struct psample *smp, u32 *frame)
{
	const struct filter_opts *f = &o->filter;
	u32 why = 0, fr;

	if ((o->cpu_filter && (smp->cpu < 0 || !cpu_map_has(&o->cpus, smp->cpu))) ||
	    filter_time_skip(f, smp->time))
		return FILTER_SKIP_OUTSIDE;
	if (thread_filtered(o, t))
		why |= FILTER_SKIP_THREAD;
	/* resolving is left to the caller when nothing here needs the frame */
	if (!frame && !f->hide_unresolved && !f->nr_dsos && !f->nr_syms && !f->sym_substr)
		return why;
	fr = session_resolve_flagged(s, t, smp->cpumode, smp->ip);
	if (frame)
		*frame = fr;
	if ((fr & FRAME_UNRESOLVED) && f->hide_unresolved)
		why |= FILTER_SKIP_UNRESOLVED;
	if (!why && filter_frame_skip(f, (u32)smp->attr, session_frame(s, fr & ~FRAME_UNRESOLVED)))
		why |= FILTER_SKIP_FRAME;
	return why;
}

u32 filter_chain(const struct filter_opts *f, const struct session *s, bool caller, u32 *frames,
		 u32 *aux, u32 n)
{
	u32 out = 0;

	if (f->max_stack > 0 && n > (u32)f->max_stack) {
		/* perf walks the chain from the end it shows first and stops after max_stack */
		if (caller) {
			memmove(frames, frames + n - (u32)f->max_stack,
				(size_t)f->max_stack * sizeof(*frames));
			if (aux)
				memmove(aux, aux + n - (u32)f->max_stack,
					(size_t)f->max_stack * sizeof(*aux));
		}
		n = (u32)f->max_stack;
	}
	if (!f->hide_unresolved)
		return n;
	for (u32 i = 0; i < n; i++) {
		if (!session_frame(s, frames[i])->sym)
			continue;
		if (aux)
			aux[out] = aux[i];
		frames[out++] = frames[i];
	}
	return out;
}

u32 filter_sample_chain(const struct filter_opts *f, const struct session *s,
			const struct psample *smp, bool caller, u32 *frames, u32 *pos, u32 n,
			u32 *kept_kernel)
{
	u32 nk = 0, nu;

	if (!smp->unwound)
		return *kept_kernel = filter_chain(f, s, caller, frames, pos, n);
	for (u32 i = 0; i < smp->unwound_at; i++)
		nk += smp->chain[i] < PERF_CONTEXT_MAX;
	nk = nk < FILTER_MAX_STACK ? nk : FILTER_MAX_STACK;
	nk = nk < n ? nk : n;
	nu = n - nk;
	nk = filter_chain(f, s, caller, frames, pos, nk);
	*kept_kernel = nk;
	memmove(frames + nk, frames + (n - nu), nu * sizeof(*frames));
	memmove(pos + nk, pos + (n - nu), nu * sizeof(*pos));
	return nk + filter_chain(f, s, caller, frames + nk, pos + nk, nu);
}

int filter_list_add(char ***list, u32 *nr, const char *arg)
{
	char *copy = xstrdup(arg), *tok, *save = NULL;
	u32 before = *nr;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		*list = xrealloc(*list, (*nr + 1) * sizeof(char *));
		(*list)[(*nr)++] = xstrdup(tok);
	}
	free(copy);
	return *nr > before ? 0 : -EINVAL;
}

void filter_heading(const struct report_opts *o, FILE *out)
{
	for (u32 k = 0; k < o->nr_keys; k++)
		if (o->keys[k] == SORT_DSO && o->filter.nr_dsos == 1)
			fprintf(out, "# dso: %s\n", o->filter.dsos[0]);
	for (u32 k = 0; k < o->nr_keys; k++)
		if (o->keys[k] == SORT_SYM && o->filter.nr_syms == 1)
			fprintf(out, "# symbol: %s\n", o->filter.syms[0]);
}

void filter_opts_free(struct filter_opts *f)
{
	for (u32 i = 0; i < f->nr_dsos; i++)
		free(f->dsos[i]);
	for (u32 i = 0; i < f->nr_syms; i++)
		free(f->syms[i]);
	free(f->dsos);
	free(f->syms);
	free(f->times);
	memset(f, 0, sizeof(*f));
}
