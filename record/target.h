/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What prec record profiles: a command it starts (the workload), existing processes (-p) or
 * threads (-t), all CPUs (-a) or some (-C). As in perf 6.1, events are opened per CPU in every
 * case (one ring buffer per CPU): for a task target, once per thread on each CPU.
 */
#ifndef PREC_RECORD_TARGET_H
#define PREC_RECORD_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct target {
	int *cpus;          /* the CPUs to open events on and map rings for */
	int nr_cpus;
	pid_t *threads;     /* the pid argument of perf_event_open: -1 for system-wide */
	int nr_threads;
	pid_t *pids;        /* -p: the processes, for synthesis (threads of -t go in threads) */
	int nr_pids;
	bool system_wide;   /* -a or -C: pid -1 */
	bool cpu_list;      /* -C: a subset of the CPUs */
	bool task;          /* -p, -t or -u */
	bool per_thread;    /* --per-thread: cpu -1, one ring per thread */

	/* The workload. */
	pid_t workload_pid;  /* -1 when there is none */
	bool workload_target; /* the events follow the workload (no -a, -C, -p, -t) */
	int go_fd;           /* written once to let the child exec */
	int err_fd;          /* the child reports its exec errno here; EOF means exec worked */
};

/**
 * target_online_cpus - the online CPUs from /sys/devices/system/cpu/online.
 *
 * Return: the number of CPUs (*cpus allocated), or a negative errno.
 */
int target_online_cpus(int **cpus);

/**
 * target_parse_cpu_list - parse a CPU list as perf does ("0-3,5"); every CPU must be online.
 *
 * Return: the number of CPUs (*cpus allocated, sorted, without duplicates), or -1 after an
 * error message.
 */
int target_parse_cpu_list(const char *list, int **cpus);

/**
 * target_init - fill t from the options: CPUs, and the threads of -p/-t/-u (or -1).
 * @pid_list: -p, comma-separated, or NULL
 * @tid_list: -t, or NULL
 * @uid: -u, a user name or number, or NULL; -p and -t override it, as in perf
 *
 * Return: 0, or -1 after an error message.
 */
int target_init(struct target *t, bool system_wide, const char *cpu_list, const char *pid_list,
		const char *tid_list, const char *uid);

/**
 * target_parse_uid - -u: the user id of a user name or number, as perf's target__parse_uid().
 *
 * Return: 0 and *uid, or -1 after perf's one-line message.
 */
int target_parse_uid(const char *user, uid_t *uid);

/**
 * target_open_cgroup - -G: open the directory of cgroup name, for perf_event_open() with
 * PERF_FLAG_PID_CGROUP, in the hierarchy perf uses (a cgroup v1 perf_event mount, else cgroup2).
 * @path: receives the directory's path, for the message of a failure
 *
 * Return: the directory's fd, or a negative errno.
 */
int target_open_cgroup(const char *name, char *path, size_t len);

/**
 * target_per_thread - --per-thread: open the events on the target's tasks on any CPU (cpu -1),
 * one ring buffer per thread, instead of once per CPU.
 */
void target_per_thread(struct target *t);

/**
 * target_find_command - check that argv0 can be executed, as execvp() would find it.
 *
 * Return: 0, or an exit status after a one-line message: 127 when it is not found, 126 when
 * it is found but cannot be executed (as a shell says).
 */
int target_find_command(const char *argv0);

/**
 * target_workload_prepare - fork the workload; the child waits until target_workload_start().
 * @stdout_to_stderr: pipe mode: the data goes to stdout, so the workload's stdout goes to stderr
 *
 * Return: 0, or -1 after an error message.
 */
int target_workload_prepare(struct target *t, char *const *argv, bool stdout_to_stderr);

/**
 * target_workload_start - let the workload exec.
 *
 * Return: 0 once it has exec'd, or the positive errno of a failed exec (the child has then
 * exited with status 127).
 */
int target_workload_start(struct target *t);

/**
 * target_workload_kill - end a workload that never started (before or after a failed start).
 */
void target_workload_kill(struct target *t);

/* Free what target_init() allocated and close the workload's pipes. */
void target_free(struct target *t);

#endif
