#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests for contrib/targetcli's save guard (rbd_lio_hook.py): with
the integration intact, broken so that rbd_lio.py does not compile, and
broken so that its patch() raises, against a small stand-in for
rtslib-fb (fabric list, RTSRoot.dump() and save_to_file()), so that no
Debian package and no configfs are needed. Each case runs in its own
interpreter that reads the integration's rbd_lio.pth as site.py does."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

CONTRIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "contrib", "targetcli")
sys.path.insert(0, CONTRIB)
sys.dont_write_bytecode = True  # the source tree may be read-only
import rbd_lio_hook  # noqa: E402

# The stand-in rtslib_fb: RTSRoot.dump() lists the live targets of the
# fabrics in fabric_modules, as rtslib does; the live targets are in
# $FAKE_LIVE.
FAKE_RTSLIB = {
    "__init__.py": "from .root import RTSRoot\n"
                   "from .utils import RTSLibError\n",
    "utils.py": "class RTSLibError(Exception):\n    pass\n\n\n"
                "def fread(path):\n    return open(path).read()\n",
    "fabric.py": "class _BaseFabricModule:\n"
                 "    def __init__(self, name):\n        self.name = name\n\n\n"
                 "fabric_modules = {'iscsi': _BaseFabricModule}\n",
    "target.py": "class NetworkPortal:\n    pass\n",
    "root.py": "import json, os\n"
               "from . import fabric\n"
               "from .utils import RTSLibError\n"
               "default_save_file = os.environ['FAKE_SAVE']\n\n\n"
               "class RTSRoot:\n"
               "    def dump(self):\n"
               "        live = json.loads(os.environ['FAKE_LIVE'])\n"
               "        return {'storage_objects': [], 'targets': [\n"
               "            {'fabric': f, 'wwn': w} for f, w in live\n"
               "            if f in fabric.fabric_modules]}\n\n"
               "    def save_to_file(self, save_file=None, so_path=None):\n"
               "        with open(save_file or default_save_file, 'w') as f:\n"
               "            json.dump(self.dump(), f)\n",
}

SAVE = """
import sys
import rtslib_fb
try:
    rtslib_fb.RTSRoot().save_to_file()
    print("saved")
except rtslib_fb.RTSLibError as exc:
    print("refused:", exc)
"""

RBD = {"fabric": "rbd", "wwn": "iqn.2026-12.org.example:a"}
ISCSI = {"fabric": "iscsi", "wwn": "iqn.2026-12.org.example:i"}


class GuardTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        base = self.tmp.name
        self.fake = os.path.join(base, "fake")
        self.site = os.path.join(base, "site")
        self.save = os.path.join(base, "saveconfig.json")
        os.makedirs(os.path.join(self.fake, "rtslib_fb"))
        for name, text in FAKE_RTSLIB.items():
            with open(os.path.join(self.fake, "rtslib_fb", name), "w") as f:
                f.write(text)
        os.makedirs(self.site)
        for name in ("rbd_lio.pth", "rbd_lio_hook.py", "rbd_lio.py"):
            shutil.copy(os.path.join(CONTRIB, name), self.site)

    def tearDown(self):
        self.tmp.cleanup()

    def write_save(self, targets):
        with open(self.save, "w") as f:
            json.dump({"storage_objects": [], "targets": targets}, f)

    def saved(self):
        with open(self.save) as f:
            return json.load(f)["targets"]

    def break_module(self, how):
        path = os.path.join(self.site, "rbd_lio.py")
        with open(path) as f:
            text = f.read()
        if how == "syntax":
            text += "def broken(:\n"
        else:
            text = text.replace("def patch(module):\n",
                                "def patch(module):\n"
                                "    raise RuntimeError('broken')\n")
            text = text.replace("\nregister()\n", "\n")
        with open(path, "w") as f:
            f.write(text)

    def run_py(self, code, live):
        env = dict(os.environ, PYTHONPATH=self.fake, FAKE_SAVE=self.save,
                   FAKE_LIVE=json.dumps([[t["fabric"], t["wwn"]] for t in live]),
                   PYTHONDONTWRITEBYTECODE="1")
        # -S: no system site directory (and no installed rbd_lio.pth);
        # the test's copy is read as site.py reads one.
        return subprocess.run(
            [sys.executable, "-S", "-c",
             "import site, sys; site.addsitedir(%r)\n%s" % (self.site, code)],
            env=env, capture_output=True, text=True, check=False)

    def test_intact_saves_what_configfs_holds(self):
        self.write_save([RBD, ISCSI])
        res = self.run_py(SAVE, [ISCSI])
        self.assertEqual(res.stdout.strip(), "saved", res.stderr)
        self.assertEqual(self.saved(), [ISCSI])

    def check_refused(self, how):
        self.break_module(how)
        self.write_save([RBD, ISCSI])
        res = self.run_py(SAVE, [RBD, ISCSI])
        self.assertTrue(res.stdout.startswith("refused: rbd: refusing"),
                        res.stdout + res.stderr)
        self.assertIn(RBD["wwn"], res.stdout)
        self.assertIn("make install-targetcli", res.stdout)
        self.assertIn("could not add the rbd fabric", res.stderr)
        self.assertEqual(self.saved(), [RBD, ISCSI])

    def test_syntax_error_refused(self):
        self.check_refused("syntax")

    def test_patch_raising_refused(self):
        self.check_refused("patch")

    def test_broken_without_rbd_in_file_saves(self):
        self.break_module("syntax")
        for targets in ([ISCSI], None):
            if targets is None:
                os.remove(self.save)
            else:
                self.write_save(targets)
            res = self.run_py(SAVE, [RBD, ISCSI])
            self.assertEqual(res.stdout.strip(), "saved", res.stderr)
            self.assertEqual(self.saved(), [ISCSI])

    def test_uncaught_refusal_exits_without_traceback(self):
        self.break_module("syntax")
        self.write_save([RBD])
        res = self.run_py("import rtslib_fb\n"
                          "rtslib_fb.RTSRoot().save_to_file()\n", [RBD])
        self.assertEqual(res.returncode, 1)
        self.assertIn("rbd: refusing to save", res.stderr)
        self.assertNotIn("Traceback", res.stderr)
        self.assertEqual(self.saved(), [RBD])

    def test_lost_rbd_targets(self):
        conf = {"targets": [RBD, ISCSI]}
        self.assertEqual(rbd_lio_hook.lost_rbd_targets(["x", RBD["wwn"]], conf),
                         ["x"])
        self.assertEqual(rbd_lio_hook.lost_rbd_targets([], conf), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
