#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# inject.py MODE OP ARGS...
#
# Runs one file-system operation with kernel fault injection armed for
# this task only, so that allocations of the kernel code serving the
# operation (configfs, LIO, rbdt, rbdi) fail, and nothing else does.
#
# MODE
#   all     /proc/self/make-it-fail = 1: with failslab and fail_page_alloc
#           set to task-filter=Y, probability=100, every allocation of the
#           operation fails.
#   nth:N   /proc/thread-self/fail-nth = N: the N-th fault-injection point
#           the operation reaches fails (each type's own filters apply).
# OP
#   write PATH VALUE   one write(2) to a file opened beforehand; for a
#                      configfs attribute PRIME first writes that value
#                      (configfs allocates its page buffer on the first
#                      write; priming keeps that out of the injection)
#   mkdir PATH
#   symlink TARGET PATH
#
# Everything the operation needs (file descriptors) is set up before
# arming, and disarming needs no allocation either. Prints one line:
#   ok|err ERRNO-NAME [consumed|unconsumed]
# "unconsumed" (nth only): the operation finished before reaching its
# N-th injection point, i.e. N is past the last one.
import errno
import os
import sys


def main():
    mode, op, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    prime = os.environ.get("PRIME")
    fd = None
    if op == "write":
        fd = os.open(args[0], os.O_WRONLY)
        if prime is not None:
            try:
                os.write(fd, prime.encode())
            except OSError:
                pass
    if mode == "all":
        ctl = os.open("/proc/self/make-it-fail", os.O_WRONLY)
        arm, disarm = b"1", b"0"
    elif mode.startswith("nth:"):
        ctl = os.open("/proc/thread-self/fail-nth", os.O_WRONLY)
        # Read back through a second descriptor opened now: the file
        # cannot seek, and opening it later would itself count.
        ctl_r = os.open("/proc/thread-self/fail-nth", os.O_RDONLY)
        arm, disarm = mode[4:].encode(), b"0"
    else:
        sys.exit("inject.py: unknown mode " + mode)
    res = "ok"
    data = args[1].encode() if op == "write" else None
    os.write(ctl, arm)
    try:
        if op == "write":
            os.write(fd, data)
        elif op == "mkdir":
            os.mkdir(args[0])
        elif op == "symlink":
            os.symlink(args[0], args[1])
        else:
            res = "err EINVAL(bad op)"
    except OSError as e:
        res = "err " + errno.errorcode.get(e.errno, str(e.errno))
    left = None
    if mode != "all":
        left = int(os.read(ctl_r, 32).strip() or b"0")
    os.write(ctl, disarm)
    if left is not None:
        res += " unconsumed" if left else " consumed"
    print(res)


main()
