/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Node names shared by rbdt (target WWNs, ACLs) and rbdi (the target and
 * initiator names of a session). See rbd_name.c for the accepted formats.
 */
#ifndef RBD_NAME_H
#define RBD_NAME_H

/* Longest node name in bytes, excluding the NUL (RFC 3720 3.2.6.1). */
#define RBD_NAME_MAX		223

/* The accepted formats, in the words every rejection message uses. */
#define RBD_NAME_FORMATS						\
	"iqn.YYYY-MM.reversed.domain[:identifier], "			\
	"naa.<16 or 32 hex digits> or eui.<16 hex digits>, all lowercase"

const char *rbd_name_check(const char *name);

#endif /* RBD_NAME_H */
