// SPDX-License-Identifier: GPL-2.0
/* placeholder: being written */
typedef int prec_placeholder_cpumap;
