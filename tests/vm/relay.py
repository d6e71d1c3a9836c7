#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The wire between the two test guests.

relay.py PORT_A PEER_A PORT_B PEER_B CTLDIR

Each guest's QEMU socket netdev sends its Ethernet frames as UDP datagrams
to this relay on 127.0.0.1 (PORT_A, PORT_B); the relay forwards them to
the other guest (PEER_A, PEER_B), unless the link is cut. Guests ask for
cuts through request files in CTLDIR (NNN.req holding "link down" or
"link up"); the answer is NNN.rc ("0" or an error). Only the loopback is
ever used.
"""
import os
import select
import socket
import sys
import time


def main():
    port_a, peer_a, port_b, peer_b = (int(x) for x in sys.argv[1:5])
    ctl = sys.argv[5]
    sa = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sa.bind(("127.0.0.1", port_a))
    sb = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sb.bind(("127.0.0.1", port_b))
    route = {sa: (sb, ("127.0.0.1", peer_b)), sb: (sa, ("127.0.0.1", peer_a))}
    up = True
    dropped = 0
    last_ctl = 0.0
    while True:
        ready, _, _ = select.select([sa, sb], [], [], 0.05)
        for s in ready:
            data = s.recv(65536)
            if not data:
                # QEMU's socket netdev takes an empty datagram for the
                # end of the connection and stops polling for good.
                continue
            if up:
                out, dst = route[s]
                out.sendto(data, dst)
            else:
                dropped += 1
        now = time.monotonic()
        if now - last_ctl < 0.1:
            continue
        last_ctl = now
        for name in sorted(os.listdir(ctl)):
            if not name.endswith(".req"):
                continue
            path = os.path.join(ctl, name)
            with open(path) as f:
                req = f.read().strip()
            if req == "link down":
                up = False
                rc = "0"
            elif req == "link up":
                up = True
                rc = "0"
            else:
                rc = "unknown request: " + req
            print(f"{time.strftime('%H:%M:%S')} {req} -> {rc} (dropped {dropped})",
                  flush=True)
            os.unlink(path)
            tmp = path[:-4] + ".tmp"
            with open(tmp, "w") as f:
                f.write(rc + "\n")
            os.rename(tmp, path[:-4] + ".rc")


if __name__ == "__main__":
    main()
