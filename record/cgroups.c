// SPDX-License-Identifier: GPL-2.0
/*
 * --all-cgroups: every sample carries the id of its cgroup, and the kernel writes a CGROUP
 * record (id and path) for each cgroup created while recording. The cgroups that exist already
 * are described here, when the recording starts, as perf's perf_event__synthesize_cgroups()
 * does: without them perf report --sort cgroup shows "unknown" for every sample.
 *
 * The id is what the kernel puts in the samples: the cgroup directory's 64-bit file handle on
 * the cgroup2 mount; the path is relative to that mount, "/" for its root.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <linux/magic.h>

#include "record/cgroups.h"
#include "util/log.h"

/* The cgroup2 mount: the unified hierarchy, or its hybrid-mode place. */
static const char *cgroup2_root(void)
{
	static const char *const roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	struct statfs st;

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (!statfs(roots[i], &st) && st.f_type == CGROUP2_SUPER_MAGIC)
			return roots[i];
	return NULL;
}

static int cgroup_id(const char *path, u64 *id)
{
	u64 buf[(sizeof(struct file_handle) + sizeof(u64) + 7) / 8];
	struct file_handle *fh = (struct file_handle *)buf;
	int mount_id;

	fh->handle_bytes = sizeof(u64);
	if (name_to_handle_at(AT_FDCWD, path, fh, &mount_id, 0) < 0)
		return -errno;
	memcpy(id, fh->f_handle, sizeof(*id));
	return 0;
}

/* One CGROUP record for path and each cgroup below it (path is a PATH_MAX buffer). */
static void walk(struct pd_buf *out, const struct perf_event_attr *attr, char *path,
		 size_t root_len)
{
	size_t len = strlen(path);
	struct dirent *e;
	DIR *d;
	u64 id = 0;

	if (!cgroup_id(path, &id))
		pd_encode_cgroup(out, attr, id, path[root_len] ? path + root_len : "/", NULL);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (len + 1 + strlen(e->d_name) >= PATH_MAX)
			continue;
		path[len] = '/';
		strcpy(path + len + 1, e->d_name);
		walk(out, attr, path, root_len);
		path[len] = '\0';
	}
	closedir(d);
}

static int cgroups_declare(struct record *rec, void **priv)
{
	const struct record_opts *o = record_options(rec);

	(void)priv;
	return o->attr && o->attr->all_cgroups ? 0 : RECORD_HOOK_OFF;
}

static int cgroups_start(struct record *rec, void *priv)
{
	const char *root = cgroup2_root();
	struct pd_buf out = PD_BUF_INIT;
	char path[PATH_MAX];
	int err;

	(void)priv;
	if (!root) {
		warning("--all-cgroups: no cgroup2 mount; the cgroups that exist are not named");
		return 0;
	}
	strcpy(path, root);
	walk(&out, record_tracking_attr(rec), path, strlen(root));
	err = out.err ? -ENOMEM : out.len ? record_emit(rec, out.data, out.len) : 0;
	pd_buf_release(&out);
	if (err)
		return error("--all-cgroups: cannot queue the cgroup records: %s", strerror(-err));
	return 0;
}

const struct record_hook cgroups_hook = {
	.name = "cgroups",
	.declare = cgroups_declare,
	.start = cgroups_start,
};
