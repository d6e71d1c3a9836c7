#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print a guest's network and virtio-net queue state from QEMU's monitor.

qmp-dump.py SOCKET

SOCKET is the guest's QMP socket (-qmp unix:SOCKET,server=on,wait=off).
For the wire between the two test guests: when a guest's NIC stops
moving frames, this shows whether QEMU or the guest holds them (the
virtqueues' avail, used and shadow indices, notification state). Exits
non-zero when the monitor cannot be reached.
"""
import json
import socket
import sys


class Qmp:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.buf = b""
        self._read()  # greeting
        self.cmd("qmp_capabilities")

    def _read(self):
        while b"\n" not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError("monitor closed")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def cmd(self, name, **args):
        msg = {"execute": name}
        if args:
            msg["arguments"] = args
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            reply = self._read()
            if "event" in reply:
                continue
            if "error" in reply:
                return {"error": reply["error"].get("desc", reply["error"])}
            return reply.get("return")


def show(title, value):
    print(f"== {title}")
    print(value if isinstance(value, str) else json.dumps(value, indent=1))


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        q = Qmp(sys.argv[1])
    except (OSError, EOFError, ValueError) as e:
        print(f"qmp-dump: cannot reach {sys.argv[1]}: {e}", file=sys.stderr)
        return 1
    show("status", q.cmd("query-status"))
    show("info network", q.cmd("human-monitor-command",
                               **{"command-line": "info network"}))
    devs = q.cmd("x-query-virtio")
    show("virtio devices", devs)
    for dev in devs if isinstance(devs, list) else []:
        if dev.get("name") != "virtio-net":
            continue
        path = dev["path"]
        show(f"{path} status", q.cmd("x-query-virtio-status", path=path))
        for queue in range(2):
            show(f"{path} queue {queue}",
                 q.cmd("x-query-virtio-queue-status", path=path, queue=queue))
    return 0


if __name__ == "__main__":
    sys.exit(main())
