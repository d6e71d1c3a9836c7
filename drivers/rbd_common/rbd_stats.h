/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU counters of a session, as rbdt and rbdi keep them: an array of
 * u64 per CPU, counted with this_cpu_inc()/this_cpu_add() without
 * atomics, and summed over the CPUs when read (debugfs).
 */
#ifndef RBD_STATS_H
#define RBD_STATS_H

#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/types.h>

/**
 * rbd_stats_sum() - the counters of a session, summed over the CPUs
 * @sum: Receives @n sums.
 * @v: The per-CPU array of @n counters.
 * @n: Number of counters.
 */
static inline void rbd_stats_sum(u64 *sum, const u64 __percpu *v,
				 unsigned int n)
{
	unsigned int i;
	int cpu;

	memset(sum, 0, n * sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const u64 *c = per_cpu_ptr(v, cpu);

		for (i = 0; i < n; i++)
			sum[i] += READ_ONCE(c[i]);
	}
}

#endif /* RBD_STATS_H */
