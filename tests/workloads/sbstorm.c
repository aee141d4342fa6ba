// SPDX-License-Identifier: GPL-2.0
/*
 * sbstorm: a side-band storm, for the tests that provoke prec report --overhead's sideband
 * finding for real. It maps its own executable with PROT_EXEC and unmaps it again, over and
 * over (each mapping is one PERF_RECORD_MMAP2 for every event that tracks mmaps, as dlopen churn
 * or a JIT makes them), then starts children that exec it again and exit at once (COMM, FORK,
 * EXIT and the MMAP2 records of a new program each time).
 *
 * usage: sbstorm [MMAPS [CHILDREN]]	(defaults 100000 and 100)
 *
 * Exit status: 0, or 1 when a mapping or a child failed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long mmaps = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000;
	unsigned long children = argc > 2 ? strtoul(argv[2], NULL, 0) : 100;
	long page = sysconf(_SC_PAGESIZE);
	int fd;

	if (argc > 1 && !strcmp(argv[1], "--child"))
		return 0;
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror("sbstorm: /proc/self/exe");
		return 1;
	}
	for (unsigned long i = 0; i < mmaps; i++) {
		void *p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED) {
			perror("sbstorm: mmap");
			return 1;
		}
		munmap(p, page);
	}
	close(fd);
	for (unsigned long i = 0; i < children; i++) {
		pid_t pid = fork();
		int status;

		if (pid < 0) {
			perror("sbstorm: fork");
			return 1;
		}
		if (!pid) {
			execl("/proc/self/exe", "sbstorm", "--child", (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "sbstorm: a child failed\n");
			return 1;
		}
	}
	return 0;
}
