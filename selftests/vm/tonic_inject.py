#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hostile Tonic packets for selftests/vm/test_inject.sh.

Runs in the namespace of one end, sends as that end (its address) to the
other, and watches IFACE (an AF_PACKET socket, both directions) to learn
what an on-path attacker would know.  WIRE is udp (datagrams to port P,
Tonic checksum 0: UDP's covers it) or ip (raw protocol 253, checksummed
here).  Each command prints one JSON line of what it did.

  tonic_inject.py req-rst FAM WIRE IFACE DST DPORT
      SYN (every signal bit set) from an unused port; the SYN-ACK (its
      signals reported) finds no socket here, so this
      end's stack answers it with an RST (seq = client ISN + 1, ack =
      server ISN + 1); then the final ACK, which must find no request.
  tonic_inject.py spray FAM WIRE IFACE DST DPORT N
      Against the live connection to DST:DPORT (waits for its DATA): N
      each of blind RST, ACK, DATA (seq far from the window) and SYN.
  tonic_inject.py onpath FAM WIRE IFACE DST DPORT
      Against the connection to DST:DPORT whose receiver is stopped (its
      window closed, its numbers still): 5 each of RST in the window but
      not at rcv_nxt, DATA longer than C (1000), a resend of another
      length, an ACK for data never sent.
  tonic_inject.py icmp FAM WIRE IFACE N
      Against the connection whose DATA arrives on IFACE: N ICMP host
      unreachable and N frag-needed / packet too big (MTU 1280), each
      quoting one of its DATA packets with a seq far from the window.
  tonic_inject.py icmp-syn FAM WIRE IFACE
      Wait for a SYN arriving on IFACE; answer it with one host
      unreachable quoting it with seq = its seq + 1000 (blind).
  tonic_inject.py syns FAM WIRE IFACE DST DPORT N
      N SYNs with random seq on the connection to DST:DPORT (once the
      peer's ACK is seen).
  tonic_inject.py rst FAM WIRE IFACE DST DPORT
      Against a connection to DST:DPORT that writes a little every 0.5 s:
      right after the peer's ACK, one RST at rcv_nxt + 1 (challenged),
      then one at exactly rcv_nxt (resets).
  tonic_inject.py flood FAM WIRE DST DPORT N PORT0
      N SYNs from ports PORT0.. (whose SYN-ACKs the test drops).
  tonic_inject.py fin2 FAM WIRE IFACE DST DPORT
      Against a connection to DST:DPORT that sent its FIN and receives
      DATA from DST: once that DATA is seen, a FIN at DST's rcv_nxt (the
      ack of its DATA, one past our FIN) with our latest ack, as an
      on-path attacker (or a confused peer) would send a second FIN.
  tonic_inject.py late FAM WIRE IFACE DST SPORT N
      Our own ACKs (from port SPORT to DST) replayed late: N times, once
      an ACK newer than the last one seen has left, three copies of that
      last one, as ACKs sent from two CPUs can arrive swapped.
"""
import json
import random
import socket
import struct
import sys
import threading
import time

from udp_wire import checksum as csum

ETH_P_ALL = 0x0003
HDR = 28
PORT = 6253
PROTO = 253
SYN, SYNACK, ACK, DATA, FIN, RST, PROBE = range(1, 8)
IP_MTU_DISCOVER, IP_PMTUDISC_OMIT = 10, 5	# <linux/in.h>


def hdr(sport, dport, typ, seq=0, ack=0, plen=0, flags=0, sack=0, wnd=16,
        grant=0):
    return struct.pack('!HHBBHIIIHHI', sport, dport, typ, flags, plen,
                       seq & 0xffffffff, ack & 0xffffffff, sack & 0xffffffff,
                       wnd, 0, grant)


def synopt(seg=1000, win=16, signals=1):
    return struct.pack('!HHI16s', seg, win, signals, b'')


class Wire:
    """Sends Tonic packets from this end to @dst."""

    def __init__(self, fam, wire, dst):
        self.fam = socket.AF_INET if fam == '4' else socket.AF_INET6
        self.wire, self.dst = wire, dst
        if wire == 'udp':
            self.s = socket.socket(self.fam, socket.SOCK_DGRAM)
            self.s.bind(('', 0))
        else:
            self.s = socket.socket(self.fam, socket.SOCK_RAW, PROTO)
            if self.fam == socket.AF_INET6:
                # The kernel fills in the checksum at offset 22.
                self.s.setsockopt(socket.IPPROTO_IPV6, 7, 22)
            else:
                # An ICMP error for protocol 253 reaches every raw socket
                # of it, and raw_err() would lower the route's MTU for
                # a forged frag-needed: this socket takes no part.
                self.s.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER,
                                  IP_PMTUDISC_OMIT)
                probe = socket.socket(self.fam, socket.SOCK_DGRAM)
                probe.connect((dst, 9))
                self.src = probe.getsockname()[0]
                probe.close()
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)

    def send(self, pkt):
        if self.wire == 'udp':
            self.s.sendto(pkt, (self.dst, PORT))
            return
        if self.fam == socket.AF_INET:
            ph = socket.inet_aton(self.src) + socket.inet_aton(self.dst) + \
                struct.pack('!BBH', 0, PROTO, len(pkt))
            c = csum(ph + pkt)
            pkt = pkt[:22] + struct.pack('!H', c) + pkt[24:]
        self.s.sendto(pkt, (self.dst, 0))

    def sport(self):
        return self.s.getsockname()[1] if self.wire == 'udp' else None


def parse(frame):
    """(fam, src, dst, l4 proto, ip bytes, l4 offset) of an IP frame."""
    etype = struct.unpack('!H', frame[12:14])[0]
    ip = frame[14:]
    if etype == 0x0800 and len(ip) >= 20:
        ihl = (ip[0] & 0x0f) * 4
        tot = struct.unpack('!H', ip[2:4])[0]
        if struct.unpack('!H', ip[6:8])[0] & 0x3fff:
            return None
        return ('4', socket.inet_ntop(socket.AF_INET, ip[12:16]),
                socket.inet_ntop(socket.AF_INET, ip[16:20]), ip[9],
                ip[:tot], ihl)
    if etype == 0x86dd and len(ip) >= 40:
        plen = struct.unpack('!H', ip[4:6])[0]
        return ('6', socket.inet_ntop(socket.AF_INET6, ip[8:24]),
                socket.inet_ntop(socket.AF_INET6, ip[24:40]), ip[6],
                ip[:40 + plen], 40)
    return None


class Pkt:
    def __init__(self, fam, src, dst, ip, toff, udp_sport):
        th = ip[toff:toff + HDR]
        (self.sport, self.dport, self.type, self.flags, self.len, self.seq,
         self.ack, self.sack, self.wnd, _, self.grant) = \
            struct.unpack('!HHBBHIIIHHI', th)
        self.fam, self.src, self.dst = fam, src, dst
        self.ip, self.toff, self.udp_sport = ip, toff, udp_sport


class Sniffer(threading.Thread):
    """Records Tonic packets seen on @iface (wire @wire, family @fam)."""

    def __init__(self, iface, fam, wire, ignore_sport=None):
        super().__init__(daemon=True)
        self.s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                               socket.htons(ETH_P_ALL))
        self.s.bind((iface, 0))
        self.s.settimeout(0.1)
        self.fam, self.wire, self.ignore = fam, wire, ignore_sport
        self.iface = iface
        self.pkts = []
        self.lock = threading.Lock()
        self.stop = False
        self.start()

    def decode(self, frame):
        p = parse(frame)
        if not p or p[0] != self.fam:
            return None
        fam, src, dst, proto, ip, off = p
        usport = None
        if self.wire == 'udp':
            if proto != 17 or len(ip) < off + 8 + HDR:
                return None
            usport, udport = struct.unpack('!HH', ip[off:off + 4])
            if udport != PORT or usport == self.ignore:
                return None
            off += 8
        elif proto != PROTO or len(ip) < off + HDR:
            return None
        return Pkt(fam, src, dst, ip, off, usport)

    def run(self):
        while not self.stop:
            try:
                frame = self.s.recv(65535)
            except socket.timeout:
                continue
            p = self.decode(frame)
            if p:
                with self.lock:
                    self.pkts.append(p)

    def find(self, pred, timeout):
        end = time.time() + timeout
        i = 0
        while time.time() < end:
            with self.lock:
                pkts = self.pkts[i:]
            for p in pkts:
                if pred(p):
                    return p
            i += len(pkts)
            time.sleep(0.01)
        return None

    def last(self, pred):
        with self.lock:
            for p in reversed(self.pkts):
                if pred(p):
                    return p
        return None

    def fresh(self, pred, timeout=2):
        """The next packet matching @pred from a new socket: the thread
        lags behind a fast transfer (and its sender), this does not."""
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                          socket.htons(ETH_P_ALL))
        s.bind((self.iface, 0))
        s.settimeout(0.1)
        end = time.time() + timeout
        try:
            while time.time() < end:
                try:
                    frame = s.recv(65535)
                except socket.timeout:
                    continue
                p = self.decode(frame)
                if p and pred(p):
                    return p
        finally:
            s.close()
        return None


def out(d):
    print(json.dumps(d), flush=True)


def req_rst(fam, wire, iface, dst, dport):
    w = Wire(fam, wire, dst)
    sn = Sniffer(iface, fam, wire, w.sport())
    time.sleep(0.2)
    port = random.randrange(30000, 32000)
    cisn = random.getrandbits(32)
    # every signal bit set: the listener must keep only those it knows
    w.send(hdr(port, dport, SYN, seq=cisn) + synopt(signals=0xffffffff))
    sa = sn.find(lambda p: p.type == SYNACK and p.dport == port, 3)
    if not sa:
        out({'error': 'no SYN-ACK'})
        return 1
    signals = struct.unpack('!I', sa.ip[sa.toff + HDR + 4:sa.toff + HDR + 8])[0]
    rst = sn.find(lambda p: p.type == RST and p.sport == port and
                  p.ack == (sa.seq + 1) & 0xffffffff, 3)
    time.sleep(0.3)
    w.send(hdr(port, dport, ACK, seq=cisn + 1, ack=sa.seq + 1))
    ans = sn.find(lambda p: p.dport == port and p.type == RST, 2)
    out({'synack': True, 'signals': signals, 'stack_rst': bool(rst),
         'rst_seq_ok': bool(rst) and rst.seq == (cisn + 1) & 0xffffffff,
         'final_ack_reset': bool(ans)})
    return 0


def conn_state(sn, dst, dport):
    """Our DATA to dst:dport, and the last packet from the peer."""
    d = sn.find(lambda p: p.type == DATA and p.dst == dst and
                p.dport == dport, 20)
    if not d:
        return None, None
    a = sn.find(lambda p: p.src == dst and p.sport == dport and
                p.dport == d.sport and p.type == ACK, 5)
    return d, a


def spray(fam, wire, iface, dst, dport, n):
    w = Wire(fam, wire, dst)
    sn = Sniffer(iface, fam, wire, w.sport())
    print('ready', flush=True)
    d, a = conn_state(sn, dst, dport)
    if not d or not a:
        out({'error': 'no live connection'})
        return 1
    lport = d.sport
    c = max(p.len for p in sn.pkts if p.type == DATA and p.sport == lport)

    def peer():
        return sn.fresh(lambda p: p.src == dst and p.sport == dport and
                        p.dport == lport and p.type == ACK)

    sent = {}
    t0 = time.time()
    # Blind: the 4-tuple is known, the numbers are not (half the space
    # away from the window: never plausible).
    far = lambda v: (v + 0x80000000 + random.randrange(-1 << 29, 1 << 29))
    a = peer()
    for _ in range(n):
        w.send(hdr(lport, dport, RST, seq=far(a.ack), ack=random.getrandbits(32)))
    sent['blind_rst'] = n
    for _ in range(n):
        w.send(hdr(lport, dport, ACK, seq=far(a.ack), ack=random.getrandbits(32),
                   flags=1, sack=random.getrandbits(32), wnd=256))
    sent['blind_ack'] = n
    payload = bytes(c)
    for _ in range(n):
        w.send(hdr(lport, dport, DATA, seq=far(a.ack), ack=a.seq, plen=c) +
               payload)
    sent['blind_data'] = n
    for _ in range(n):
        w.send(hdr(lport, dport, SYN, seq=random.getrandbits(32)) + synopt())
    sent['blind_syn'] = n
    sent['c'] = c
    sent['secs'] = round(time.time() - t0, 2)
    out(sent)
    return 0


def onpath(fam, wire, iface, dst, dport):
    """On-path classes at a connection whose receiver (dst) is stopped:
    nothing moves, so the peer's last ACK holds its numbers (seq = its
    tonic-tail, ack = its rcv_nxt); A's window probes draw fresh ones."""
    w = Wire(fam, wire, dst)
    sn = Sniffer(iface, fam, wire, w.sport())
    print('ready', flush=True)
    a = sn.find(lambda p: p.src == dst and p.sport == dport and
                p.type == ACK, 10)
    d = sn.find(lambda p: p.dst == dst and p.dport == dport and
                p.type in (DATA, PROBE), 10)
    if not a or not d:
        out({'error': 'no ACK or probe'})
        return 1
    time.sleep(0.2)
    a = sn.last(lambda p: p.src == dst and p.sport == dport and
                p.dport == a.dport and p.type == ACK)
    lport, c = a.dport, 1000
    sent, m = {}, 5
    # rcv_nxt - 3: inside the window, not exact
    for _ in range(m):
        w.send(hdr(lport, dport, RST, seq=a.ack - 3, ack=a.seq))
    sent['inwin_rst'] = m
    for _ in range(m):
        w.send(hdr(lport, dport, DATA, seq=a.ack + 2, ack=a.seq, plen=c + 1) +
               bytes(c + 1))
    sent['long_data'] = m
    for _ in range(m):
        w.send(hdr(lport, dport, DATA, seq=a.ack - 2, ack=a.seq, plen=c - 1) +
               bytes(c - 1))
    sent['dup_len'] = m
    # DATA naming a C (in sack) above the handshake's, or below the least
    for bad_c in (c + 1, 32):
        for _ in range(m):
            w.send(hdr(lport, dport, DATA, seq=a.ack + 3, ack=a.seq,
                       plen=20, sack=bad_c) + bytes(20))
    sent['bad_c'] = 2 * m
    for _ in range(m):
        w.send(hdr(lport, dport, ACK, seq=a.ack, ack=a.seq + 1000))
    sent['unsent_ack'] = m
    out(sent)
    return 0


def icmp_quote(fam, p, seq):
    """ICMP error body quoting packet @p with its seq replaced."""
    ip = bytearray(p.ip[:p.toff + HDR])
    ip[p.toff + 8:p.toff + 12] = struct.pack('!I', seq & 0xffffffff)
    return bytes(ip)


def icmp_send(fam, to, kind, quote, mtu=1280):
    if fam == '4':
        t, code = (3, 4) if kind == 'mtu' else (3, 1)
        icmp = struct.pack('!BBHHH', t, code, 0, 0,
                           mtu if kind == 'mtu' else 0) + quote
        icmp = icmp[:2] + struct.pack('!H', csum(icmp)) + icmp[4:]
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    else:
        t, code = (2, 0) if kind == 'mtu' else (1, 3)
        icmp = struct.pack('!BBHI', t, code, 0,
                           mtu if kind == 'mtu' else 0) + quote
        s = socket.socket(socket.AF_INET6, socket.SOCK_RAW,
                          socket.IPPROTO_ICMPV6)
    s.sendto(icmp, (to, 0))
    s.close()


def icmp(fam, wire, iface, n):
    sn = Sniffer(iface, fam, wire)
    print('ready', flush=True)
    d = sn.find(lambda p: p.type == DATA, 20)
    if not d:
        out({'error': 'no DATA'})
        return 1
    for kind in ('unreach', 'mtu'):
        for _ in range(n):
            icmp_send(fam, d.src, kind,
                      icmp_quote(fam, d, d.seq + 0x80000000 +
                                 random.randrange(-1 << 29, 1 << 29)))
    out({'unreach': n, 'mtu': n, 'to': d.src})
    return 0


def icmp_syn(fam, wire, iface):
    sn = Sniffer(iface, fam, wire)
    print('ready', flush=True)
    s = sn.find(lambda p: p.type == SYN, 30)
    if not s:
        out({'error': 'no SYN'})
        return 1
    icmp_send(fam, s.src, 'unreach', icmp_quote(fam, s, s.seq + 1000))
    out({'unreach': 1, 'to': s.src})
    return 0


def peer_ack(sn, dst, dport):
    """A fresh ACK from the peer dst:dport (its seq and ack)."""
    return sn.find(lambda p: p.src == dst and p.sport == dport and
                   p.type == ACK, 20)


def on_path(fam, wire, iface, dst, dport):
    """A sender, a sniffer and a fresh ACK of dst:dport, or None."""
    w = Wire(fam, wire, dst)
    sn = Sniffer(iface, fam, wire, w.sport())
    print('ready', flush=True)
    a = peer_ack(sn, dst, dport)
    if not a:
        out({'error': 'no ACK from the peer'})
        return None
    return w, sn, a


def syns(fam, wire, iface, dst, dport, n):
    seen = on_path(fam, wire, iface, dst, dport)
    if not seen:
        return 1
    w, sn, a = seen
    for _ in range(n):
        w.send(hdr(a.dport, dport, SYN, seq=random.getrandbits(32)) + synopt())
    out({'syns': n})
    return 0


def rst(fam, wire, iface, dst, dport):
    seen = on_path(fam, wire, iface, dst, dport)
    if not seen:
        return 1
    w, sn, a = seen
    # The client writes every 0.5 s: right after the peer's ACK nothing
    # is in flight, and its ack is the peer's rcv_nxt.
    time.sleep(0.05)
    a = sn.last(lambda p: p.src == dst and p.sport == dport and
                p.dport == a.dport and p.type == ACK)
    w.send(hdr(a.dport, dport, RST, seq=a.ack + 1, ack=a.seq))
    time.sleep(0.05)
    w.send(hdr(a.dport, dport, RST, seq=a.ack, ack=a.seq))
    out({'rst': 2})
    return 0


def fin2(fam, wire, iface, dst, dport):
    w = Wire(fam, wire, dst)
    sn = Sniffer(iface, fam, wire, w.sport())
    print('ready', flush=True)
    d = sn.find(lambda p: p.src == dst and p.sport == dport and
                p.type == DATA, 20)
    if not d:
        out({'error': 'no DATA from the peer'})
        return 1
    a = sn.find(lambda p: p.dst == dst and p.dport == dport and
                p.sport == d.dport and p.type == ACK, 5)
    if not a:
        out({'error': 'no ACK to the peer'})
        return 1
    a = sn.last(lambda p: p.dst == dst and p.dport == dport and
                p.sport == d.dport and p.type == ACK)
    w.send(hdr(d.dport, dport, FIN, seq=d.ack, ack=a.ack))
    out({'fin': 1})
    return 0


def flood(fam, wire, dst, dport, n, port0):
    w = Wire(fam, wire, dst)
    for i in range(n):
        w.send(hdr(port0 + i, dport, SYN, seq=random.getrandbits(32)) +
               synopt())
    out({'syns': n})
    return 0


def late(fam, wire, iface, dst, sport, n):
    w = Wire(fam, wire, dst)
    sn = Sniffer(iface, fam, wire, w.sport())
    print('ready', flush=True)
    ours = lambda p: (p.dst == dst and p.sport == sport and p.type == ACK
                      and p.flags & 1)
    prev = sn.find(ours, 20)
    sent = 0
    while prev and sent < n:
        newer = sn.fresh(lambda p: ours(p) and p.dport == prev.dport and
                         0 < (p.ack - prev.ack) & 0xffffffff < 1 << 31, 5)
        if not newer:
            break
        pkt = hdr(prev.sport, prev.dport, ACK, seq=prev.seq, ack=prev.ack,
                  flags=prev.flags, sack=prev.sack, wnd=prev.wnd)
        for _ in range(3):
            w.send(pkt)
        sent += 1
        prev = newer
        time.sleep(0.03)
    out({'late_rounds': sent})
    return 0 if sent == n else 1


if __name__ == '__main__':
    a = sys.argv[1:]
    cmd = a[0]
    if cmd == 'req-rst':
        sys.exit(req_rst(a[1], a[2], a[3], a[4], int(a[5])))
    if cmd == 'spray':
        sys.exit(spray(a[1], a[2], a[3], a[4], int(a[5]), int(a[6])))
    if cmd == 'onpath':
        sys.exit(onpath(a[1], a[2], a[3], a[4], int(a[5])))
    if cmd == 'icmp':
        sys.exit(icmp(a[1], a[2], a[3], int(a[4])))
    if cmd == 'icmp-syn':
        sys.exit(icmp_syn(a[1], a[2], a[3]))
    if cmd == 'syns':
        sys.exit(syns(a[1], a[2], a[3], a[4], int(a[5]), int(a[6])))
    if cmd == 'rst':
        sys.exit(rst(a[1], a[2], a[3], a[4], int(a[5])))
    if cmd == 'late':
        sys.exit(late(a[1], a[2], a[3], a[4], int(a[5]), int(a[6])))
    if cmd == 'fin2':
        sys.exit(fin2(a[1], a[2], a[3], a[4], int(a[5])))
    if cmd == 'flood':
        sys.exit(flood(a[1], a[2], a[3], int(a[4]), int(a[5]), int(a[6])))
    print(__doc__)
    sys.exit(2)
