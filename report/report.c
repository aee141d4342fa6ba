// SPDX-License-Identifier: GPL-2.0
/* placeholder: being written */
#include "prec.h"
#include "util/log.h"

int cmd_report(int argc, char **argv)
{
	return error("report is not built yet");
}
