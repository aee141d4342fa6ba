/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libbpf's messages, kept instead of printed: libbpf writes to stderr unless told otherwise, and
 * its lines (the verifier's log) would interleave with prec's own. The last warning or error line
 * is kept, so that a refusal can say why the kernel refused.
 */
#ifndef PREC_UTIL_BPF_LOG_H
#define PREC_UTIL_BPF_LOG_H

#include <stdbool.h>

/**
 * bpf_log_begin - keep libbpf's messages from now until bpf_log_end(), and forget the last one.
 * @echo: also print each message, libbpf's debug output included, with debug(2, ...) (prec
 *        -vv); false where the caller is library code that never prints.
 *
 * libbpf's print hook is global: install it only around the calls that load and attach, and
 * pair every bpf_log_begin() with one bpf_log_end(). Not nestable.
 */
void bpf_log_begin(bool echo);

/**
 * bpf_log_end - give libbpf back the print hook it had before bpf_log_begin().
 */
void bpf_log_end(void);

/**
 * bpf_log_last - the last line libbpf wrote as a warning or an error since bpf_log_begin(),
 * without the verifier's closing summary lines.
 *
 * Return: the line, "" when there was none; valid until the next bpf_log_begin().
 */
const char *bpf_log_last(void);

#endif
