// SPDX-License-Identifier: GPL-2.0
/*
 * rbdt: completion queues. Each queue has one CQ, for its receives and
 * its sends alike, polled by rbdt itself rather than by the core's CQ
 * pool, so that the statistics can say how the polling went: how often
 * a CQ was found empty and rbdt waited for the next completion event
 * (cq_waits), and the most completions one polling run handled
 * (max_cq_polled). Otherwise the poller does what
 * ib_cq_poll_work() does: work completions are handed to their ib_cqe's
 * done() in batches, a run that drained the CQ re-arms it and polls on if
 * a completion slipped in meanwhile, and a run that used up its budget of
 * completions or time is requeued. The time counts too: handlers post
 * work (a WRITE's data fetch starts when the previous one completes,
 * rbdt_fetch_next()) that a software provider may complete before the
 * next poll, and the LIO backstore may execute a command right in the
 * handler; a run could go on for seconds without ever finding the CQ
 * empty. Other work items queued behind it on the same CPU, such as
 * queue 0's keep-alive, would wait that long.
 *
 * The CQs are created with ib_create_cq(), so their poll context reads
 * as IB_POLL_SOFTIRQ: ib_drain_qp() then waits for its drain completion,
 * which the poller delivers like any other.
 *
 * The poller runs on a high-priority worker unless the module parameter
 * cq_highpri says otherwise (read when a CQ is created), which preempts
 * whatever runs on its CPU when a completion event wakes it: the lowest
 * latency on a target host. Where initiator and target share the CPUs
 * (one host, a loopback) it can preempt the application in the middle
 * of submitting, at every command: each then makes its whole round trip
 * before the next is submitted, and a deep queue runs no faster than QD1
 * (Documentation/performance.rst, "lockstep"). A normal-priority poller
 * avoids that, at a cost in QD1 latency.
 */

#include <linux/kernel.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "rbdt.h"

/* Completions, or jiffies, per run before the work item yields the CPU. */
#define RBDT_CQ_BUDGET	1024
#define RBDT_CQ_SLICE	2

static struct workqueue_struct *rbdt_cq_wq;
static struct workqueue_struct *rbdt_cq_hi_wq;

static void rbdt_cq_work(struct work_struct *work)
{
	struct rbdt_cq *rcq = container_of(work, struct rbdt_cq, work);
	struct rbdt_queue *q = container_of(rcq, struct rbdt_queue, cq);
	struct ib_cq *cq = rcq->cq;
	unsigned long start = jiffies;
	u32 done = 0;
	int n, i;

	WRITE_ONCE(rcq->poller, current);
	for (;;) {
		n = ib_poll_cq(cq, RBDT_CQ_BATCH, rcq->wc);
		for (i = 0; i < n; i++) {
			struct ib_wc *wc = &rcq->wc[i];

			/* See rbdt_post_begin(). */
			WRITE_ONCE(rcq->more,
				   i + 1 < n || n == RBDT_CQ_BATCH);
			if (wc->wr_cqe)
				wc->wr_cqe->done(cq, wc);
			else
				WARN_ON_ONCE(wc->status == IB_WC_SUCCESS);
		}
		WRITE_ONCE(rcq->more, false);
		/* The responses of this batch, in as few SENDs as may be. */
		rbdt_rsp_flush(q);
		if (n > 0)
			done += n;
		/*
		 * Poll on while the CQ has more; when it looks empty, re-arm
		 * it, and poll on if a completion came meanwhile.
		 */
		if (n < RBDT_CQ_BATCH &&
		    ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
				     IB_CQ_REPORT_MISSED_EVENTS) <= 0) {
			WRITE_ONCE(rcq->waits, rcq->waits + 1);
			break;
		}
		if (done >= RBDT_CQ_BUDGET ||
		    time_after_eq(jiffies, start + RBDT_CQ_SLICE)) {
			/* Let others run; no event is needed to come back. */
			queue_work(rcq->wq, &rcq->work);
			break;
		}
	}
	WRITE_ONCE(rcq->poller, NULL);
	if (done > rcq->max_polled)
		WRITE_ONCE(rcq->max_polled, done);
}

/* Completion event; context: the provider's interrupt or softirq. */
static void rbdt_cq_event(struct ib_cq *cq, void *ctx)
{
	struct rbdt_cq *rcq = ctx;

	queue_work(rcq->wq, &rcq->work);
}

/**
 * rbdt_cq_create() - create and arm a completion queue
 * @rcq: Zeroed; receives the CQ.
 * @dev: The RDMA device.
 * @nr_cqe: Entries the CQ must hold.
 * @vector: Completion vector.
 *
 * Return: 0 or a negative errno.
 */
int rbdt_cq_create(struct rbdt_cq *rcq, struct ib_device *dev, u32 nr_cqe,
		   int vector)
{
	struct ib_cq_init_attr attr = {
		.cqe = nr_cqe,
		.comp_vector = vector,
	};
	struct ib_cq *cq;

	if (nr_cqe > dev->attrs.max_cqe)
		return -EINVAL;
	INIT_WORK(&rcq->work, rbdt_cq_work);
	/* Fixed for the CQ's life: one poller at a time. */
	rcq->wq = READ_ONCE(rbdt_cq_highpri) ? rbdt_cq_hi_wq : rbdt_cq_wq;
	cq = ib_create_cq(dev, rbdt_cq_event, NULL, rcq, &attr);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	rcq->cq = cq;
	ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	return 0;
}

/**
 * rbdt_cq_destroy() - destroy a completion queue
 * @rcq: The CQ; nothing may use it any more (its QP is destroyed).
 *
 * Context: Process.
 */
void rbdt_cq_destroy(struct rbdt_cq *rcq)
{
	if (!rcq->cq)
		return;
	/* No QP feeds it: once the poller is done, no event can come. */
	cancel_work_sync(&rcq->work);
	ib_destroy_cq(rcq->cq);
	rcq->cq = NULL;
}

int __init rbdt_cq_init(void)
{
	rbdt_cq_wq = alloc_workqueue("rbdt_cq", WQ_MEM_RECLAIM, 0);
	if (!rbdt_cq_wq)
		return -ENOMEM;
	rbdt_cq_hi_wq = alloc_workqueue("rbdt_cq_hi",
					WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	if (!rbdt_cq_hi_wq) {
		destroy_workqueue(rbdt_cq_wq);
		return -ENOMEM;
	}
	return 0;
}

void rbdt_cq_exit(void)
{
	destroy_workqueue(rbdt_cq_hi_wq);
	destroy_workqueue(rbdt_cq_wq);
}
