// SPDX-License-Identifier: GPL-2.0
/*
 * rbdi's build of the authentication helpers. As with rbdi_name.c, the
 * one source, drivers/rbd_fabric/rbd_auth.c, is compiled into each
 * module, so target and initiator compute proofs with the same code.
 */
#include "rbd_auth.c"
