// SPDX-License-Identifier: GPL-2.0
/*
 * The build-id cache (see buildid-cache.h), laid out as perf 6.1's util/build-id.c lays it out,
 * and the perf config files it reads the cache's place from.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/build-id.h"
#include "util/buildid-cache.h"
#include "util/perf-config.h"

/* perf's debug-info directory, where distributions put separate debug info by build-id. */
#define SYSTEM_DEBUG_DIR "/usr/lib/debug/.build-id"

/* ---------------------------------------------------------------------------------------- */
/* The cache. */

/* perf's global --buildid-dir (prec --buildid-dir DIR COMMAND), NULL when not given. */
static const char *global_dir;

void buildid_cache_set_dir(const char *dir)
{
	global_dir = dir;
}

int buildid_cache_dir(const char *opt, char *out, size_t size)
{
	struct perf_config_error err;
	const char *home = getenv("HOME");
	int n;

	if (!opt || !*opt)
		opt = global_dir;
	if (opt && *opt)
		n = snprintf(out, size, "%s", opt);
	else if (perf_config_get("buildid.dir", out, size, &err) > 0 && *out)
		return 0;
	else if (home && *home)
		n = snprintf(out, size, "%s/.debug", home);
	else
		n = snprintf(out, size, ".debug");
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* mkdir -p path with mode: every missing directory on the way is made. */
static int mkdir_p(char *path, mode_t mode)
{
	char *slash = path;

	for (;;) {
		slash = strchr(slash + 1, '/');
		if (slash)
			*slash = '\0';
		if (mkdir(path, mode) && errno != EEXIST) {
			int err = -errno;

			if (slash)
				*slash = '/';
			return err;
		}
		if (!slash)
			return 0;
		*slash = '/';
	}
}

/* Copy src to dst (made anew with mode), through a temporary name so no half copy is seen. */
static int copy_file(const char *src, const char *dst, mode_t mode)
{
	char tmp[PATH_MAX], buf[65536];
	int in, out, err = 0;
	ssize_t n;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp%d", dst, (int)getpid()) >= sizeof(tmp))
		return -ENAMETOOLONG;
	in = open(src, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (in < 0)
		return -errno;
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		for (ssize_t off = 0; off < n && !err;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));

			if (w < 0 && errno != EINTR)
				err = -errno;
			else if (w > 0)
				off += w;
		}
		if (err)
			break;
	}
	close(in);
	if (close(out) && !err)
		err = -errno;
	if (!err && rename(tmp, dst))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* The file src as dst: a hard link, which costs nothing, else a copy with src's mode. */
static int link_or_copy(const char *src, const char *dst)
{
	struct stat st;

	if (!link(src, dst) || errno == EEXIST)
		return 0;
	if (stat(src, &st))
		return -errno;
	return copy_file(src, dst, st.st_mode & 07777);
}

/* "DIR/.build-id/xx/rest" into out. */
static int link_name(const char *dir, const char *hex, char *out, size_t size)
{
	int n = snprintf(out, size, "%s/.build-id/%.2s/%s", dir, hex, hex + 2);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Point DIR/.build-id/xx/rest at the entry (relative, as perf does: ../../NAME/HEX). */
static int add_link(const char *dir, const char *name, const char *hex)
{
	char link[PATH_MAX], target[PATH_MAX], *slash;
	int err;

	err = link_name(dir, hex, link, sizeof(link));
	if (err)
		return err;
	if ((size_t)snprintf(target, sizeof(target), "../..%s%s/%s", name[0] == '/' ? "" : "/",
			     name, hex) >= sizeof(target))
		return -ENAMETOOLONG;
	if (!symlink(target, link) || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return -errno;
	slash = strrchr(link, '/');
	*slash = '\0';
	err = mkdir_p(link, 0755);
	*slash = '/';
	if (err)
		return err;
	if (symlink(target, link) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Make the entry's files: file (its "elf" or "kallsyms") last, as it says the entry is whole. */
static int add_files(char *entry, const char *file, const char *src, const char *hex,
		     enum buildid_cache_kind kind)
{
	char dbg[PATH_MAX], path[PATH_MAX + 16];
	int err, fd;

	err = mkdir_p(entry, 0755);
	if (err)
		return err;
	if (kind == BUILDID_CACHE_KALLSYMS)
		return copy_file("/proc/kallsyms", file, 0644);
	/* perf files the distribution's separate debug info beside the binary */
	if ((size_t)snprintf(dbg, sizeof(dbg), "%s/%.2s/%s.debug", SYSTEM_DEBUG_DIR, hex, hex + 2) <
		sizeof(dbg) &&
	    !access(dbg, R_OK)) {
		snprintf(path, sizeof(path), "%s/debug", entry);
		err = link_or_copy(dbg, path);
		if (err)
			return err;
	}
	/* perf's SDT probe cache: empty, as perf leaves it for a binary without probes */
	snprintf(path, sizeof(path), "%s/probes", entry);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	close(fd);
	return link_or_copy(src, file);
}

int buildid_cache_add(const char *dir, const char *name, const char *src, const u8 *bid,
		      u8 bid_size, enum buildid_cache_kind kind)
{
	char hex[BUILD_ID_HEX_SIZE], entry[PATH_MAX], file[PATH_MAX + 16];
	bool there;
	int err;

	if (!bid_size || bid_size > BUILD_ID_MAX || !dir || !*dir ||
	    (kind == BUILDID_CACHE_ELF && (name[0] != '/' || !src)))
		return -EINVAL;
	build_id_hex(hex, bid, bid_size);
	if ((size_t)snprintf(entry, sizeof(entry), "%s%s%s/%s", dir, name[0] == '/' ? "" : "/",
			     name, hex) >= sizeof(entry))
		return -ENAMETOOLONG;
	snprintf(file, sizeof(file), "%s/%s", entry,
		 kind == BUILDID_CACHE_KALLSYMS ? "kallsyms" : "elf");
	/* An entry that is there is not copied again: a warm cache costs a stat and a symlink. */
	there = !access(file, F_OK);
	if (!there) {
		err = add_files(entry, file, src, hex, kind);
		if (err)
			return err;
	}
	/* The link is made whenever it is missing, as perf does. */
	err = add_link(dir, name, hex);
	return err ? err : !there;
}

int buildid_cache_find(const char *dir, const u8 *bid, u8 bid_size, const char *base, char *out,
		       size_t size)
{
	char hex[BUILD_ID_HEX_SIZE], link[PATH_MAX];
	int err;

	if (!bid_size || bid_size > BUILD_ID_MAX)
		return -ENOENT;
	build_id_hex(hex, bid, bid_size);
	err = link_name(dir, hex, link, sizeof(link));
	if (err)
		return err;
	if ((size_t)snprintf(out, size, "%s/%s", link, base) >= size)
		return -ENAMETOOLONG;
	return access(out, R_OK) ? -ENOENT : 0;
}
