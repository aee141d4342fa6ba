// SPDX-License-Identifier: GPL-2.0
/*
 * perf's -e grammar, parsed by hand with perf 6.1's meaning (checked against perf 6.1 itself: see
 * tests/unit/test-parse-events.c for the commands).
 *
 *	list	:= item (',' item)*
 *	item	:= [name] '{' event (',' event)* '}' [':' mods] | event
 *	event	:= head '/' terms '/' [mods]	PMU, symbol, cache, raw, T:C, tracepoint + terms
 *		 | word [':' mods]		symbol, cache event, rHEX, PMU alias
 *		 | T ':' C [':' mods]		numeric type and config
 *		 | sys ':' name [':' mods]	tracepoint, * and ? wildcards
 *		 | 'mem:' addr ['/' len] [':' rwx] [':' mods]
 *
 * Names follow perf 6.1: the event's own text as typed (modifiers included, group modifiers not),
 * except tracepoints ("sys:name"), cache events (the typed words, without terms or modifiers) and
 * name= terms.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <tracefs.h>

#include "record/hook.h"
#include "record/parse-events.h"
#include "record/pmu.h"
#include "util/event-names.h"
#include "util/log.h"
#include "util/xalloc.h"

/* The modifiers perf 6.1 knows; P, W and b are refused below with a reason. */
#define MODIFIER_CHARS "ukhpPGHSDIWeb"

struct pstate {
	const char *str;
	struct parse_error *err;
	bool failed;
	/* the events of this call; appended to the list only when the whole string parsed */
	struct event_spec *ev;
	bool *own_gh; /* per event: it had a G or H modifier of its own (perf's exclude_GH) */
	int nr, alloc;
	int base; /* list->nr when the call started: leader indexes are list indexes */
};

struct term {
	char *key;
	char *val;   /* as written, quotes removed; NULL when the term has no '=' */
	bool is_num; /* val is a number (or there is no value: perf reads a bare term as =1) */
	__u64 num;
	int kpos, vpos; /* where to point errors */
	bool from_alias;
};

struct terms {
	struct term *t;
	int nr;
};

/* ---------------------------------------------------------------------------------------- */
/* errors */

__attribute__((format(printf, 3, 4))) static int fail(struct pstate *ps, int pos, const char *fmt,
						      ...)
{
	va_list ap;

	if (ps->failed)
		return -1;
	ps->failed = true;
	ps->err->pos = pos;
	ps->err->help[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(ps->err->msg, sizeof(ps->err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* A second paragraph for the error just set by fail(). */
__attribute__((format(printf, 2, 3))) static void fail_help(struct pstate *ps, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ps->err->help, sizeof(ps->err->help), fmt, ap);
	va_end(ap);
}

/* ---------------------------------------------------------------------------------------- */
/* the events being built */

static void spec_release(struct event_spec *ev)
{
	free(ev->name);
	free(ev->pmu);
	free(ev->tp_system);
	free(ev->tp_event);
	free(ev->filter);
	free(ev->group_name);
}

/* Return: the index of a new event with perf's event_attr_init() defaults. */
static int new_event(struct pstate *ps)
{
	struct event_spec *ev;

	if (ps->nr == ps->alloc) {
		ps->alloc = ps->alloc ? 2 * ps->alloc : 8;
		ps->ev = xrealloc(ps->ev, ps->alloc * sizeof(*ps->ev));
		ps->own_gh = xrealloc(ps->own_gh, ps->alloc * sizeof(*ps->own_gh));
	}
	ev = &ps->ev[ps->nr];
	memset(ev, 0, sizeof(*ev));
	ev->attr.size = sizeof(ev->attr);
	ev->attr.exclude_guest = 1; /* perf_guest is false outside perf kvm */
	ev->leader = -1;
	ps->own_gh[ps->nr] = false;
	return ps->nr++;
}

static void drop_events(struct pstate *ps, int from)
{
	while (ps->nr > from)
		spec_release(&ps->ev[--ps->nr]);
}

/* ---------------------------------------------------------------------------------------- */
/* small lexical helpers */

static char *copy_range(const char *s, int n)
{
	return xasprintf("%.*s", n, s);
}

static int skip_spaces(const char *s, int p)
{
	while (s[p] && isspace((unsigned char)s[p]))
		p++;
	return p;
}

/* Trim [*a, *b) of surrounding whitespace. */
static void trim(const char *s, int *a, int *b)
{
	while (*a < *b && isspace((unsigned char)s[*a]))
		(*a)++;
	while (*b > *a && isspace((unsigned char)s[*b - 1]))
		(*b)--;
}

static int find_char(const char *s, int a, int b, char c)
{
	for (int i = a; i < b; i++)
		if (s[i] == c)
			return i;
	return -1;
}

/*
 * A number as perf's lexer reads one: decimal digits or 0x and hex digits. Return: 1 and *v, 0
 * when the text is not a number, -1 when it is one but does not fit 64 bits.
 */
static int parse_number(const char *s, __u64 *v)
{
	int base = 10;
	const char *p = s;
	char *end;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
		if (!isxdigit((unsigned char)*p))
			return 0;
		for (const char *q = p; *q; q++)
			if (!isxdigit((unsigned char)*q))
				return 0;
	} else {
		if (!*p)
			return 0;
		for (const char *q = p; *q; q++)
			if (!isdigit((unsigned char)*q))
				return 0;
	}
	errno = 0;
	*v = strtoull(p, &end, base);
	return errno == ERANGE ? -1 : 1;
}

static bool is_modifier_text(const char *s, int a, int b)
{
	for (int i = a; i < b; i++)
		if (!strchr(MODIFIER_CHARS, s[i]) || !s[i])
			return false;
	return true;
}

/* rNNNN: raw hex config for the core PMU. Return: as parse_number(). */
static int parse_raw(const char *word, __u64 *v)
{
	char *end;

	if (word[0] != 'r' || !word[1])
		return 0;
	for (const char *q = word + 1; *q; q++)
		if (!isxdigit((unsigned char)*q))
			return 0;
	errno = 0;
	*v = strtoull(word + 1, &end, 16);
	return errno == ERANGE ? -1 : 1;
}

/* ---------------------------------------------------------------------------------------- */
/* the generic hardware and software events, and perf stat's tool events */

struct symbol {
	const char *name; /* the spelling that matched */
	__u32 type;
	__u64 config;
};

/* The row of table that spells word exactly, with *name its spelling there; -1 when none does. */
static int find_spelling(const char *const (*table)[EVENT_NAME_ALIASES], int rows, const char *word,
			 const char **name)
{
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < EVENT_NAME_ALIASES && table[i][j]; j++)
			if (!strcmp(table[i][j], word)) {
				*name = table[i][j];
				return i;
			}
	return -1;
}

/* The generic event a word names (util/event-names.c); sym may be NULL. */
static bool find_symbol(const char *word, struct symbol *sym)
{
	struct symbol s = {NULL, PERF_TYPE_HARDWARE, 0};
	int i = find_spelling(event_hw_names, EVENT_HW_NAMES, word, &s.name);

	if (i < 0) {
		s.type = PERF_TYPE_SOFTWARE;
		i = find_spelling(event_sw_names, EVENT_SW_NAMES, word, &s.name);
	}
	if (i < 0)
		return false;
	s.config = (__u64)i;
	if (sym)
		*sym = s;
	return true;
}

static bool is_tool_event(const char *word)
{
	return !strcmp(word, "duration_time") || !strcmp(word, "user_time") ||
	       !strcmp(word, "system_time");
}

/* ---------------------------------------------------------------------------------------- */
/* hardware cache events: type[-op][-result], with perf's spellings */

#define OP_BIT(x) (1u << PERF_COUNT_HW_CACHE_OP_##x)
/* Which operations each cache has, as perf's evsel__is_cache_op_valid() allows them. */
static const unsigned int cache_ops_valid[PERF_COUNT_HW_CACHE_MAX] = {
    [PERF_COUNT_HW_CACHE_L1D] = OP_BIT(READ) | OP_BIT(WRITE) | OP_BIT(PREFETCH),
    [PERF_COUNT_HW_CACHE_L1I] = OP_BIT(READ) | OP_BIT(PREFETCH),
    [PERF_COUNT_HW_CACHE_LL] = OP_BIT(READ) | OP_BIT(WRITE) | OP_BIT(PREFETCH),
    [PERF_COUNT_HW_CACHE_DTLB] = OP_BIT(READ) | OP_BIT(WRITE) | OP_BIT(PREFETCH),
    [PERF_COUNT_HW_CACHE_ITLB] = OP_BIT(READ),
    [PERF_COUNT_HW_CACHE_BPU] = OP_BIT(READ),
    [PERF_COUNT_HW_CACHE_NODE] = OP_BIT(READ) | OP_BIT(WRITE) | OP_BIT(PREFETCH),
};

/*
 * The longest spelling in table (rows of EVENT_NAME_ALIASES) that starts word and ends at a '-'
 * or at its end, as perf's lexer splits the words. Return: the row, or -1; *len its length.
 */
static int match_word(const char *word, const char *const (*table)[EVENT_NAME_ALIASES], int rows,
		      int *len)
{
	int best = -1, best_len = 0;

	for (int i = 0; i < rows; i++) {
		for (int j = 0; j < EVENT_NAME_ALIASES && table[i][j]; j++) {
			int n = strlen(table[i][j]);

			if (n > best_len && !strncmp(word, table[i][j], n) &&
			    (word[n] == '-' || word[n] == '\0')) {
				best = i;
				best_len = n;
			}
		}
	}
	*len = best_len;
	return best;
}

/*
 * Return: 1 with *config when word is a cache event, 0 when it is not one, -1 (error set) when
 * it names an operation the cache does not have.
 */
static int parse_cache(struct pstate *ps, const char *word, int pos, __u64 *config)
{
	int type, op = -1, result = -1, len, off;

	type = match_word(word, event_cache_types, PERF_COUNT_HW_CACHE_MAX, &len);
	if (type < 0)
		return 0;
	off = len;
	/* Up to two more words; perf takes the first operation and the first result it sees. */
	for (int i = 0; i < 2 && word[off] == '-'; i++) {
		const char *w = word + off + 1;
		int o, r, olen, rlen;

		o = match_word(w, event_cache_ops, PERF_COUNT_HW_CACHE_OP_MAX, &olen);
		r = match_word(w, event_cache_results, PERF_COUNT_HW_CACHE_RESULT_MAX, &rlen);
		if (o < 0 && r < 0)
			return 0;
		if (o >= 0 && op < 0) {
			if (!(cache_ops_valid[type] & (1u << o)))
				return fail(ps, pos + off + 1, "the %.*s cache has no %s operation",
					    len, word, event_cache_ops[o][0]);
			op = o;
		} else if (r >= 0 && result < 0) {
			result = r;
		}
		off += 1 + (o >= 0 ? olen : rlen);
	}
	if (word[off])
		return 0;
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (result < 0)
		result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	*config = type | (op << 8) | ((__u64)result << 16);
	return 1;
}

/* ---------------------------------------------------------------------------------------- */
/* terms: a=1,b,name='x,y' */

static void terms_free(struct terms *ts)
{
	for (int i = 0; i < ts->nr; i++) {
		free(ts->t[i].key);
		free(ts->t[i].val);
	}
	free(ts->t);
	ts->t = NULL;
	ts->nr = 0;
}

static struct term *terms_add(struct terms *ts)
{
	ts->t = xrealloc(ts->t, (ts->nr + 1) * sizeof(*ts->t));
	memset(&ts->t[ts->nr], 0, sizeof(ts->t[0]));
	return &ts->t[ts->nr++];
}

static bool key_char(char c)
{
	return isalnum((unsigned char)c) || strchr("_-.*?:@", c);
}

/*
 * Split text (a copy of str[base..]) into terms. at_alias >= 0 parses a sysfs alias instead: its
 * errors point at the user's term there. Return: 0, or -1 with the error set.
 */
static int parse_terms(struct pstate *ps, const char *text, int base, int at_alias,
		       struct terms *out)
{
	int p = 0;

#define AT(off) (at_alias >= 0 ? at_alias : base + (off))
	if (!*text && at_alias < 0)
		return 0;
	for (;;) {
		int a = p, b, eq = -1, ka, kb;
		bool quoted = false;
		struct term *t;

		for (b = p; text[b] && (quoted || text[b] != ','); b++) {
			if (text[b] == '\'')
				quoted = !quoted;
			else if (text[b] == '=' && eq < 0 && !quoted)
				eq = b;
		}
		if (quoted)
			return fail(ps, AT(a), "unterminated quote");
		ka = a;
		kb = eq >= 0 ? eq : b;
		trim(text, &ka, &kb);
		if (ka == kb)
			return fail(ps, AT(ka), eq >= 0 ? "missing term name" : "missing term");
		for (int i = ka; i < kb; i++)
			if (!key_char(text[i]))
				return fail(ps, AT(i), "unexpected '%c' in a term name", text[i]);
		t = terms_add(out);
		t->key = copy_range(text + ka, kb - ka);
		t->kpos = t->vpos = AT(ka);
		t->from_alias = at_alias >= 0;
		if (eq < 0) {
			/* a bare term means =1, as in perf (edge, any, an alias name) */
			t->is_num = true;
			t->num = 1;
		} else {
			int va = eq + 1, vb = b, r;

			trim(text, &va, &vb);
			t->vpos = AT(va);
			if (va == vb)
				return fail(ps, t->vpos, "missing value after '%s='", t->key);
			if (text[va] == '\'') {
				if (vb - va < 2 || text[vb - 1] != '\'')
					return fail(ps, t->vpos, "unterminated quote");
				t->val = copy_range(text + va + 1, vb - va - 2);
			} else {
				t->val = copy_range(text + va, vb - va);
				r = parse_number(t->val, &t->num);
				if (r < 0)
					return fail(ps, t->vpos, "value out of range: '%s'",
						    t->val);
				t->is_num = r > 0;
				if (!t->is_num &&
				    (t->val[0] == '-' || isdigit((unsigned char)t->val[0])))
					return fail(ps, t->vpos, "bad number '%s'", t->val);
			}
		}
		if (!text[b])
			return 0;
		p = b + 1;
	}
#undef AT
}

/* perf's branch filter words (parse-branch-options.c), in its order. */
static const struct {
	const char *name;
	unsigned long long bit;
} branch_words[] = {
	{ "u", PERF_SAMPLE_BRANCH_USER },	    { "k", PERF_SAMPLE_BRANCH_KERNEL },
	{ "hv", PERF_SAMPLE_BRANCH_HV },	    { "any", PERF_SAMPLE_BRANCH_ANY },
	{ "any_call", PERF_SAMPLE_BRANCH_ANY_CALL }, { "any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN },
	{ "ind_call", PERF_SAMPLE_BRANCH_IND_CALL }, { "abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX },
	{ "in_tx", PERF_SAMPLE_BRANCH_IN_TX },	    { "no_tx", PERF_SAMPLE_BRANCH_NO_TX },
	{ "cond", PERF_SAMPLE_BRANCH_COND },	    { "ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP },
	{ "call", PERF_SAMPLE_BRANCH_CALL },	    { "save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE },
	{ "stack", PERF_SAMPLE_BRANCH_CALL_STACK }, { "hw_index", PERF_SAMPLE_BRANCH_HW_INDEX },
	{ "priv", PERF_SAMPLE_BRANCH_PRIV_SAVE },
};

int parse_branch_filter(const char *str, unsigned long long *mask, const char **bad)
{
	const unsigned long long plm =
	    PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV;
	const char *p = str;

	*mask = 0;
	while (*p) {
		size_t n = strcspn(p, ","), i;

		for (i = 0; i < sizeof(branch_words) / sizeof(branch_words[0]); i++)
			if (strlen(branch_words[i].name) == n && !strncmp(p, branch_words[i].name, n))
				break;
		if (i == sizeof(branch_words) / sizeof(branch_words[0])) {
			if (bad)
				*bad = p;
			return -EINVAL;
		}
		*mask |= branch_words[i].bit;
		p += n;
		if (*p)
			p++;
	}
	/* privilege levels alone filter nothing: perf samples any branch then */
	if (!(*mask & ~plm))
		*mask |= PERF_SAMPLE_BRANCH_ANY;
	return 0;
}

/*
 * perf's config terms (its evsel config_terms): they change how perf record configures the
 * event, not what the event is, so they are kept in ev->terms for evlist_config(). Return: 0
 * when t was one, 1 when it is not, -1 on error.
 */
static int apply_config_term(struct pstate *ps, struct event_spec *ev, const struct term *t)
{
	struct event_terms *c = &ev->terms;
	const char *k = t->key;
	bool bare = !t->val;

	if (!strcmp(k, "call-graph")) {
		static const struct {
			const char *name;
			int mode;
		} modes[] = {
			{ "fp", RECORD_CALLGRAPH_FP },
			{ "dwarf", RECORD_CALLGRAPH_DWARF },
			{ "lbr", RECORD_CALLGRAPH_LBR },
		};

		if (!t->val)
			return fail(ps, t->kpos, "expected string value");
		c->callgraph_set = true;
		c->callgraph = strcmp(t->val, "no") != 0;
		if (!c->callgraph)
			return 0;
		for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
			if (!strcmp(t->val, modes[m].name)) {
				c->callgraph_mode = modes[m].mode;
				return 0;
			}
		return fail(ps, t->vpos, "call-graph=%s: unknown method (fp, dwarf, lbr, no)",
			    t->val);
	}
	if (!strcmp(k, "stack-size") || !strcmp(k, "max-stack") || !strcmp(k, "time") ||
	    !strcmp(k, "nr")) {
		if (!t->is_num || bare)
			return fail(ps, t->vpos, "expected numeric value");
		if (k[0] == 's') {
			/* the kernel takes a multiple of 8 below 65535 (a sample size is a u16) */
			if (t->num > 65528)
				return fail(ps, t->vpos, "stack-size=%llu: the limit is 65528",
					    (unsigned long long)t->num);
			c->stack_size_set = t->num > 0;
			c->stack_size = (unsigned)((t->num + 7) & ~7ULL);
		} else if (k[0] == 'm') {
			if (t->num > 65535)
				return fail(ps, t->vpos, "max-stack=%llu: the limit is 65535",
					    (unsigned long long)t->num);
			c->max_stack = (unsigned)t->num;
		} else if (k[0] == 't') {
			c->time_set = true;
			c->time = t->num != 0;
		} else {
			return fail(ps, t->kpos,
				    "term 'nr' (stop after N samples) is not supported by prec");
		}
		return 0;
	}
	if (!strcmp(k, "inherit") || !strcmp(k, "no-inherit")) {
		if (!bare)
			return fail(ps, t->vpos, "'%s' takes no value", k);
		c->inherit_set = true;
		c->inherit = k[0] == 'i';
		return 0;
	}
	if (!strcmp(k, "no-overwrite")) {
		if (!bare)
			return fail(ps, t->vpos, "'%s' takes no value", k);
		return 0;
	}
	if (!strcmp(k, "overwrite"))
		return fail(ps, t->kpos,
			    "term 'overwrite' (a backward ring buffer) is not supported by prec: it "
			    "reads forward ring buffers only");
	if (!strcmp(k, "aux-output")) {
		c->aux_output = !t->is_num || t->num;
		return 0;
	}
	if (!strcmp(k, "aux-sample-size"))
		return fail(ps, t->kpos, "No AUX area event to sample");
	if (!strcmp(k, "branch_type")) {
		const char *bad = NULL;

		if (!t->val)
			return fail(ps, t->kpos, "expected string value");
		if (strcmp(t->val, "no")) {
			if (parse_branch_filter(t->val, &c->branch_sample_type, &bad))
				return fail(ps, t->vpos, "unknown branch filter %.*s, check man page",
					    (int)strcspn(bad, ","), bad);
			c->branch_set = true;
		} else {
			c->branch_set = false;
		}
		return 0;
	}
	if (!strcmp(k, "driver-config"))
		return fail(ps, t->kpos, "term 'driver-config' is not supported by prec");
	return 1;
}

#define CONFIG_TERMS                                                                               \
	"call-graph,stack-size,max-stack,inherit,no-inherit,overwrite,no-overwrite,time,branch_type,"  \
	"aux-output,aux-sample-size,nr"
#define COMMON_TERMS                                                                               \
	"config,config1,config2,name,period,freq,alt-period,hf-period,hf-rand,alt-period-jitter,"  \
	CONFIG_TERMS

/*
 * Apply one of the terms every event takes. Return: 0 when applied, 1 when t is not such a term
 * (a PMU format term or an unknown one), -1 on error.
 */
static int apply_common_term(struct pstate *ps, int idx, const struct term *t)
{
	struct event_spec *ev = &ps->ev[idx];
	const char *k = t->key;
	bool number = !strcmp(k, "config") || !strcmp(k, "config1") || !strcmp(k, "config2") ||
		      !strcmp(k, "period") || !strcmp(k, "freq") || !strcmp(k, "alt-period") ||
		      !strcmp(k, "hf-period") || !strcmp(k, "hf-rand") ||
		      !strcmp(k, "alt-period-jitter");

	if (number && !t->is_num)
		return fail(ps, t->vpos, "expected numeric value");
	if (!strcmp(k, "config")) {
		ev->attr.config = t->num;
	} else if (!strcmp(k, "config1")) {
		ev->attr.config1 = t->num;
	} else if (!strcmp(k, "config2")) {
		ev->attr.config2 = t->num;
	} else if (!strcmp(k, "name")) {
		if (!t->val)
			return fail(ps, t->kpos, "expected string value");
		free(ev->name);
		ev->name = xstrdup(t->val);
	} else if (!strcmp(k, "period")) {
		/* the last of period= and freq= wins, as perf applies them in order */
		ev->attr.sample_period = t->num;
		ev->attr.freq = 0;
		ev->has_period = true;
		ev->has_freq = false;
	} else if (!strcmp(k, "freq")) {
		ev->attr.sample_freq = t->num;
		ev->attr.freq = 1;
		ev->has_freq = true;
		ev->has_period = false;
	} else if (!strcmp(k, "alt-period") || !strcmp(k, "hf-period")) {
		if (!t->num)
			return fail(ps, t->vpos, "expected a non-zero value");
		if (k[0] == 'a') {
			ev->has_alt_period = true;
			ev->alt_period = t->num;
		} else {
			ev->has_hf_period = true;
			ev->hf_period = t->num;
		}
	} else if (!strcmp(k, "hf-rand")) {
		/* the ranges are checked with the other hf terms (record/evlist.c) */
		ev->has_hf_rand = true;
		ev->hf_rand = t->num;
	} else if (!strcmp(k, "alt-period-jitter")) {
		ev->has_alt_jitter = true;
		ev->alt_jitter = t->num;
	} else if (!strcmp(k, "metric-id") || !strcmp(k, "percore")) {
		/* perf stat's business: no effect on what is recorded */
	} else {
		int r = apply_config_term(ps, ev, t);

		if (r <= 0)
			return r;
		if (k[0] == '@')
			return fail(ps, t->kpos,
				    "driver config terms (@...) are not supported by prec");
		return 1;
	}
	return 0;
}

/* Terms on an event that is not a PMU event: only the common ones are valid. */
static int apply_event_terms(struct pstate *ps, int idx, const struct terms *ts)
{
	for (int i = 0; ts && i < ts->nr; i++) {
		int r = apply_common_term(ps, idx, &ts->t[i]);

		if (r < 0)
			return -1;
		if (r > 0) {
			fail(ps, ts->t[i].kpos, "unknown term '%s'", ts->t[i].key);
			fail_help(ps, "valid terms: " COMMON_TERMS);
			return -1;
		}
	}
	return 0;
}

/* Terms on tracepoints: as perf, only the config terms (no period, name, config ...). */
static int apply_tracepoint_terms(struct pstate *ps, int first, const struct terms *ts)
{
	for (int i = 0; i < ts->nr; i++) {
		for (int e = first; e < ps->nr; e++) {
			int r = apply_config_term(ps, &ps->ev[e], &ts->t[i]);

			if (r > 0) {
				fail(ps, ts->t[i].kpos, "unknown term");
				fail_help(ps, "valid terms: " CONFIG_TERMS);
			}
			if (r) {
				drop_events(ps, first);
				return -1;
			}
		}
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* PMU events */

/*
 * One event on pmu from the user's terms: event aliases are replaced by their terms, the common
 * terms are applied first and the format terms then OR their bits in, as perf does (so terms
 * never clear bits another term set). Return: 0, or -1 with the error set.
 */
static int add_pmu_event(struct pstate *ps, const struct pmu *pmu, const struct terms *user)
{
	struct terms alias_terms = {0};
	const struct term **list = NULL;
	struct symbol hw = {0}, sym;
	bool *common = NULL;
	int nr = 0, idx = -1;
	char valid[400];
	size_t n;
	int ret = -1;

	/* expand aliases in place, keeping the order of the terms */
	for (int i = 0; i < user->nr; i++) {
		const struct term *t = &user->t[i];
		const struct pmu_alias *alias = NULL;
		bool bare = !t->val || (t->is_num && t->num == 1);
		__u64 raw;

		if (bare && !pmu_find_format(pmu, t->key))
			alias = pmu_find_alias(pmu, t->key);
		else if (!strcasecmp(t->key, "event") && t->val && !t->is_num)
			alias = pmu_find_alias(pmu, t->val);
		if (alias) {
			int first = alias_terms.nr;
			char *text = xstrdup(alias->terms);

			if (parse_terms(ps, text, 0, t->kpos, &alias_terms) < 0) {
				fail_help(ps, "alias %s/events/%s: '%s'", pmu->name, alias->name,
					  alias->terms);
				free(text);
				goto out;
			}
			free(text);
			list = xrealloc(list, (nr + alias_terms.nr - first) * sizeof(*list));
			for (int j = first; j < alias_terms.nr; j++)
				list[nr++] = NULL; /* filled below: alias_terms.t may still move */
			continue;
		}
		if (!t->val && !pmu_find_format(pmu, t->key) && parse_raw(t->key, &raw) > 0) {
			/* cpu/r3c/: a raw config inside the slashes, as perf 6.1 accepts */
			struct term *rt = terms_add(&alias_terms);

			rt->key = xstrdup("config");
			rt->is_num = true;
			rt->num = raw;
			rt->kpos = rt->vpos = t->kpos;
			list = xrealloc(list, (nr + 1) * sizeof(*list));
			list[nr++] = NULL;
			continue;
		}
		if (!t->val && pmu->is_core && !pmu_find_format(pmu, t->key) &&
		    find_symbol(t->key, &sym) && sym.type == PERF_TYPE_HARDWARE) {
			/* cpu/cycles/: the generic event, as perf 6.3 and later read it */
			hw = sym;
			continue;
		}
		list = xrealloc(list, (nr + 1) * sizeof(*list));
		list[nr++] = t;
	}
	/* point the placeholders at the alias terms, now that their array is final */
	for (int i = 0, j = 0; i < nr; i++)
		if (!list[i])
			list[i] = &alias_terms.t[j++];

	idx = new_event(ps);
	ps->ev[idx].pmu = xstrdup(pmu->name);
	ps->ev[idx].attr.type = pmu->type;
	ps->ev[idx].hardware = pmu->is_core;

	common = xcalloc(nr + 1, sizeof(*common));
	for (int i = 0; i < nr; i++) {
		int r = apply_common_term(ps, idx, list[i]);

		if (r < 0)
			goto out;
		common[i] = r == 0;
	}
	for (int i = 0; i < nr; i++) {
		const struct term *t = list[i];
		const struct pmu_format *f;
		__u64 *word;

		if (common[i])
			continue;
		f = pmu_find_format(pmu, t->key);
		if (!f) {
			n = 0;
			valid[0] = '\0';
			for (int j = 0; j < pmu->nr_formats; j++) {
				size_t len = strlen(pmu->formats[j].name);

				if (n + len + 2 > sizeof(valid))
					break;
				memcpy(valid + n, pmu->formats[j].name, len);
				n += len;
				valid[n++] = ',';
				valid[n] = '\0';
			}
			fail(ps, t->kpos, "unknown term '%s' for pmu '%s'", t->key, pmu->name);
			fail_help(ps, "valid terms: %s" COMMON_TERMS, valid);
			goto out;
		}
		if (t->val && !strcmp(t->val, "?")) {
			/* the alias leaves this term to the user */
			bool given = false;

			for (int j = 0; j < nr; j++)
				if (!list[j]->from_alias && !strcmp(list[j]->key, t->key))
					given = true;
			if (!given) {
				fail(ps, t->kpos, "required parameter '%s' not specified", t->key);
				goto out;
			}
			continue;
		}
		if (!t->is_num) {
			fail(ps, t->vpos, "expected numeric value");
			goto out;
		}
		if (t->num > pmu_format_max(f)) {
			fail(ps, t->vpos, "value too big for format, maximum is %llu",
			     (unsigned long long)pmu_format_max(f));
			goto out;
		}
		if (hw.name) {
			fail(ps, t->kpos, "'%s' cannot be combined with the generic event '%s'",
			     t->key, hw.name);
			goto out;
		}
		word = f->field == 0   ? &ps->ev[idx].attr.config
		       : f->field == 1 ? &ps->ev[idx].attr.config1
				       : &ps->ev[idx].attr.config2;
		*word |= pmu_format_spread(f, t->num);
	}
	if (hw.name) {
		ps->ev[idx].attr.type = PERF_TYPE_HARDWARE;
		ps->ev[idx].attr.config = hw.config;
		ps->ev[idx].hardware = true;
	}
	ret = 0;
out:
	if (ret < 0 && idx >= 0)
		drop_events(ps, idx);
	free(list);
	free(common);
	terms_free(&alias_terms);
	return ret;
}

/*
 * The PMUs a name in front of '/' means: the PMU of that name, else as perf 6.1 the numbered
 * instances of it (uncore_imc: uncore_imc_0, uncore_imc_1; imc also without the uncore_ prefix).
 */
static char **match_pmus(const char *tok)
{
	char path[PATH_MAX];
	char **names, **out;
	size_t len = strlen(tok);
	int nr = 0;
	struct stat st;

	out = xcalloc(1, sizeof(*out));
	if (!strchr(tok, '/') && strcmp(tok, ".") && strcmp(tok, "..") &&
	    pmu_pathf(path, sizeof(path), "%s/%s", pmu_devices_dir(), tok) == 0 &&
	    stat(path, &st) == 0) {
		out = xrealloc(out, 2 * sizeof(*out));
		out[0] = xstrdup(tok);
		out[1] = NULL;
		return out;
	}
	names = pmu_names();
	for (char **n = names; n && *n; n++) {
		const char *m = *n;

		if (!strncmp(m, "uncore_", 7) && strncmp(tok, "uncore_", 7))
			m += 7;
		if (strncmp(m, tok, len) || m[len] != '_' || !isdigit((unsigned char)m[len + 1]))
			continue;
		out = xrealloc(out, (nr + 2) * sizeof(*out));
		out[nr++] = xstrdup(*n);
		out[nr] = NULL;
	}
	pmu_names_free(names);
	return out;
}

static void strv_free(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

/*
 * Add the event on every PMU in names; like perf, a PMU where the terms do not apply is skipped
 * as long as one other takes them. Return: events added, or -1 with the first error.
 */
static int add_on_pmus(struct pstate *ps, char **names, const struct terms *ts, int pos)
{
	struct parse_error first = {0};
	bool have_first = false;
	int added = 0;

	for (char **n = names; *n; n++) {
		char why[512] = "";
		struct pmu *pmu = pmu_load(*n, why, sizeof(why));

		if (!pmu) {
			fail(ps, pos, "cannot read PMU '%s': %s", *n,
			     why[0] ? why : strerror(errno));
		} else if (add_pmu_event(ps, pmu, ts) == 0) {
			added++;
		}
		pmu_free(pmu);
		if (ps->failed) {
			if (!have_first) {
				first = *ps->err;
				have_first = true;
			}
			ps->failed = false;
		}
	}
	if (added)
		return added;
	if (have_first) {
		*ps->err = first;
		ps->failed = true;
	}
	return -1;
}

/*
 * A word that is an event alias of some PMU (tsc, mem-loads): the event on every PMU that has it,
 * with extra terms after it. Return: events added, 0 when no PMU knows the word, -1 on error.
 */
static int add_alias_everywhere(struct pstate *ps, const char *word, int pos,
				const struct terms *extra)
{
	char **names, **with;
	struct terms ts = {0};
	int nr = 0, ret = 0;

	names = pmu_names();
	with = xcalloc(1, sizeof(*with));
	for (char **n = names; n && *n; n++) {
		char why[512];
		struct pmu *pmu = pmu_load(*n, why, sizeof(why));
		bool has = false;

		for (int i = 0; pmu && i < pmu->nr_aliases; i++)
			if (!strcmp(pmu->aliases[i].name, word))
				has = true;
		pmu_free(pmu);
		if (!has)
			continue;
		with = xrealloc(with, (nr + 2) * sizeof(*with));
		with[nr++] = xstrdup(*n);
		with[nr] = NULL;
	}
	pmu_names_free(names);
	if (nr) {
		struct term *t = terms_add(&ts);

		t->key = xstrdup(word);
		t->is_num = true;
		t->num = 1;
		t->kpos = t->vpos = pos;
		for (int i = 0; extra && i < extra->nr; i++) {
			struct term *e = terms_add(&ts);

			*e = extra->t[i];
			e->key = xstrdup(e->key);
			e->val = e->val ? xstrdup(e->val) : NULL;
		}
		ret = add_on_pmus(ps, with, &ts, pos);
		terms_free(&ts);
	}
	strv_free(with);
	return ret;
}

/* ---------------------------------------------------------------------------------------- */
/* tracepoints */

static const char *tracing_dir(void)
{
	const char *dir = getenv("PREC_TRACEFS_DIR");

	if (dir && *dir)
		return dir;
	return tracefs_tracing_dir();
}

/* Return: the tracepoint's id, or -errno. */
static long long read_tp_id(const char *events, const char *sys, const char *name)
{
	char path[PATH_MAX], buf[32];
	ssize_t n;
	__u64 id;
	int fd;

	if (pmu_pathf(path, sizeof(path), "%s/%s/%s/id", events, sys, name) < 0)
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EINVAL;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (parse_number(buf, &id) <= 0 || id > LLONG_MAX)
		return -EINVAL;
	return id;
}

static void add_tp(struct pstate *ps, const char *sys, const char *name, __u64 id)
{
	int idx = new_event(ps);
	struct event_spec *ev = &ps->ev[idx];

	ev->attr.type = PERF_TYPE_TRACEPOINT;
	ev->attr.config = id;
	ev->attr.sample_period = 1;
	ev->tp_system = xstrdup(sys);
	ev->tp_event = xstrdup(name);
	ev->name = xasprintf("%s:%s", sys, name);
}

/* readdir order, as perf expands wildcards */
static int add_tp_wild(struct pstate *ps, const char *events, const char *sys, const char *name)
{
	struct dirent *sd, *ed;
	int found = 0;
	DIR *d, *e;

	d = opendir(events);
	if (!d)
		return -errno;
	while ((sd = readdir(d))) {
		char path[PATH_MAX];

		if (sd->d_name[0] == '.' || fnmatch(sys, sd->d_name, 0))
			continue;
		if (pmu_pathf(path, sizeof(path), "%s/%s", events, sd->d_name) < 0)
			continue;
		e = opendir(path);
		if (!e)
			continue;
		while ((ed = readdir(e))) {
			long long id;

			if (ed->d_name[0] == '.' || fnmatch(name, ed->d_name, 0))
				continue;
			id = read_tp_id(events, sd->d_name, ed->d_name);
			if (id < 0)
				continue; /* enable, filter: files, not events */
			add_tp(ps, sd->d_name, ed->d_name, id);
			found++;
		}
		closedir(e);
	}
	closedir(d);
	return found;
}

static int add_tracepoints(struct pstate *ps, const char *sys, const char *name, int pos)
{
	const char *dir = tracing_dir();
	char events[PATH_MAX];
	struct stat st;
	long long id;

	if (!strcmp(sys, ".") || !strcmp(sys, "..") || !strcmp(name, ".") || !strcmp(name, ".."))
		return fail(ps, pos, "unknown tracepoint '%s:%s'", sys, name);
	if (!dir) {
		fail(ps, pos, "unknown tracepoint: tracefs is not mounted");
		fail_help(ps, "Mount it with: mount -t tracefs nodev /sys/kernel/tracing");
		return -1;
	}
	if (pmu_pathf(events, sizeof(events), "%s/events", dir) < 0) {
		fail(ps, pos, "unknown tracepoint: the tracefs path is too long");
		return -1;
	}
	if (stat(events, &st) < 0) {
		if (errno == EACCES) {
			fail(ps, pos, "unknown tracepoint: no permission to read %s", events);
			fail_help(ps,
				  "Run as root, or make tracefs readable: "
				  "mount -o remount,mode=755 %s",
				  dir);
		} else {
			fail(ps, pos, "unknown tracepoint: tracefs is not mounted at %s", dir);
			fail_help(ps, "Mount it with: mount -t tracefs nodev %s", dir);
		}
		return -1;
	}
	if (strpbrk(sys, "*?") || strpbrk(name, "*?")) {
		int n = add_tp_wild(ps, events, sys, name);

		if (n > 0)
			return 0;
		if (n < 0)
			return fail(ps, pos, "cannot read %s: %s", events, strerror(-n));
		return fail(ps, pos, "no tracepoint matches '%s:%s'", sys, name);
	}
	id = read_tp_id(events, sys, name);
	if (id == -ENOENT || id == -ENOTDIR) {
		fail(ps, pos, "unknown tracepoint '%s:%s'", sys, name);
		fail_help(ps, "Error:\t%s/%s/%s does not exist (tracefs is mounted at %s).", events,
			  sys, name, dir);
		return -1;
	}
	if (id == -EACCES || id == -EPERM) {
		fail(ps, pos, "unknown tracepoint: no permission to read %s/%s/%s/id", events, sys,
		     name);
		fail_help(ps, "Run as root, or make tracefs readable: mount -o remount,mode=755 %s",
			  dir);
		return -1;
	}
	if (id < 0)
		return fail(ps, pos, "cannot read the id of tracepoint '%s:%s': %s", sys, name,
			    strerror((int)-id));
	add_tp(ps, sys, name, id);
	return 0;
}

/* Does sys:name exist (for telling an unknown event with modifiers from a tracepoint)? */
static bool tracepoint_exists(const char *sys, const char *name)
{
	const char *dir = tracing_dir();
	char events[PATH_MAX];

	if (!dir)
		return false;
	if (pmu_pathf(events, sizeof(events), "%s/events", dir) < 0)
		return false;
	if (strpbrk(sys, "*?") || strpbrk(name, "*?"))
		return true; /* let add_tracepoints() say what matched */
	return read_tp_id(events, sys, name) >= 0;
}

/* ---------------------------------------------------------------------------------------- */
/* modifiers */

/* perf's check_modifier() and the ones prec refuses. Return: 0, or -1 with the error set. */
static int check_modifiers(struct pstate *ps, int pos, int len)
{
	const char *m = ps->str + pos;
	int precise = 0;

	for (int i = 0; i < len; i++) {
		if (!strchr(MODIFIER_CHARS, m[i]) || !m[i]) {
			fail(ps, pos + i, "bad modifier '%c'", m[i]);
			fail_help(ps,
				  "valid modifiers: u k h (user, kernel, hypervisor), G H (guest, "
				  "host), p pp ppp (precise), S (sample read), D (pinned), "
				  "I (exclude idle), e (exclusive)");
			return -1;
		}
		if (m[i] == 'p') {
			if (++precise > 3)
				return fail(ps, pos, "bad modifier: at most ppp");
			continue;
		}
		if (memchr(m + i + 1, m[i], len - i - 1))
			return fail(ps, pos, "bad modifier: '%c' is given twice", m[i]);
		if (m[i] == 'P')
			return fail(ps, pos + i,
				    "modifier 'P' (highest precise level) is not "
				    "supported by prec: give p, pp or ppp");
		if (m[i] == 'W')
			return fail(ps, pos + i,
				    "modifier 'W' (weak group) is not supported by prec");
		if (m[i] == 'b')
			return fail(ps, pos + i,
				    "modifier 'b' (BPF counter) is not supported by prec");
	}
	return 0;
}

/*
 * perf's get_event_modifier(): u, k and h first exclude everything and then include what they
 * name; G and H likewise for guest and host; u and p also exclude the guest unless G or H was
 * given. On an event the state starts from nothing; on a group (group_mode) each member starts
 * from what its own modifiers set.
 */
static void apply_modifiers(struct pstate *ps, int idx, int pos, int len, bool group_mode,
			    bool leader)
{
	struct perf_event_attr *a = &ps->ev[idx].attr;
	const char *m = ps->str + pos;
	bool eu = group_mode && a->exclude_user, ek = group_mode && a->exclude_kernel;
	bool eh = group_mode && a->exclude_hv, eH = group_mode && a->exclude_host;
	bool eG = group_mode && a->exclude_guest, eI = group_mode && a->exclude_idle;
	bool gh = group_mode && ps->own_gh[idx];
	bool pinned = group_mode && a->pinned, exclusive = group_mode && a->exclusive;
	bool exclude = eu || ek || eh, sample_read = false;
	int precise = group_mode ? a->precise_ip : 0;

	for (int i = 0; i < len; i++) {
		switch (m[i]) {
		case 'u':
		case 'k':
		case 'h':
			if (!exclude)
				exclude = eu = ek = eh = true;
			if (m[i] == 'u') {
				if (!gh)
					eG = true;
				eu = false;
			} else if (m[i] == 'k') {
				ek = false;
			} else {
				eh = false;
			}
			break;
		case 'G':
		case 'H':
			if (!gh)
				gh = eG = eH = true;
			if (m[i] == 'G')
				eG = false;
			else
				eH = false;
			break;
		case 'p':
			precise++;
			if (!gh)
				eG = true;
			break;
		case 'I':
			eI = true;
			break;
		case 'S':
			sample_read = true;
			break;
		case 'D':
			pinned = true;
			break;
		case 'e':
			exclusive = true;
			break;
		}
	}
	a->exclude_user = eu;
	a->exclude_kernel = ek;
	a->exclude_hv = eh;
	a->exclude_host = eH;
	a->exclude_guest = eG;
	a->exclude_idle = eI;
	a->precise_ip = precise;
	ps->own_gh[idx] = gh;
	ps->ev[idx].sample_read = sample_read;
	if (leader) {
		a->pinned = pinned;
		a->exclusive = exclusive;
		ps->ev[idx].pinned = pinned;
	}
}

/* ---------------------------------------------------------------------------------------- */
/* events */

struct span {
	int pos, len; /* len 0: no modifiers */
};

static int add_symbol(struct pstate *ps, const struct symbol *sym)
{
	int idx = new_event(ps);

	ps->ev[idx].attr.type = sym->type;
	ps->ev[idx].attr.config = sym->config;
	ps->ev[idx].hardware = sym->type == PERF_TYPE_HARDWARE;
	/* perf's evsel__new_idx() gives bpf-output a period of 1, as tracepoints get */
	if (sym->type == PERF_TYPE_SOFTWARE && sym->config == PERF_COUNT_SW_BPF_OUTPUT)
		ps->ev[idx].attr.sample_period = 1;
	return idx;
}

static int add_typed(struct pstate *ps, __u32 type, __u64 config)
{
	int idx = new_event(ps);

	ps->ev[idx].attr.type = type;
	ps->ev[idx].attr.config = config;
	ps->ev[idx].hardware =
	    type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
	return idx;
}

static bool is_bpf_file(const char *word)
{
	size_t n = strlen(word);
	struct stat st;

	if (!((n > 2 && (!strcmp(word + n - 2, ".c") || !strcmp(word + n - 2, ".o"))) ||
	      (n > 4 && !strcmp(word + n - 4, ".obj"))))
		return false;
	return stat(word, &st) == 0;
}

/*
 * A single word, possibly followed by terms: symbol, cache event, rHEX, or an alias of some PMU.
 * Return: 1 when it added events, 0 when the word is none of these (nothing set), -1 on error.
 */
static int add_word(struct pstate *ps, const char *word, int pos, const struct terms *ts)
{
	struct symbol sym;
	int first = ps->nr, r;
	__u64 config = 0;

	if (find_symbol(word, &sym)) {
		add_symbol(ps, &sym);
	} else if (is_tool_event(word)) {
		return fail(ps, pos, "'%s' is a perf stat tool event: it cannot be recorded", word);
	} else if ((r = parse_cache(ps, word, pos, &config)) != 0) {
		if (r < 0)
			return -1;
		r = add_typed(ps, PERF_TYPE_HW_CACHE, config);
		/* perf names cache events by their words, without terms or modifiers */
		ps->ev[r].name = xstrdup(word);
	} else if ((r = parse_raw(word, &config)) != 0) {
		if (r < 0)
			return fail(ps, pos, "raw config out of range: '%s'", word);
		add_typed(ps, PERF_TYPE_RAW, config);
	} else if (is_bpf_file(word)) {
		return fail(ps, pos, "BPF object and source events are not supported by prec");
	} else {
		r = add_alias_everywhere(ps, word, pos, ts);
		return r > 0 ? 1 : r;
	}
	if (apply_event_terms(ps, first, ts) < 0) {
		drop_events(ps, first);
		return -1;
	}
	return 1;
}

/* "T:C": numeric type and config. Return: 1 added, 0 not numeric, -1 error. */
static int add_numeric(struct pstate *ps, const char *a, const char *b, int pos,
		       const struct terms *ts)
{
	__u64 type, config;
	int ra = parse_number(a, &type), rb = parse_number(b, &config), idx;

	if (ra == 0 || rb == 0)
		return 0;
	if (ra < 0 || rb < 0 || type > UINT_MAX)
		return fail(ps, pos, "number out of range in '%s:%s'", a, b);
	idx = add_typed(ps, type, config);
	if (apply_event_terms(ps, idx, ts) < 0) {
		drop_events(ps, idx);
		return -1;
	}
	return 1;
}

static char *sub(const char *s, int a, int b)
{
	trim(s, &a, &b);
	return copy_range(s + a, b - a);
}

/* mem:addr[/len][:rwx][:mods], perf's hardware breakpoints. */
static int add_breakpoint(struct pstate *ps, int ts, int te, struct span *mods)
{
	const char *s = ps->str;
	int p = ts + 4, q, idx;
	__u64 addr, len = 0;
	unsigned int bp_type = 0;
	char *num;
	int r;

	for (q = p; q < te && s[q] != '/' && s[q] != ':'; q++)
		;
	num = sub(s, p, q);
	r = parse_number(num, &addr);
	free(num);
	if (r <= 0)
		return fail(ps, p, "expected a breakpoint address after 'mem:'");
	p = q;
	if (p < te && s[p] == '/') {
		for (q = ++p; q < te && s[q] != ':'; q++)
			;
		num = sub(s, p, q);
		r = parse_number(num, &len);
		free(num);
		if (r <= 0)
			return fail(ps, p, "expected a breakpoint length after '/'");
		p = q;
	}
	if (p < te && s[p] == ':') {
		int a = ++p, b;

		for (b = a; b < te && s[b] != ':'; b++)
			;
		trim(s, &a, &b);
		if (b > a && b - a <= 3 && strspn(s + a, "rwx") >= (size_t)(b - a)) {
			for (int i = a; i < b; i++) {
				unsigned int bit = s[i] == 'r'	 ? HW_BREAKPOINT_R
						   : s[i] == 'w' ? HW_BREAKPOINT_W
								 : HW_BREAKPOINT_X;

				if (bp_type & bit)
					return fail(ps, i, "bad breakpoint type: '%c' twice", s[i]);
				bp_type |= bit;
			}
			p = b;
			p = skip_spaces(s, p);
			if (p < te && s[p] == ':')
				p++;
			else if (p < te)
				return fail(ps, p, "parser error");
		} else {
			p = a;
		}
		a = p;
		b = te;
		trim(s, &a, &b);
		mods->pos = a;
		mods->len = b - a;
	} else if (p < te) {
		return fail(ps, p, "parser error");
	}
	if (!bp_type)
		bp_type = HW_BREAKPOINT_R | HW_BREAKPOINT_W;
	if (!len)
		len = bp_type == HW_BREAKPOINT_X ? sizeof(long) : HW_BREAKPOINT_LEN_4;
	idx = new_event(ps);
	ps->ev[idx].attr.type = PERF_TYPE_BREAKPOINT;
	ps->ev[idx].attr.bp_addr = addr;
	ps->ev[idx].attr.bp_len = len;
	ps->ev[idx].attr.bp_type = bp_type;
	ps->ev[idx].attr.sample_period = 1;
	return 0;
}

/* head/terms/mods */
static int add_slash_event(struct pstate *ps, int ts, int slash, int close, int te,
			   struct span *mods)
{
	const char *s = ps->str;
	struct terms terms = {0};
	char *head = sub(s, ts, slash), *text, *colon;
	int a = close + 1, b = te, ret = -1, r;

	trim(s, &a, &b);
	if (a < b && s[a] == ':') {
		fail(ps, a,
		     "parser error: modifiers follow the closing '/' directly, as in 'pmu/.../u'");
		goto out;
	}
	mods->pos = a;
	mods->len = b - a;
	if (!*head) {
		fail(ps, ts, "missing PMU or event name before '/'");
		goto out;
	}
	text = copy_range(s + slash + 1, close - slash - 1);
	r = parse_terms(ps, text, slash + 1, -1, &terms);
	free(text);
	if (r < 0)
		goto out;

	colon = strchr(head, ':');
	if (colon) {
		*colon = '\0';
		r = add_numeric(ps, head, colon + 1, ts, &terms);
		if (r == 0) {
			int first = ps->nr;

			r = add_tracepoints(ps, head, colon + 1, ts) < 0 ? -1 : 1;
			if (r > 0 && apply_tracepoint_terms(ps, first, &terms) < 0)
				r = -1;
		}
		ret = r < 0 ? -1 : 0;
		goto out;
	}
	if (find_symbol(head, NULL) || is_tool_event(head) || parse_raw(head, &(__u64){0}) ||
	    match_word(head, event_cache_types, PERF_COUNT_HW_CACHE_MAX, &r) >= 0) {
		r = add_word(ps, head, ts, &terms);
		if (r == 0)
			fail(ps, ts, "unknown event '%s'", head);
		ret = r > 0 ? 0 : -1;
		goto out;
	}
	{
		char **pmus = match_pmus(head);

		if (pmus[0]) {
			ret = add_on_pmus(ps, pmus, &terms, ts) < 0 ? -1 : 0;
			strv_free(pmus);
			goto out;
		}
		strv_free(pmus);
	}
	r = add_alias_everywhere(ps, head, ts, &terms);
	if (r == 0)
		fail(ps, ts, "Cannot find PMU `%s'. Missing kernel support?", head);
	ret = r > 0 ? 0 : -1;
out:
	terms_free(&terms);
	free(head);
	return ret;
}

/* word, word:mods, T:C[:mods], sys:name[:mods] */
static int add_plain_event(struct pstate *ps, int ts, int te, struct span *mods)
{
	const char *s = ps->str;
	int c1 = find_char(s, ts, te, ':'), c2 = -1, c3 = -1, ret = -1, r;
	char *a = NULL, *b = NULL;

	if (c1 >= 0)
		c2 = find_char(s, c1 + 1, te, ':');
	if (c2 >= 0)
		c3 = find_char(s, c2 + 1, te, ':');
	if (c3 >= 0)
		return fail(ps, c3, "parser error: too many ':'");

	if (c1 < 0) {
		a = sub(s, ts, te);
		r = add_word(ps, a, ts, NULL);
		if (r == 0)
			fail(ps, ts, "unknown event '%s'", a);
		free(a);
		return r > 0 ? 0 : -1;
	}
	a = sub(s, ts, c1);
	b = sub(s, c1 + 1, c2 >= 0 ? c2 : te);
	if (!*a) {
		fail(ps, ts, "missing event before ':'");
		goto out;
	}
	if (c2 >= 0) {
		int ma = c2 + 1, mb = te;

		trim(s, &ma, &mb);
		if (!is_modifier_text(s, ma, mb)) {
			check_modifiers(ps, ma, mb - ma);
			goto out;
		}
		mods->pos = ma;
		mods->len = mb - ma;
		if (!*b) {
			fail(ps, c1 + 1, "parser error: empty name after ':'");
			goto out;
		}
	} else {
		int ma = c1 + 1, mb = te;

		trim(s, &ma, &mb);
		/* word:mods, unless word:mods is an existing tracepoint such as probe:u */
		if (is_modifier_text(s, ma, mb) &&
		    (find_symbol(a, NULL) || is_tool_event(a) || parse_raw(a, &(__u64){0}) ||
		     match_word(a, event_cache_types, PERF_COUNT_HW_CACHE_MAX, &r) >= 0 || !*b ||
		     !tracepoint_exists(a, b))) {
			mods->pos = ma;
			mods->len = mb - ma;
			r = add_word(ps, a, ts, NULL);
			if (r == 0)
				fail(ps, ts, "unknown event '%s'", a);
			ret = r > 0 ? 0 : -1;
			goto out;
		}
		if (find_symbol(a, NULL) || is_tool_event(a) || parse_raw(a, &(__u64){0})) {
			check_modifiers(ps, ma, mb - ma);
			goto out;
		}
		if (!*b) {
			fail(ps, c1 + 1, "parser error: empty name after ':'");
			goto out;
		}
	}
	r = add_numeric(ps, a, b, ts, NULL);
	if (r == 0)
		r = add_tracepoints(ps, a, b, ts) < 0 ? -1 : 1;
	ret = r > 0 ? 0 : -1;
out:
	free(a);
	free(b);
	return ret;
}

/*
 * Where the event starting at pos ends: at a ',', '{' or '}' outside its one pair of slashes.
 * Return: that offset, or -1 with the error set.
 */
static int event_extent(struct pstate *ps, int pos)
{
	const char *s = ps->str;
	int p = skip_spaces(s, pos), q;

	if (!strncmp(s + p, "mem:", 4)) {
		while (s[p] && !strchr(",{}", s[p]))
			p++;
		return p;
	}
	p = pos;
	while (s[p] && !strchr(",{}/", s[p]))
		p++;
	if (s[p] != '/')
		return p;
	for (q = p + 1; s[q] && s[q] != '/'; q++)
		;
	if (!s[q])
		return fail(ps, p, "missing the closing '/' of the terms that start here");
	p = q + 1;
	while (s[p] && !strchr(",{}/", s[p]))
		p++;
	if (s[p] == '/')
		return fail(ps, p, "parser error: unexpected '/'");
	return p;
}

/* One event's text [s, e): add its events, name them and apply its modifiers. */
static int parse_event_text(struct pstate *ps, int start, int end)
{
	const char *s = ps->str;
	struct span mods = {0, 0};
	int ts = start, te = end, first = ps->nr, name_end = end, slash, r;

	trim(s, &ts, &te);
	if (ts == te)
		return fail(ps, start, "missing event");
	if (!strncmp(s + ts, "mem:", 4)) {
		/* perf's lexer names "mem:0x10/8:rw" by the text before the '/' */
		slash = find_char(s, ts, te, '/');
		if (slash >= 0)
			name_end = slash;
		r = add_breakpoint(ps, ts, te, &mods);
	} else {
		slash = find_char(s, ts, te, '/');
		if (slash >= 0)
			r = add_slash_event(ps, ts, slash, find_char(s, slash + 1, te, '/'), te,
					    &mods);
		else
			r = add_plain_event(ps, ts, te, &mods);
	}
	if (r < 0 || (mods.len && check_modifiers(ps, mods.pos, mods.len) < 0)) {
		drop_events(ps, first);
		return -1;
	}
	for (int i = first; i < ps->nr; i++) {
		if (!ps->ev[i].name)
			ps->ev[i].name = copy_range(s + start, name_end - start);
		if (mods.len)
			apply_modifiers(ps, i, mods.pos, mods.len, false, true);
	}
	return 0;
}

/* [name]{a,b,...}[:mods]; brace is the offset of '{'. Return: the offset after it, or -1. */
static int parse_group(struct pstate *ps, int start, int brace)
{
	const char *s = ps->str;
	int first = ps->nr, p = brace + 1, a, b;

	for (;;) {
		int q = skip_spaces(s, p), end;

		if (s[q] == '{')
			return fail(ps, q, "parser error: groups cannot be nested");
		if (!s[q])
			return fail(ps, brace, "unbalanced braces: this '{' is not closed");
		if (s[q] == '}' && ps->nr == first)
			return fail(ps, q, "parser error: empty group");
		end = event_extent(ps, p);
		if (end < 0 || parse_event_text(ps, p, end) < 0)
			return -1;
		p = skip_spaces(s, end);
		if (s[p] == ',') {
			p++;
			continue;
		}
		if (s[p] == '}')
			break;
		if (!s[p])
			return fail(ps, brace, "unbalanced braces: this '{' is not closed");
		return fail(ps, p, "parser error: groups cannot be nested");
	}
	p++;
	a = b = skip_spaces(s, p);
	if (s[a] == ':') {
		a++;
		for (b = a; s[b] && !strchr(",{}", s[b]); b++)
			;
		p = b;
		trim(s, &a, &b);
		if (check_modifiers(ps, a, b - a) < 0)
			return -1;
	} else {
		p = a;
		b = a;
		if (s[p] && s[p] != ',')
			return fail(ps, p,
				    s[p] == '}' ? "unbalanced braces: '}' without a '{'"
						: "parser error: expected ',' or ':' after '}'");
	}
	for (int i = first; i < ps->nr; i++) {
		ps->ev[i].leader = ps->base + first;
		if (b > a)
			apply_modifiers(ps, i, a, b - a, true, i == first);
	}
	ps->ev[first].group_size = ps->nr - first;
	{
		int na = start, nb = brace;

		trim(s, &na, &nb);
		if (nb > na)
			ps->ev[first].group_name = copy_range(s + na, nb - na);
	}
	return p;
}

static int parse_all(struct pstate *ps)
{
	const char *s = ps->str;
	int p = 0;

	for (;;) {
		int q = p;

		while (s[q] && !strchr(",{}/", s[q]))
			q++;
		if (s[q] == '{') {
			p = parse_group(ps, p, q);
			if (p < 0)
				return -1;
		} else {
			int t = skip_spaces(s, p), end;

			if (s[t] == '}')
				return fail(ps, t, "unbalanced braces: '}' without a '{'");
			end = event_extent(ps, p);
			if (end < 0 || parse_event_text(ps, p, end) < 0)
				return -1;
			p = end;
		}
		p = skip_spaces(s, p);
		if (!s[p])
			return 0;
		if (s[p] == ',') {
			p++;
			continue;
		}
		if (s[p] == '}')
			return fail(ps, p, "unbalanced braces: '}' without a '{'");
		return fail(ps, p, "parser error");
	}
}

int parse_events(struct event_list *list, const char *str, struct parse_error *err)
{
	struct pstate ps = {.str = str, .err = err, .base = list->nr};

	memset(err, 0, sizeof(*err));
	if (parse_all(&ps) < 0 || ps.failed) {
		drop_events(&ps, 0);
		free(ps.ev);
		free(ps.own_gh);
		return -1;
	}
	list->ev = xrealloc(list->ev, (list->nr + ps.nr) * sizeof(*list->ev));
	memcpy(list->ev + list->nr, ps.ev, ps.nr * sizeof(*ps.ev));
	list->cmdline_start = list->nr;
	list->nr += ps.nr;
	free(ps.ev);
	free(ps.own_gh);
	return 0;
}

static int term_width(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

void parse_events_print_error(const char *str, const struct parse_error *err)
{
	static const char prefix[] = "event syntax error: ";
	int plen = sizeof(prefix) - 1, len = strlen(str), pos = err->pos, cut = 0;
	int avail = term_width() - 2 - plen;
	char *shown;

	/* as perf: the caret sits at most 13 characters in; what is cut shows as ".." */
	if (avail < 20)
		avail = 20;
	if (pos < 0)
		pos = 0;
	if (pos > len)
		pos = len;
	if (pos > 13)
		cut = pos - 13;
	shown = xstrdup(str + cut);
	if (cut)
		shown[0] = shown[1] = '.';
	if (len - cut > avail) {
		shown[avail] = '\0';
		shown[avail - 1] = shown[avail - 2] = '.';
	}
	fprintf(stderr, "%s'%s'\n", prefix, shown);
	fprintf(stderr, "%*s\\___ %s\n", plen + 1 + pos - cut, "", err->msg);
	if (err->help[0])
		fprintf(stderr, "\n%s\n", err->help);
	fprintf(stderr, "Run 'perf list' for a list of valid events\n");
	free(shown);
}

int parse_filter(struct event_list *list, const char *filter)
{
	if (!list->nr || list->cmdline_start >= list->nr)
		return error("--filter must follow a -e tracepoint option");
	for (int i = list->cmdline_start; i < list->nr; i++)
		if (list->ev[i].attr.type != PERF_TYPE_TRACEPOINT)
			return error("--filter '%s': '%s' is not a tracepoint, and prec filters "
				     "tracepoints only",
				     filter, list->ev[i].name);
	for (int i = list->cmdline_start; i < list->nr; i++) {
		struct event_spec *ev = &list->ev[i];
		char *f;

		/* a second --filter on the same events narrows them, as perf joins them */
		f = ev->filter ? xasprintf("(%s) && (%s)", ev->filter, filter) : xstrdup(filter);
		free(ev->filter);
		ev->filter = f;
	}
	return 0;
}

const char *event_spec_hf_term(const struct event_spec *ev)
{
	if (ev->has_hf_period)
		return "hf-period";
	if (ev->has_alt_period)
		return "alt-period";
	if (ev->has_hf_rand)
		return "hf-rand";
	return ev->has_alt_jitter ? "alt-period-jitter" : NULL;
}

int event_list_check_counted(const struct event_list *list, char *why, size_t why_len)
{
	for (int i = list->cmdline_start; i < list->nr; i++) {
		const char *term = event_spec_hf_term(&list->ev[i]);

		/* the kernel alternates a sampling period: a counter has none to alternate */
		if (term) {
			snprintf(why, why_len, "%s= needs a sampling event: '%s' is not one here",
				 term, list->ev[i].name);
			return -1;
		}
	}
	return 0;
}

void event_list_free(struct event_list *list)
{
	for (int i = 0; i < list->nr; i++)
		spec_release(&list->ev[i]);
	free(list->ev);
	list->ev = NULL;
	list->nr = 0;
	list->cmdline_start = 0;
}
