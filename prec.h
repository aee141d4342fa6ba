/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PREC_H
#define PREC_H

/*
 * Every command is int cmd_NAME(int argc, char **argv): argv[0] is the command's name, the
 * options follow, and the return value is prec's exit status (0 ok, 1 failure, 2 bad usage;
 * record and stat return the workload's status).
 */
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_stat(int argc, char **argv);

#endif
