// SPDX-License-Identifier: GPL-2.0
/*
 * The facts section (PD_FEAT_PREC): encoding a struct overhead_facts as the key=value text that
 * overhead/facts.h describes, and parsing it back. The parser trusts nothing: every number is
 * range-checked, every CPU and event number bounded, every string cut to its field.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overhead/facts.h"
#include "util/perf-event.h"

static const char *const sideband_names[OVERHEAD_SIDEBAND_NR] = {
    [OVERHEAD_SIDEBAND_MMAP] = "mmap",
    [OVERHEAD_SIDEBAND_COMM] = "comm",
};

_Thread_local u64 overhead_steps;

/**
 * overhead_facts_init - set every fact to unknown.
 */
void overhead_facts_init(struct overhead_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->version = OVERHEAD_FACTS_VERSION;
	f->nmi_watchdog = -1;
	f->comp_level = -1;
	f->dropped_passes = -1;
	f->queue_max_bytes = -1;
}

/**
 * overhead_facts_release - free the arrays and forget everything.
 */
void overhead_facts_release(struct overhead_facts *f)
{
	free(f->cpus);
	free(f->events);
	free(f->cpu_pos);
	free(f->event_pos);
	overhead_facts_init(f);
}

/* The position + 1 of key in an index (0: absent). */
static u32 pos_of(const u32 *pos, u32 nr_pos, long long key)
{
	overhead_steps++;
	return key >= 0 && key < nr_pos ? pos[key] : 0;
}

/*
 * Make room for one more element in *arr (n of them, cap of room, sz bytes each) and for key in
 * the index *pos (nr_pos entries, at most max + 1). Return false without memory.
 */
static bool make_room(void **arr, u32 n, u32 *cap, size_t sz, u32 **pos, u32 *nr_pos, u32 key,
		      u32 max)
{
	if (n == *cap) {
		u32 c = *cap ? *cap * 2 : 8;
		void *a = realloc(*arr, (size_t)c * sz);

		if (!a)
			return false;
		*arr = a;
		*cap = c;
	}
	if (key >= *nr_pos) {
		u32 np = key < max / 2 ? 2 * key + 2 : max + 1;
		u32 *p = realloc(*pos, (size_t)np * sizeof(*p));

		if (!p)
			return false;
		memset(p + *nr_pos, 0, (size_t)(np - *nr_pos) * sizeof(*p));
		*pos = p;
		*nr_pos = np;
	}
	return true;
}

/**
 * overhead_facts_find_cpu - the entry of a CPU, or NULL.
 */
const struct overhead_fact_cpu *overhead_facts_find_cpu(const struct overhead_facts *f, int cpu)
{
	u32 p = pos_of(f->cpu_pos, f->nr_cpu_pos, cpu);

	return p ? &f->cpus[p - 1] : NULL;
}

/**
 * overhead_facts_cpu - the entry of a CPU, added when missing; NULL when out of range or no
 * memory.
 */
struct overhead_fact_cpu *overhead_facts_cpu(struct overhead_facts *f, int cpu)
{
	struct overhead_fact_cpu *c = (struct overhead_fact_cpu *)overhead_facts_find_cpu(f, cpu);

	if (c)
		return c;
	if (cpu < 0 || cpu > OVERHEAD_FACTS_MAX_CPU)
		return NULL;
	if (!make_room((void **)&f->cpus, f->nr_cpus, &f->cpus_cap, sizeof(*c), &f->cpu_pos,
		       &f->nr_cpu_pos, (u32)cpu, OVERHEAD_FACTS_MAX_CPU))
		return NULL;
	c = &f->cpus[f->nr_cpus++];
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	f->cpu_pos[cpu] = f->nr_cpus;
	return c;
}

/**
 * overhead_facts_find_event - the entry of an event (attr index), or NULL.
 */
const struct overhead_fact_event *overhead_facts_find_event(const struct overhead_facts *f, u32 idx)
{
	u32 p = pos_of(f->event_pos, f->nr_event_pos, idx);

	return p ? &f->events[p - 1] : NULL;
}

/**
 * overhead_facts_event - the entry of an event, added when missing; NULL when out of range or no
 * memory.
 */
struct overhead_fact_event *overhead_facts_event(struct overhead_facts *f, u32 idx)
{
	struct overhead_fact_event *e =
	    (struct overhead_fact_event *)overhead_facts_find_event(f, idx);

	if (e)
		return e;
	if (idx > OVERHEAD_FACTS_MAX_EVENT)
		return NULL;
	if (!make_room((void **)&f->events, f->nr_events, &f->events_cap, sizeof(*e), &f->event_pos,
		       &f->nr_event_pos, idx, OVERHEAD_FACTS_MAX_EVENT))
		return NULL;
	e = &f->events[f->nr_events++];
	memset(e, 0, sizeof(*e));
	e->idx = idx;
	e->shared_with = -1;
	f->event_pos[idx] = f->nr_events;
	return e;
}

/**
 * overhead_fact_bpf_name - the word of a bpf_counter value.
 *
 * Return: "created", "joined", or NULL for none.
 */
const char *overhead_fact_bpf_name(enum overhead_fact_bpf b)
{
	return b == OVERHEAD_FACT_BPF_CREATED ? "created"
	       : b == OVERHEAD_FACT_BPF_JOINED ? "joined"
					       : NULL;
}

/**
 * overhead_fact_set_string - copy a string value, cut to fit.
 */
void overhead_fact_set_string(char *dst, size_t len, const char *src)
{
	if (!len)
		return;
	snprintf(dst, len, "%s", src ? src : "");
}

/**
 * overhead_fact_from_calib - a calibration result as a fact.
 */
void overhead_fact_from_calib(struct overhead_fact_calib *dst, const struct overhead_calib *c)
{
	memset(dst, 0, sizeof(*dst));
	if (c->err) {
		dst->state = OVERHEAD_FACT_FAILED;
		overhead_fact_set_string(dst->reason, sizeof(dst->reason),
					 c->reason[0] ? c->reason : strerror(-c->err));
		return;
	}
	dst->state = OVERHEAD_FACT_OK;
	dst->ns = c->ns;
	dst->min_ns = c->min_ns;
	dst->max_ns = c->max_ns;
	dst->handler_ns = c->handler_ns;
	dst->runs = c->runs > 0 ? (u32)c->runs : 0;
	dst->units = c->units;
}

/* ---------------------------------------------------------------------------------------- */
/* Encoding */

__attribute__((format(printf, 2, 3))) static void line(struct pd_buf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(tmp))
		n = sizeof(tmp) - 1;
	pd_buf_append(b, tmp, (size_t)n);
	pd_buf_append(b, "\n", 1);
}

/* key=value with the value escaped; nothing for an empty value. */
static void line_str(struct pd_buf *b, const char *key, const char *v)
{
	if (!v || !*v)
		return;
	pd_buf_append(b, key, strlen(key));
	pd_buf_append(b, "=", 1);
	for (; *v; v++) {
		switch (*v) {
		case '\\':
			pd_buf_append(b, "\\\\", 2);
			break;
		case '\n':
			pd_buf_append(b, "\\n", 2);
			break;
		case '\r':
			pd_buf_append(b, "\\r", 2);
			break;
		default:
			pd_buf_append(b, v, 1);
		}
	}
	pd_buf_append(b, "\n", 1);
}

static void encode_calib(struct pd_buf *b, const char *prefix, const struct overhead_fact_calib *c,
			 bool handler)
{
	char key[96];

	if (c->state == OVERHEAD_FACT_ABSENT)
		return;
	if (c->state == OVERHEAD_FACT_FAILED) {
		snprintf(key, sizeof(key), "%s.error", prefix);
		line_str(b, key, c->reason[0] ? c->reason : "failed");
		return;
	}
	line(b, "%s.ns=%.3f", prefix, c->ns);
	line(b, "%s.min_ns=%.3f", prefix, c->min_ns);
	line(b, "%s.max_ns=%.3f", prefix, c->max_ns);
	line(b, "%s.runs=%" PRIu32, prefix, c->runs);
	if (c->units)
		line(b, "%s.samples=%" PRIu64, prefix, c->units);
	if (handler)
		line(b, "%s.handler_ns=%.3f", prefix, c->handler_ns);
}

/**
 * overhead_facts_encode - append the PD_FEAT_PREC payload of f to out.
 *
 * Return: 0, or -ENOMEM.
 */
int overhead_facts_encode(const struct overhead_facts *f, struct pd_buf *out)
{
	char key[96];

	line(out, "%s %d", OVERHEAD_FACTS_MAGIC, OVERHEAD_FACTS_VERSION);
	line_str(out, "source", f->source);
	line_str(out, "source.wanted", f->source_wanted);
	line_str(out, "source.reason", f->source_reason);
	if (f->interval_ns)
		line(out, "interval_ns=%" PRIu64, f->interval_ns);
	if (f->counters_interval_ns)
		line(out, "counters.interval_ns=%" PRIu64, f->counters_interval_ns);
	if (f->aggregate_interval_ns)
		line(out, "aggregate.interval_ns=%" PRIu64, f->aggregate_interval_ns);
	if (f->aggregate_entries)
		line(out, "aggregate.entries=%" PRIu64, f->aggregate_entries);
	if (f->max_rate_before)
		line(out, "max_sample_rate.before=%" PRIu64, f->max_rate_before);
	if (f->max_rate_after)
		line(out, "max_sample_rate.after=%" PRIu64, f->max_rate_after);
	if (f->nmi_watchdog >= 0)
		line(out, "nmi_watchdog=%d", f->nmi_watchdog);
	if (f->calib_age_ns)
		line(out, "calibration.age_ns=%" PRIu64, f->calib_age_ns);
	if (f->mmap_pages)
		line(out, "mmap_pages=%" PRIu32, f->mmap_pages);
	if (f->comp_level >= 0)
		line(out, "compression_level=%d", f->comp_level);
	if (f->dropped_passes >= 0)
		line(out, "writer.dropped_passes=%" PRId64, f->dropped_passes);
	if (f->queue_max_bytes >= 0)
		line(out, "writer.queue_max_bytes=%" PRId64, f->queue_max_bytes);
	for (int k = 0; k < OVERHEAD_SIDEBAND_NR; k++) {
		snprintf(key, sizeof(key), "sideband.%s", sideband_names[k]);
		encode_calib(out, key, &f->sideband[k], false);
	}
	if (f->have_sideband_records) {
		for (u32 t = 1; t < PD_KERNEL_RECORD_MAX; t++) {
			const char *name = pd_record_type_name(t);

			if (name && f->sideband_records[t])
				line(out, "sideband.records.%s=%" PRIu64, name,
				     f->sideband_records[t]);
		}
	}
	for (u32 i = 0; i < f->nr_cpus; i++) {
		const struct overhead_fact_cpu *c = &f->cpus[i];

		if (c->wall_ns)
			line(out, "cpu.%d.wall_ns=%" PRIu64, c->cpu, c->wall_ns);
		snprintf(key, sizeof(key), "cpu.%d.stolen", c->cpu);
		encode_calib(out, key, &c->stolen, false);
		snprintf(key, sizeof(key), "cpu.%d.collector", c->cpu);
		encode_calib(out, key, &c->collector, true);
	}
	for (u32 i = 0; i < f->nr_events; i++) {
		const struct overhead_fact_event *e = &f->events[i];

		if (e->freq)
			line(out, "event.%" PRIu32 ".freq=%" PRIu64, e->idx, e->freq);
		if (e->period)
			line(out, "event.%" PRIu32 ".period=%" PRIu64, e->idx, e->period);
		if (e->shared_with >= 0)
			line(out, "event.%" PRIu32 ".shared_with=%d", e->idx, e->shared_with);
		if (overhead_fact_bpf_name(e->bpf_counter))
			line(out, "event.%" PRIu32 ".bpf_counter=%s", e->idx,
			     overhead_fact_bpf_name(e->bpf_counter));
		snprintf(key, sizeof(key), "event.%" PRIu32 ".bpf_counter_fallback", e->idx);
		line_str(out, key, e->bpf_fallback);
		if (e->aggregated)
			line(out, "event.%" PRIu32 ".aggregated=1", e->idx);
		if (e->hf_period)
			line(out, "event.%" PRIu32 ".hf_period=%" PRIu32, e->idx, e->hf_period);
		if (e->hf_rand)
			line(out, "event.%" PRIu32 ".hf_rand=%" PRIu32, e->idx, e->hf_rand);
	}
	/* NUL-terminated, and a whole number of u64s like every other section. */
	pd_buf_append(out, "", 1);
	pd_buf_pad(out, 8);
	return out->err ? out->err : 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Decoding */

struct parser {
	struct overhead_facts *f;
	char *why;
	size_t why_len;
	int lineno;
};

__attribute__((format(printf, 3, 4))) static int bad(struct parser *p, int err, const char *fmt,
						     ...)
{
	char msg[256];
	va_list ap;

	if (!p->why || !p->why_len)
		return err;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->why, p->why_len, "prec facts, line %d: %s", p->lineno, msg);
	return err;
}

static int parse_u64(const char *s, u64 *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

static int parse_s64(const char *s, s64 *v)
{
	const char *d = *s == '-' ? s + 1 : s;
	char *end;

	if (*d < '0' || *d > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

/*
 * A finite ns figure of at most a day either way; negative only when signed. The calibrated
 * figures (ns, min_ns, max_ns) are differences, time lost with something on minus time lost
 * without it, and a noisy run comes out below zero: that is information, not damage.
 */
static int parse_ns(const char *s, double *v, bool sign)
{
	const char *d = sign && *s == '-' ? s + 1 : s;
	char *end;

	if ((*d < '0' || *d > '9') && *d != '.')
		return -EINVAL;
	errno = 0;
	*v = strtod(s, &end);
	if (errno || *end || !(*v >= -86400e9 && *v <= 86400e9))
		return -EINVAL;
	return 0;
}

/* Undo the escapes of line_str() in place. */
static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			*w++ = *s == 'n' ? '\n' : *s == 'r' ? '\r' : *s;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

static int set_calib(struct parser *p, struct overhead_fact_calib *c, const char *field,
		     const char *v)
{
	double d;
	u64 n;

	if (!strcmp(field, "error")) {
		c->state = OVERHEAD_FACT_FAILED;
		overhead_fact_set_string(c->reason, sizeof(c->reason), v);
		return 0;
	}
	if (!strcmp(field, "runs") || !strcmp(field, "samples")) {
		if (parse_u64(v, &n) || (field[0] == 'r' && n > UINT32_MAX))
			return bad(p, -EINVAL, "%s: not a count: '%s'", field, v);
		if (field[0] == 'r')
			c->runs = (u32)n;
		else
			c->units = n;
		return 0;
	}
	if (strcmp(field, "ns") && strcmp(field, "min_ns") && strcmp(field, "max_ns") &&
	    strcmp(field, "handler_ns"))
		return 0; /* a later version's field */
	/* handler_ns is a measured time; the others are differences (see parse_ns()). */
	if (parse_ns(v, &d, strcmp(field, "handler_ns") != 0))
		return bad(p, -EINVAL, "%s: not a time in ns: '%s'", field, v);
	if (!strcmp(field, "ns")) {
		c->ns = d;
		c->state = OVERHEAD_FACT_OK;
	} else if (!strcmp(field, "min_ns")) {
		c->min_ns = d;
	} else if (!strcmp(field, "max_ns")) {
		c->max_ns = d;
	} else {
		c->handler_ns = d;
	}
	return 0;
}

/* "N.rest": the number N (at most max) and where rest starts; -1 when it is not one. */
static long long index_of(const char *s, long long max, const char **rest)
{
	long long n = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		n = n * 10 + (*s - '0');
		if (n > max)
			return -1;
	}
	if (*s != '.')
		return -1;
	*rest = s + 1;
	return n;
}

static int set_cpu(struct parser *p, const char *key, const char *v)
{
	const char *rest;
	long long cpu = index_of(key, OVERHEAD_FACTS_MAX_CPU, &rest);
	struct overhead_fact_cpu *c;
	u64 n;

	if (cpu < 0)
		return bad(p, -EINVAL, "cpu.%s: not a CPU number up to %d", key,
			   OVERHEAD_FACTS_MAX_CPU);
	c = overhead_facts_cpu(p->f, (int)cpu);
	if (!c)
		return -ENOMEM;
	if (!strcmp(rest, "wall_ns")) {
		if (parse_u64(v, &n))
			return bad(p, -EINVAL, "cpu.%s: not a time in ns: '%s'", key, v);
		c->wall_ns = n;
		return 0;
	}
	if (!strncmp(rest, "stolen.", 7))
		return set_calib(p, &c->stolen, rest + 7, v);
	if (!strncmp(rest, "collector.", 10))
		return set_calib(p, &c->collector, rest + 10, v);
	return 0;
}

static int set_event(struct parser *p, const char *key, const char *v)
{
	const char *rest;
	long long idx = index_of(key, OVERHEAD_FACTS_MAX_EVENT, &rest);
	struct overhead_fact_event *e;
	u64 n;

	if (idx < 0)
		return bad(p, -EINVAL, "event.%s: not an event index up to %d", key,
			   OVERHEAD_FACTS_MAX_EVENT);
	if (strcmp(rest, "freq") && strcmp(rest, "period") && strcmp(rest, "shared_with") &&
	    strcmp(rest, "aggregated") && strcmp(rest, "bpf_counter") &&
	    strcmp(rest, "bpf_counter_fallback") && strcmp(rest, "hf_period") &&
	    strcmp(rest, "hf_rand"))
		return 0;
	e = overhead_facts_event(p->f, (u32)idx);
	if (!e)
		return -ENOMEM;
	if (!strcmp(rest, "bpf_counter_fallback")) {
		overhead_fact_set_string(e->bpf_fallback, sizeof(e->bpf_fallback), v);
		return 0;
	}
	if (!strcmp(rest, "bpf_counter")) {
		if (!strcmp(v, "created"))
			e->bpf_counter = OVERHEAD_FACT_BPF_CREATED;
		else if (!strcmp(v, "joined"))
			e->bpf_counter = OVERHEAD_FACT_BPF_JOINED;
		else
			return bad(p, -EINVAL, "event.%s: not created or joined: '%s'", key, v);
		return 0;
	}
	if (parse_u64(v, &n))
		return bad(p, -EINVAL, "event.%s: not a number: '%s'", key, v);
	if (!strcmp(rest, "freq")) {
		e->freq = n;
	} else if (!strcmp(rest, "period")) {
		e->period = n;
	} else if (!strcmp(rest, "hf_period")) {
		if (n > UINT32_MAX)
			return bad(p, -EINVAL, "event.%s: above 32 bits: '%s'", key, v);
		e->hf_period = (u32)n;
	} else if (!strcmp(rest, "hf_rand")) {
		if (n > PERF_ATTR_HF_RAND_MAX)
			return bad(p, -EINVAL, "event.%s: not an exponent up to %d: '%s'", key,
				   PERF_ATTR_HF_RAND_MAX, v);
		e->hf_rand = (u32)n;
	} else if (!strcmp(rest, "aggregated")) {
		if (n > 1)
			return bad(p, -EINVAL, "event.%s: not 0 or 1: '%s'", key, v);
		e->aggregated = n == 1;
	} else {
		if (n > OVERHEAD_FACTS_MAX_EVENT)
			return bad(p, -EINVAL, "event.%s: no such event index: '%s'", key, v);
		e->shared_with = (int)n;
	}
	return 0;
}

static int set_u64(struct parser *p, const char *key, const char *v, u64 *dst)
{
	if (parse_u64(v, dst))
		return bad(p, -EINVAL, "%s: not a number: '%s'", key, v);
	return 0;
}

static int set_s64(struct parser *p, const char *key, const char *v, s64 *dst, s64 min, s64 max)
{
	if (parse_s64(v, dst) || *dst < min || *dst > max)
		return bad(p, -EINVAL, "%s: not a number from %" PRId64 " to %" PRId64 ": '%s'",
			   key, min, max, v);
	return 0;
}

static int set_key(struct parser *p, const char *key, char *v)
{
	struct overhead_facts *f = p->f;
	s64 n;
	int err;

	unescape(v);
	if (!strcmp(key, "source"))
		overhead_fact_set_string(f->source, sizeof(f->source), v);
	else if (!strcmp(key, "source.wanted"))
		overhead_fact_set_string(f->source_wanted, sizeof(f->source_wanted), v);
	else if (!strcmp(key, "source.reason"))
		overhead_fact_set_string(f->source_reason, sizeof(f->source_reason), v);
	else if (!strcmp(key, "interval_ns"))
		return set_u64(p, key, v, &f->interval_ns);
	else if (!strcmp(key, "counters.interval_ns"))
		return set_u64(p, key, v, &f->counters_interval_ns);
	else if (!strcmp(key, "aggregate.interval_ns"))
		return set_u64(p, key, v, &f->aggregate_interval_ns);
	else if (!strcmp(key, "aggregate.entries"))
		return set_u64(p, key, v, &f->aggregate_entries);
	else if (!strcmp(key, "max_sample_rate.before"))
		return set_u64(p, key, v, &f->max_rate_before);
	else if (!strcmp(key, "max_sample_rate.after"))
		return set_u64(p, key, v, &f->max_rate_after);
	else if (!strcmp(key, "calibration.age_ns"))
		return set_u64(p, key, v, &f->calib_age_ns);
	else if (!strcmp(key, "nmi_watchdog")) {
		err = set_s64(p, key, v, &n, 0, INT32_MAX);
		if (!err)
			f->nmi_watchdog = (int)n;
		return err;
	} else if (!strcmp(key, "mmap_pages")) {
		err = set_s64(p, key, v, &n, 0, UINT32_MAX);
		if (!err)
			f->mmap_pages = (u32)n;
		return err;
	} else if (!strcmp(key, "compression_level")) {
		err = set_s64(p, key, v, &n, 0, 99);
		if (!err)
			f->comp_level = (int)n;
		return err;
	} else if (!strcmp(key, "writer.dropped_passes"))
		return set_s64(p, key, v, &f->dropped_passes, 0, INT64_MAX);
	else if (!strcmp(key, "writer.queue_max_bytes"))
		return set_s64(p, key, v, &f->queue_max_bytes, 0, INT64_MAX);
	else if (!strncmp(key, "sideband.records.", 17)) {
		for (u32 t = 1; t < PD_KERNEL_RECORD_MAX; t++) {
			const char *name = pd_record_type_name(t);

			if (name && !strcmp(name, key + 17)) {
				f->have_sideband_records = true;
				return set_u64(p, key, v, &f->sideband_records[t]);
			}
		}
	} else if (!strncmp(key, "sideband.", 9)) {
		for (int k = 0; k < OVERHEAD_SIDEBAND_NR; k++) {
			size_t nl = strlen(sideband_names[k]);

			if (!strncmp(key + 9, sideband_names[k], nl) && key[9 + nl] == '.')
				return set_calib(p, &f->sideband[k], key + 10 + nl, v);
		}
	} else if (!strncmp(key, "cpu.", 4)) {
		return set_cpu(p, key + 4, v);
	} else if (!strncmp(key, "event.", 6)) {
		return set_event(p, key + 6, v);
	}
	return 0;
}

/**
 * overhead_facts_decode - parse a PD_FEAT_PREC payload into f.
 *
 * Return: 0, -EPROTO (not a facts text of a version this reader knows), -EINVAL (a bad line,
 * named in why) or -ENOMEM; f is released on failure.
 */
int overhead_facts_decode(const void *payload, size_t len, struct overhead_facts *f, char *why,
			  size_t why_len)
{
	struct parser p = {f, why, why_len, 0};
	const char *nul = payload ? memchr(payload, '\0', len) : NULL;
	char *text, *s, *next;
	unsigned version = 0;
	int err = 0, n = 0;

	overhead_facts_init(f);
	if (why && why_len)
		why[0] = '\0';
	if (nul)
		len = (size_t)(nul - (const char *)payload);
	text = malloc(len + 1);
	if (!text)
		return -ENOMEM;
	if (len)
		memcpy(text, payload, len);
	text[len] = '\0';

	for (s = text; s && !err; s = next) {
		char *eq;

		next = strchr(s, '\n');
		if (next)
			*next++ = '\0';
		p.lineno++;
		if (p.lineno == 1) {
			if (sscanf(s, OVERHEAD_FACTS_MAGIC " %u%n", &version, &n) != 1 ||
			    s[n] != '\0')
				err = bad(&p, -EPROTO, "not a prec facts section");
			else if (version != OVERHEAD_FACTS_VERSION)
				err = bad(&p, -EPROTO, "version %u (this prec reads %d)", version,
					  OVERHEAD_FACTS_VERSION);
			else
				f->version = version;
			continue;
		}
		if (!*s)
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			err = bad(&p, -EINVAL, "no '=' in '%.40s'", s);
			break;
		}
		*eq = '\0';
		err = set_key(&p, s, eq + 1);
	}
	if (!err && p.lineno == 0)
		err = bad(&p, -EPROTO, "empty");
	free(text);
	if (err)
		overhead_facts_release(f);
	return err;
}
