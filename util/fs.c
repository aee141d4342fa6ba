// SPDX-License-Identifier: GPL-2.0
/* The small /proc and /sys files (util/fs.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/fs.h"

/**
 * read_small_file_at - read a small file (relative to dirfd) whole into buf, NUL-terminated.
 *
 * Return: the number of bytes read, or a negative errno.
 */
ssize_t read_small_file_at(int dirfd, const char *path, char *buf, size_t size)
{
	size_t done = 0;
	int fd, err;

	if (!size)
		return -EINVAL;
	buf[0] = '\0';
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (done < size - 1) {
		ssize_t n = read(fd, buf + done, size - 1 - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			close(fd);
			buf[0] = '\0';
			return err;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	close(fd);
	buf[done] = '\0';
	return (ssize_t)done;
}

/**
 * read_small_file - read a small file whole into buf and NUL-terminate it.
 *
 * Return: the number of bytes read, or a negative errno.
 */
ssize_t read_small_file(const char *path, char *buf, size_t size)
{
	return read_small_file_at(AT_FDCWD, path, buf, size);
}

/* The one number of a sysctl file: digits with an optional '-', white space around them. */
static int read_number(const char *path, char *buf, size_t size, const char **digits)
{
	ssize_t n = read_small_file(path, buf, size);
	const char *p = buf;

	if (n < 0)
		return (int)n;
	while (isspace((unsigned char)*p))
		p++;
	if (!isdigit((unsigned char)(*p == '-' ? p[1] : *p)))
		return -EINVAL;
	*digits = p;
	return 0;
}

static bool only_space(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return !*p;
}

/**
 * read_sysctl_u64 - read the unsigned decimal number a sysctl file holds.
 *
 * Return: 0 with *val set, or a negative errno (-EINVAL: not one number; -ERANGE: too large).
 */
int read_sysctl_u64(const char *path, uint64_t *val)
{
	const char *p;
	char buf[64], *end;
	unsigned long long v;
	int err = read_number(path, buf, sizeof(buf), &p);

	if (err)
		return err;
	if (*p == '-')
		return -ERANGE;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno)
		return -ERANGE;
	if (!only_space(end))
		return -EINVAL;
	*val = v;
	return 0;
}

/**
 * read_sysctl_int - read the decimal int a sysctl file holds.
 *
 * Return: 0 with *val set, or a negative errno (-EINVAL: not one number; -ERANGE: outside int).
 */
int read_sysctl_int(const char *path, int *val)
{
	const char *p;
	char buf[64], *end;
	long v;
	int err = read_number(path, buf, sizeof(buf), &p);

	if (err)
		return err;
	errno = 0;
	v = strtol(p, &end, 10);
	if (errno || v < INT_MIN || v > INT_MAX)
		return -ERANGE;
	if (!only_space(end))
		return -EINVAL;
	*val = (int)v;
	return 0;
}
