// SPDX-License-Identifier: GPL-2.0
/*
 * Folded stacks and flame graphs of prec report.
 *
 * --folded prints one line per distinct stack, root first, with its number of samples:
 * "hot3;__libc_start_call_main;main;run_round;hot_a 1234", the format flamegraph.pl,
 * speedscope and most flame-graph tools read. Frames are named as stackcollapse-perf.pl names
 * what `perf script` prints: the symbol, or [binary] for an address with no symbol ([unknown]
 * without a map); the first frame is the command, spaces turned into underscores.
 *
 * --flamegraph FILE writes the same tree as a self-contained SVG: one rectangle per frame, as
 * wide as its samples, its name inside when it fits, a hover title with the count and share, the
 * root ("all") at the bottom. No script, no external font or style sheet.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/perf-data.h"
#include "report/flame.h"
#include "report/hist.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/xalloc.h"

static struct profile *name_profile;

static const char *node_name(const struct profile *p, u32 n)
{
	return session_str(&p->s, p->nodes[n].key)->str;
}

static int name_cmp(const void *pa, const void *pb)
{
	return strcmp(node_name(name_profile, *(const u32 *)pa),
		      node_name(name_profile, *(const u32 *)pb));
}

/* The children of n sorted by name (flamegraph.pl orders frames alphabetically). */
static u32 *sorted_children(struct profile *p, u32 n, u32 *nr)
{
	u32 k = 0, *v;

	for (u32 c = p->nodes[n].first_child; c; c = p->nodes[c].next_sibling)
		k++;
	v = xmalloc((k ? k : 1) * sizeof(u32));
	k = 0;
	for (u32 c = p->nodes[n].first_child; c; c = p->nodes[c].next_sibling)
		v[k++] = c;
	name_profile = p;
	qsort(v, k, sizeof(u32), name_cmp);
	*nr = k;
	return v;
}

struct path {
	char *buf;
	size_t len, cap;
};

static void fold(struct profile *p, u32 n, struct path *path, FILE *out)
{
	size_t mark = path->len;
	const char *name = node_name(p, n);
	size_t l = strlen(name);
	u32 nr, *v;

	if (path->len + l + 2 > path->cap) {
		path->cap = (path->len + l + 2) * 2;
		path->buf = xrealloc(path->buf, path->cap);
	}
	if (path->len)
		path->buf[path->len++] = ';';
	memcpy(path->buf + path->len, name, l);
	path->len += l;
	if (p->nodes[n].count_self) {
		fwrite(path->buf, 1, path->len, out);
		fprintf(out, " %" PRIu64 "\n", p->nodes[n].count_self);
	}
	v = sorted_children(p, n, &nr);
	for (u32 i = 0; i < nr; i++)
		fold(p, v[i], path, out);
	free(v);
	path->len = mark;
}

int view_folded(struct profile *p, FILE *out)
{
	struct path path = {NULL, 0, 0};
	u32 nr, *v;

	profile_chains_build(p);
	v = sorted_children(p, p->folded_root, &nr);
	for (u32 i = 0; i < nr; i++)
		fold(p, v[i], &path, out);
	free(v);
	free(path.buf);
	/* what could not be resolved goes to stderr once the file was read to its end */
	p->s.rep->note = profile_unresolved_line(p, false);
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* SVG */

#define SVG_WIDTH 1200
#define SVG_PAD 10
#define FRAME_H 16
#define TOP 60
#define FONT 12
#define CHAR_W 7.0 /* about the advance of a 12 px Verdana character */

static void xml_str(FILE *out, const char *s, size_t max)
{
	for (size_t i = 0; *s && i < max; s++, i++) {
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, out);
		}
	}
}

/* flamegraph.pl's "hot" colours, picked from the name so a function keeps its colour. */
static void color(const char *name, int *r, int *g, int *b)
{
	u32 h = hash_fnv1a32_str(name);

	*r = 205 + (int)(h % 51);
	*g = (int)((h >> 8) % 231);
	*b = (int)((h >> 16) % 56);
}

static u32 max_depth(const struct profile *p, u32 n)
{
	u32 d = 0;

	for (u32 c = p->nodes[n].first_child; c; c = p->nodes[c].next_sibling) {
		u32 x = max_depth(p, c) + 1;

		if (x > d)
			d = x;
	}
	return d;
}

struct svg {
	FILE *out;
	u64 total;
	double scale; /* pixels per sample */
	double height;
};

static void frame_rect(struct svg *g, const char *name, u64 count, u64 self, double x, u32 depth)
{
	double w = (double)count * g->scale, y = g->height - SVG_PAD - (depth + 1) * FRAME_H;
	size_t fit = w > 2 * CHAR_W ? (size_t)((w - 6) / CHAR_W) : 0;
	size_t len = strlen(name);
	int r, gr, b;

	color(name, &r, &gr, &b);
	fputs("<g><title>", g->out);
	xml_str(g->out, name, (size_t)-1);
	fprintf(g->out, " (%" PRIu64 " sample%s, %.2f%%)</title>", count, count == 1 ? "" : "s",
		g->total ? 100.0 * (double)count / (double)g->total : 0.0);
	fprintf(g->out,
		"<rect x=\"%.4f\" y=\"%.1f\" width=\"%.4f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" "
		"rx=\"2\" data-samples=\"%" PRIu64 "\" data-self=\"%" PRIu64 "\"/>",
		x, y, w, FRAME_H - 1, r, gr, b, count, self);
	if (fit >= 3) {
		fprintf(g->out, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + FRAME_H - 4.5);
		if (len <= fit) {
			xml_str(g->out, name, len);
		} else {
			xml_str(g->out, name, fit - 2);
			fputs("..", g->out);
		}
		fputs("</text>", g->out);
	}
	fputs("</g>\n", g->out);
}

static void draw(struct svg *g, struct profile *p, u32 n, double x, u32 depth)
{
	u32 nr, *v;

	frame_rect(g, node_name(p, n), p->nodes[n].count, p->nodes[n].count_self, x, depth);
	v = sorted_children(p, n, &nr);
	for (u32 i = 0; i < nr; i++) {
		draw(g, p, v[i], x, depth + 1);
		x += (double)p->nodes[v[i]].count * g->scale;
	}
	free(v);
}

int view_flamegraph(struct profile *p, const char *path)
{
	struct svg g;
	char name[256];
	u32 nr, *v, depth;
	double x = SVG_PAD;
	FILE *out;
	bool first = true;
	struct pd_outfile f;
	int fd, err;

	profile_chains_build(p);
	/* "-" is stdout; a file is opened as perf.data is (an earlier one kept as FILE.old) */
	memset(&f, 0, sizeof(f));
	if (!strcmp(path, "-")) {
		fd = dup(STDOUT_FILENO);
	} else {
		fd = pd_outfile_open(&f, path, 0644, strcmp(p->o->input, "-") ? p->o->input : NULL);
		if (fd == -EEXIST)
			return error("%s: --flamegraph would write over the input file %s, or keep it "
				     "as .old: give another name",
				     path, p->o->input);
		if (fd < 0)
			return error("%s: cannot create the flame graph: %s", path, strerror(-fd));
	}
	out = fd < 0 ? NULL : fdopen(fd, "w");
	if (!out) {
		err = errno;
		if (fd >= 0)
			close(fd);
		pd_outfile_undo(&f);
		pd_outfile_release(&f);
		return error("%s: cannot create the flame graph: %s", path, strerror(err));
	}
	g.out = out;
	g.total = p->nodes[p->folded_root].count;
	g.scale = g.total ? (double)(SVG_WIDTH - 2 * SVG_PAD) / (double)g.total : 0;
	depth = max_depth(p, p->folded_root) + 1;
	g.height = TOP + (double)depth * FRAME_H + 2 * SVG_PAD;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n");
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%.0f\" viewBox=\"0 0 %d %.0f\" data-samples=\"%" PRIu64 "\">\n",
		SVG_WIDTH, g.height, SVG_WIDTH, g.height, g.total);
	fprintf(out,
		"<style>text { font-family: Verdana, sans-serif; font-size: %dpx; "
		"fill: rgb(0,0,0); } .title { font-size: 17px; } g:hover rect { "
		"stroke: black; stroke-width: 0.5; }</style>\n",
		FONT);
	fprintf(out,
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" fill=\"rgb(248,248,248)\"/>\n",
		SVG_WIDTH, g.height);
	fprintf(out, "<text class=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">Flame Graph: ",
		SVG_WIDTH / 2);
	xml_str(out, p->o->input, (size_t)-1);
	fputs("</text>\n", out);
	fprintf(out, "<text x=\"%d\" y=\"44\" text-anchor=\"middle\">%" PRIu64 " samples of ",
		SVG_WIDTH / 2, g.total);
	for (u32 i = 0; i < p->nr_ev; i++) {
		if (!p->ev[i].nr_samples)
			continue;
		fputs(first ? "" : ", ", out);
		xml_str(out, report_event_name(p->s.r, i, name, sizeof(name)), (size_t)-1);
		first = false;
	}
	fputs("; width is the share of samples, hover for counts</text>\n", out);
	frame_rect(&g, "all", g.total, p->nodes[p->folded_root].count_self, SVG_PAD, 0);
	v = sorted_children(p, p->folded_root, &nr);
	for (u32 i = 0; i < nr; i++) {
		draw(&g, p, v[i], x, 1);
		x += (double)p->nodes[v[i]].count * g.scale;
	}
	free(v);
	fputs("</svg>\n", out);
	if (ferror(out) | fclose(out)) {
		err = errno;
		pd_outfile_undo(&f);
		pd_outfile_release(&f);
		return error("%s: writing the flame graph: %s", path, strerror(err));
	}
	pd_outfile_release(&f);
	return 0;
}
