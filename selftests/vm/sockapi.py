#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Socket API semantics of IPPROTO_TONIC, checked from userspace.

Run inside one network namespace with tonic.ko loaded.  Prints one line
per check, "PASS name" or "FAIL name: detail", and exits non-zero if any
check failed.  Every check asserts an exact result (errno, bytes, flags).
Where a check waits for something to happen (a reset to arrive) it polls
for it with a deadline instead of sleeping.

"sockapi.py --count" prints how many checks a run makes (CHECKS) and does
nothing else: the TAP wrapper plans with it before any side effect.
"""
import errno
import hashlib
import os
import select
import socket
import struct
import subprocess
import sys
import threading
import time

from verdicts import Verdicts

P = 253
SOL_TONIC = 253
TONIC_SEGMENT_SIZE, TONIC_FLUSH_DELAY, TONIC_WINDOW, TONIC_INFO = 1, 2, 3, 4
TONIC_PROTOCOL = 5
TONIC_PROTO_NAME_MAX = 16
# struct tonic_info up to and including the protocol name
INFO_FMT = "=B3xIIIQIIIIQQQQQQQQQII16s"
INFO_LEN = struct.calcsize(INFO_FMT)
POLLRDHUP = 0x2000
LO = "127.0.0.1"

# Every check of main(), in the order it makes them.
CHECKS = [
    "socket_protocol", "socket_type", "bind_port0_picks_port",
    "bind_eaddrinuse", "shutdown_unconnected_enotconn", "connect_refused",
    "nonblock_connect_refused", "nonblock_connect_einprogress_then_ok",
    "listener_pollin", "accept_peername", "recv_dontwait_eagain", "msg_peek",
    "writev_readv", "msg_waitall", "so_rcvtimeo", "tonic_info",
    "tonic_info_handshake_rtt", "poll_rdhup_after_peer_fin", "eof_after_fin",
    "half_close_reply", "send_after_shutdown_epipe", "eof_after_peer_close",
    "pollhup_after_both_closed", "so_linger0_reset", "send_after_reset_epipe",
    "close_unread_resets_peer", "so_sndbuf_rcvbuf", "opt_seg_too_small_einval",
    "opt_window_zero_einval", "opt_window_big_einval",
    "opt_flush_negative_einval", "opt_unknown_enoprotoopt",
    "opt_info_readonly_enoprotoopt", "opt_short_einval",
    "opt_get_unknown_enoprotoopt", "opt_seg_set",
    "opt_protocol_default_rack", "opt_protocol_unknown_enoent",
    "opt_protocol_too_long_enoent", "opt_protocol_empty_einval",
    "opt_protocol_set_builtin", "opt_protocol_after_connect_eisconn",
    "opt_protocol_info_and_child", "opt_seg_window_negotiated",
    "opt_flush_get", "opt_seg_after_connect_eisconn",
    "transfer_small_segments", "backlog_bounded", "ipv6_loopback_transfer",
    "ipv6_refused",
    # dual stack: AF_INET6 sockets and IPv4 peers, each against Linux TCP
    # (dual_stack())
    "dual_v6only_default_off", "dual_any_accepts_ipv4",
    "dual_any_ipv4_data_both_ways", "dual_any_accepts_ipv6",
    "dual_any_accepts_mapped_client", "dual_v6only_refuses_ipv4",
    "dual_v6only_bind_mapped_einval", "dual_v6only_connect_mapped_enetunreach",
    "dual_connect_mapped", "dual_connect_mapped_data_both_ways",
    "dual_connect_mapped_refused", "dual_bind_mapped_takes_ipv4_only",
    "dual_bind_conflicts", "dual_mapped_reset", "dual_mapped_segment_size",
    # the port table, each against Linux TCP (bind_rules())
    "bind_reuseaddr_shared", "bind_reuseaddr_one_side", "bind_reuseport",
    "bind_wildcard_specific", "bind_distinct_addresses", "bind_twice_einval",
    "bind_dual_stack", "bind_after_child", "bind_port0_range",
    "connect_port_range", "reuseport_group",
    # the tables' own (tables())
    "tcp_and_tonic_share_port", "netns_isolated", "many_conns_one_listener",
    "ports_released",
    # SOL_TCP options, each against Linux TCP (tcp_options())
    "tcp_nodelay", "tcp_cork", "tcp_quickack", "tcp_so_keepalive",
    "tcp_keepidle", "tcp_keepintvl", "tcp_keepcnt", "tcp_user_timeout",
    "tcp_maxseg", "tcp_maxseg_sets_c", "tcp_congestion_linux_names",
    "tcp_congestion_selects_program", "tcp_info", "tcp_defer_accept",
    "tcp_fastopen_refused", "tcp_unknown_enoprotoopt",
]

VERDICTS = Verdicts(CHECKS)
check = VERDICTS.check


def wait_for(cond, timeout=10.0):
    """cond() polled every 10 ms until it is true or timeout s passed."""
    end = time.monotonic() + timeout
    while True:
        v = cond()
        if v or time.monotonic() >= end:
            return v
        time.sleep(0.01)


def events(s, mask, timeout_ms=10000):
    """The poll events of s once one of mask (or an error) is set."""
    p = select.poll()
    p.register(s, mask)
    ev = p.poll(timeout_ms)
    return ev[0][1] if ev else 0


def tonic_stat(name):
    """One counter of this namespace's /proc/net/tonic_stat."""
    with open("/proc/net/tonic_stat") as f:
        for line in f:
            k, v = line.split()
            if k == name:
                return int(v)
    raise KeyError(name)


def err_of(fn):
    try:
        fn()
    except OSError as e:
        return e.errno
    return 0


def sock(family=socket.AF_INET):
    return socket.socket(family, socket.SOCK_STREAM, P)


def listener(family=socket.AF_INET, addr=LO, backlog=16):
    s = sock(family)
    s.bind((addr, 0))
    s.listen(backlog)
    return s


def pair(family=socket.AF_INET, addr=LO):
    ls = listener(family, addr)
    c = sock(family)
    c.connect(ls.getsockname()[:2])
    a, _ = ls.accept()
    return ls, c, a


def info(s):
    raw = s.getsockopt(SOL_TONIC, TONIC_INFO, 256)
    v = struct.unpack(INFO_FMT, raw[:INFO_LEN])
    return {"state": v[0], "C": v[1], "K": v[2], "len": len(raw),
            "rtt_us": v[18], "proto": v[-1].split(b"\0")[0].decode()}


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        d = s.recv(n - len(buf))
        if not d:
            break
        buf += d
    return buf


TCP = socket.IPPROTO_TCP
# struct tcp_info: 8 bytes of u8s, 24 u32 (rto .. total_retrans),
# pacing_rate, max_pacing_rate, bytes_acked, bytes_received, segs_out/in
TCPI_FMT = "=8B24I4Q2I"
TCPI = {"state": 0, "rtt": 8 + 15, "snd_cwnd": 8 + 18, "total_retrans": 8 + 23,
        "bytes_acked": 34, "segs_out": 36, "snd_mss": 8 + 2}


def try_(fn):
    """fn()'s value, or ("errno", n) if it raised OSError."""
    try:
        return fn()
    except OSError as e:
        return ("errno", e.errno)


def tcpi(s):
    raw = s.getsockopt(TCP, socket.TCP_INFO, 512)
    v = struct.unpack(TCPI_FMT, raw[:struct.calcsize(TCPI_FMT)])
    return len(raw), {k: v[i] for k, i in TCPI.items()}


def same(name, fn, connected=False):
    """One check: fn(sock) gives the same on Linux TCP and on Tonic."""
    got = []
    for proto in (TCP, P):
        ls = c = a = None
        if connected:
            ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM, proto)
            ls.bind((LO, 0))
            ls.listen(4)
            c = socket.socket(socket.AF_INET, socket.SOCK_STREAM, proto)
            c.connect(ls.getsockname())
            a, _ = ls.accept()
            s = c
        else:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, proto)
        got.append(try_(lambda: fn(s)))
        for x in (s, ls, c, a):
            if x:
                x.close()
    check(name, got[0] == got[1], "tcp %r tonic %r" % tuple(got))


def setget(opt, *vals, level=TCP):
    """Set each value in turn; the errno or the value read back."""
    def fn(s):
        out = [s.getsockopt(level, opt)]
        for v in vals:
            out.append(try_(lambda: s.setsockopt(level, opt, v)))
            out.append(s.getsockopt(level, opt))
        return out
    return fn


def tcp_options():
    """The TCP options real programs use (Documentation/sockets.md)."""
    same("tcp_nodelay", setget(socket.TCP_NODELAY, 1, 0), True)
    same("tcp_cork", setget(socket.TCP_CORK, 1, 0), True)
    same("tcp_quickack", setget(socket.TCP_QUICKACK, 1), True)
    same("tcp_so_keepalive", setget(socket.SO_KEEPALIVE, 1, 0, level=socket.SOL_SOCKET), True)
    same("tcp_keepidle", setget(socket.TCP_KEEPIDLE, 30, 0, 40000))
    same("tcp_keepintvl", setget(socket.TCP_KEEPINTVL, 5, 0, 40000))
    same("tcp_keepcnt", setget(socket.TCP_KEEPCNT, 3, 0, 200))
    same("tcp_user_timeout", setget(socket.TCP_USER_TIMEOUT, 5000, -1, 0))
    same("tcp_maxseg", setget(socket.TCP_MAXSEG, 1000, 10, 0))
    # mapped: TCP_MAXSEG before connect is Tonic's C (TONIC_SEGMENT_SIZE)
    c = sock()
    c.setsockopt(TCP, socket.TCP_MAXSEG, 1000)
    ls = listener()
    c.connect(ls.getsockname())
    a, _ = ls.accept()
    check("tcp_maxseg_sets_c", info(c)["C"] == 1000 and
          c.getsockopt(TCP, socket.TCP_MAXSEG) == 1000, info(c))
    for x in (a, c, ls):
        x.close()

    def cc(s):
        return [try_(lambda: s.setsockopt(TCP, socket.TCP_CONGESTION, n))
                for n in (b"cubic", b"reno", b"nosuchcc", b"")]
    same("tcp_congestion_linux_names", cc)
    s = sock()
    s.setsockopt(TCP, socket.TCP_CONGESTION, b"newreno")
    check("tcp_congestion_selects_program",
          s.getsockopt(TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0") == b"newreno" and
          s.getsockopt(SOL_TONIC, TONIC_PROTOCOL, 16).rstrip(b"\0") == b"newreno")
    s.close()

    def ti(s):
        data = os.urandom(50000)  # fits both receive windows: nobody reads
        s.sendall(data)
        wait_for(lambda: tcpi(s)[1]["bytes_acked"] >= len(data))
        n, v = tcpi(s)
        return (n, v["state"], v["rtt"] > 0, v["snd_cwnd"] > 0, v["snd_mss"] > 0,
                v["bytes_acked"] >= len(data), v["segs_out"] > 0,
                v["total_retrans"] >= 0)
    same("tcp_info", ti, True)

    def defer(s):
        s.bind((LO, 0))
        s.listen(4)
        return try_(lambda: s.setsockopt(TCP, socket.TCP_DEFER_ACCEPT, 5))
    same("tcp_defer_accept", defer)
    s = sock()
    s.bind((LO, 0))
    s.listen(4)
    c = sock()
    check("tcp_fastopen_refused",
          err_of(lambda: s.setsockopt(TCP, socket.TCP_FASTOPEN, 5)) == errno.EOPNOTSUPP and
          err_of(lambda: c.setsockopt(TCP, 30, 1)) == errno.EOPNOTSUPP)  # TCP_FASTOPEN_CONNECT
    s.close()
    c.close()
    same("tcp_unknown_enoprotoopt", lambda s: (try_(lambda: s.setsockopt(TCP, 99, 1)),
                                                try_(lambda: s.getsockopt(TCP, 99))))


V6 = socket.AF_INET6
MAPPED_LO = "::ffff:127.0.0.1"


def both(fn):
    """fn(proto) for Linux TCP and for Tonic: (tcp's, tonic's)."""
    return tuple(try_(lambda: fn(proto)) for proto in (TCP, P))


def check_same(name, got):
    check(name, got[0] == got[1], "tcp %r tonic %r" % got)


def v6sock(proto, v6only=None):
    s = socket.socket(V6, socket.SOCK_STREAM, proto)
    if v6only is not None:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, v6only)
    return s


def closing(*socks):
    for x in socks:
        if x:
            x.close()


def exchange(x, y, n=300000):
    """n random bytes each way at once; both arrived whole (SHA-256)."""
    up, down = os.urandom(n), os.urandom(n)
    ts = [threading.Thread(target=lambda: x.sendall(up)),
          threading.Thread(target=lambda: y.sendall(down))]
    for t in ts:
        t.start()
    got_down = recv_exact(x, n)
    got_up = recv_exact(y, n)
    for t in ts:
        t.join()
    return (hashlib.sha256(got_up).digest() == hashlib.sha256(up).digest(),
            hashlib.sha256(got_down).digest() == hashlib.sha256(down).digest())


def names(c, a, lport):
    """What both ends of c -> a say of themselves, ports as matches."""
    cn, cp, an, ap = c.getsockname(), c.getpeername(), a.getsockname(), a.getpeername()
    return (cn[0], cp[0], cp[1] == lport, an[0], an[1] == lport, ap[0],
            ap[1] == cn[1], a.family)


def dual_stack():
    """AF_INET6 sockets without IPV6_V6ONLY carry IPv4 as TCP's do."""
    check_same("dual_v6only_default_off", both(
        lambda p: v6sock(p).getsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY)))

    # one listener on [::], clients of both families and a mapped one
    def any_listener(p, family, addr, data=False):
        ls = v6sock(p)
        c = a = None
        try:
            ls.bind(("::", 0))
            ls.listen(4)
            port = ls.getsockname()[1]
            c = socket.socket(family, socket.SOCK_STREAM, p)
            c.connect((addr, port))
            a, _ = ls.accept()
            return exchange(c, a) if data else names(c, a, port)
        finally:
            closing(c, a, ls)
    check_same("dual_any_accepts_ipv4", both(
        lambda p: any_listener(p, socket.AF_INET, LO)))
    check_same("dual_any_ipv4_data_both_ways", both(
        lambda p: any_listener(p, socket.AF_INET, LO, True)))
    check_same("dual_any_accepts_ipv6", both(lambda p: any_listener(p, V6, "::1")))
    check_same("dual_any_accepts_mapped_client", both(
        lambda p: any_listener(p, V6, MAPPED_LO)))

    def v6only(p):
        ls = v6sock(p, 1)
        c = c6 = a = None
        try:
            ls.bind(("::", 0))
            ls.listen(4)
            port = ls.getsockname()[1]
            c = socket.socket(socket.AF_INET, socket.SOCK_STREAM, p)
            e = err_of(lambda: c.connect((LO, port)))
            c6 = v6sock(p)
            c6.connect(("::1", port))
            a, _ = ls.accept()
            return e, a.getpeername()[0]
        finally:
            closing(c, c6, a, ls)
    check_same("dual_v6only_refuses_ipv4", both(v6only))
    check_same("dual_v6only_bind_mapped_einval", both(
        lambda p: err_of(lambda: v6sock(p, 1).bind((MAPPED_LO, 0)))))
    check_same("dual_v6only_connect_mapped_enetunreach", both(
        lambda p: err_of(lambda: v6sock(p, 1).connect((MAPPED_LO, 9)))))

    # connect() of an AF_INET6 socket to an IPv4 listener
    def mapped(p, data=False):
        ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM, p)
        c = a = None
        try:
            ls.bind((LO, 0))
            ls.listen(4)
            port = ls.getsockname()[1]
            c = v6sock(p)
            c.connect((MAPPED_LO, port))
            a, _ = ls.accept()
            return exchange(c, a) if data else names(c, a, port)
        finally:
            closing(c, a, ls)
    check_same("dual_connect_mapped", both(mapped))
    check_same("dual_connect_mapped_data_both_ways", both(lambda p: mapped(p, True)))
    check_same("dual_connect_mapped_refused", both(
        lambda p: err_of(lambda: v6sock(p).connect((MAPPED_LO, 1)))))

    # bound to a mapped address: IPv4 clients only
    def bound_mapped(p):
        ls = v6sock(p)
        c = c6 = a = None
        try:
            ls.bind((MAPPED_LO, 0))
            ls.listen(4)
            port = ls.getsockname()[1]
            c6 = v6sock(p)
            e = err_of(lambda: c6.connect(("::1", port)))
            c = socket.socket(socket.AF_INET, socket.SOCK_STREAM, p)
            c.connect((LO, port))
            a, _ = ls.accept()
            return ls.getsockname()[0], e, a.getpeername()[0]
        finally:
            closing(c, c6, a, ls)
    check_same("dual_bind_mapped_takes_ipv4_only", both(bound_mapped))

    # [::] without IPV6_V6ONLY holds the IPv4 port too; with it, not
    def conflicts(p):
        out = []
        for only in (0, 1):
            s6 = v6sock(p, only)
            s4 = socket.socket(socket.AF_INET, socket.SOCK_STREAM, p)
            try:
                s6.bind(("::", 0))
                out.append(err_of(lambda: s4.bind((LO, s6.getsockname()[1]))))
            finally:
                closing(s4, s6)
        return out
    check_same("dual_bind_conflicts", both(conflicts))

    # a reset from an IPv4-mapped socket reaches the IPv4 peer
    def reset(p):
        ls = v6sock(p)
        c = a = None
        try:
            ls.bind(("::", 0))
            ls.listen(4)
            c = socket.socket(socket.AF_INET, socket.SOCK_STREAM, p)
            c.connect((LO, ls.getsockname()[1]))
            a, _ = ls.accept()
            a.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            a.close()
            a = None
            events(c, select.POLLIN)
            return err_of(lambda: c.recv(10))
        finally:
            closing(c, a, ls)
    check_same("dual_mapped_reset", both(reset))

    # C of IPv4-mapped connections: IPv4's headers, not IPv6's (lo at
    # MTU 1500 for this check: at 65536 C is capped by TONIC_MAX_SEGMENT)
    def seg_sizes():
        out = {}
        for what, lfam, laddr, cfam, caddr in (
                ("v4", socket.AF_INET, LO, socket.AF_INET, LO),
                ("v6", V6, "::1", V6, "::1"),
                ("any<-v4", V6, "::", socket.AF_INET, LO),
                ("mapped->v4", socket.AF_INET, LO, V6, MAPPED_LO)):
            ls = socket.socket(lfam, socket.SOCK_STREAM, P)
            c = a = None
            try:
                ls.bind((laddr, 0))
                ls.listen(4)
                c = socket.socket(cfam, socket.SOCK_STREAM, P)
                c.connect((caddr, ls.getsockname()[1]))
                a, _ = ls.accept()
                out[what] = (info(c)["C"], info(a)["C"])
            finally:
                closing(c, a, ls)
        return out
    subprocess.run(["ip", "link", "set", "lo", "mtu", "1500"], check=True)
    try:
        cs = try_(seg_sizes)
    finally:
        subprocess.run(["ip", "link", "set", "lo", "mtu", "65536"], check=True)
    ok = (isinstance(cs, dict) and cs["v4"][0] == cs["v4"][1] and
          cs["v6"][0] == cs["v6"][1] and cs["v4"][0] - cs["v6"][0] == 20 and
          cs["any<-v4"] == cs["v4"] and cs["mapped->v4"] == cs["v4"])
    check("dual_mapped_segment_size", ok, cs)


def mk(p, fam=socket.AF_INET, reuse=0, reuseport=0, v6only=None):
    s = socket.socket(fam, socket.SOCK_STREAM, p)
    if reuse:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuseport:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    if v6only is not None:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, v6only)
    return s


def run_ops(p, kws, ops):
    """Sockets made by mk(p, **kw) for kw in kws, then ops (i, "bind" |
    "listen" | "connect", address): the errno of each op in turn."""
    ss = [mk(p, **kw) for kw in kws]
    try:
        out = []
        for i, op, arg in ops:
            f = {"bind": lambda: ss[i].bind(arg),
                 "listen": lambda: ss[i].listen(4),
                 "connect": lambda: ss[i].connect(arg)}[op]
            out.append(err_of(f))
        return out
    finally:
        closing(*ss)


def sysctl(name, value=None):
    """Read (and then set) /proc/sys/net/ipv4/name in this namespace."""
    path = "/proc/sys/net/ipv4/" + name
    with open(path) as f:
        old = f.read().strip()
    if value is not None:
        with open(path, "w") as f:
            f.write(value)
    return old


def accepted(ls, n, timeout=10.0):
    """Up to n connections accept()ed from non-blocking ls within timeout."""
    got = []
    end = time.monotonic() + timeout
    while len(got) < n and time.monotonic() < end:
        if events(ls, select.POLLIN, 100):
            try:
                got.append(ls.accept()[0])
            except BlockingIOError:
                pass
    return got


def bind_rules():
    """Tonic's own port table decides as TCP's (kmod/sock/bind.c)."""
    R, RP, ANY = {"reuse": 1}, {"reuseport": 1}, "0.0.0.0"
    check_same("bind_reuseaddr_shared", both(lambda p: run_ops(
        p, [R, R], [(0, "bind", (LO, 20001)), (1, "bind", (LO, 20001)),
                    (1, "listen", None), (0, "listen", None)])))
    check_same("bind_reuseaddr_one_side", both(lambda p: run_ops(
        p, [R, {}, {}], [(0, "bind", (LO, 20002)), (1, "bind", (LO, 20002)),
                         (2, "bind", (LO, 20002))])))
    check_same("bind_reuseport", both(lambda p: run_ops(
        p, [RP, RP, {}, RP], [(0, "bind", (LO, 20003)), (0, "listen", None),
                              (1, "bind", (LO, 20003)), (1, "listen", None),
                              (2, "bind", (LO, 20003)),
                              (3, "bind", (ANY, 20003))])))
    check_same("bind_wildcard_specific", both(lambda p: run_ops(
        p, [{}, {}, R, R, {}, {}],
        [(0, "bind", (ANY, 20004)), (1, "bind", (LO, 20004)),
         (2, "bind", (LO, 20005)), (3, "bind", (ANY, 20005)),
         (4, "bind", (LO, 20021)), (5, "bind", (ANY, 20021))])))
    check_same("bind_distinct_addresses", both(lambda p: run_ops(
        p, [{}, {}, {}], [(0, "bind", (LO, 20006)),
                          (1, "bind", ("127.0.0.2", 20006)),
                          (0, "listen", None), (1, "listen", None),
                          (2, "bind", (ANY, 20006))])))
    check_same("bind_twice_einval", both(lambda p: run_ops(
        p, [{}], [(0, "bind", (LO, 20007)), (0, "bind", (LO, 20008))])))
    check_same("bind_dual_stack", both(lambda p: run_ops(
        p, [{}, {"fam": V6, "v6only": 0}, {"fam": V6, "v6only": 1},
            {"fam": V6}, {}, {}, {"fam": V6}, {"fam": V6, "v6only": 1}, {}],
        [(0, "bind", (ANY, 20010)), (1, "bind", ("::", 20010)),
         (2, "bind", ("::", 20010)), (3, "bind", ("::1", 20011)),
         (4, "bind", (LO, 20011)), (5, "bind", (LO, 20012)),
         (6, "bind", (MAPPED_LO, 20012)), (7, "bind", ("::", 20022)),
         (8, "bind", (ANY, 20022))])))

    # a child keeps its listener's port after the listener closed
    def after_child(p):
        out = []
        for port, reuse in ((20013, 0), (20014, 1)):
            ls, c, n = mk(p, reuse=reuse), mk(p), mk(p, reuse=1)
            a = None
            try:
                ls.bind((LO, port))
                ls.listen(4)
                c.connect((LO, port))
                a, _ = ls.accept()
                ls.close()
                out.append(err_of(lambda: n.bind((LO, port))))
            finally:
                closing(c, a, n, ls)
        return out
    check_same("bind_after_child", both(after_child))

    # ephemeral ports: ip_local_port_range minus ip_local_reserved_ports
    old_range = sysctl("ip_local_port_range", "40000 40009")
    old_res = sysctl("ip_local_reserved_ports", "40000-40008")
    try:
        def port0(p):
            s0, s1 = mk(p), mk(p)
            try:
                s0.bind((LO, 0))
                return s0.getsockname()[1], err_of(lambda: s1.bind((LO, 0)))
            finally:
                closing(s0, s1)
        check_same("bind_port0_range", both(port0))

        # connect() shares its port between distinct 4-tuples
        def connect_ports(p):
            l1, l2 = mk(p), mk(p)
            cs = [mk(p) for _ in range(3)] + [mk(p, reuse=1)]
            try:
                for ls, port in ((l1, 20015), (l2, 20016)):
                    ls.bind((LO, port))
                    ls.listen(4)
                cs[0].connect((LO, 20015))
                cs[1].connect((LO, 20016))
                return (cs[0].getsockname()[1], cs[1].getsockname()[1],
                        err_of(lambda: cs[2].connect((LO, 20015))),
                        err_of(lambda: cs[3].bind((LO, 40009))))
            finally:
                closing(*cs, l1, l2)
        check_same("connect_port_range", both(connect_ports))
    finally:
        sysctl("ip_local_reserved_ports", old_res)
        sysctl("ip_local_port_range", old_range)

    # SO_REUSEPORT listeners share the connections; a closed one none
    def group(p):
        ls = [mk(p, reuseport=1), mk(p, reuseport=1)]
        cs, got = [], [[], []]
        try:
            for x in ls:
                x.bind((LO, 20017))
                x.listen(32)
                x.setblocking(False)
            for _ in range(16):
                cs.append(mk(p))
                cs[-1].connect((LO, 20017))
            end = time.monotonic() + 10
            while len(got[0]) + len(got[1]) < 16 and time.monotonic() < end:
                for i in (0, 1):
                    got[i] += accepted(ls[i], 1, 0.05)
            spread = [len(g) for g in got]
            ls[0].close()
            for _ in range(4):
                cs.append(mk(p))
                cs[-1].connect((LO, 20017))
            later = len(accepted(ls[1], 4))
            return min(spread) > 0 and sum(spread) == 16, later
        finally:
            closing(*cs, *ls, *got[0], *got[1])
    check_same("reuseport_group", both(group))


def tables():
    """What no TCP comparison shows: Tonic's tables are its own."""
    # TCP and Tonic sockets on one port do not meet
    def share():
        t, n = mk(TCP), mk(P)
        tc = nc = ta = na = None
        try:
            t.bind((LO, 20018))
            t.listen(4)
            n.bind((LO, 20018))
            n.listen(4)
            tc, nc = mk(TCP), mk(P)
            tc.connect((LO, 20018))
            nc.connect((LO, 20018))
            ta, na = t.accept()[0], n.accept()[0]
            return (ta.getpeername() == tc.getsockname() and
                    na.getpeername() == nc.getsockname())
        finally:
            closing(t, n, tc, nc, ta, na)
    r = try_(share)
    check("tcp_and_tonic_share_port", r is True, r)

    # another namespace: the same port binds; a port listened on only here
    # is refused there; nothing arrives here
    ls, here = mk(P), mk(P)
    ls.bind((LO, 20019))
    ls.listen(4)
    ls.setblocking(False)
    here.bind((LO, 20020))
    here.listen(4)
    here.setblocking(False)
    prog = ("import socket\n"
            "s = socket.socket(2, 1, 253)\n"
            "s.bind(('127.0.0.1', 20019))\n"
            "s.listen(1)\n"
            "c = socket.socket(2, 1, 253)\n"
            "c.connect(('127.0.0.1', 20019))\n"
            "a = s.accept()[0]\n"
            "d = socket.socket(2, 1, 253)\n"
            "try:\n"
            "    d.connect(('127.0.0.1', 20020))\n"
            "    print('connected')\n"
            "except OSError as e:\n"
            "    print(e.errno)\n")
    ns = "tonic-api2"
    try:
        r = subprocess.run(
            ["bash", "-c", 'ip netns add %s && ip -n %s link set lo up && '
             'ip netns exec %s timeout 30 python3 -c "$1"' % (ns, ns, ns),
             "-", prog], capture_output=True, text=True)
        out = (r.stdout + r.stderr).strip()
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    stray = (accepted(ls, 1, 0.2), accepted(here, 1, 0.2))
    check("netns_isolated", out == str(errno.ECONNREFUSED) and
          stray == ([], []), (out, stray))
    closing(ls, here)

    # many connections to one listener: distinct ports, each carries data
    n = 100
    ls = listener(backlog=n)
    cs, acc = [], []
    try:
        for _ in range(n):
            cs.append(sock())
            cs[-1].connect(ls.getsockname())
            acc.append(ls.accept()[0])
        for i, c in enumerate(cs):
            c.sendall(bytes([i]))
        data = sorted(recv_exact(a, 1)[0] for a in acc)
        ports = {c.getsockname()[1] for c in cs}
        check("many_conns_one_listener",
              data == list(range(n)) and len(ports) == n,
              (len(ports), data[:5]))
    finally:
        closing(*cs, *acc, ls)

    # every port bound, listened on or connected from is free once closed
    ls, c = listener(), sock()
    c.connect(ls.getsockname())
    a, _ = ls.accept()
    used = [ls.getsockname()[1], c.getsockname()[1]]
    closing(c, a, ls)

    def rebind(port):
        x = sock()
        try:
            return err_of(lambda: x.bind((LO, port)))
        finally:
            x.close()
    # (the FINs of the closed pair are acknowledged first)
    wait_for(lambda: not any(map(rebind, used)))
    errs = [rebind(port) for port in used]
    check("ports_released", errs == [0, 0], (used, errs))


def main():
    # creation
    s = sock()
    check("socket_protocol", s.getsockopt(socket.SOL_SOCKET, socket.SO_PROTOCOL) == P)
    check("socket_type", s.getsockopt(socket.SOL_SOCKET, socket.SO_TYPE) == socket.SOCK_STREAM)

    # bind
    s.bind((LO, 0))
    port = s.getsockname()[1]
    check("bind_port0_picks_port", port > 0, port)
    s2 = sock()
    check("bind_eaddrinuse", err_of(lambda: s2.bind((LO, port))) == errno.EADDRINUSE)
    s2.close()
    check("shutdown_unconnected_enotconn", err_of(lambda: s.shutdown(socket.SHUT_RDWR)) == errno.ENOTCONN)
    s.close()

    # refused, blocking and non-blocking
    c = sock()
    check("connect_refused", err_of(lambda: c.connect((LO, port))) == errno.ECONNREFUSED)
    c.close()
    c = sock()
    c.setblocking(False)
    e = err_of(lambda: c.connect((LO, port)))
    p = select.poll()
    p.register(c, select.POLLOUT)
    ev = p.poll(5000)
    soerr = c.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
    check("nonblock_connect_refused",
          e == errno.EINPROGRESS and soerr == errno.ECONNREFUSED and ev and ev[0][1] & select.POLLERR,
          "%s %s %s" % (e, soerr, ev))
    c.close()

    ls = listener()
    c = sock()
    c.setblocking(False)
    e = err_of(lambda: c.connect(ls.getsockname()))
    p = select.poll()
    p.register(c, select.POLLOUT)
    ev = p.poll(5000)
    soerr = c.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
    check("nonblock_connect_einprogress_then_ok",
          e == errno.EINPROGRESS and soerr == 0 and ev and ev[0][1] & select.POLLOUT,
          "%s %s %s" % (e, soerr, ev))
    pl = select.poll()
    pl.register(ls, select.POLLIN)
    check("listener_pollin", bool(pl.poll(2000)))
    a, peer = ls.accept()
    check("accept_peername", peer == c.getsockname() and a.getpeername() == c.getsockname(), peer)
    c.setblocking(True)
    check("recv_dontwait_eagain", err_of(lambda: a.recv(10, socket.MSG_DONTWAIT)) == errno.EAGAIN)

    # data semantics
    c.sendall(b"hello world")
    time.sleep(0.2)
    pk = a.recv(100, socket.MSG_PEEK)
    d = a.recv(100)
    check("msg_peek", pk == b"hello world" and d == b"hello world", (pk, d))
    c.sendmsg([b"ab", b"cd", b"ef"])
    b1, b2 = bytearray(3), bytearray(3)
    time.sleep(0.2)
    n = a.recvmsg_into([b1, b2])[0]
    check("writev_readv", n == 6 and bytes(b1 + b2) == b"abcdef", (n, b1, b2))

    def dribble():
        for part in (b"12345", b"67890", b"abcde"):
            time.sleep(0.15)
            c.send(part)
    t = threading.Thread(target=dribble)
    t.start()
    d = a.recv(15, socket.MSG_WAITALL)
    t.join()
    check("msg_waitall", d == b"1234567890abcde", d)

    tv = struct.pack("ll", 0, 300000)
    a.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, tv)
    t0 = time.time()
    e = err_of(lambda: a.recv(10))
    check("so_rcvtimeo", e == errno.EAGAIN and time.time() - t0 >= 0.25, (e, time.time() - t0))

    i = info(c)
    check("tonic_info", i["state"] == 1 and i["C"] > 0 and i["K"] == 128 and
          i["proto"] == "rack" and i["len"] >= INFO_LEN, i)

    # the handshake's round trip is the first RTT sample on both ends
    hl, hc, ha = pair()
    check("tonic_info_handshake_rtt", info(hc)["rtt_us"] > 0 and
          info(ha)["rtt_us"] > 0, (info(hc), info(ha)))
    for s in (hc, ha, hl):
        s.close()

    # half-close and poll flags
    c.shutdown(socket.SHUT_WR)
    pa = select.poll()
    pa.register(a, select.POLLIN | POLLRDHUP)
    ev = pa.poll(3000)
    check("poll_rdhup_after_peer_fin", ev and ev[0][1] & POLLRDHUP and ev[0][1] & select.POLLIN, ev)
    check("eof_after_fin", a.recv(10) == b"")
    a.sendall(b"reply after half-close")
    check("half_close_reply", recv_exact(c, 22) == b"reply after half-close")
    check("send_after_shutdown_epipe", err_of(lambda: c.send(b"x")) == errno.EPIPE)
    a.close()
    check("eof_after_peer_close", c.recv(10) == b"")
    pc = select.poll()
    pc.register(c, select.POLLIN)
    ev = pc.poll(1000)
    check("pollhup_after_both_closed", ev and ev[0][1] & select.POLLHUP, ev)
    c.close()

    # resets
    c = sock()
    c.connect(ls.getsockname())
    a, _ = ls.accept()
    a.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    a.close()
    ev = events(c, select.POLLIN)   # the reset: POLLERR/POLLHUP
    check("so_linger0_reset", err_of(lambda: c.recv(10)) == errno.ECONNRESET, ev)
    check("send_after_reset_epipe", err_of(lambda: c.send(b"x")) == errno.EPIPE)
    c.close()

    c = sock()
    c.connect(ls.getsockname())
    a, _ = ls.accept()
    c.sendall(b"unread data")
    ev = events(a, select.POLLIN)   # queued, unread, when a closes
    a.close()
    ev = (ev, events(c, select.POLLIN))
    check("close_unread_resets_peer", err_of(lambda: c.recv(10)) == errno.ECONNRESET, ev)
    c.close()

    # buffers
    c = sock()
    c.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)
    c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    check("so_sndbuf_rcvbuf",
          c.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) == 131072 and
          c.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF) == 131072)

    # options
    def so(opt, val, fmt="i"):
        return err_of(lambda: c.setsockopt(SOL_TONIC, opt, struct.pack(fmt, val)))
    check("opt_seg_too_small_einval", so(TONIC_SEGMENT_SIZE, 10) == errno.EINVAL)
    check("opt_window_zero_einval", so(TONIC_WINDOW, 0) == errno.EINVAL)
    check("opt_window_big_einval", so(TONIC_WINDOW, 257) == errno.EINVAL)
    check("opt_flush_negative_einval", so(TONIC_FLUSH_DELAY, -1) == errno.EINVAL)
    check("opt_unknown_enoprotoopt", so(99, 1) == errno.ENOPROTOOPT)
    check("opt_info_readonly_enoprotoopt", so(TONIC_INFO, 1) == errno.ENOPROTOOPT)
    check("opt_short_einval", err_of(lambda: c.setsockopt(SOL_TONIC, TONIC_WINDOW, b"\x01")) == errno.EINVAL)
    check("opt_get_unknown_enoprotoopt", err_of(lambda: c.getsockopt(SOL_TONIC, 99)) == errno.ENOPROTOOPT)
    check("opt_seg_set", so(TONIC_SEGMENT_SIZE, 1000) == 0 and so(TONIC_WINDOW, 16) == 0 and
          so(TONIC_FLUSH_DELAY, 5000) == 0)
    # TONIC_PROTOCOL: a string, as TCP_CONGESTION (only the built-ins here)
    def sp(name):
        return err_of(lambda: c.setsockopt(SOL_TONIC, TONIC_PROTOCOL, name))

    def gp(s=c):
        return s.getsockopt(SOL_TONIC, TONIC_PROTOCOL, TONIC_PROTO_NAME_MAX).split(b"\0")[0]
    check("opt_protocol_default_rack", gp() == b"rack", gp())
    check("opt_protocol_unknown_enoent", sp(b"nosuchproto") == errno.ENOENT)
    # TCP_CONGESTION cuts an over-long name to TCP_CA_NAME_MAX - 1 bytes,
    # which then names nothing: ENOENT.
    check("opt_protocol_too_long_enoent", sp(b"x" * 40) == errno.ENOENT)
    check("opt_protocol_empty_einval", sp(b"") == errno.EINVAL)
    check("opt_protocol_set_builtin", sp(b"newreno") == 0 and gp() == b"newreno", gp())
    c.connect(ls.getsockname())
    a, _ = ls.accept()
    i = info(c)
    check("opt_protocol_after_connect_eisconn", sp(b"newreno") == errno.EISCONN)
    # each end runs its own choice: the child, its listener's (the default)
    check("opt_protocol_info_and_child", i["proto"] == "newreno" and gp(a) == b"rack",
          (i["proto"], gp(a)))
    check("opt_seg_window_negotiated", i["C"] == 1000 and i["K"] == 16 and info(a)["C"] == 1000 and
          info(a)["K"] == 16, i)
    check("opt_flush_get", c.getsockopt(SOL_TONIC, TONIC_FLUSH_DELAY) == 5000)
    check("opt_seg_after_connect_eisconn", so(TONIC_SEGMENT_SIZE, 500) == errno.EISCONN)
    data = os.urandom(5000)
    c.sendall(data)
    check("transfer_small_segments", recv_exact(a, 5000) == data)
    c.close()
    a.close()
    ls.close()

    # bounded backlog: listen(1) accepts at most backlog + 1 without accept()
    # Wait until each of the 6 connects has either completed or had its
    # SYN (or final ACK) dropped by the full listener (ListenDrops).
    ls = listener(backlog=1)
    drops0 = tonic_stat("ListenDrops")
    cs = []
    for _ in range(6):
        x = sock()
        x.setblocking(False)
        err_of(lambda: x.connect(ls.getsockname()))
        cs.append(x)
    pend = select.poll()
    for x in cs:
        pend.register(x, select.POLLOUT)

    def established():
        return [fd for fd, ev in pend.poll(0)
                if ev & select.POLLOUT and not ev & select.POLLERR]
    settled = wait_for(lambda: len(established()) +
                       tonic_stat("ListenDrops") - drops0 >= 6)
    done = established()
    check("backlog_bounded", settled and 1 <= len(done) <= 2,
          (len(done), tonic_stat("ListenDrops") - drops0))
    for x in cs:
        x.close()
    ls.close()

    # IPv6
    ls6 = listener(socket.AF_INET6, "::1")
    c6 = sock(socket.AF_INET6)
    c6.connect(ls6.getsockname()[:2])
    a6, _ = ls6.accept()
    data = os.urandom(100000)
    threading.Thread(target=lambda: c6.sendall(data)).start()
    check("ipv6_loopback_transfer", recv_exact(a6, len(data)) == data)
    x = sock(socket.AF_INET6)
    check("ipv6_refused", err_of(lambda: x.connect(("::1", 1))) == errno.ECONNREFUSED)
    x.close()
    c6.close()
    a6.close()
    ls6.close()
    dual_stack()
    bind_rules()
    tables()
    tcp_options()
    if not VERDICTS.complete():
        print("ran %d of %d checks" % (VERDICTS.ran, len(CHECKS)), flush=True)
        return 1
    print("DONE", flush=True)
    return 1 if VERDICTS.failed else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--count"]:
        print(len(CHECKS))
        sys.exit(0)
    sys.exit(main())
