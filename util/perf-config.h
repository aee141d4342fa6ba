/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf's configuration files, read as perf reads them, so that a setting a perf user made for
 * perf report (report.children) holds for prec report too: only $PERF_CONFIG when it is set,
 * else /etc/perfconfig (unless $PERF_CONFIG_NOSYSTEM) and then ~/.perfconfig (unless
 * $PERF_CONFIG_NOGLOBAL; skipped when empty or owned by another user than root or the caller).
 * A later file overrides an earlier one, a later line an earlier line.
 */
#ifndef PREC_UTIL_PERF_CONFIG_H
#define PREC_UTIL_PERF_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* Where a file could not be parsed, for the caller's message. */
struct perf_config_error {
	char file[4096];
	int line;
};

/**
 * perf_config_get - the value of key ("section.name", lower case) in perf's configuration.
 * @key: the key
 * @value: the value, copied (at most len - 1 bytes)
 * @len: the size of value
 * @err: where a file that could not be parsed is named
 *
 * As perf, a line it cannot parse makes the whole configuration void.
 *
 * Return: 1 with the value, 0 when no file sets the key, -EINVAL with err filled when a file
 * could not be parsed (perf then uses no configuration at all).
 */
int perf_config_get(const char *key, char *value, size_t len, struct perf_config_error *err);

/**
 * perf_config_parse_file - look key up in the one file path, as perf_config_get() does.
 *
 * Return: 1 with the value, 0 when the file does not set it or cannot be read, -EINVAL with the
 * line in err when the file could not be parsed.
 */
int perf_config_parse_file(const char *path, const char *key, char *value, size_t len,
			   struct perf_config_error *err);

/**
 * perf_config_bool - a configuration value as perf's perf_config_bool() reads it: true, yes, on
 * or a non-zero number (k, m, g suffixes allowed) are true; false, no, off, an empty value or 0
 * are false.
 *
 * Return: 0 with *out set, or -EINVAL when the value is none of these (perf then warns and,
 * as its reading of the error makes it, takes it as true: *out is set to true).
 */
int perf_config_bool(const char *value, bool *out);

#endif
