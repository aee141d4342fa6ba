/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --all-cgroups: the CGROUP records of the cgroups that exist when the recording starts.
 */
#ifndef PREC_RECORD_CGROUPS_H
#define PREC_RECORD_CGROUPS_H

#include "record/hook.h"

extern const struct record_hook cgroups_hook;

#endif
