#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What receive-queue coalescing must not break (kmod/sock/input.c).

In-order segments are appended to the last skb of the receive queue
(tonic_try_coalesce()), so that one skb holds many segments.  A reader
sees a byte stream either way: this checks it byte for byte where one
skb per segment and one skb for many differ, each case on its own
connection:

  peek     the sender writes N bytes and the reader waits until they are
           queued; MSG_PEEK of all of them, again (nothing consumed), one
           byte read, a peek from inside a coalesced skb, reads of odd
           sizes across skb boundaries, MSG_WAITALL for the rest;
  small    7-byte writes with TCP_NODELAY (short segments, copied into
           the tail's room), read back with SO_RCVLOWAT and large reads;
  pressure a 32 KB SO_RCVBUF (listener on PORT + 1), a slow reader in 4 KB reads with a
           peek-then-read every 50 reads, 3 MB.

Every case ends with the SHA-256 of everything read against the sender's.

  coalesce.py --count                 checks a server run makes
  coalesce.py server PORT             reader (prints PASS/FAIL lines, DONE)
  coalesce.py client ADDR PORT [-6]   writer of the three cases
"""
import fcntl
import hashlib
import random
import select
import socket
import struct
import sys
import time

from verdicts import Verdicts

P = 253
SIOCINQ = 0x541B
PEEK_BYTES = 400000
SMALL_BYTES = 70000
PRESSURE_BYTES = 3000000

CHECKS = [
    "peek_queued", "peek_coalesced", "peek_all", "peek_again",
    "read_one", "peek_inside_skb", "read_odd_sizes", "waitall_rest",
    "peek_sha256",
    "small_coalesced", "small_rcvlowat", "small_sha256",
    "pressure_peeks", "pressure_sha256",
]

VERDICTS = Verdicts(CHECKS)
check = VERDICTS.check


def data(case, n):
    """The bytes case CASE sends: the same on both sides."""
    return random.Random(case).randbytes(n)


def coalesced():
    with open("/proc/net/tonic_stat") as f:
        for line in f:
            k, v = line.split()
            if k == "RcvCoalesce":
                return int(v)
    raise KeyError("RcvCoalesce")


def inq(s):
    return struct.unpack("i", fcntl.ioctl(s, SIOCINQ, b"\0" * 4))[0]


def settle(s, want, timeout=60.0):
    """Wait until WANT bytes are queued, or none arrived for 1 s."""
    end = time.monotonic() + timeout
    last, since = -1, time.monotonic()
    while time.monotonic() < end:
        n = inq(s)
        if n >= want:
            return n
        if n != last:
            last, since = n, time.monotonic()
        elif time.monotonic() - since > 1.0:
            return n
        time.sleep(0.02)
    return inq(s)


def recv_exact(s, n, flags=0):
    buf = bytearray()
    while len(buf) < n:
        b = s.recv(n - len(buf), flags)
        if not b:
            break
        buf += b
    return bytes(buf)


def read_all(s, size=1 << 20):
    buf = bytearray()
    while True:
        b = s.recv(size)
        if not b:
            return bytes(buf)
        buf += b


def sha(b):
    return hashlib.sha256(b).hexdigest()


def case_peek(ls, c0):
    """C0: RcvCoalesce before the client was told to start."""
    c, _ = ls.accept()
    want = data("peek", PEEK_BYTES)
    n = settle(c, PEEK_BYTES)
    check("peek_queued", n >= 100000, "only %d bytes queued" % n)
    d = coalesced() - c0
    check("peek_coalesced", d > 0, "RcvCoalesce moved by %d" % d)
    got = c.recv(n, socket.MSG_PEEK)
    check("peek_all", got == want[:n],
          "peeked %d of %d bytes, first difference at %s" % (
              len(got), n, next((i for i in range(min(len(got), n))
                                 if got[i] != want[i]), "end")))
    got2 = c.recv(n, socket.MSG_PEEK)
    check("peek_again", got2 == got, "second peek differs")
    one = c.recv(1)
    check("read_one", one == want[:1], "read %r" % one)
    inside = c.recv(5000, socket.MSG_PEEK)
    check("peek_inside_skb", inside == want[1:5001],
          "peek after one byte read differs (%d bytes)" % len(inside))
    pos, ok = 1, True
    for size in (1447, 1, 1448, 1449, 3000, 65537, 7):
        b = recv_exact(c, size)
        ok = ok and b == want[pos:pos + size]
        pos += len(b)
    check("read_odd_sizes", ok, "a read of odd size differed")
    rest = recv_exact(c, PEEK_BYTES - pos, socket.MSG_WAITALL)
    check("waitall_rest", len(rest) == PEEK_BYTES - pos and
          rest == want[pos:], "got %d of %d" % (len(rest), PEEK_BYTES - pos))
    tail = read_all(c)
    whole = want[:pos] + rest + tail
    check("peek_sha256", sha(whole) == sha(want),
          "%d bytes read, %d expected" % (len(whole), PEEK_BYTES))
    # The client starts the next case once this connection closes.
    c0 = coalesced()
    c.close()
    return c0


def case_small(ls, c0):
    """C0: RcvCoalesce before the client could start this case."""
    c, _ = ls.accept()
    want = data("small", SMALL_BYTES)
    settle(c, SMALL_BYTES)
    d = coalesced() - c0
    check("small_coalesced", d > 0, "RcvCoalesce moved by %d" % d)
    c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT, 50000)
    first = c.recv(1 << 20)
    check("small_rcvlowat", len(first) >= 50000 and first == want[:len(first)],
          "first read %d bytes" % len(first))
    c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT, 1)
    got = first + read_all(c)
    check("small_sha256", sha(got) == sha(want),
          "%d bytes read, %d expected" % (len(got), SMALL_BYTES))
    c.close()


def case_pressure(ls):
    c, _ = ls.accept()
    want = data("pressure", PRESSURE_BYTES)
    got = bytearray()
    peeks_ok, i = True, 0
    while True:
        i += 1
        if i % 50 == 0:
            p = c.recv(3000, socket.MSG_PEEK)
            b = recv_exact(c, len(p))
            peeks_ok = peeks_ok and p == b
        else:
            b = c.recv(4096)
        if not b:
            break
        got += b
        if i % 64 == 0:
            time.sleep(0.005)
    check("pressure_peeks", peeks_ok, "a peek differed from the read after it")
    check("pressure_sha256", sha(bytes(got)) == sha(want),
          "%d bytes read, %d expected" % (len(got), PRESSURE_BYTES))
    c.close()


def listener(port, family, rcvbuf=0):
    ls = socket.socket(family, socket.SOCK_STREAM, P)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if rcvbuf:
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    ls.bind(("::" if family == socket.AF_INET6 else "0.0.0.0", port))
    ls.listen(4)
    return ls


def server(port, family):
    ls = listener(port, family)
    small_ls = listener(port + 1, family, 32768)
    # Read before "ready": the segments can all be queued (and merged)
    # before accept() returns.
    c0 = coalesced()
    print("ready", flush=True)
    c0 = case_peek(ls, c0)
    case_small(ls, c0)
    case_pressure(small_ls)
    print("DONE", flush=True)
    return 1 if VERDICTS.failed or not VERDICTS.complete() else 0


def send_case(addr, port, family, case, n, wsz=1 << 16, nodelay=False):
    s = socket.socket(family, socket.SOCK_STREAM, P)
    s.connect((addr, port))
    if nodelay:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    b = data(case, n)
    for off in range(0, n, wsz):
        s.sendall(b[off:off + wsz])
    s.shutdown(socket.SHUT_WR)
    select.select([s], [], [], 120)
    s.recv(1)
    s.close()


def client(addr, port, family):
    send_case(addr, port, family, "peek", PEEK_BYTES)
    send_case(addr, port, family, "small", SMALL_BYTES, 7, True)
    send_case(addr, port + 1, family, "pressure", PRESSURE_BYTES)
    print("sent", flush=True)
    return 0


def main():
    a = sys.argv[1:]
    if a == ["--count"]:
        print(len(CHECKS))
        return 0
    family = socket.AF_INET6 if "-6" in a else socket.AF_INET
    a = [x for x in a if x != "-6"]
    if a and a[0] == "server":
        return server(int(a[1]), family)
    if a and a[0] == "client":
        return client(a[1], int(a[2]), family)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
