// SPDX-License-Identifier: GPL-2.0
/*
 * Output files opened as perf opens perf.data (see pd_outfile_open() in perf-data.h): what was
 * there before is kept as FILE.old, a link is followed only where that cannot truncate someone
 * else's file, and what a failed write leaves is only ever a file this process made.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/perf-data.h"

/*
 * Follow a symlink at the output path only when that cannot be used to truncate someone else's
 * file: the link must be ours, or belong to the owner of the regular file it points to. A
 * dangling link is refused, since O_CREAT would create its target wherever it points.
 */
static int check_symlink(const char *path, const struct stat *lst)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno == ENOENT ? -ELOOP : -errno;
	if (S_ISREG(st.st_mode) && lst->st_uid != geteuid() && lst->st_uid != st.st_uid)
		return -EPERM;
	return 0;
}

/* Whether path names the very file keep does. */
static bool same_file(const char *path, const struct stat *keep)
{
	struct stat st;

	return !stat(path, &st) && st.st_dev == keep->st_dev && st.st_ino == keep->st_ino;
}

int pd_outfile_open(struct pd_outfile *f, const char *path, mode_t mode, const char *keep)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC;
	struct stat lst, st, kst;
	bool exists = true, renames;
	int err, fd;

	memset(f, 0, sizeof(*f));
	if (lstat(path, &lst) < 0) {
		if (errno != ENOENT)
			return -errno;
		exists = false;
	} else if (S_ISLNK(lst.st_mode)) {
		err = check_symlink(path, &lst);
		if (err)
			return err;
	}
	renames = exists && stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
	if (keep && !stat(keep, &kst)) {
		char *old;
		bool clash;

		if (asprintf(&old, "%s.old", path) < 0)
			return -ENOMEM;
		clash = same_file(path, &kst) || (renames && same_file(old, &kst));
		free(old);
		if (clash)
			return -EEXIST;
	}
	f->path = strdup(path);
	if (!f->path)
		return -ENOMEM;
	/* perf keeps a non-empty earlier file as FILE.old. */
	if (renames) {
		if (asprintf(&f->old_path, "%s.old", path) < 0) {
			f->old_path = NULL;
			pd_outfile_release(f);
			return -ENOMEM;
		}
		if (rename(path, f->old_path) < 0) {
			err = -errno;
			pd_outfile_release(f);
			return err;
		}
		exists = false;
	}
	/*
	 * Where nothing is left, create exclusively; where a plain file is reused, refuse a link
	 * that appeared since lstat(): nobody can slip one in between.
	 */
	if (!exists)
		flags |= O_EXCL;
	else if (S_ISLNK(lst.st_mode))
		flags |= O_TRUNC;
	else
		flags |= O_TRUNC | O_NOFOLLOW;
	fd = open(path, flags, mode);
	if (fd < 0) {
		err = -errno;
		pd_outfile_undo(f);
		pd_outfile_release(f);
		return err;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		/* undo removes what is ours at path: not a link the user made to a file */
		f->created = !exists || !S_ISLNK(lst.st_mode);
		/* an empty file that was there already gets the new file's mode as well */
		if (exists && st.st_uid == geteuid() && (st.st_mode & 07777) != (mode & 07777))
			(void)fchmod(fd, mode);
	}
	return fd;
}

void pd_outfile_remove(struct pd_outfile *f)
{
	if (f->path && f->created)
		unlink(f->path);
	f->created = false;
}

void pd_outfile_undo(struct pd_outfile *f)
{
	pd_outfile_remove(f);
	if (f->path && f->old_path && rename(f->old_path, f->path) == 0) {
		free(f->old_path);
		f->old_path = NULL;
	}
}

void pd_outfile_release(struct pd_outfile *f)
{
	free(f->path);
	free(f->old_path);
	f->path = NULL;
	f->old_path = NULL;
}
