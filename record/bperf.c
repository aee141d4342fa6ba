// SPDX-License-Identifier: GPL-2.0
/*
 * Counters shared across sessions through BPF (record/bperf.h).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/bperf.h"
#include "record/bperf.skel.h"
#include "util/bpf-log.h"
#include "util/cpumap.h"
#include "util/log.h"
#include "util/perf-event.h"
#include "util/xalloc.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif
#define BPF_ROOT "/sys/fs/bpf"
/* The reader's name, as the kernel keeps it: how a session's program id is recognised. */
#define READER_NAME "bperf_switch"
#define LOCK_TRIES 20

/*
 * The attr map's key: the fields perf_attr_can_share() compares for a machine-wide counter, in
 * a fixed layout without padding, zeroed first, so that equal attrs give equal bytes.
 */
struct bperf_key {
	__u32 type;
	__u32 bp_type;
	__u64 config;
	__u64 config1;
	__u64 config2;
	__u64 bits;      /* KEY_* below */
};

#define KEY_EXCLUDE_USER (1ULL << 0)
#define KEY_EXCLUDE_KERNEL (1ULL << 1)
#define KEY_EXCLUDE_HV (1ULL << 2)
#define KEY_EXCLUDE_IDLE (1ULL << 3)
#define KEY_EXCLUDE_HOST (1ULL << 4)
#define KEY_EXCLUDE_GUEST (1ULL << 5)
#define KEY_PINNED (1ULL << 6)
#define KEY_EXCLUSIVE (1ULL << 7)
#define KEY_PRECISE_SHIFT 8 /* two bits */

/* The attr map's value: the array by map id, its users by reader program id. */
struct bperf_entry {
	__u32 array_id;
	__u32 nr_users;
	__u32 users[BPERF_MAX_USERS];
};

struct bperf_event {
	struct bperf_key key;
	__u32 array_id;
	__u32 prog_id;
	int array_fd;
	int *fds;            /* the counters, when this session opened them; else NULL */
	struct bperf_bpf *skel;
	bool attached;
};

struct bperf {
	struct bperf_target t;
	pid_t *tasks;
	int *cpus;
	int nr_possible;
	struct cpu_map read_cpus; /* where the readers run before a read */
	struct bperf_event *ev;
	int nr_ev;
	int cpus_fd, tasks_fd;    /* the first reader's target maps, shared by the others */
	bool enabled;
	char root[PATH_MAX];
};

const char *bperf_pin_root(void)
{
	const char *r = getenv("PREC_BPF_PIN_ROOT");

	return r && *r ? r : BPERF_PIN_ROOT;
}

/* bpffs at /sys/fs/bpf (mounted when absent, as perf does), then the pin root. */
static int make_root(const char *root)
{
	struct statfs st;
	char parent[PATH_MAX];
	char *slash;

	if (!strncmp(root, BPF_ROOT "/", strlen(BPF_ROOT) + 1) &&
	    (statfs(BPF_ROOT, &st) || st.f_type != BPF_FS_MAGIC) &&
	    mount("bpf", BPF_ROOT, "bpf", 0, "mode=0700"))
		return -errno;
	snprintf(parent, sizeof(parent), "%s", root);
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		if (statfs(parent, &st))
			return -errno;
		if (st.f_type != BPF_FS_MAGIC)
			return -ENOTSUP;
	}
	if (mkdir(root, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

static void make_key(const struct perf_event_attr *a, struct bperf_key *k)
{
	memset(k, 0, sizeof(*k));
	k->type = a->type;
	k->bp_type = a->type == PERF_TYPE_BREAKPOINT ? a->bp_type : 0;
	k->config = a->config;
	k->config1 = a->config1;
	k->config2 = a->config2;
	k->bits = (a->exclude_user ? KEY_EXCLUDE_USER : 0) |
		  (a->exclude_kernel ? KEY_EXCLUDE_KERNEL : 0) |
		  (a->exclude_hv ? KEY_EXCLUDE_HV : 0) | (a->exclude_idle ? KEY_EXCLUDE_IDLE : 0) |
		  (a->exclude_host ? KEY_EXCLUDE_HOST : 0) |
		  (a->exclude_guest ? KEY_EXCLUDE_GUEST : 0) | (a->pinned ? KEY_PINNED : 0) |
		  (a->exclusive ? KEY_EXCLUSIVE : 0) |
		  ((__u64)a->precise_ip << KEY_PRECISE_SHIFT);
}

/* The attr the shared counter is opened with: the key's fields, counting on each CPU. */
static void key_attr(const struct bperf_key *k, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = k->type;
	a->bp_type = k->bp_type;
	a->config = k->config;
	a->config1 = k->config1;
	a->config2 = k->config2;
	a->exclude_user = !!(k->bits & KEY_EXCLUDE_USER);
	a->exclude_kernel = !!(k->bits & KEY_EXCLUDE_KERNEL);
	a->exclude_hv = !!(k->bits & KEY_EXCLUDE_HV);
	a->exclude_idle = !!(k->bits & KEY_EXCLUDE_IDLE);
	a->exclude_host = !!(k->bits & KEY_EXCLUDE_HOST);
	a->exclude_guest = !!(k->bits & KEY_EXCLUDE_GUEST);
	a->pinned = !!(k->bits & KEY_PINNED);
	a->exclusive = !!(k->bits & KEY_EXCLUSIVE);
	a->precise_ip = (k->bits >> KEY_PRECISE_SHIFT) & 3;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
}

static int map_info(int fd, struct bpf_map_info *info)
{
	__u32 len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	return bpf_obj_get_info_by_fd(fd, info, &len) ? -errno : 0;
}

static int pin_path(char *buf, size_t size, const char *root, const char *name, __u32 id)
{
	int n = id ? snprintf(buf, size, "%s/%s_%u", root, name, id)
		   : snprintf(buf, size, "%s/%s", root, name);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static void unlock_attr_map(int fd)
{
	flock(fd, LOCK_UN);
	close(fd);
}

/*
 * The attr map, locked: found under the root or created and pinned there. The pin is checked
 * again once the lock is held, since a session leaving may have removed the map, and the root
 * with it, meanwhile.
 */
static int lock_attr_map(struct bperf *b)
{
	char path[PATH_MAX];
	int err = pin_path(path, sizeof(path), b->root, "attrs", 0);

	if (err)
		return err;
	for (int tries = 0; tries < LOCK_TRIES; tries++) {
		struct bpf_map_info a, p;
		int fd = bpf_obj_get(path), again;

		if (fd < 0 && errno == ENOENT) {
			fd = bpf_map_create(BPF_MAP_TYPE_HASH, "prec_bperf", sizeof(struct bperf_key),
					    sizeof(struct bperf_entry), BPERF_MAX_EVENTS, NULL);
			if (fd < 0)
				return -errno;
			if (bpf_obj_pin(fd, path)) {
				err = -errno;
				close(fd);
				if (err == -EEXIST)
					continue; /* another session pinned one first */
				/*
				 * The last session leaving removed the directory since make_root():
				 * make it again.
				 */
				if (err == -ENOENT && !(err = make_root(b->root)))
					continue;
				return err;
			}
		}
		if (fd < 0)
			return -errno;
		if (flock(fd, LOCK_EX)) {
			err = -errno;
			close(fd);
			return err;
		}
		again = bpf_obj_get(path);
		if (again >= 0 && !map_info(fd, &a) && !map_info(again, &p) && a.id == p.id) {
			close(again);
			/* Something else pinned under our name is not read as ours. */
			if (a.type == BPF_MAP_TYPE_HASH && a.key_size == sizeof(struct bperf_key) &&
			    a.value_size == sizeof(struct bperf_entry))
				return fd;
			unlock_attr_map(fd);
			return -EEXIST;
		}
		if (again >= 0)
			close(again);
		flock(fd, LOCK_UN);
		close(fd);
	}
	return -EDEADLK;
}

/* The array of id, when it is one of ours (a perf event array pinned under its id): fd, or -1. */
static int valid_array(struct bperf *b, __u32 id)
{
	char path[PATH_MAX];
	struct bpf_map_info info, pinned;
	int fd, pfd;

	if (pin_path(path, sizeof(path), b->root, "events", id))
		return -1;
	fd = bpf_map_get_fd_by_id(id);
	if (fd < 0)
		return -1;
	pfd = bpf_obj_get(path);
	if (pfd < 0 || map_info(fd, &info) || map_info(pfd, &pinned) || pinned.id != id ||
	    info.type != BPF_MAP_TYPE_PERF_EVENT_ARRAY ||
	    info.max_entries != (__u32)b->nr_possible || !(info.map_flags & BPF_F_PRESERVE_ELEMS)) {
		if (pfd >= 0)
			close(pfd);
		close(fd);
		return -1;
	}
	close(pfd);
	return fd;
}

/* Is program id a session's reader of array array_id (alive, then)? */
static bool live_reader(__u32 id, __u32 array_id)
{
	struct bpf_prog_info info;
	__u32 maps[8], len = sizeof(info);
	bool ok = false;
	int fd = bpf_prog_get_fd_by_id(id);

	if (fd < 0)
		return false;
	memset(&info, 0, sizeof(info));
	info.nr_map_ids = sizeof(maps) / sizeof(maps[0]);
	info.map_ids = (__u64)(unsigned long)maps;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len) && !strcmp(info.name, READER_NAME)) {
		for (__u32 i = 0; i < info.nr_map_ids && i < sizeof(maps) / sizeof(maps[0]); i++)
			ok |= maps[i] == array_id;
	}
	close(fd);
	return ok;
}

/* Drop the users that are gone (killed sessions) and, unless NULL, the program self. */
static void drop_users(struct bperf_entry *e, const __u32 *self)
{
	__u32 n = 0;

	for (__u32 i = 0; i < e->nr_users && i < BPERF_MAX_USERS; i++) {
		if (self && e->users[i] == *self)
			continue;
		if (live_reader(e->users[i], e->array_id))
			e->users[n++] = e->users[i];
	}
	e->nr_users = n;
}

static int count_entries(int map_fd)
{
	struct bperf_key k, next;
	int n = 0;
	void *prev = NULL;

	while (!bpf_map_get_next_key(map_fd, prev, &next)) {
		k = next;
		prev = &k;
		n++;
	}
	return n;
}

/* Is name the pin of an array (events_<id>)? *id set. */
static bool array_pin(const char *name, __u32 *id)
{
	char *end;
	unsigned long v;

	if (strncmp(name, "events_", 7) || name[7] < '0' || name[7] > '9')
		return false;
	errno = 0;
	v = strtoul(name + 7, &end, 10);
	if (*end || errno || v > UINT32_MAX)
		return false;
	*id = (__u32)v;
	return true;
}

static void unlink_array(const struct bperf *b, __u32 id)
{
	char path[PATH_MAX];

	if (!pin_path(path, sizeof(path), b->root, "events", id))
		unlink(path);
}

/*
 * Under the lock of map_fd: remove every entry no live session uses (its users all killed) with
 * its array, and every array pin that no entry names (a session killed after pinning it and
 * before writing its entry). Their counters stop with the last reference to the array.
 */
static void sweep(struct bperf *b, int map_fd)
{
	struct bperf_key keys[BPERF_MAX_EVENTS], k;
	__u32 named[BPERF_MAX_EVENTS];
	int nr = 0, nr_named = 0;
	struct dirent *d;
	void *prev = NULL;
	DIR *dir;

	while (nr < BPERF_MAX_EVENTS && !bpf_map_get_next_key(map_fd, prev, &keys[nr])) {
		k = keys[nr++];
		prev = &k;
	}
	for (int i = 0; i < nr; i++) {
		struct bperf_entry ent;
		__u32 before;

		if (bpf_map_lookup_elem(map_fd, &keys[i], &ent))
			continue;
		before = ent.nr_users;
		drop_users(&ent, NULL);
		if (!ent.nr_users) {
			unlink_array(b, ent.array_id);
			bpf_map_delete_elem(map_fd, &keys[i]);
			continue;
		}
		if (ent.nr_users != before)
			bpf_map_update_elem(map_fd, &keys[i], &ent, BPF_EXIST);
		named[nr_named++] = ent.array_id;
	}
	dir = opendir(b->root);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		bool known = false;
		__u32 id;

		if (!array_pin(d->d_name, &id))
			continue;
		for (int i = 0; i < nr_named; i++)
			known |= named[i] == id;
		if (!known)
			unlink_array(b, id);
	}
	closedir(dir);
}

/* A new array for key: the counter opened on every online CPU, put into it, pinned. */
static int create_array(struct bperf *b, struct bperf_event *e)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_PRESERVE_ELEMS);
	struct cpu_map online = CPU_MAP_INIT;
	struct perf_event_attr attr;
	struct bpf_map_info info;
	char path[PATH_MAX];
	int fd, err;

	err = cpu_map_online(&online);
	if (err)
		return err;
	fd = bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, "prec_bperf_ev", sizeof(__u32),
			    sizeof(__u32), b->nr_possible, &opts);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	key_attr(&e->key, &attr);
	e->fds = xmalloc(b->nr_possible * sizeof(int));
	for (int i = 0; i < b->nr_possible; i++)
		e->fds[i] = -1;
	for (int i = 0; i < online.nr; i++) {
		__u32 cpu = online.cpus[i];

		if ((int)cpu >= b->nr_possible)
			continue;
		e->fds[cpu] = perf_event_open_fd(&attr, -1, (int)cpu, -1);
		if (e->fds[cpu] < 0) {
			err = e->fds[cpu];
			e->fds[cpu] = -1;
			goto fail;
		}
		if (bpf_map_update_elem(fd, &cpu, &e->fds[cpu], BPF_ANY)) {
			err = -errno;
			goto fail;
		}
	}
	err = map_info(fd, &info);
	if (!err)
		err = pin_path(path, sizeof(path), b->root, "events", info.id);
	if (err)
		goto fail;
	if (bpf_obj_pin(fd, path)) {
		err = -errno;
		goto fail;
	}
	e->array_fd = fd;
	e->array_id = info.id;
	cpu_map_free(&online);
	return 0;
fail:
	for (int i = 0; i < b->nr_possible; i++)
		if (e->fds[i] >= 0)
			close(e->fds[i]);
	free(e->fds);
	e->fds = NULL;
	close(fd);
out:
	cpu_map_free(&online);
	return err;
}

/* This session's reader of e's array, loaded (not attached); the target maps filled once. */
static int load_reader(struct bperf *b, struct bperf_event *e)
{
	struct bperf_bpf *s;
	bool first = b->cpus_fd < 0;
	int err;

	bpf_log_begin(true);
	s = bperf_bpf__open();
	if (!s) {
		err = errno ? -errno : -EINVAL;
		goto out;
	}
	s->rodata->mode = b->t.mode;
	s->rodata->workload = (__u32)b->t.workload;
	s->rodata->children = b->t.children;
	bpf_map__set_max_entries(s->maps.events, b->nr_possible);
	bpf_map__set_map_flags(s->maps.events, BPF_F_PRESERVE_ELEMS);
	bpf_map__set_max_entries(s->maps.cpus, b->nr_possible);
	err = bpf_map__reuse_fd(s->maps.events, e->array_fd);
	if (!err && !first)
		err = bpf_map__reuse_fd(s->maps.cpus, b->cpus_fd);
	if (!err && !first)
		err = bpf_map__reuse_fd(s->maps.tasks, b->tasks_fd);
	if (err)
		goto fail;
	/* One fork program per session is enough: the target maps are shared. */
	bpf_program__set_autoload(s->progs.bperf_fork,
				  first && b->t.mode == BPERF_TGIDS && b->t.children);
	bpf_program__set_autoload(s->progs.bperf_exec, b->t.workload > 0);
	err = bperf_bpf__load(s);
	if (err)
		goto fail;
	if (first) {
		__u8 one = 1;

		b->cpus_fd = dup(bpf_map__fd(s->maps.cpus));
		b->tasks_fd = dup(bpf_map__fd(s->maps.tasks));
		for (int i = 0; b->t.mode == BPERF_CPUS && i < b->t.nr_cpus; i++) {
			__u32 cpu = b->t.cpus[i];

			bpf_map_update_elem(b->cpus_fd, &cpu, &one, BPF_ANY);
		}
		for (int i = 0; i < b->t.nr_tasks; i++) {
			__u32 pid = b->t.tasks[i];

			bpf_map_update_elem(b->tasks_fd, &pid, &one, BPF_ANY);
		}
	}
	{
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(s->progs.bperf_switch), &info, &len)) {
			err = -errno;
			goto fail;
		}
		e->prog_id = info.id;
	}
	e->skel = s;
	bpf_log_end();
	return 0;
fail:
	bperf_bpf__destroy(s);
out:
	bpf_log_end();
	return err;
}

int bperf_new(const struct bperf_target *t, struct bperf **out)
{
	struct bperf *b;
	int err, n = libbpf_num_possible_cpus();

	*out = NULL;
	if (n <= 0)
		return n < 0 ? n : -ENOTSUP;
	b = xcalloc(1, sizeof(*b));
	b->t = *t;
	b->nr_possible = n;
	b->cpus_fd = b->tasks_fd = -1;
	if (t->nr_tasks) {
		b->tasks = xmalloc(t->nr_tasks * sizeof(pid_t));
		memcpy(b->tasks, t->tasks, t->nr_tasks * sizeof(pid_t));
		b->t.tasks = b->tasks;
	}
	if (t->nr_cpus) {
		b->cpus = xmalloc(t->nr_cpus * sizeof(int));
		memcpy(b->cpus, t->cpus, t->nr_cpus * sizeof(int));
		b->t.cpus = b->cpus;
	}
	if (t->mode == BPERF_CPUS) {
		b->read_cpus.cpus = xmalloc(t->nr_cpus * sizeof(int));
		memcpy(b->read_cpus.cpus, t->cpus, t->nr_cpus * sizeof(int));
		b->read_cpus.nr = t->nr_cpus;
	} else if ((err = cpu_map_online(&b->read_cpus))) {
		bperf_free(b);
		return err;
	}
	snprintf(b->root, sizeof(b->root), "%s", bperf_pin_root());
	err = make_root(b->root);
	if (err) {
		bperf_free(b);
		return err;
	}
	*out = b;
	return 0;
}

int bperf_add(struct bperf *b, const struct perf_event_attr *attr, enum bperf_how *how)
{
	struct bperf_event *e;
	struct bperf_entry ent;
	bool first = b->cpus_fd < 0, reused = false;
	int lock, err;
	bool found;

	b->ev = xrealloc(b->ev, (b->nr_ev + 1) * sizeof(*b->ev));
	e = &b->ev[b->nr_ev];
	memset(e, 0, sizeof(*e));
	e->array_fd = -1;
	make_key(attr, &e->key);

	lock = lock_attr_map(b);
	if (lock < 0)
		return lock;
	found = !bpf_map_lookup_elem(lock, &e->key, &ent);
	if (found) {
		e->array_fd = valid_array(b, ent.array_id);
		if (e->array_fd < 0) {
			/* Stale: its array is gone or not ours; made again below. */
			bpf_map_delete_elem(lock, &e->key);
			found = false;
		} else {
			e->array_id = ent.array_id;
			drop_users(&ent, NULL);
			reused = !ent.nr_users;
			if (ent.nr_users >= BPERF_MAX_USERS) {
				err = -EUSERS;
				goto fail;
			}
		}
	}
	if (!found) {
		sweep(b, lock);
		if (count_entries(lock) >= BPERF_MAX_EVENTS) {
			err = -E2BIG;
			goto fail;
		}
		err = create_array(b, e);
		if (err)
			goto fail;
		memset(&ent, 0, sizeof(ent));
		ent.array_id = e->array_id;
	}
	err = load_reader(b, e);
	if (err)
		goto fail;
	ent.users[ent.nr_users++] = e->prog_id;
	if (bpf_map_update_elem(lock, &e->key, &ent, BPF_ANY)) {
		err = -errno;
		goto fail;
	}
	unlock_attr_map(lock);
	*how = !found ? BPERF_CREATED : reused ? BPERF_REUSED : BPERF_JOINED;
	return b->nr_ev++;
fail:
	if (e->skel)
		bperf_bpf__destroy(e->skel);
	/* The target maps came with this reader: the next event's loads them (and the fork one). */
	if (first && b->cpus_fd >= 0) {
		close(b->cpus_fd);
		close(b->tasks_fd);
		b->cpus_fd = b->tasks_fd = -1;
	}
	if (e->fds) {
		unlink_array(b, e->array_id);
		for (int i = 0; i < b->nr_possible; i++)
			if (e->fds[i] >= 0)
				close(e->fds[i]);
		free(e->fds);
	}
	if (e->array_fd >= 0)
		close(e->array_fd);
	unlock_attr_map(lock);
	return err;
}

/* Run event e's reader on every CPU read: it attributes the time since the last switch. */
static int run_readers(struct bperf *b, struct bperf_event *e)
{
	__u64 args[6] = { 0 };

	for (int i = 0; i < b->read_cpus.nr; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args),
			    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = (__u32)b->read_cpus.cpus[i]);

		if (bpf_prog_test_run_opts(bpf_program__fd(e->skel->progs.bperf_switch), &opts))
			return -errno;
	}
	return 0;
}

int bperf_enable(struct bperf *b)
{
	for (int i = 0; i < b->nr_ev; i++) {
		struct bperf_event *e = &b->ev[i];
		int err;

		if (e->attached)
			continue;
		err = bperf_bpf__attach(e->skel);
		if (err)
			return err;
		e->attached = true;
		err = run_readers(b, e);
		if (err)
			return err;
	}
	b->enabled = true;
	return 0;
}

void bperf_disable(struct bperf *b)
{
	if (!b->enabled)
		return;
	for (int i = 0; i < b->nr_ev; i++) {
		run_readers(b, &b->ev[i]);
		bperf_bpf__detach(b->ev[i].skel);
		b->ev[i].attached = false;
	}
	b->enabled = false;
}

/* The workload has exec'ed: event e's reader need not look at every system call any more. */
static void detach_exec(struct bperf_event *e)
{
	struct bperf_bpf *s = e->skel;

	if (s->links.bperf_exec && s->bss->started) {
		bpf_link__destroy(s->links.bperf_exec);
		s->links.bperf_exec = NULL;
	}
}

void bperf_exec_done(struct bperf *b)
{
	for (int i = 0; b && i < b->nr_ev; i++)
		detach_exec(&b->ev[i]);
}

bool bperf_has_counter(struct bperf *b, int ev, int cpu)
{
	struct bperf_prev *prev;
	__u32 zero = 0;
	bool has;

	if (ev < 0 || ev >= b->nr_ev || cpu < 0 || cpu >= b->nr_possible)
		return false;
	/* The reader marks a CPU once it read the counter there, and it could not without one. */
	prev = xcalloc(b->nr_possible, sizeof(*prev));
	has = !bpf_map_lookup_elem(bpf_map__fd(b->ev[ev].skel->maps.prev), &zero, prev) &&
	      prev[cpu].valid;
	free(prev);
	return has;
}

int bperf_read(struct bperf *b, int ev)
{
	if (ev < 0 || ev >= b->nr_ev)
		return -EINVAL;
	detach_exec(&b->ev[ev]);
	return b->enabled ? run_readers(b, &b->ev[ev]) : 0;
}

int bperf_value(struct bperf *b, int ev, int cpu, struct bperf_reading *v)
{
	struct bperf_accum *acc;
	__u32 zero = 0;
	int err = 0;

	if (ev < 0 || ev >= b->nr_ev || cpu < -1 || cpu >= b->nr_possible)
		return -EINVAL;
	/* A per-CPU map's value: one slot per possible CPU, each 8-byte aligned. */
	acc = xcalloc(b->nr_possible, sizeof(*acc));
	if (bpf_map_lookup_elem(bpf_map__fd(b->ev[ev].skel->maps.accum), &zero, acc))
		err = -errno;
	else if (cpu >= 0)
		*v = acc[cpu].sum;
	if (!err && cpu < 0) {
		memset(v, 0, sizeof(*v));
		for (int i = 0; i < b->nr_possible; i++) {
			v->val += acc[i].sum.val;
			v->ena += acc[i].sum.ena;
			v->run += acc[i].sum.run;
		}
	}
	free(acc);
	return err;
}

/* Leave e's shared counter; the last live session removes it. */
static void leave(struct bperf *b, struct bperf_event *e)
{
	struct bperf_entry ent;
	char path[PATH_MAX];
	int lock = lock_attr_map(b);

	if (lock < 0)
		return;
	if (!bpf_map_lookup_elem(lock, &e->key, &ent) && ent.array_id == e->array_id) {
		drop_users(&ent, &e->prog_id);
		if (ent.nr_users) {
			bpf_map_update_elem(lock, &e->key, &ent, BPF_ANY);
		} else {
			unlink_array(b, e->array_id);
			bpf_map_delete_elem(lock, &e->key);
		}
	}
	if (!count_entries(lock) && !pin_path(path, sizeof(path), b->root, "attrs", 0)) {
		unlink(path);
		rmdir(b->root);
	}
	unlock_attr_map(lock);
}

void bperf_free(struct bperf *b)
{
	if (!b)
		return;
	bperf_disable(b);
	for (int i = 0; i < b->nr_ev; i++) {
		struct bperf_event *e = &b->ev[i];

		leave(b, e);
		bperf_bpf__destroy(e->skel);
		for (int c = 0; e->fds && c < b->nr_possible; c++)
			if (e->fds[c] >= 0)
				close(e->fds[c]);
		free(e->fds);
		if (e->array_fd >= 0)
			close(e->array_fd);
	}
	if (b->cpus_fd >= 0)
		close(b->cpus_fd);
	if (b->tasks_fd >= 0)
		close(b->tasks_fd);
	free(b->ev);
	free(b->tasks);
	free(b->cpus);
	cpu_map_free(&b->read_cpus);
	free(b);
}
