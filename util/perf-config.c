// SPDX-License-Identifier: GPL-2.0
/*
 * perf's configuration files (see perf-config.h), in perf's syntax, which is git's: "[section]"
 * or "[section \"sub\"]" lines, then "name = value" lines; names are letters, digits and '-',
 * compared without case; '#' and ';' start a comment outside double quotes; a value may be quoted
 * and hold \\, \", \n, \t and \b. A name without '=' is an error to perf, not a true boolean.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/perf-config.h"

/* The value after '=' in s, unquoted and unescaped into out; -EINVAL on a bad escape or quote. */
static int parse_value(const char *s, char *out, size_t len)
{
	size_t n = 0, keep = 0; /* keep: the length without trailing blanks outside quotes */
	bool quoted = false;

	while (*s == ' ' || *s == '\t')
		s++;
	for (; *s && *s != '\n'; s++) {
		char c = *s;

		if (!quoted && (c == '#' || c == ';'))
			break;
		if (c == '"') {
			quoted = !quoted;
			keep = n;
			continue;
		}
		if (c == '\\') {
			switch (*++s) {
			case '\\':
			case '"':
				c = *s;
				break;
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'b':
				c = '\b';
				break;
			default:
				return -EINVAL;
			}
		}
		if (n + 1 < len)
			out[n] = c;
		n++;
		if (quoted || (c != ' ' && c != '\t') || s[-1] == '\\')
			keep = n;
	}
	if (quoted)
		return -EINVAL;
	out[keep < len ? keep : len - 1] = '\0';
	return 0;
}

/* "[section]" or "[section \"sub\"]" into sect ("section" or "section.sub"). */
static int parse_section(const char *s, char *sect, size_t len)
{
	size_t n = 0;

	for (s++; isalnum((unsigned char)*s) || *s == '.' || *s == '-'; s++)
		if (n + 1 < len)
			sect[n++] = (char)tolower((unsigned char)*s);
	if (*s == ' ' || *s == '\t') {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s++ != '"')
			return -EINVAL;
		if (n + 1 < len)
			sect[n++] = '.';
		for (; *s && *s != '"' && *s != '\n'; s++) {
			if (*s == '\\' && s[1])
				s++;
			if (n + 1 < len)
				sect[n++] = *s;
		}
		if (*s++ != '"')
			return -EINVAL;
	}
	if (*s != ']' || !n)
		return -EINVAL;
	sect[n] = '\0';
	for (s++; *s == ' ' || *s == '\t'; s++)
		;
	return !*s || *s == '\n' || *s == '#' || *s == ';' ? 0 : -EINVAL;
}

int perf_config_parse_file(const char *path, const char *key, char *value, size_t len,
			   struct perf_config_error *err)
{
	char line[8192], sect[256] = "", name[256], val[4096], full[600];
	int nr = 0, found = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *s = line;
		size_t n = 0;

		nr++;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			if (parse_section(s, sect, sizeof(sect)))
				goto bad;
			continue;
		}
		if (!isalpha((unsigned char)*s) || !*sect)
			goto bad;
		for (; isalnum((unsigned char)*s) || *s == '-'; s++)
			if (n + 1 < sizeof(name))
				name[n++] = (char)tolower((unsigned char)*s);
		name[n] = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s != '=' || parse_value(s + 1, val, sizeof(val)))
			goto bad;
		snprintf(full, sizeof(full), "%s.%s", sect, name);
		if (!strcmp(full, key)) {
			snprintf(value, len, "%s", val);
			found = 1;
		}
	}
	fclose(f);
	return found;
bad:
	fclose(f);
	snprintf(err->file, sizeof(err->file), "%s", path);
	err->line = nr;
	return -EINVAL;
}

static bool env_true(const char *name)
{
	const char *v = getenv(name);
	bool b = false;

	return v && !perf_config_bool(v, &b) && b;
}

int perf_config_get(const char *key, char *value, size_t len, struct perf_config_error *err)
{
	const char *only = getenv("PERF_CONFIG"), *home = getenv("HOME");
	char user[PATH_MAX];
	struct stat st;
	int found = 0, ret;

	if (only)
		return perf_config_parse_file(only, key, value, len, err);
	if (!env_true("PERF_CONFIG_NOSYSTEM") && !access("/etc/perfconfig", R_OK)) {
		found = perf_config_parse_file("/etc/perfconfig", key, value, len, err);
		if (found < 0)
			return found;
	}
	if (!home || env_true("PERF_CONFIG_NOGLOBAL"))
		return found;
	snprintf(user, sizeof(user), "%s/.perfconfig", home);
	/* perf's rule: a file of another user is not trusted, an empty one is not read */
	if (stat(user, &st) || (st.st_uid && st.st_uid != geteuid()) || !st.st_size)
		return found;
	ret = perf_config_parse_file(user, key, value, len, err);
	return ret ? ret : found;
}

int perf_config_bool(const char *value, bool *out)
{
	char *end;
	long long v;

	if (!*value || !strcasecmp(value, "false") || !strcasecmp(value, "no") ||
	    !strcasecmp(value, "off")) {
		*out = false;
		return 0;
	}
	*out = true;
	if (!strcasecmp(value, "true") || !strcasecmp(value, "yes") || !strcasecmp(value, "on"))
		return 0;
	errno = 0;
	v = strtoll(value, &end, 0);
	if (end == value || errno)
		return -EINVAL;
	if (*end && strchr("kKmMgG", *end))
		end++;
	if (*end)
		return -EINVAL;
	*out = v != 0;
	return 0;
}
