// SPDX-License-Identifier: GPL-2.0
/*
 * C++ names as perf 6.1 shows them, demangled by the C++ runtime's demangler (see
 * symbols-internal.h).
 */
#include "config.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/symbols-internal.h"

typedef char *(*cxa_demangle_fn)(const char *mangled, char *out, size_t *len, int *status);

/*
 * The C++ runtime's demangler, looked up at run time so that prec does not link C++: every
 * machine that runs C++ programs has it.
 */
static cxa_demangle_fn demangler(void)
{
	static bool tried;
	static cxa_demangle_fn fn;

	if (!tried) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

		tried = true;
		if (h)
			*(void **)&fn = dlsym(h, "__cxa_demangle");
	}
	return fn;
}

/* Is "operator" the word that ends just before s + i (not the end of "binary_operator")? */
static bool operator_before(const char *s, size_t i)
{
	return i >= 8 && !strncmp(s + i - 8, "operator", 8) &&
	       (i == 8 || !(isalnum((unsigned char)s[i - 9]) || s[i - 9] == '_'));
}

/* Does s[i] start the name of an operator whose characters are brackets ("operator<")? */
static size_t operator_len(const char *s, size_t i)
{
	static const char *const ops[] = {
	    "operator<<=", "operator>>=", "operator<=>", "operator<<", "operator>>",
	    "operator<=",  "operator>=",  "operator->*", "operator->", "operator()",
	    "operator<",   "operator>",	  "operator[]"};

	if (s[i] != 'o' || strncmp(s + i, "operator", 8) ||
	    (i && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_')))
		return 0;
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		if (!strncmp(s + i, ops[k], strlen(ops[k])))
			return strlen(ops[k]);
	return 0;
}

/*
 * Cut a demangled name down to what perf shows (libiberty's DMGL_NO_OPTS): no parameter list,
 * no return type, no const, and no clone suffix: libiberty reads ".isra.0" or ".constprop.0"
 * after a mangled name only when it prints parameters, so perf shows
 * _ZL4workRK1Sii.constprop.0 as "work", and all clones of a function under its one name.
 */
static void strip_demangled(char *s)
{
	char *clone = strstr(s, " [clone ");
	size_t n, i, start = 0, last_space = 0;
	int depth = 0;
	bool have_space = false;

	if (clone)
		*clone = '\0';
	n = strlen(s);
	for (;;) {
		static const char *const quals[] = {" const", " volatile", " &&", " &",
						    " noexcept"};
		bool cut = false;

		for (size_t k = 0; k < sizeof(quals) / sizeof(quals[0]); k++) {
			size_t l = strlen(quals[k]);

			if (n > l && !strcmp(s + n - l, quals[k])) {
				n -= l;
				s[n] = '\0';
				cut = true;
			}
		}
		if (!cut)
			break;
	}
	/* the parameter list: the parenthesis that closes the name, matched backwards */
	if (n && s[n - 1] == ')') {
		for (i = n; i-- > 0;) {
			if (s[i] == ')')
				depth++;
			else if (s[i] == '(' && !--depth)
				break;
		}
		if (i < n && !operator_before(s, i)) {
			n = i;
			s[n] = '\0';
		}
	}
	/* a return type: the last space outside brackets, not the one of "operator new" */
	depth = 0;
	for (i = 0; i < n; i++) {
		size_t op = operator_len(s, i);

		if (op) {
			i += op - 1;
			continue;
		}
		if (s[i] == '<' || s[i] == '(' || s[i] == '[')
			depth++;
		else if ((s[i] == '>' || s[i] == ')' || s[i] == ']') && depth)
			depth--;
		else if (s[i] == ' ' && !depth && !operator_before(s, i)) {
			last_space = i;
			have_space = true;
		}
	}
	if (have_space)
		start = last_space + 1;
	memmove(s, s + start, n - start + 1);
}

/* The name perf shows for an ELF symbol: C++ names demangled without their parameters. */
const char *demangle(const char *name, char *buf, size_t len)
{
	cxa_demangle_fn fn;
	char *out;
	int status = 0;

	if (name[0] != '_' || name[1] != 'Z' || symbols_conf.no_demangle || !(fn = demangler()))
		return name;
	out = fn(name, NULL, NULL, &status);
	if (!out || status)
		return name;
	snprintf(buf, len, "%s", out);
	free(out);
	/* thunks, vtables, guards ...: libiberty keeps these whole, parameters included */
	if (!strstr(buf, " for ") && !strstr(buf, "thunk to "))
		strip_demangled(buf);
	return *buf ? buf : name;
}

bool demangle_init(void)
{
	return !symbols_conf.no_demangle && demangler() != NULL;
}
