#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests for bench/report.py on a small synthetic result directory:
the per-repetition pairing of the targets, their verdicts, and perftest's
MiB/s converted to fio's 10^6-byte MB/s."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import report  # noqa: E402


def fio_json(iops, mbps, lat_us, p99_us):
    n = int(iops * 8)
    d = {"total_ios": n, "iops": iops, "bw_bytes": mbps * 1e6, "runtime": 8000,
         "lat_ns": {"mean": lat_us * 1000.0,
                    "percentile": {"50.000000": lat_us * 1000.0, "99.000000": p99_us * 1000.0}}}
    empty = {"total_ios": 0}
    return ('{"jobs": [{"read": %s, "write": %s, "usr_cpu": 1.0, "sys_cpu": 2.0, '
            '"job_runtime": 8000}]}' % (str(d).replace("'", '"'), str(empty).replace("'", '"')))


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.raw = self.tmp.name
        with open(os.path.join(self.raw, "meta.txt"), "w") as f:
            f.write("kernel 6.1\ncpus 2\nreps 2 runtime 8 ramp 2\n")
        with open(os.path.join(self.raw, "transports.txt"), "w") as f:
            f.write("rbd ok\nnvme ok\nsrp ok\n")
        # Repetition 1 is fast for everyone, repetition 2 slow: paired
        # ratios see rbd at 1.2x and 1.05x of the best peer.
        figures = {
            ("1", "rbd"): (1200, 500, 1000), ("1", "nvme"): (1000, 600, 1000),
            ("1", "srp"): (900, 700, 1200),
            ("2", "rbd"): (630, 550, 1050), ("2", "nvme"): (500, 700, 1100),
            ("2", "srp"): (600, 800, 1300),
        }
        for (rep, t), (iops, lat, p99) in figures.items():
            d = os.path.join(self.raw, "fio", rep, t)
            os.makedirs(d)
            for job in ("randread32", "qd1"):
                with open(os.path.join(d, job + ".json"), "w") as f:
                    f.write(fio_json(iops, iops * 4096 / 1e6, lat, p99))
            with open(os.path.join(d, "read128k.json"), "w") as f:
                f.write(fio_json(300, 40.0, 20000, 30000))
            # Context switches (first number) before and after: rbd's
            # repetition 2 of randread32 switches 4 times per I/O.
            n = int(iops * 8)
            cs = 4 * n if (rep, t) == ("2", "rbd") else n // 2
            with open(os.path.join(d, "randread32.cnt"), "w") as f:
                f.write("1000 0 0 0 0 0 0 0 0 0 %d 0 0 0 0 0 0 0 0 0\n" % (1000 + cs))
        for rep in ("1", "2"):
            d = os.path.join(self.raw, "perftest", rep)
            os.makedirs(d)
            with open(os.path.join(d, "read_bw-131072.txt"), "w") as f:
                f.write(" #bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]\n"
                        " 131072 500 42.00 40.00 0.000320\n")
        self.data = report.collect(self.raw)
        self.targets = {(t["job"], t["metric"], t["peer"]): t for t in self.data["targets"]}

    def tearDown(self):
        self.tmp.cleanup()

    def test_best_peer_paired_per_repetition(self):
        t = self.targets[("randread32", "iops", "RNBD/nvme-rdma/SRP")]
        self.assertEqual(len(t["rep_ratios"]), 2)
        self.assertAlmostEqual(t["rep_ratios"][0], 1.2)
        self.assertAlmostEqual(t["rep_ratios"][1], 630 / 600)
        self.assertAlmostEqual(t["ratio"], (1200 + 630) / 2 / ((1000 + 600) / 2))
        self.assertEqual(t["reps_met"], 1)
        self.assertEqual(t["verdict"], "met on the mean")

    def test_latency_bound(self):
        mean = self.targets[("qd1", "lat_us", "nvme-rdma")]
        self.assertAlmostEqual(mean["rep_ratios"][0], 500 / 600)
        self.assertEqual(mean["verdict"], "met")
        p99 = self.targets[("qd1", "p99_us", "nvme-rdma")]
        self.assertEqual(p99["verdict"], "missed")
        self.assertEqual(p99["reps_met"], 0)

    def test_perftest_in_fio_units(self):
        bw = self.data["perftest"]["ib_read_bw 131072"]
        self.assertAlmostEqual(bw["bw_MiBps"]["mean"], 40.0)
        self.assertAlmostEqual(bw["bw_MBps"]["mean"], 40.0 * 1.048576)
        t = self.targets[("read128k", "mbps", "ib_read_bw 131072")]
        self.assertAlmostEqual(t["ratio"], 40.0 / 41.94304)
        self.assertEqual(t["verdict"], "met")

    def test_perftest_paired_by_repetition(self):
        # perftest failed in repetition 1: rbd's repetition 2 is compared
        # with repetition 2's figure only.
        os.remove(os.path.join(self.raw, "perftest", "1", "read_bw-131072.txt"))
        with open(os.path.join(self.raw, "perftest", "2", "read_bw-131072.txt"), "w") as f:
            f.write(" 131072 500 42.00 20.00 0.000160\n")
        with open(os.path.join(self.raw, "fio", "2", "rbd", "read128k.json"), "w") as f:
            f.write(fio_json(230, 30.0, 26000, 39000))
        data = report.collect(self.raw)
        t = [t for t in data["targets"] if t["peer"] == "ib_read_bw 131072"][0]
        self.assertEqual(len(t["rep_ratios"]), 1)
        self.assertAlmostEqual(t["rep_ratios"][0], 30.0 / (20.0 * 1.048576))

    def test_lockstep_flagged(self):
        self.assertEqual(self.data["lockstep"], {"randread32": {"rbd": [["2", 4.0]]}})
        self.assertIn("lockstep suspected", report.table(self.data))

    def test_absent_peer_not_judged(self):
        self.assertNotIn(("randread32", "iops", "iSCSI/TCP"), self.targets)
        self.assertIn("targets", report.table(self.data))


if __name__ == "__main__":
    unittest.main()
