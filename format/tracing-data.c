// SPDX-License-Identifier: GPL-2.0
/*
 * HEADER_TRACING_DATA: the formats of the tracepoints a file uses, laid out as perf 6.1's
 * util/trace-event-info.c writes them and util/trace-event-read.c reads them (see
 * docs/perf-data-compat.md section 5). The writer copies real formats from tracefs with
 * libtracefs and adds prec's synthetic systems; every format is parsed by libtraceevent before it
 * is accepted, because perf rejects the whole file when one format does not parse. The reader
 * hands the payload to libtraceevent piece by piece, each piece checked against what is left.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "format/internal.h"

/* One format text, as tracefs gives it. */
struct tracing_event {
	char *system;
	char *text;
	size_t len;
	int id;
	char *name;
};

struct pd_tracing {
	char *header_page;
	size_t header_page_len;
	char *header_event;
	size_t header_event_len;
	struct tracing_event *events;
	size_t nr_events, cap_events;
	/* Every accepted format, parsed: the check that perf will parse it too. */
	struct tep_handle *tep;
};

/*
 * libtraceevent and libtracefs print their complaints on stderr through this weak function;
 * format/ never prints, so they go to the log callback instead, as debug lines: what they
 * complain about reaches the caller as a return value.
 */
__attribute__((format(printf, 4, 0))) int tep_vprint(const char *name, enum tep_loglevel level,
						      bool print_err, const char *fmt, va_list ap)
{
	int saved = errno;
	char msg[400];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	pd_log(level <= TEP_LOG_WARNING ? 1 : 2, "%s: %s", name, msg);
	return saved;
}

/* ---------------------------------------------------------------------------------------- */
/* What libtraceevent cannot be trusted with */

static bool is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* The name a "field:" declaration declares: its last identifier, after any trailing [N]. */
static bool decl_name(const char *d, size_t n, const char **name, size_t *name_len)
{
	while (n && (d[n - 1] == ' ' || d[n - 1] == '\t'))
		n--;
	if (n && d[n - 1] == ']') {
		while (n && d[n - 1] != '[')
			n--;
		if (n)
			n--;
		while (n && (d[n - 1] == ' ' || d[n - 1] == '\t'))
			n--;
	}
	*name_len = 0;
	while (n && is_ident(d[n - 1])) {
		n--;
		(*name_len)++;
	}
	*name = d + n;
	return *name_len > 0;
}

/* A name in a format text: where it is and how long. */
struct name {
	const char *p;
	size_t len;
};

static int cmp_name(const void *a, const void *b)
{
	const struct name *x = a, *y = b;
	int r = memcmp(x->p, y->p, x->len < y->len ? x->len : y->len);

	return r ? r : (x->len > y->len) - (x->len < y->len);
}

/*
 * The names the "field:" lines of text (up to fmt_at) declare, sorted: a print fmt may name
 * fields thousands of times, so each reference is a binary search. NULL (and *nr 0) when there
 * are none; *nr is SIZE_MAX without memory.
 */
static struct name *declared_names(const char *text, size_t fmt_at, size_t *nr)
{
	const char *p = text, *end = text + fmt_at;
	struct name *names = NULL;
	size_t n = 0, cap = 0;

	*nr = 0;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *semi;
		struct name nm;

		if (!eol)
			eol = end;
		while (p < eol && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(eol - p) > 6 && !memcmp(p, "field:", 6) &&
		    (semi = memchr(p + 6, ';', (size_t)(eol - p - 6))) &&
		    decl_name(p + 6, (size_t)(semi - p - 6), &nm.p, &nm.len)) {
			if (n == cap) {
				size_t c = cap ? 2 * cap : 32;
				struct name *q = realloc(names, c * sizeof(*q));

				if (!q) {
					free(names);
					*nr = SIZE_MAX;
					return NULL;
				}
				names = q;
				cap = c;
			}
			names[n++] = nm;
		}
		p = eol + 1;
	}
	if (n)
		qsort(names, n, sizeof(*names), cmp_name);
	*nr = n;
	return names;
}

/*
 * libtraceevent 1.7 dereferences NULL while parsing a print fmt whose __print_flags() or
 * __print_symbolic() names a field through REC-> that the format does not declare (a flag it
 * leaves set can carry that to a later REC-> too), and again when printing any such reference.
 * So every REC->name outside string and char literals must name a declared field. (These and
 * the checks below are crashes fuzzing found; tests/fuzz/corpus/crash-tep-* reproduce them.
 * survives_libtraceevent() is the net for those not found yet.)
 */
static int check_format_text(const char *text, size_t len)
{
	const char *fmt = memmem(text, len, "print fmt:", 10);
	struct name *names;
	size_t i, nr_names;
	int ret = 0;

	/*
	 * libtraceevent's tokenizer ends the text at the first byte that is neither printable nor
	 * white space, and several of its callers then use a NULL token: such bytes are refused
	 * (kernel formats are plain ASCII).
	 */
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)text[i];

		if (ch >= 0x80 || (!isprint(ch) && !isspace(ch))) {
			pd_log(1, "tracing data: a format text has byte %#x at %zu", ch, i);
			return -EINVAL;
		}
	}
	/* A field declaration cut after its '[' makes libtraceevent strcmp() a NULL token. */
	for (i = len; i && isspace((unsigned char)text[i - 1]); i--)
		;
	if (i && text[i - 1] == '[') {
		pd_log(1, "tracing data: a format text ends inside a field declaration");
		return -EINVAL;
	}
	if (!fmt)
		return 0; /* libtraceevent refuses it anyway */
	names = declared_names(text, (size_t)(fmt - text), &nr_names);
	if (nr_names == SIZE_MAX)
		return -ENOMEM;
	for (i = (size_t)(fmt - text); i < len && !ret; i++) {
		struct name ref;
		size_t j, name_at;

		if (text[i] == '"' || text[i] == '\'') {
			char quote = text[i];

			for (i++; i < len && text[i] != quote; i++)
				if (text[i] == '\\')
					i++;
			continue;
		}
		if (i + 3 > len || memcmp(text + i, "REC", 3) || (i && is_ident(text[i - 1])) ||
		    (i + 3 < len && is_ident(text[i + 3])))
			continue;
		j = i + 3;
		while (j < len && (text[j] == ' ' || text[j] == '\t' || text[j] == ')'))
			j++;
		if (j + 2 > len || memcmp(text + j, "->", 2))
			continue;
		j += 2;
		while (j < len && (text[j] == ' ' || text[j] == '\t'))
			j++;
		name_at = j;
		while (j < len && is_ident(text[j]))
			j++;
		ref.p = text + name_at;
		ref.len = j - name_at;
		if (!nr_names || !bsearch(&ref, names, nr_names, sizeof(*names), cmp_name)) {
			pd_log(1, "tracing data: print fmt uses REC->%.*s, which is not a field",
			       (int)(ref.len < 64 ? ref.len : 64), ref.p);
			ret = -EINVAL;
		}
		i = j - 1;
	}
	free(names);
	return ret;
}

/* ---------------------------------------------------------------------------------------- */
/* Writer */

/*
 * The canonical events/header_page of a kernel with this page size and long size, for machines
 * without tracefs: perf only needs it to be non-empty and parseable.
 */
static char *default_header_page(size_t *len)
{
	long page = sysconf(_SC_PAGESIZE);
	int lsz = (int)sizeof(long);
	char *s;
	int n;

	if (page <= 0)
		page = 4096;
	n = asprintf(&s,
		     "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		     "\tfield: local_t commit;\toffset:8;\tsize:%d;\tsigned:1;\n"
		     "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		     "\tfield: char data;\toffset:%d;\tsize:%ld;\tsigned:0;\n",
		     lsz, 8 + lsz, page - 8 - lsz);
	if (n < 0)
		return NULL;
	*len = (size_t)n;
	return s;
}

static const char default_header_event[] = "# compressed entry header\n"
					   "\ttype_len    :    5 bits\n"
					   "\ttime_delta  :   27 bits\n"
					   "\tarray       :   32 bits\n"
					   "\n"
					   "\tpadding     : type == 29\n"
					   "\ttime_extend : type == 30\n"
					   "\ttime_stamp : type == 31\n"
					   "\tdata max type_len  == 28\n";

/* A tracefs file under events/, or NULL when tracefs or the file is missing. */
static char *read_tracefs_file(const char *name, size_t *len)
{
	char *text;
	int size = 0;

	if (!tracefs_tracing_dir())
		return NULL;
	text = tracefs_instance_file_read(NULL, name, &size);
	if (!text || size <= 0) {
		free(text);
		return NULL;
	}
	*len = (size_t)size;
	return text;
}

/**
 * pd_tracing_new - start a tracing-data set with the machine's header_page and header_event.
 *
 * They are copied from tracefs; without tracefs a built-in canonical text is used.
 *
 * Return: 0, or -ENOMEM.
 */
int pd_tracing_new(struct pd_tracing **tp)
{
	struct pd_tracing *t;

	*tp = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->header_page = read_tracefs_file("events/header_page", &t->header_page_len);
	if (!t->header_page)
		t->header_page = default_header_page(&t->header_page_len);
	t->header_event = read_tracefs_file("events/header_event", &t->header_event_len);
	if (!t->header_event) {
		t->header_event = strdup(default_header_event);
		t->header_event_len = strlen(default_header_event);
	}
	t->tep = tep_alloc();
	if (!t->header_page || !t->header_event || !t->tep) {
		pd_tracing_free(t);
		return -ENOMEM;
	}
	tep_set_long_size(t->tep, (int)sizeof(long));
	tep_set_page_size(t->tep, (int)sysconf(_SC_PAGESIZE));
	*tp = t;
	return 0;
}

/**
 * pd_tracing_free - free a tracing-data set (NULL is fine).
 */
void pd_tracing_free(struct pd_tracing *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr_events; i++) {
		free(t->events[i].system);
		free(t->events[i].name);
		free(t->events[i].text);
	}
	free(t->events);
	free(t->header_page);
	free(t->header_event);
	if (t->tep)
		tep_free(t->tep);
	free(t);
}

/* System and event names become tracefs paths and strings in the payload. */
static bool valid_name(const char *s)
{
	return s && *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..") &&
	       strlen(s) < 256;
}

/*
 * Parse text as a format of system, and keep it unless an event with its ID is there already.
 * A second copy of the same event is not an error: *id says which ID it has.
 */
static int add_event(struct pd_tracing *t, const char *system, const char *text, size_t len,
		     bool ours, int *id)
{
	struct tep_event *ev = NULL;
	struct tracing_event *te;
	struct tep_format_field *f;
	enum tep_errno err;

	if (!valid_name(system) || !text || !len || check_format_text(text, len))
		return -EINVAL;
	err = tep_parse_format(t->tep, &ev, text, len, system);
	if (err || !ev) {
		pd_log(1, "tracing data: the format of %s:%s does not parse "
			  "(libtraceevent error %d)",
		       system, ev && ev->name ? ev->name : "?", (int)err);
		return -EINVAL;
	}
	if (ev->id <= 0 || ev->id > PD_PREC_EVENT_ID_MAX || !valid_name(ev->name)) {
		pd_log(1, "tracing data: %s:%s has ID %d, outside 1..%d", system, ev->name, ev->id,
		       PD_PREC_EVENT_ID_MAX);
		return -ERANGE;
	}
	/* perf finds the event of a raw payload by its leading u16 common_type. */
	f = tep_find_common_field(ev, "common_type");
	if (ours && (!f || f->offset != 0 || f->size != 2)) {
		pd_log(1, "tracing data: %s:%s has no u16 common_type at offset 0", system,
		       ev->name);
		return -EINVAL;
	}
	for (size_t i = 0; i < t->nr_events; i++) {
		te = &t->events[i];
		if (te->id != ev->id)
			continue;
		if (strcmp(te->system, system) || strcmp(te->name, ev->name)) {
			pd_log(1, "tracing data: %s:%s and %s:%s both have ID %d", te->system,
			       te->name, system, ev->name, ev->id);
			return -EEXIST;
		}
		*id = te->id;
		return 0;
	}
	if (t->nr_events == t->cap_events) {
		size_t cap = t->cap_events ? 2 * t->cap_events : 8;
		void *p = realloc(t->events, cap * sizeof(*t->events));

		if (!p)
			return -ENOMEM;
		t->events = p;
		t->cap_events = cap;
	}
	te = &t->events[t->nr_events];
	te->system = strdup(system);
	te->name = strdup(ev->name);
	te->text = malloc(len);
	if (!te->system || !te->name || !te->text) {
		free(te->system);
		free(te->name);
		free(te->text);
		return -ENOMEM;
	}
	memcpy(te->text, text, len);
	te->len = len;
	te->id = ev->id;
	t->nr_events++;
	*id = te->id;
	return 0;
}

/**
 * pd_tracing_add_tracefs_event - copy the format of system:event from tracefs.
 * @id: set to the event's ID (the attr config to use)
 *
 * Adding an event twice is fine; it is written once.
 *
 * Return: 0, -ENOENT when the event does not exist, -ENODEV when tracefs is not mounted, -EEXIST
 * when another event already has its ID, -EINVAL when its format does not parse.
 */
int pd_tracing_add_tracefs_event(struct pd_tracing *t, const char *system, const char *event,
				 u64 *id)
{
	char *text;
	int size = 0, ret, evid = 0;

	if (!valid_name(system) || !valid_name(event))
		return -EINVAL;
	if (!tracefs_tracing_dir())
		return -ENODEV;
	if (!tracefs_event_file_exists(NULL, system, event, "format"))
		return -ENOENT;
	text = tracefs_event_file_read(NULL, system, event, "format", &size);
	if (!text || size <= 0) {
		ret = errno ? -errno : -EIO;
		free(text);
		return ret;
	}
	ret = add_event(t, system, text, (size_t)size, false, &evid);
	free(text);
	if (!ret)
		*id = (u64)evid;
	return ret;
}

/**
 * pd_tracing_add_format - add a format text of our own (a synthetic system such as "prec").
 *
 * The text is what tracefs would show: "name:", "ID:", "format:" with the four common fields
 * first, and "print fmt:". Its ID must be at most PD_PREC_EVENT_ID_MAX and unused.
 *
 * Return: 0, -EINVAL when libtraceevent cannot parse it or common_type is not a u16 at offset 0,
 * -ERANGE for a bad ID, -EEXIST when another event has the ID, -ENOMEM.
 */
int pd_tracing_add_format(struct pd_tracing *t, const char *system, const char *format)
{
	int id;

	if (!format)
		return -EINVAL;
	return add_event(t, system, format, strlen(format), true, &id);
}

static void put_block(struct pd_buf *out, const char *text, size_t len)
{
	pd_buf_u64(out, len);
	pd_buf_append(out, text, len);
}

/**
 * pd_tracing_encode - append the whole HEADER_TRACING_DATA payload (version 0.6).
 *
 * Formats of the "ftrace" system go to the ftrace block, the others grouped by system in the
 * order they were first added; kallsyms, printk formats and saved cmdlines are empty, as perf
 * writes them.
 *
 * Return: 0, or -ENOMEM.
 */
int pd_tracing_encode(const struct pd_tracing *t, struct pd_buf *out)
{
	static const u16 one = 1;
	u32 nr_ftrace = 0, nr_systems = 0;
	size_t i, j;

	pd_buf_append(out, PD_TRACING_MAGIC, PD_TRACING_MAGIC_LEN);
	pd_buf_append(out, PD_TRACING_VERSION, sizeof(PD_TRACING_VERSION));
	pd_buf_append(out, &(u8){ *(const u8 *)&one ? 0 : 1 }, 1); /* big-endian? */
	pd_buf_append(out, &(u8){ sizeof(long) }, 1);
	pd_buf_u32(out, (u32)sysconf(_SC_PAGESIZE));
	pd_buf_append(out, "header_page", 12);
	put_block(out, t->header_page, t->header_page_len);
	pd_buf_append(out, "header_event", 13);
	put_block(out, t->header_event, t->header_event_len);

	for (i = 0; i < t->nr_events; i++)
		nr_ftrace += !strcmp(t->events[i].system, "ftrace");
	pd_buf_u32(out, nr_ftrace);
	for (i = 0; i < t->nr_events; i++)
		if (!strcmp(t->events[i].system, "ftrace"))
			put_block(out, t->events[i].text, t->events[i].len);

	/* A system is written where its first event was added; j < i finds an earlier one. */
	for (i = 0; i < t->nr_events; i++) {
		const char *sys = t->events[i].system;

		for (j = 0; j < i && strcmp(t->events[j].system, sys); j++)
			;
		nr_systems += j == i && strcmp(sys, "ftrace");
	}
	pd_buf_u32(out, nr_systems);
	for (i = 0; i < t->nr_events; i++) {
		const char *sys = t->events[i].system;
		u32 n = 0;

		for (j = 0; j < i && strcmp(t->events[j].system, sys); j++)
			;
		if (j < i || !strcmp(sys, "ftrace"))
			continue;
		pd_buf_append(out, sys, strlen(sys) + 1);
		for (j = i; j < t->nr_events; j++)
			n += !strcmp(t->events[j].system, sys);
		pd_buf_u32(out, n);
		for (j = i; j < t->nr_events; j++)
			if (!strcmp(t->events[j].system, sys))
				put_block(out, t->events[j].text, t->events[j].len);
	}

	pd_buf_u32(out, 0); /* kallsyms: perf 6.1 skips it and resolves symbols itself */
	pd_buf_u32(out, 0); /* printk formats */
	pd_buf_u64(out, 0); /* saved cmdlines */
	return out->err;
}

/* ---------------------------------------------------------------------------------------- */
/* Reader */

struct cursor {
	const u8 *p;
	size_t len, pos;
	bool swap; /* the file's byte order is not ours */
};

static int short_read(const struct cursor *c, const char *what, u64 want)
{
	pd_log(1, "tracing data: %s at offset %zu needs %llu bytes, %zu left", what, c->pos,
	       (unsigned long long)want, c->len - c->pos);
	return -EINVAL;
}

static const u8 *take(struct cursor *c, u64 n, const char *what)
{
	const u8 *p;

	if (n > c->len - c->pos) {
		short_read(c, what, n);
		return NULL;
	}
	p = c->p + c->pos;
	c->pos += n;
	return p;
}

static int take_u32(struct cursor *c, u32 *v, const char *what)
{
	const u8 *p = take(c, 4, what);

	if (!p)
		return -EINVAL;
	memcpy(v, p, 4);
	if (c->swap)
		*v = __builtin_bswap32(*v);
	return 0;
}

static int take_u64(struct cursor *c, u64 *v, const char *what)
{
	const u8 *p = take(c, 8, what);

	if (!p)
		return -EINVAL;
	memcpy(v, p, 8);
	if (c->swap)
		*v = __builtin_bswap64(*v);
	return 0;
}

/* A NUL-terminated string inside the payload. */
static const char *take_string(struct cursor *c, const char *what)
{
	const u8 *s = c->p + c->pos;
	const u8 *nul = memchr(s, '\0', c->len - c->pos);

	if (!nul) {
		pd_log(1, "tracing data: %s at offset %zu has no end", what, c->pos);
		return NULL;
	}
	c->pos += (size_t)(nul - s) + 1;
	return (const char *)s;
}

/*
 * "address : \"format\"" lines. libtraceevent's own parser trusts every line to have that shape
 * and reads out of bounds when one does not, so the lines are checked here.
 */
static void parse_printk(struct tep_handle *tep, char *text)
{
	char *save = NULL, *line;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sep = strstr(line, " : "), *end;
		unsigned long long addr;

		if (!sep)
			continue;
		*sep = '\0';
		addr = strtoull(line, &end, 16);
		if (end == line || strlen(sep + 3) < 4)
			continue;
		tep_register_print_string(tep, sep + 3, addr);
	}
}

/* "pid comm" lines, as perf parses them: comm is at most 16 characters. */
static void parse_cmdlines(struct tep_handle *tep, char *text)
{
	char *save = NULL, *line, comm[17];
	int pid;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%d %16s", &pid, comm) == 2)
			tep_register_comm(tep, comm, pid);
}

/* The pieces of a payload, found and checked before libtraceevent sees any of them. */
struct piece {
	const char *system; /* both point into the payload */
	const char *text;
	size_t len;
	size_t at; /* offset of the piece in the payload, for messages */
};

struct layout {
	bool big_endian;
	int long_size;
	u32 page_size;
	struct piece header_page;
	struct piece *formats;
	size_t nr_formats, cap_formats;
	struct piece printk, cmdlines;
};

/* A u64-sized block, left in place. */
static int take_piece(struct cursor *c, const char *what, struct piece *pc)
{
	u64 size;

	pc->at = c->pos;
	if (take_u64(c, &size, what))
		return -EINVAL;
	pc->text = (const char *)take(c, size, what);
	pc->len = (size_t)size;
	return pc->text ? 0 : -EINVAL;
}

static int take_format(struct cursor *c, struct layout *l, const char *sys)
{
	struct piece *pc;

	if (l->nr_formats == l->cap_formats) {
		size_t cap = l->cap_formats ? 2 * l->cap_formats : 16;
		void *p = realloc(l->formats, cap * sizeof(*l->formats));

		if (!p)
			return -ENOMEM;
		l->formats = p;
		l->cap_formats = cap;
	}
	pc = &l->formats[l->nr_formats];
	pc->system = sys;
	if (take_piece(c, "an event format", pc))
		return -EINVAL;
	if (check_format_text(pc->text, pc->len)) {
		pd_log(1, "tracing data: the %s format at offset %zu is refused", sys, pc->at);
		return -EINVAL;
	}
	l->nr_formats++;
	return 0;
}

/* Walk the payload, checking every size against what is left; libtraceevent is not called. */
static int scan(struct cursor *c, struct layout *l)
{
	const u8 *magic, *b;
	const char *version, *sys;
	u32 n, m;
	int err;

	magic = take(c, PD_TRACING_MAGIC_LEN, "the magic");
	if (!magic || memcmp(magic, PD_TRACING_MAGIC, PD_TRACING_MAGIC_LEN)) {
		pd_log(1, "tracing data: no tracing magic at offset 0");
		return -EINVAL;
	}
	version = take_string(c, "the version");
	if (!version || strlen(version) > 16)
		return -EINVAL;
	b = take(c, 2, "the endianness and long size");
	if (!b)
		return -EINVAL;
	if (b[0] > 1 || (b[1] != 4 && b[1] != 8)) {
		pd_log(1, "tracing data: endianness %u or long size %u is not valid", b[0], b[1]);
		return -EINVAL;
	}
	{
		static const u16 one = 1;
		bool host_big = !*(const u8 *)&one;

		l->big_endian = b[0];
		c->swap = b[0] != host_big;
	}
	l->long_size = b[1];
	if (take_u32(c, &l->page_size, "the page size"))
		return -EINVAL;
	if (!l->page_size || l->page_size > INT32_MAX) {
		pd_log(1, "tracing data: page size %u", l->page_size);
		return -EINVAL;
	}

	b = take(c, 12, "header_page");
	if (!b || memcmp(b, "header_page", 12)) {
		pd_log(1, "tracing data: no header_page at offset %zu", c->pos);
		return -EINVAL;
	}
	if (take_piece(c, "the header_page text", &l->header_page))
		return -EINVAL;
	/* perf fails on an empty header_page: its read of 0 bytes returns an error. */
	if (!l->header_page.len || check_format_text(l->header_page.text, l->header_page.len)) {
		pd_log(1, "tracing data: the header_page text is empty or not text");
		return -EINVAL;
	}

	b = take(c, 13, "header_event");
	if (!b || memcmp(b, "header_event", 13)) {
		pd_log(1, "tracing data: no header_event at offset %zu", c->pos);
		return -EINVAL;
	}
	{
		struct piece skip;

		if (take_piece(c, "the header_event text", &skip))
			return -EINVAL;
	}

	if (take_u32(c, &n, "the ftrace format count"))
		return -EINVAL;
	for (u32 i = 0; i < n; i++)
		if ((err = take_format(c, l, "ftrace")))
			return err;

	if (take_u32(c, &n, "the system count"))
		return -EINVAL;
	for (u32 i = 0; i < n; i++) {
		sys = take_string(c, "a system name");
		if (!sys || take_u32(c, &m, "an event count"))
			return -EINVAL;
		for (u32 j = 0; j < m; j++)
			if ((err = take_format(c, l, sys)))
				return err;
	}

	/* kallsyms: perf 6.1 skips them (it resolves kernel symbols itself); so do we. */
	if (take_u32(c, &n, "the kallsyms size") || !take(c, n, "kallsyms"))
		return -EINVAL;

	if (take_u32(c, &n, "the printk formats size"))
		return -EINVAL;
	l->printk.at = c->pos;
	l->printk.text = (const char *)take(c, n, "printk formats");
	l->printk.len = n;
	if (!l->printk.text)
		return -EINVAL;

	/* Saved cmdlines exist from version 0.6 on; perf compares atof(version) with 0.6. */
	if (strtod(version, NULL) >= 0.6 && take_piece(c, "saved cmdlines", &l->cmdlines))
		return -EINVAL;
	return 0;
}

/* A piece as the NUL-terminated string libtraceevent's parsers want. */
static char *piece_dup(const struct piece *pc)
{
	char *s = malloc(pc->len + 1);

	if (s) {
		memcpy(s, pc->text, pc->len);
		s[pc->len] = '\0';
	}
	return s;
}

/* Hand the pieces to libtraceevent. Return: 0, -EINVAL when a format does not parse, -ENOMEM. */
static int feed(struct tep_handle *tep, const struct layout *l, bool all)
{
	static const u16 one = 1;
	enum tep_errno err;
	char *text;

	tep_set_file_bigendian(tep, l->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, *(const u8 *)&one ? TEP_LITTLE_ENDIAN : TEP_BIG_ENDIAN);
	tep_set_flag(tep, TEP_NSEC_OUTPUT);
	tep_set_long_size(tep, l->long_size);
	tep_set_page_size(tep, (int)l->page_size);

	text = piece_dup(&l->header_page);
	if (!text)
		return -ENOMEM;
	/* As perf: the commit field's size is the kernel's long size. */
	if (!tep_parse_header_page(tep, text, l->header_page.len, l->long_size))
		tep_set_long_size(tep, tep_get_header_page_size(tep));
	free(text);

	for (size_t i = 0; i < l->nr_formats; i++) {
		const struct piece *pc = &l->formats[i];

		text = piece_dup(pc);
		if (!text)
			return -ENOMEM;
		err = tep_parse_event(tep, text, pc->len, pc->system);
		free(text);
		if (err) {
			pd_log(1, "tracing data: the %s format at offset %zu does not parse "
				  "(libtraceevent error %d)", pc->system, pc->at, (int)err);
			return -EINVAL;
		}
	}
	if (!all)
		return 0;
	if (l->printk.len) {
		text = piece_dup(&l->printk);
		if (!text)
			return -ENOMEM;
		parse_printk(tep, text);
		free(text);
	}
	if (l->cmdlines.text && l->cmdlines.len) {
		text = piece_dup(&l->cmdlines);
		if (!text)
			return -ENOMEM;
		parse_cmdlines(tep, text);
		free(text);
	}
	return 0;
}

/*
 * libtraceevent's parser crashes on some malformed formats (NULL dereferences, a division by
 * zero when it folds constants; check_format_text() refuses the cases fuzzing found). So that a
 * file cannot crash a caller that asks for it (PD_READER_TRACING_IN_CHILD), the formats are
 * first parsed in a child process: if it dies, the tracing data is refused. Its output goes to
 * /dev/null (a sanitizer build reports there).
 * Return: true when the child parsed everything, or when that cannot be known (no fork).
 */
static bool survives_libtraceevent(const struct layout *l)
{
	int status = 0;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return true;
	if (pid == 0) {
		static const int deadly[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM };
		struct rlimit no_core = { 0, 0 };
		struct tep_handle *tep;
		int fd = open("/dev/null", O_WRONLY);

		/* Die quietly: no handler of the parent's (a fuzzer's, a sanitizer's), no core. */
		for (size_t i = 0; i < sizeof(deadly) / sizeof(deadly[0]); i++)
			signal(deadly[i], SIG_DFL);
		setrlimit(RLIMIT_CORE, &no_core);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		pd_set_log(NULL);
		alarm(30);
		tep = tep_alloc();
		_exit(tep && !feed(tep, l, false) ? 0 : 1);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return true; /* reaped by someone else (SIGCHLD ignored): cannot tell */
	if (WIFSIGNALED(status)) {
		pd_log(1, "tracing data: libtraceevent dies on it (signal %d): refused",
		       WTERMSIG(status));
		return false;
	}
	return true; /* a parse error is reported by the parse in this process */
}

/**
 * pd_tracing_parse - parse a HEADER_TRACING_DATA payload into a libtraceevent handle.
 * @flags: PD_READER_TRACING_IN_CHILD to parse the formats in a child process first, or 0
 * @used: set to the bytes the payload took (pipe mode needs it to find the next record)
 *
 * Every size is checked against len. The reason for a failure goes to the log callback (debug
 * level), with its offset in the payload.
 *
 * Return: 0 with *tep set (free it with tep_free()), -EINVAL when the payload is malformed or a
 * format does not parse, -ENOMEM.
 */
int pd_tracing_parse(const void *data, size_t len, unsigned flags, struct tep_handle **tep,
		     size_t *used)
{
	struct cursor c = { .p = data, .len = len };
	struct layout l = { 0 };
	struct tep_handle *h;
	int ret;

	*tep = NULL;
	if (used)
		*used = 0;
	if (!data && len)
		return -EINVAL;
	ret = scan(&c, &l);
	if (!ret && (flags & PD_READER_TRACING_IN_CHILD) && !survives_libtraceevent(&l))
		ret = -EINVAL;
	if (ret) {
		free(l.formats);
		return ret;
	}
	h = tep_alloc();
	if (!h) {
		free(l.formats);
		return -ENOMEM;
	}
	ret = feed(h, &l, true);
	free(l.formats);
	if (ret) {
		tep_free(h);
		return ret;
	}
	*tep = h;
	if (used)
		*used = c.pos;
	return 0;
}
