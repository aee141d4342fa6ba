/* SPDX-License-Identifier: GPL-2.0 */
/* Reading the small files of /proc and /sys: sysctls, sysfs attributes, /proc/PID/comm. */
#ifndef PREC_UTIL_FS_H
#define PREC_UTIL_FS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/**
 * read_small_file - read a small file whole into buf and NUL-terminate it.
 * @size: the bytes buf holds (at least 1); at most size - 1 are read, the rest of a longer file
 *        is left unread
 *
 * Without stdio, and in a loop: /proc and /sys files may come in several reads.
 *
 * Return: the number of bytes read, or a negative errno (buf is then "").
 */
ssize_t read_small_file(const char *path, char *buf, size_t size);

/**
 * read_small_file_at - read_small_file() of path relative to the directory dirfd (openat(2);
 * AT_FDCWD for the current directory), such as "PID/comm" under an open /proc.
 *
 * Return: as read_small_file().
 */
ssize_t read_small_file_at(int dirfd, const char *path, char *buf, size_t size);

/**
 * read_sysctl_u64 - read the unsigned decimal number a file such as
 * /proc/sys/kernel/perf_event_max_sample_rate holds (white space around it is fine).
 *
 * Return: 0 with *val set; a negative errno when the file cannot be read, -EINVAL when it does
 * not hold one number, -ERANGE beyond 64 bits. *val is left alone on failure.
 */
int read_sysctl_u64(const char *path, uint64_t *val);

/**
 * read_sysctl_int - read the decimal int, possibly negative, a file such as
 * /proc/sys/kernel/perf_event_paranoid holds.
 *
 * Return: as read_sysctl_u64(); -ERANGE outside int.
 */
int read_sysctl_int(const char *path, int *val);

#endif
