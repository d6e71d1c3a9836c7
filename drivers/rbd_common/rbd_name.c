// SPDX-License-Identifier: GPL-2.0
/*
 * Validation of rbd node names (target WWNs and initiator names).
 *
 * rbd names its nodes the way iSCSI does (RFC 3720 3.2.6, RFC 3721,
 * RFC 3980), and rbdt registers its TPGs as SCSI_PROTOCOL_ISCSI so that
 * persistent reservations carry these names as iSCSI TransportIDs. Three
 * forms are accepted:
 *
 *   iqn.YYYY-MM.<reversed domain>[:<identifier>]
 *	YYYY-MM is a four-digit year and a two-digit month 01..12 (when the
 *	naming authority owned the domain). The reversed domain has at least
 *	two labels separated by '.', e.g. "com.example"; each label is 1..63
 *	characters of a-z, 0-9 and '-' and neither starts nor ends with '-'.
 *	The optional identifier after ':' is one or more characters of a-z,
 *	0-9, '-', '.' and ':'.
 *	Example: iqn.2024-05.com.example:storage.disk1
 *
 *   naa.<hex>
 *	A SCSI Name Assigned by the Naming Authority: 16 hex digits whose
 *	first digit (the NAA type) is 2, 3 or 5 (64-bit formats), or 32 hex
 *	digits whose first digit is 6 (IEEE Registered Extended).
 *	Example: naa.50014051a2b3c4d5
 *
 *   eui.<hex>
 *	An IEEE EUI-64 as 16 hex digits.
 *	Example: eui.0123456789abcdef
 *
 * A name is at most RBD_NAME_MAX (223) bytes of printable ASCII.
 *
 * Only lowercase is accepted, in the prefix, the labels and the hex digits
 * alike. iSCSI names are compared after case folding (RFC 3722), but LIO
 * compares ACL names byte for byte, so a name with capitals could never
 * match the folded form a peer presents. Rejecting capitals up front turns
 * that silent ACL mismatch into an error at configuration time. Non-ASCII
 * characters, which RFC 3722 would allow in an IQN, are not supported.
 *
 * This file is compiled into both modules (drivers/rbd_common/rbd_common.mk)
 * so that the two sides can never disagree.
 */

#include <linux/ctype.h>
#include <linux/string.h>
#include <linux/types.h>

#include "rbd_name.h"

#define RBD_NAME_LABEL_MAX	63	/* RFC 1035 2.3.4 */

static bool rbd_name_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || isdigit(c);
}

static bool rbd_name_lower_hex(char c)
{
	return (c >= 'a' && c <= 'f') || isdigit(c);
}

/* @s points just past "iqn.". */
static const char *rbd_name_check_iqn(const char *s)
{
	unsigned int labels = 0;
	unsigned int month;
	const char *start;
	int i;

	for (i = 0; i < 7; i++) {
		if (i == 4 ? s[i] != '-' : !isdigit(s[i]))
			return "an IQN must continue with a YYYY-MM date after 'iqn.'";
	}
	month = (s[5] - '0') * 10 + (s[6] - '0');
	if (month < 1 || month > 12)
		return "the month of an IQN date must be 01..12";
	s += 7;
	if (*s != '.')
		return "an IQN date must be followed by '.' and a reversed domain name";
	s++;

	for (;;) {
		start = s;
		while (rbd_name_lower_alnum(*s) || *s == '-')
			s++;
		if (s == start || s - start > RBD_NAME_LABEL_MAX)
			return "each label of an IQN domain must be 1..63 characters long";
		if (*start == '-' || s[-1] == '-')
			return "a label of an IQN domain must not start or end with '-'";
		labels++;
		if (*s != '.')
			break;
		s++;
	}
	if (labels < 2)
		return "the domain of an IQN needs at least two labels, e.g. com.example";
	if (*s == '\0')
		return NULL;
	if (*s != ':')
		return "an IQN domain may contain only a-z, 0-9, '-' and '.'";
	s++;
	if (*s == '\0')
		return "the identifier after ':' in an IQN must not be empty";
	for (; *s; s++) {
		if (!rbd_name_lower_alnum(*s) && *s != '-' && *s != '.' &&
		    *s != ':')
			return "an IQN identifier may contain only a-z, 0-9, '-', '.' and ':'";
	}
	return NULL;
}

/* @s points just past "naa.". */
static const char *rbd_name_check_naa(const char *s)
{
	size_t len = strlen(s);
	size_t i;

	for (i = 0; i < len; i++) {
		if (!rbd_name_lower_hex(s[i]))
			return "an NAA name must continue with hex digits only";
	}
	if (len == 16) {
		if (s[0] != '2' && s[0] != '3' && s[0] != '5')
			return "a 16-digit NAA name must start with NAA type 2, 3 or 5";
		return NULL;
	}
	if (len == 32) {
		if (s[0] != '6')
			return "a 32-digit NAA name must start with NAA type 6";
		return NULL;
	}
	return "an NAA name must have 16 or 32 hex digits after 'naa.'";
}

/* @s points just past "eui.". */
static const char *rbd_name_check_eui(const char *s)
{
	size_t len = strlen(s);
	size_t i;

	for (i = 0; i < len; i++) {
		if (!rbd_name_lower_hex(s[i]))
			return "an EUI-64 name must continue with hex digits only";
	}
	if (len != 16)
		return "an EUI-64 name must have exactly 16 hex digits after 'eui.'";
	return NULL;
}

/**
 * rbd_name_check() - check a target or initiator name
 * @name: NUL-terminated candidate name
 *
 * The accepted formats are described at the top of rbd_name.c and
 * summarised by %RBD_NAME_FORMATS.
 *
 * Context: Any context; does not sleep or allocate.
 * Return: NULL if @name is valid, otherwise a static string that explains
 * the first problem found, suitable for a log message.
 */
const char *rbd_name_check(const char *name)
{
	size_t len = strnlen(name, RBD_NAME_MAX + 1);
	size_t i;

	if (len == 0)
		return "the name is empty";
	if (len > RBD_NAME_MAX)
		return "the name is longer than 223 bytes";
	for (i = 0; i < len; i++) {
		if (!isascii(name[i]) || !isgraph(name[i]))
			return "the name may contain only printable ASCII characters and no spaces";
		if (isupper(name[i]))
			return "capitals are not allowed; use lowercase";
	}

	if (!strncmp(name, "iqn.", 4))
		return rbd_name_check_iqn(name + 4);
	if (!strncmp(name, "naa.", 4))
		return rbd_name_check_naa(name + 4);
	if (!strncmp(name, "eui.", 4))
		return rbd_name_check_eui(name + 4);
	return "the name must start with 'iqn.', 'naa.' or 'eui.'";
}
