// SPDX-License-Identifier: GPL-2.0
/*
 * rbdt: test-only fault injection, built only with RBD_FAULT_INJECTION=1
 * (the test rig's build; a default build has none of it).
 *
 * Debian's kernels, which the rig tests, lack CONFIG_FAULT_INJECTION, so
 * each fault is a counter in the session's debugfs directory: writing N
 * makes the next N occasions fail, reading says how many are left.
 *
 *   fault_drop_nop  NOPs are left unanswered, as if the answer were lost
 */

#include <linux/debugfs.h>

#include "rbdt.h"

bool rbdt_fault_drop_nop(struct rbdt_queue *q)
{
	struct rbdt_session *sess = q->sess;

	if (likely(!sess || !atomic_read(&sess->fault.drop_nop)) ||
	    atomic_dec_if_positive(&sess->fault.drop_nop) < 0)
		return false;
	pr_info_ratelimited("session %016llx: fault injection: NOP from %pISpc not answered\n",
			    sess->handle, &q->peer);
	return true;
}

void rbdt_fault_debugfs_add(struct rbdt_session *sess)
{
	debugfs_create_atomic_t("fault_drop_nop", 0600, sess->debugfs,
				&sess->fault.drop_nop);
}
