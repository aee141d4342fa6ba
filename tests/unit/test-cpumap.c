// SPDX-License-Identifier: GPL-2.0
/* util/cpumap.c: CPU lists parsed and printed as the kernel and perf write them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tap.h"
#include "util/cpumap.h"

/* A list as a TAP message can show it: newlines spelt out. */
static const char *shown(const char *in)
{
	static char buf[64];
	size_t o = 0;

	for (; *in && o < sizeof(buf) - 3; in++) {
		if (*in == '\n') {
			buf[o++] = '\\';
			buf[o++] = 'n';
		} else {
			buf[o++] = *in;
		}
	}
	buf[o] = '\0';
	return buf;
}

static void round_trip(const char *in, const char *out, int nr)
{
	struct cpu_map m = CPU_MAP_INIT;
	char buf[256], msg[300];
	int err = cpu_map_parse(&m, in), len;

	snprintf(msg, sizeof(msg), "\"%s\" parses to %d CPUs", shown(in), nr);
	ok(!err && m.nr == nr, msg);
	len = cpu_map_print(&m, buf, sizeof(buf));
	snprintf(msg, sizeof(msg), "\"%s\" prints as \"%s\"", shown(in), out);
	ok(!strcmp(buf, out) && len == (int)strlen(out), msg);
	cpu_map_free(&m);
}

static void bad(const char *in)
{
	struct cpu_map m = CPU_MAP_INIT;
	char msg[300];

	snprintf(msg, sizeof(msg), "\"%s\" is refused", in);
	ok(cpu_map_parse(&m, in) == -EINVAL && m.nr == 0 && !m.cpus, msg);
}

int main(void)
{
	struct cpu_map m = CPU_MAP_INIT, online = CPU_MAP_INIT;
	char buf[8];
	int len;

	round_trip("0-3,7", "0-3,7", 5);
	round_trip("0-3,7\n", "0-3,7", 5);
	round_trip("  5 ", "5", 1);
	round_trip("7,0-3", "0-3,7", 5);
	round_trip("0,1,2,4,5,6,9", "0-2,4-6,9", 7);
	round_trip("1-1,1,0-2", "0-2", 3);
	round_trip("", "", 0);
	round_trip("\n", "", 0);
	round_trip("65534", "65534", 1);
	bad("1-");
	bad("-1");
	bad("3-1");
	bad("1,,2");
	bad("1,");
	bad("a");
	bad("1 2");
	bad("0-65535");
	bad("99999999999999999999");

	cpu_map_parse(&m, "0-3,7");
	ok(cpu_map_has(&m, 0) && cpu_map_has(&m, 3) && cpu_map_has(&m, 7), "has 0, 3, 7");
	ok(!cpu_map_has(&m, 4) && !cpu_map_has(&m, -1) && !cpu_map_has(&m, 8), "not 4, -1, 8");
	is(cpu_map_max(&m), 8, "max + 1");
	len = cpu_map_print(&m, buf, 4);
	ok(len == 5 && !strcmp(buf, "0-3"), "a short buffer: a prefix, the whole length returned");
	len = cpu_map_print(&m, NULL, 0);
	is(len, 5, "length only");
	cpu_map_free(&m);
	is(cpu_map_max(&m), 0, "an empty map");

	is(cpu_map_read(&m, "/nonexistent/online"), -ENOENT, "a missing file: -ENOENT");
	if (cpu_map_online(&online) == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		is(online.nr, n, "online CPUs: as many as sysconf counts");
		ok(cpu_map_has(&online, online.cpus[0]), "the first online CPU is in the map");
		ok(cpu_map_present(&m) == 0 && m.nr >= online.nr, "present: at least the online ones");
	} else {
		skip("online CPUs", "no /sys/devices/system/cpu/online");
	}
	cpu_map_free(&m);
	cpu_map_free(&online);
	return done_testing();
}
