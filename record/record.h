/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prec record: the command and the session engine it runs. Hooks include record/hook.h only.
 */
#ifndef PREC_RECORD_RECORD_H
#define PREC_RECORD_RECORD_H

#include "record/hook.h"

/**
 * record_register_hook - add a hook to the next recording (before cmd_record() runs it).
 *
 * Return: 0, or -ENOSPC when too many hooks are registered.
 */
int record_register_hook(const struct record_hook *hook);

#endif
