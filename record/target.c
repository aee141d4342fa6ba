// SPDX-License-Identifier: GPL-2.0
/* The target of a recording: CPUs, threads of existing processes, and the workload. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/target.h"
#include "util/cpumap.h"
#include "util/log.h"
#include "util/xalloc.h"

int target_online_cpus(int **cpus)
{
	struct cpu_map m = CPU_MAP_INIT;
	int err = cpu_map_online(&m);

	if (!err && !m.nr)
		err = -ENOENT;
	if (err) {
		/* No sysfs: count what the scheduler says is online. */
		long nr = sysconf(_SC_NPROCESSORS_ONLN);

		cpu_map_free(&m);
		if (nr < 1)
			return err;
		*cpus = xcalloc(nr, sizeof(int));
		for (long i = 0; i < nr; i++)
			(*cpus)[i] = (int)i;
		return (int)nr;
	}
	*cpus = m.cpus;
	return m.nr;
}

int target_parse_cpu_list(const char *list, int **cpus)
{
	struct cpu_map m = CPU_MAP_INIT, online = CPU_MAP_INIT;

	if (cpu_map_parse(&m, list) || !m.nr) {
		cpu_map_free(&m);
		return error("-C '%s': not a CPU list (give it as 0-3,5)", list);
	}
	if (!cpu_map_online(&online)) {
		for (int i = 0; i < m.nr; i++) {
			if (!cpu_map_has(&online, m.cpus[i])) {
				error("-C '%s': CPU %d is not online", list, m.cpus[i]);
				cpu_map_free(&m);
				cpu_map_free(&online);
				return -1;
			}
		}
	}
	cpu_map_free(&online);
	*cpus = m.cpus;
	return m.nr;
}

static void add_pid(pid_t **v, int *n, pid_t p)
{
	for (int i = 0; i < *n; i++)
		if ((*v)[i] == p)
			return;
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = p;
}

/* The threads of a process, from /proc/PID/task. */
static int add_threads_of(struct target *t, pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		char *end;
		long tid = strtol(d->d_name, &end, 10);

		if (*end || tid <= 0)
			continue;
		add_pid(&t->threads, &t->nr_threads, (pid_t)tid);
		found++;
	}
	closedir(dir);
	return found ? 0 : -ESRCH;
}

static int parse_pids(const char *list, const char *opt, pid_t **out, int *n)
{
	const char *p = list;

	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p || v <= 0 || v > INT_MAX || (*end && *end != ','))
			return error("%s '%s': not a list of process ids", opt, list);
		add_pid(out, n, (pid_t)v);
		p = *end ? end + 1 : end;
	}
	if (!*n)
		return error("%s '%s': not a list of process ids", opt, list);
	return 0;
}

int target_parse_uid(const char *user, uid_t *uid)
{
	struct passwd pw, *res = NULL;
	char buf[4096], *end;
	long v;

	if (!getpwnam_r(user, &pw, buf, sizeof(buf), &res) && res) {
		*uid = res->pw_uid;
		return 0;
	}
	errno = 0;
	v = strtol(user, &end, 10);
	if (!*user || *end || errno || v < 0)
		return error("Invalid User: %s", user);
	/* As perf: a number names a user only when the user exists. */
	if (getpwuid_r((uid_t)v, &pw, buf, sizeof(buf), &res) || !res)
		return error("Problems obtaining information for user %s", user);
	*uid = res->pw_uid;
	return 0;
}

/* -u: every thread of every process the user owns now (perf's thread_map__new_by_uid()). */
static int add_user_threads(struct target *t, uid_t uid)
{
	struct dirent *d;
	DIR *dir = opendir("/proc");

	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		char path[64], *end;
		long pid = strtol(d->d_name, &end, 10);
		struct stat st;

		if (*end || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld", pid);
		if (stat(path, &st) || st.st_uid != uid)
			continue;
		/* A process that exits meanwhile is no error: the user's others are recorded. */
		if (!add_threads_of(t, (pid_t)pid))
			add_pid(&t->pids, &t->nr_pids, (pid_t)pid);
	}
	closedir(dir);
	return 0;
}

/* The cgroup hierarchy perf opens -G in: perf_event's v1 mount if there is one, else cgroup2. */
static int cgroup_mount(char *dir, size_t len)
{
	struct mntent ent, *m;
	char buf[4096];
	FILE *f = setmntent("/proc/self/mounts", "r");
	bool v1 = false;

	if (!f)
		return -errno;
	*dir = 0;
	while (!v1 && (m = getmntent_r(f, &ent, buf, sizeof(buf)))) {
		if (!strcmp(m->mnt_type, "cgroup") && hasmntopt(m, "perf_event"))
			v1 = true;
		else if (strcmp(m->mnt_type, "cgroup2") || *dir)
			continue;
		snprintf(dir, len, "%s", m->mnt_dir);
	}
	endmntent(f);
	return *dir ? 0 : -ENOENT;
}

int target_open_cgroup(const char *name, char *path, size_t len)
{
	char mnt[PATH_MAX];
	int err = cgroup_mount(mnt, sizeof(mnt)), fd;

	if (err) {
		snprintf(path, len, "%s", name);
		return err;
	}
	snprintf(path, len, "%s/%s", mnt, name);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int target_init(struct target *t, bool system_wide, const char *cpu_list, const char *pid_list,
		const char *tid_list, const char *uid)
{
	memset(t, 0, sizeof(*t));
	t->workload_pid = -1;
	t->go_fd = t->err_fd = -1;

	if (cpu_list) {
		t->nr_cpus = target_parse_cpu_list(cpu_list, &t->cpus);
		if (t->nr_cpus < 0)
			return -1;
		t->cpu_list = true;
	} else {
		t->nr_cpus = target_online_cpus(&t->cpus);
		if (t->nr_cpus < 0)
			return error("cannot find the online CPUs: %s", strerror(-t->nr_cpus));
	}

	if (pid_list || tid_list) {
		t->task = true;
		if (pid_list) {
			if (parse_pids(pid_list, "-p", &t->pids, &t->nr_pids))
				return -1;
			for (int i = 0; i < t->nr_pids; i++) {
				int err = add_threads_of(t, t->pids[i]);

				if (err)
					return error("-p %d: no such process", t->pids[i]);
			}
		}
		if (tid_list) {
			pid_t *tids = NULL;
			int nr = 0;

			if (parse_pids(tid_list, "-t", &tids, &nr))
				return -1;
			for (int i = 0; i < nr; i++) {
				char path[64];

				snprintf(path, sizeof(path), "/proc/%d/status", tids[i]);
				if (access(path, F_OK)) {
					pid_t bad = tids[i];

					free(tids);
					return error("-t %d: no such thread", bad);
				}
				add_pid(&t->threads, &t->nr_threads, tids[i]);
			}
			free(tids);
		}
		return 0;
	}
	if (uid) {
		uid_t u;
		int err;

		if (target_parse_uid(uid, &u))
			return -1;
		t->task = true;
		err = add_user_threads(t, u);
		if (err)
			return error("-u %s: cannot list the processes: %s", uid, strerror(-err));
		if (!t->nr_threads)
			return error("-u %s: the user has no processes to record", uid);
		return 0;
	}

	t->system_wide = system_wide || cpu_list;
	t->threads = xmalloc(sizeof(pid_t));
	t->threads[0] = -1;
	t->nr_threads = 1;
	return 0;
}

void target_per_thread(struct target *t)
{
	t->cpus[0] = -1;
	t->nr_cpus = 1;
	t->per_thread = true;
}

/* Is path a file we may execute? 0, or the errno execve() would give. */
static int check_exec(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return errno;
	if (S_ISDIR(st.st_mode))
		return EACCES;
	if (access(path, X_OK))
		return errno;
	return 0;
}

int target_find_command(const char *argv0)
{
	const char *path;
	int err = ENOENT, e;

	if (!*argv0) {
		error("cannot run '': No such file or directory");
		return 127;
	}
	if (strchr(argv0, '/')) {
		err = check_exec(argv0);
	} else {
		path = getenv("PATH");
		if (!path)
			path = "/usr/local/bin:/usr/bin:/bin";
		/* As execvp(): the first match wins; EACCES is remembered if nothing runs. */
		while (*path) {
			size_t len = strcspn(path, ":");
			char *full = xasprintf("%.*s%s%s", (int)len, path, len ? "/" : "", argv0);

			e = check_exec(full);
			free(full);
			if (!e)
				return 0;
			if (e == EACCES)
				err = e;
			path += len;
			if (*path == ':')
				path++;
		}
	}
	if (!err)
		return 0;
	if (err == ENOENT || err == ENOTDIR) {
		error("cannot run '%s': %s", argv0,
		      strchr(argv0, '/') ? "No such file or directory" : "command not found");
		return 127;
	}
	error("cannot run '%s': %s", argv0, strerror(err));
	return 126;
}

int target_workload_prepare(struct target *t, char *const *argv, bool stdout_to_stderr)
{
	int go[2], err[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return error("cannot create a pipe: %s", strerror(errno));
	if (pipe2(err, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return error("cannot create a pipe: %s", strerror(errno));
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return error("cannot start the workload: fork: %s", strerror(e));
	}
	if (!pid) {
		sigset_t none;
		char c;
		int e;

		/* The recorder blocks and ignores signals for itself; the workload gets defaults. */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		close(go[1]);
		close(err[0]);
		if (stdout_to_stderr)
			dup2(2, 1);
		/* Wait for the go: nothing, not even exec, before the events are ready. */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	t->workload_pid = pid;
	t->go_fd = go[1];
	t->err_fd = err[0];
	return 0;
}

int target_workload_start(struct target *t)
{
	int e = 0;
	ssize_t n;

	if (t->go_fd < 0)
		return 0;
	if (write(t->go_fd, "g", 1) != 1)
		e = errno ? errno : EIO;
	close(t->go_fd);
	t->go_fd = -1;
	if (e)
		return e;
	/* The pipe closes on a successful exec (O_CLOEXEC); a failed one sends its errno. */
	do
		n = read(t->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(t->err_fd);
	t->err_fd = -1;
	return n == sizeof(e) ? e : 0;
}

void target_workload_kill(struct target *t)
{
	int status;

	if (t->workload_pid <= 0)
		return;
	if (t->go_fd >= 0) {
		/* Closing the go pipe without a byte makes the waiting child exit. */
		close(t->go_fd);
		t->go_fd = -1;
	} else {
		kill(t->workload_pid, SIGKILL);
	}
	while (waitpid(t->workload_pid, &status, 0) < 0 && errno == EINTR)
		;
	t->workload_pid = -1;
}

void target_free(struct target *t)
{
	if (t->go_fd >= 0)
		close(t->go_fd);
	if (t->err_fd >= 0)
		close(t->err_fd);
	free(t->cpus);
	free(t->threads);
	free(t->pids);
	memset(t, 0, sizeof(*t));
	t->go_fd = t->err_fd = -1;
	t->workload_pid = -1;
}
