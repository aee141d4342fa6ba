/* SPDX-License-Identifier: GPL-2.0 */
/* The fuzz target's entry point, shared by the libFuzzer build and the replay program. */
#ifndef PREC_TESTS_FUZZ_READER_H
#define PREC_TESTS_FUZZ_READER_H

#include <stddef.h>
#include <stdint.h>

/* What the reader got through, summed over inputs: replay-reader prints it. */
struct fuzz_stats {
	uint64_t opened;   /* inputs pd_reader_open_fd() accepted (pipe-mode inputs twice) */
	uint64_t records;  /* records pd_reader_next() handed out in first passes */
	uint64_t samples;  /* SAMPLE records pd_reader_parse_sample() decoded, both passes */
	uint64_t overhead; /* prec:overhead payloads overhead_record_decode() accepted */
};

extern struct fuzz_stats fuzz_stats;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
