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
#   none    no injection (to set up or check data with the same code).
# OP
#   write PATH VALUE   one write(2) to a file opened beforehand; for a
#                      configfs attribute PRIME first writes that value
#                      (configfs allocates its page buffer on the first
#                      write; priming keeps that out of the injection)
#   mkdir PATH
#   symlink TARGET PATH
#   pwrite PATH OFFSET LENGTH SEED   one O_DIRECT pwrite(2) of LENGTH bytes
#                      of a pattern made from SEED, from a page-aligned
#                      buffer faulted in beforehand
#   pread PATH OFFSET LENGTH         one O_DIRECT pread(2) into such a
#                      buffer; the line ends with the SHA-256 of the
#                      bytes read ("-" when it failed)
#   pattern LENGTH SEED              (MODE none) print SEED's pattern's
#                      SHA-256, to compare with what pread printed
#
# Everything the operation needs (file descriptors) is set up before
# arming, and disarming needs no allocation either. Prints one line:
#   ok|err ERRNO-NAME [consumed|unconsumed]
# "unconsumed" (nth only): the operation finished before reaching its
# N-th injection point, i.e. N is past the last one.
import errno
import hashlib
import mmap
import os
import sys


def pattern(length, seed):
    """LENGTH bytes that differ for every seed and every 32-byte piece."""
    out = bytearray()
    i = 0
    while len(out) < length:
        out += hashlib.sha256(("%s:%d" % (seed, i)).encode()).digest()
        i += 1
    return bytes(out[:length])


def main():
    mode, op, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    if mode == "none" and op == "pattern":
        print(hashlib.sha256(pattern(int(args[0]), args[1])).hexdigest())
        return
    prime = os.environ.get("PRIME")
    fd = None
    buf = None
    if op in ("pwrite", "pread"):
        off, length = int(args[1]), int(args[2])
        flags = os.O_WRONLY if op == "pwrite" else os.O_RDONLY
        fd = os.open(args[0], flags | os.O_DIRECT)
        buf = mmap.mmap(-1, length)
        buf.write(pattern(length, args[3]) if op == "pwrite" else bytes(length))
    if op == "write":
        fd = os.open(args[0], os.O_WRONLY)
        if prime is not None:
            try:
                os.write(fd, prime.encode())
            except OSError:
                pass
    ctl = None
    if mode == "none":
        pass
    elif mode == "all":
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
    if ctl is not None:
        os.write(ctl, arm)
    try:
        if op == "write":
            os.write(fd, data)
        elif op == "mkdir":
            os.mkdir(args[0])
        elif op == "symlink":
            os.symlink(args[0], args[1])
        elif op == "pwrite":
            n = os.pwritev(fd, [buf], off)
            if n != length:
                res = "err SHORT(%d)" % n
        elif op == "pread":
            n = os.preadv(fd, [buf], off)
            if n != length:
                res = "err SHORT(%d)" % n
        else:
            res = "err EINVAL(bad op)"
    except OSError as e:
        res = "err " + errno.errorcode.get(e.errno, str(e.errno))
    left = None
    if mode.startswith("nth:"):
        left = int(os.read(ctl_r, 32).strip() or b"0")
    if ctl is not None:
        os.write(ctl, disarm)
    if left is not None:
        res += " unconsumed" if left else " consumed"
    if op == "pread":
        res += " " + (hashlib.sha256(buf).hexdigest() if res.startswith("ok") else "-")
    print(res)


main()
