/* SPDX-License-Identifier: GPL-2.0 */
/* The facts about this machine that perf.data files carry in their features. */
#ifndef PREC_UTIL_SYSINFO_H
#define PREC_UTIL_SYSINFO_H

struct pd_writer;

/**
 * sysinfo_set_features - set HOSTNAME, OSRELEASE, VERSION, ARCH, NRCPUS, CPUDESC, CPUID,
 * TOTAL_MEM, CMDLINE (argv as given) and CPU_TOPOLOGY on w, as perf record does.
 *
 * A fact this machine does not give (no /proc/cpuinfo model name, no topology in sysfs, CPUID
 * off x86) is left out, as perf leaves it out; perf reads the file fine without it.
 *
 * Return: 0, or the negative errno of pd_writer_set_feature() (-ENOMEM, a pipe write error).
 */
int sysinfo_set_features(struct pd_writer *w, int argc, const char *const *argv);

/**
 * sysinfo_cpuid - perf's CPUID string: on x86 "vendor,family,model,stepping", e.g.
 * "AuthenticAMD,25,1,1".
 *
 * Return: 0, or -ENOTSUP where it cannot be had (not x86).
 */
int sysinfo_cpuid(char *buf, int size);

/**
 * sysinfo_cpudesc - the CPU's model name from /proc/cpuinfo, white space squashed as perf does.
 *
 * Return: 0, or -ENOENT when /proc/cpuinfo has no model line.
 */
int sysinfo_cpudesc(char *buf, int size);

#endif
