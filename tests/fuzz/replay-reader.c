// SPDX-License-Identifier: GPL-2.0
/*
 * Replay inputs through the fuzz target without libFuzzer: each file named on the command line
 * goes through LLVMFuzzerTestOneInput(), as the fuzzer would feed it. Used by
 * tests/t0020-fuzz-corpus.sh on tests/fuzz/corpus/, in the normal and the sanitizer builds, and
 * by hand to check a crash reproducer:
 *
 *	tests/fuzz/replay-reader tests/fuzz/corpus/crash-...
 *
 * It prints one line per file and a summary. The exit status is 1 when a file cannot be read or
 * the process grew past RSS_LIMIT_MB (libFuzzer would call that an out-of-memory crash: a few KB
 * of input must not cost a GB), 0 otherwise; a crash shows as a signal or a sanitizer report.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "tests/fuzz/fuzz-reader.h"

/* The largest resident size allowed, sanitizer overhead included (libFuzzer's default is 2048). */
#define RSS_LIMIT_MB 1024

static long rss_mb(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? 0 : ru.ru_maxrss / 1024;
}

static int replay(const char *path)
{
	struct fuzz_stats before = fuzz_stats;
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "replay-reader: %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			cap = cap ? 2 * cap : 65536;
			data = realloc(data, cap);
			if (!data) {
				fclose(f);
				return -1;
			}
		}
		n = fread(data + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);

	LLVMFuzzerTestOneInput(data, len);
	free(data);
	printf("%s: %zu bytes, %" PRIu64 " records, %" PRIu64 " samples, %" PRIu64
	       " prec:overhead%s\n",
	       path, len, fuzz_stats.records - before.records, fuzz_stats.samples - before.samples,
	       fuzz_stats.overhead - before.overhead,
	       fuzz_stats.opened == before.opened ? " (refused)" : "");
	return 0;
}

int main(int argc, char **argv)
{
	int failed = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: replay-reader FILE...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		failed |= replay(argv[i]) != 0;
		if (rss_mb() > RSS_LIMIT_MB) {
			printf("%s: out of memory: the process grew to %ld MB (limit %d MB)\n",
			       argv[i], rss_mb(), RSS_LIMIT_MB);
			return 1;
		}
	}
	printf("replayed %d files: %" PRIu64 " opened, %" PRIu64 " records, %" PRIu64
	       " samples, %" PRIu64 " prec:overhead samples\n",
	       argc - 1, fuzz_stats.opened, fuzz_stats.records, fuzz_stats.samples,
	       fuzz_stats.overhead);
	return failed;
}
