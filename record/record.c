// SPDX-License-Identifier: GPL-2.0
/* placeholder: being written */
#include "prec.h"
#include "util/log.h"

int cmd_record(int argc, char **argv)
{
	return error("record is not built yet");
}
