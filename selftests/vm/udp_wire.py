#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Look at Tonic's wire from inside a namespace (no tcpdump in the guest).

  udp_wire.py capture IFACE PORT OUT
      Record every IPv4/IPv6 packet on IFACE (both directions) until
      SIGTERM, then write a JSON summary to OUT: UDP datagrams to PORT,
      raw Tonic packets (IP protocol 253), datagrams that do not hold
      exactly one Tonic header (UDP length != 8 + header + options +
      payload), the UDP source ports seen per Tonic connection, and how
      many datagrams' UDP checksums verify (csum_ok) or not (csum_bad:
      with checksum offload on, a datagram seen before the device shows
      only the pseudo-header sum, so this is for a veth with `tx off`),
      and the DATA datagrams marked CE (data_ce: on the sending side,
      after the qdisc, so marks netem set are counted), and the frames
      the capture itself missed (drops).
      Prints "ready" once the socket is bound.
  udp_wire.py frag-needed IFACE PORT MTU [4|6]
      Wait for a Tonic DATA datagram to PORT arriving on IFACE over IPv4
      (or IPv6), then send its source an ICMP "fragmentation needed" (an
      ICMPv6 "packet too big") with MTU, quoting it, as a router on the
      path would.  PORT 0: a raw Tonic packet (IP protocol 253).
  udp_wire.py host-unreach IFACE PORT
      Wait for a Tonic SYN to PORT arriving on IFACE over IPv4, then send
      its source an ICMP "host unreachable" quoting it.
"""
import json
import signal
import socket
import struct
import sys

ETH_P_ALL = 0x0003
SO_RCVBUFFORCE = 33
SOL_PACKET = 263
PACKET_STATISTICS = 6
HDR = 28            # struct tonichdr
SYNOPT = 24         # struct tonic_synopt
PROTO = 253
DATA = 4            # TONIC_PKT_DATA
ECN_CE = 3


def packets(iface, stop, stats=None):
    """Frames on IFACE until stop(); STATS gets the kernel's drop count."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(ETH_P_ALL))
    # Room for a burst a slow guest's Python cannot keep up with.
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
    s.bind((iface, 0))
    s.settimeout(0.2)
    print("ready", flush=True)
    while not stop():
        try:
            data, _ = s.recvfrom(65535)
        except socket.timeout:
            continue
        yield data
    # What was queued before the stop counts too: a slow reader lags.
    s.setblocking(False)
    while True:
        try:
            data, _ = s.recvfrom(65535)
        except BlockingIOError:
            break
        yield data
    if stats is not None:
        _, stats['drops'] = struct.unpack(
            'II', s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))


def parse(frame):
    """(family, src, dst, proto, l4 bytes, ip bytes, fragment) or None."""
    etype = struct.unpack('!H', frame[12:14])[0]
    ip = frame[14:]
    if etype == 0x0800 and len(ip) >= 20:
        ihl = (ip[0] & 0x0f) * 4
        tot = struct.unpack('!H', ip[2:4])[0]
        frag = struct.unpack('!H', ip[6:8])[0] & 0x3fff
        return (4, socket.inet_ntop(socket.AF_INET, ip[12:16]),
                socket.inet_ntop(socket.AF_INET, ip[16:20]), ip[9],
                ip[ihl:tot], ip[:tot], frag != 0)
    if etype == 0x86dd and len(ip) >= 40:
        plen = struct.unpack('!H', ip[4:6])[0]
        return (6, socket.inet_ntop(socket.AF_INET6, ip[8:24]),
                socket.inet_ntop(socket.AF_INET6, ip[24:40]), ip[6],
                ip[40:40 + plen], ip[:40 + plen], False)
    return None


def ecn(fam, iph):
    """The ECN codepoint of an IPv4 or IPv6 header."""
    tclass = iph[1] if fam == 4 else (iph[0] & 0x0f) << 4 | iph[1] >> 4
    return tclass & 3


def tonic_len(th):
    """Bytes a Tonic packet should span, from its header."""
    ptype, plen = th[4], struct.unpack('!H', th[6:8])[0]
    return HDR + (SYNOPT if ptype in (1, 2) else 0) + plen


def capture(iface, port, out):
    done = []
    signal.signal(signal.SIGTERM, lambda *_: done.append(1))
    sumry = {'udp4': 0, 'udp6': 0, 'raw': 0, 'bad': 0, 'frags': 0,
             'other_dport': 0, 'csum_ok': 0, 'csum_bad': 0, 'data_ce': 0,
             'conns': {}}
    for frame in packets(iface, lambda: done, sumry):
        p = parse(frame)
        if not p:
            continue
        fam, src, dst, proto, l4, iph, frag = p
        if frag:
            sumry['frags'] += 1
            continue
        if proto == PROTO:
            sumry['raw'] += 1
            continue
        if proto != 17 or len(l4) < 8:
            continue
        sport, dport, ulen = struct.unpack('!HHH', l4[:6])
        if dport != port:
            sumry['other_dport'] += 1
            continue
        sumry['udp%d' % fam] += 1
        ok = udp_csum_ok(fam, src, dst, l4[:ulen])
        sumry['csum_ok' if ok else 'csum_bad'] += 1
        th = l4[8:]
        if ulen != len(l4) or len(th) < HDR or tonic_len(th) != len(th):
            sumry['bad'] += 1
            continue
        if th[4] == DATA and ecn(fam, iph) == ECN_CE:
            sumry['data_ce'] += 1
        tsport, tdport = struct.unpack('!HH', th[:4])
        key = '%s %s.%d > %s.%d' % (fam, src, tsport, dst, tdport)
        ports = sumry['conns'].setdefault(key, [])
        if sport not in ports:
            ports.append(sport)
    with open(out, 'w') as f:
        json.dump(sumry, f, indent=1)


def checksum(b):
    if len(b) % 2:
        b += b'\0'
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def udp_csum_ok(fam, src, dst, udp):
    """The UDP checksum of a datagram verifies (0 = none counts as bad)."""
    if udp[6:8] == b'\0\0':
        return False
    af = socket.AF_INET if fam == 4 else socket.AF_INET6
    addrs = socket.inet_pton(af, src) + socket.inet_pton(af, dst)
    if fam == 4:
        pseudo = addrs + struct.pack('!BBH', 0, 17, len(udp))
    else:
        pseudo = addrs + struct.pack('!IxxxB', len(udp), 17)
    return checksum(pseudo + udp) == 0


def icmp_error(iface, port, mtu, fam, ptype=4, code=4):
    """Answer the first Tonic packet of @ptype with an ICMP error.

    As a router that dropped it: the test drops it at IFACE's ingress
    (after this capture), for a sender ignores an error about a packet
    that was acknowledged (as TCP, issue 15).
    """
    l4 = 8 if port else 0       # the Tonic header's offset: UDP or raw
    for frame in packets(iface, lambda: False):
        p = parse(frame)
        if not p or p[0] != fam or p[6] or len(p[4]) < l4 + HDR:
            continue
        if p[3] != (17 if port else PROTO) or p[4][l4 + 4] != ptype:
            continue
        if port and struct.unpack('!H', p[4][2:4])[0] != port:
            continue
        if fam == 4:
            quoted = p[5][:20 + l4 + HDR]
            icmp = struct.pack('!BBHHH', 3, code, 0, 0, mtu) + quoted
            icmp = icmp[:2] + struct.pack('!H', checksum(icmp)) + icmp[4:]
            s = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                              socket.IPPROTO_ICMP)
        else:
            # The kernel fills in an ICMPv6 checksum.
            quoted = p[5][:40 + l4 + HDR]
            icmp = struct.pack('!BBHI', 2, 0, 0, mtu) + quoted
            s = socket.socket(socket.AF_INET6, socket.SOCK_RAW,
                              socket.IPPROTO_ICMPV6)
        s.sendto(icmp, (p[1], 0))
        print('sent ICMP code %d mtu %d to %s' % (code, mtu, p[1]), flush=True)
        return 0
    return 1


if __name__ == '__main__':
    if sys.argv[1] == 'capture':
        capture(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    elif sys.argv[1] == 'frag-needed':
        sys.exit(icmp_error(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
                            int(sys.argv[5]) if len(sys.argv) > 5 else 4))
    elif sys.argv[1] == 'host-unreach':
        sys.exit(icmp_error(sys.argv[2], int(sys.argv[3]), 0, 4, ptype=1,
                            code=1))
    else:
        sys.exit(2)
