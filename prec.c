// SPDX-License-Identifier: GPL-2.0
/*
 * prec: a profiler that records perf.data files the real perf reads, and tells what the
 * profiling cost. This file is the command table; each command lives in its own folder.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "format/perf-data.h"
#include "prec.h"
#include "util/buildid-cache.h"
#include "util/log.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static int cmd_help(int argc, char **argv);

static const struct command commands[] = {
	{ "record", cmd_record, "run a command and record its profile into perf.data" },
	{ "report", cmd_report, "read perf.data and show where time went and what profiling cost" },
	{ "stat", cmd_stat, "run a command and count events, as perf stat does" },
	{ "help", cmd_help, "show help for prec or one of its commands" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: prec [--version] [-h] [--buildid-dir DIR] [--no-pager] COMMAND [ARGS]\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "   %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nSee 'prec help COMMAND' or 'prec COMMAND -h' for a command's options.\n");
}

static int cmd_help(int argc, char **argv)
{
	const struct command *cmd;
	char *sub[] = { NULL, "-h", NULL };

	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	cmd = find_command(argv[1]);
	if (!cmd || cmd->fn == cmd_help) {
		if (cmd)
			return cmd_help(1, argv);
		fprintf(stderr, "prec: '%s' is not a prec command (see 'prec help')\n", argv[1]);
		return 2;
	}
	sub[0] = argv[1];
	return cmd->fn(2, sub);
}

/*
 * perf's options before the command that mean something to prec: --buildid-dir DIR (the build-id
 * cache of every command) and --no-pager (prec never pages). Return: how many arguments they
 * took, or -1 after saying what is wrong.
 */
static int global_options(int argc, char **argv)
{
	int i = 1;

	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "--buildid-dir")) {
			if (i + 1 >= argc || !*argv[i + 1]) {
				fprintf(stderr, "prec: --buildid-dir needs a directory\n");
				return -1;
			}
			buildid_cache_set_dir(argv[i + 1]);
			i += 2;
		} else if (!strncmp(argv[i], "--buildid-dir=", 14) && argv[i][14]) {
			buildid_cache_set_dir(argv[i] + 14);
			i++;
		} else if (!strcmp(argv[i], "--no-pager")) {
			i++;
		} else {
			break;
		}
	}
	return i - 1;
}

int main(int argc, char **argv)
{
	const struct command *cmd;
	int n;

	pd_set_log(log_format_message);
	n = global_options(argc, argv);
	if (n < 0)
		return 2;
	argv[n] = argv[0];
	argc -= n;
	argv += n;
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("prec version %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return cmd_help(1, argv);
	if (argv[1][0] == '-') {
		fprintf(stderr, "prec: unknown option '%s' (see 'prec help')\n", argv[1]);
		return 2;
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		fprintf(stderr, "prec: '%s' is not a prec command (see 'prec help')\n", argv[1]);
		return 2;
	}
	return cmd->fn(argc - 1, argv + 1);
}
