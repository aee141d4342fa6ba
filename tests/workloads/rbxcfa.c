// SPDX-License-Identifier: GPL-2.0
/*
 * rbxcfa: a frame whose CFA is found from rbx, as in ld.so's _dl_runtime_resolve (which a
 * program's first call of each library function goes through): realigned() saves rbx, keeps
 * its entry stack pointer there, realigns rsp and calls spin_norbx(), which never touches rbx,
 * so that its call frame information never mentions rbx. Unwinding a sample in spin_norbx
 * finds realigned's caller only if rbx keeps its value through spin_norbx, the x86-64 ABI's
 * rule for a callee-saved register the CFI does not name. Built -O2 without frame pointers, so
 * that only the CFI can tell: main -> run -> realigned -> spin_norbx, where nearly all samples
 * land.
 *
 * usage: rbxcfa [SECONDS]   (default 1, of CPU time)
 */
#include <stdlib.h>

#include "cpu-seconds.h"

unsigned long realigned(unsigned long n);

__asm__(".text\n"
	".globl spin_norbx\n"
	".type spin_norbx, @function\n"
	"spin_norbx:\n" /* n rounds of a dependent chain, in rax and rcx alone */
	"	.cfi_startproc\n"
	"	movq %rdi, %rcx\n"
	"	xorl %eax, %eax\n"
	"1:	addq %rcx, %rax\n"
	"	rorq $3, %rax\n"
	"	decq %rcx\n"
	"	jnz 1b\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size spin_norbx, .-spin_norbx\n"
	".globl realigned\n"
	".type realigned, @function\n"
	"realigned:\n"
	"	.cfi_startproc\n"
	"	pushq %rbx\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	.cfi_offset %rbx, -16\n"
	"	movq %rsp, %rbx\n"
	"	.cfi_def_cfa_register %rbx\n"
	"	andq $-64, %rsp\n"
	"	subq $64, %rsp\n"
	"	call spin_norbx\n"
	"	movq %rbx, %rsp\n"
	"	.cfi_def_cfa_register %rsp\n"
	"	popq %rbx\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	.cfi_restore %rbx\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size realigned, .-realigned\n");

volatile unsigned long sink;

__attribute__((noinline)) unsigned long run(unsigned long n)
{
	return realigned(n) + 1;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, start = cpu_seconds();

	while (cpu_seconds() - start < secs)
		sink += run(1000000);
	return 0;
}
