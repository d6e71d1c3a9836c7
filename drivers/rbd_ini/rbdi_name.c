// SPDX-License-Identifier: GPL-2.0
/*
 * rbdi's build of the node-name rules. rbdt and rbdi do not depend on each
 * other, so the one source, drivers/rbd_fabric/rbd_name.c, is compiled
 * into each module; target and initiator can then never disagree on what
 * a valid name is.
 */
#include "rbd_name.c"
