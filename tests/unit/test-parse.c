// SPDX-License-Identifier: GPL-2.0
/*
 * The option value parsers of util/parse.h: what each accepts, what it refuses, and the
 * duration's units (a bare number is milliseconds, as perf stat -I takes it), the size's units.
 */
#include <errno.h>
#include <stdbool.h>

#include "tests/tap.h"
#include "util/parse.h"

static void test_u64(void)
{
	u64 v = 7;

	is(parse_u64("0", &v), 0, "u64: 0");
	is(v, 0, "u64: 0 is 0");
	is(parse_u64("4000", &v), 0, "u64: decimal");
	is(v, 4000, "u64: 4000");
	is(parse_u64("0x10", &v), 0, "u64: hexadecimal");
	is(v, 16, "u64: 0x10 is 16");
	is(parse_u64("18446744073709551615", &v), 0, "u64: the largest");
	ok(v == UINT64_MAX, "u64: the largest is UINT64_MAX");
	v = 7;
	is(parse_u64("", &v), -EINVAL, "u64: empty");
	is(parse_u64("-1", &v), -EINVAL, "u64: negative");
	is(parse_u64("12k", &v), -EINVAL, "u64: a unit");
	is(parse_u64("1 ", &v), -EINVAL, "u64: trailing space");
	is(parse_u64("18446744073709551616", &v), -EINVAL, "u64: too large");
	is(v, 7, "u64: left alone on failure");
}

static void test_percent(void)
{
	double v = -1;

	is(parse_percent("5", &v), 0, "percent: 5");
	ok(v == 5, "percent: 5 is 5");
	is(parse_percent("12.5%", &v), 0, "percent: with %");
	ok(v == 12.5, "percent: 12.5% is 12.5");
	is(parse_percent("0", &v), 0, "percent: 0");
	is(parse_percent("100", &v), 0, "percent: 100");
	v = -1;
	is(parse_percent("100.1", &v), -EINVAL, "percent: above 100");
	is(parse_percent("-1", &v), -EINVAL, "percent: negative");
	is(parse_percent("5%%", &v), -EINVAL, "percent: two %");
	is(parse_percent("x", &v), -EINVAL, "percent: not a number");
	is(parse_percent("", &v), -EINVAL, "percent: empty");
	is(parse_percent("nan", &v), -EINVAL, "percent: nan");
	ok(v == -1, "percent: left alone on failure");
}

static void test_duration(void)
{
	static const struct {
		const char *s;
		u64 ns;
	} good[] = {
		{ "500ms", 500000000ULL }, { "2s", 2000000000ULL }, { "2.5s", 2500000000ULL },
		{ "100000us", 100000000ULL }, { "10", 10000000ULL }, { "1m", 60000000000ULL },
		{ "1h", 3600000000000ULL }, { "250ns", 250 }, { "0", 0 }, { "0.5", 500000 },
	};
	static const char *const bad[] = {
		"", "-1s", "+1s", "1x", "s", "1 s", "1sec", "inf", "nan", "1e19s", "1.5.2s",
	};
	u64 ns;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ns = 1;
		is(parse_duration(good[i].s, &ns), 0, good[i].s);
		is(ns, good[i].ns, good[i].s);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is(parse_duration(bad[i], &ns), -EINVAL, bad[i]);
	is(parse_duration(NULL, &ns), -EINVAL, "duration: NULL");
}

static void test_size(void)
{
	static const struct {
		const char *s;
		u64 bytes;
		bool unit;
	} good[] = {
		{ "0", 0, false }, { "4096", 4096, false }, { "512B", 512, true }, { "64K", 65536, true },
		{ "64k", 65536, true }, { "2M", 2ULL << 20, true }, { "1g", 1ULL << 30, true },
		{ "17179869183G", 17179869183ULL << 30, true },
	};
	static const char *const bad[] = {
		"", "K", "-1", "+1", " 1", "1T", "1KB", "1 K", "1.5M", "17179869184G",
		"18446744073709551616",
	};
	u64 bytes;
	bool unit;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		bytes = 1;
		unit = !good[i].unit;
		is(parse_size(good[i].s, &bytes, &unit), 0, good[i].s);
		ok(bytes == good[i].bytes, good[i].s);
		is(unit, good[i].unit, good[i].s);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is(parse_size(bad[i], &bytes, NULL), -EINVAL, bad[i]);
	is(parse_size(NULL, &bytes, NULL), -EINVAL, "size: NULL");
}

int main(void)
{
	test_u64();
	test_percent();
	test_duration();
	test_size();
	return done_testing();
}
