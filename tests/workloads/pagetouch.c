// SPDX-License-Identifier: GPL-2.0
/*
 * pagetouch: touches a fixed number of fresh anonymous pages, one write each, so that its page
 * faults are the same from run to run (for tests/t1018: prec stat's count against perf stat's),
 * then exits with the status asked for.
 *
 * usage: pagetouch [PAGES [STATUS]]	(defaults 1000 and 0)
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 1000;
	long page = sysconf(_SC_PAGESIZE);
	char *p;

	if (pages < 1)
		return 2;
	/* MAP_NORESERVE and no huge pages: one fault for every page touched */
	p = mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return 2;
	madvise(p, (size_t)(pages * page), MADV_NOHUGEPAGE);
	for (long i = 0; i < pages; i++)
		((volatile char *)p)[i * page] = 1;
	return argc > 2 ? atoi(argv[2]) : 0;
}
