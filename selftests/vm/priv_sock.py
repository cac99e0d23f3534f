#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# The per-socket controls of Tonic and TCP's analogues, as the calling
# user in its namespace; one line "KEY RESULT" each (RESULT: ok, or the
# errno's name), for test_privilege.sh.
# Usage: priv_sock.py ALLOWED RESTRICTED TCP_RESTRICTED PORT
#   ALLOWED, RESTRICTED: Tonic programs attached, the first selectable by
#   anyone here, the second not; TCP_RESTRICTED: a Linux congestion
#   control available but not in tcp_allowed_congestion_control; PORT: a
#   port below net.ipv4.ip_unprivileged_port_start.
import errno
import socket
import struct
import sys

IPPROTO_TONIC = SOL_TONIC = 253
TONIC_SEGMENT_SIZE, TONIC_FLUSH_DELAY, TONIC_WINDOW, TONIC_INFO, \
    TONIC_PROTOCOL = 1, 2, 3, 4, 5
TCP_CONGESTION = 13
allowed, restricted, tcp_restricted, port = sys.argv[1:5]
port = int(port)


def run(key, fn):
    try:
        fn()
    except OSError as e:
        print(key, errno.errorcode.get(e.errno, e.errno))
        return
    print(key, "ok")


def tonic(family=socket.AF_INET):
    return socket.socket(family, socket.SOCK_STREAM, IPPROTO_TONIC)


def setname(s, level, opt, name):
    s.setsockopt(level, opt, name.encode() or b"\0")  # "": the default


run("socket4", lambda: tonic().close())
run("socket6", lambda: tonic(socket.AF_INET6).close())

for key, name in (("builtin", "newreno"), ("builtin-rack", "rack"),
                  ("namespace-default", ""), ("allowed", allowed),
                  ("restricted", restricted), ("unknown", "nosuchproto")):
    run("TONIC_PROTOCOL:" + key,
        lambda: setname(tonic(), SOL_TONIC, TONIC_PROTOCOL, name))
    run("TCP_CONGESTION-tonic:" + key,
        lambda: setname(tonic(), socket.SOL_TCP, TCP_CONGESTION, name))
run("TCP_CONGESTION-tonic:linux-name",
    lambda: setname(tonic(), socket.SOL_TCP, TCP_CONGESTION, "bbr"))
run("TCP_CONGESTION-tcp:allowed",
    lambda: setname(socket.socket(), socket.SOL_TCP, TCP_CONGESTION, "cubic"))
run("TCP_CONGESTION-tcp:restricted",
    lambda: setname(socket.socket(), socket.SOL_TCP, TCP_CONGESTION,
                    tcp_restricted))


def ints(s, level, opts):
    for opt, val in opts:
        s.setsockopt(level, opt, val)
        s.getsockopt(level, opt)


run("tonic-ints", lambda: ints(tonic(), SOL_TONIC,
                               ((TONIC_SEGMENT_SIZE, 1000),
                                (TONIC_FLUSH_DELAY, 10), (TONIC_WINDOW, 8))))
TCP_INTS = ((socket.TCP_NODELAY, 1), (socket.TCP_CORK, 1),
            (socket.TCP_KEEPIDLE, 30), (socket.TCP_KEEPINTVL, 5),
            (socket.TCP_KEEPCNT, 3), (socket.TCP_USER_TIMEOUT, 1000),
            (socket.TCP_MAXSEG, 1000), (socket.TCP_QUICKACK, 1),
            (socket.TCP_DEFER_ACCEPT, 1))
run("tcp-ints-tonic", lambda: ints(tonic(), socket.SOL_TCP, TCP_INTS))
run("tcp-ints-tcp", lambda: ints(socket.socket(), socket.SOL_TCP, TCP_INTS))


def gets(s):
    s.getsockopt(SOL_TONIC, TONIC_PROTOCOL, 16)
    s.getsockopt(SOL_TONIC, TONIC_INFO, 200)
    s.getsockopt(socket.SOL_TCP, socket.TCP_INFO, 232)
    s.getsockopt(socket.SOL_TCP, TCP_CONGESTION, 16)


run("gets", lambda: gets(tonic()))
run("bind-low-tonic", lambda: tonic().bind(("0.0.0.0", port)))
run("bind-low-tcp", lambda: socket.socket().bind(("0.0.0.0", port)))


# On a connected socket (loopback): TCP checks the privilege in any state.
def connected(proto):
    lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM, proto)
    lst.bind(("127.0.0.1", 0))
    lst.listen(1)
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM, proto)
    c.settimeout(30)
    c.connect(lst.getsockname())
    a, _ = lst.accept()
    return lst, c, a


try:
    conns = connected(IPPROTO_TONIC), connected(socket.IPPROTO_TCP)
except OSError as e:
    print("connected", errno.errorcode.get(e.errno, e.errno))
    sys.exit(0)
c, t = conns[0][1], conns[1][1]
run("connected:TONIC_PROTOCOL",
    lambda: setname(c, SOL_TONIC, TONIC_PROTOCOL, allowed))
run("connected:TCP_CONGESTION-tonic:restricted",
    lambda: setname(c, socket.SOL_TCP, TCP_CONGESTION, restricted))
run("connected:TCP_CONGESTION-tonic:allowed",
    lambda: setname(c, socket.SOL_TCP, TCP_CONGESTION, allowed))
run("connected:TCP_CONGESTION-tcp:restricted",
    lambda: setname(t, socket.SOL_TCP, TCP_CONGESTION, tcp_restricted))
info = c.getsockopt(SOL_TONIC, TONIC_INFO, 200)
print("connected:protocol", info[-16:].rstrip(b"\0").decode())
print("connected:state", struct.unpack_from("B", info)[0])
