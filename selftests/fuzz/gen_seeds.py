#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the seed corpus of selftests/fuzz/fuzz_pkt.c.

    gen_seeds.py DIR

One file per seed: a connection preamble and a sequence of operations in
the harness's framing (see the comment above LLVMFuzzerTestOneInput()),
each a valid, meaningful exchange: a transfer with and without loss under
every protocol, both handshakes, data, reordering, FIN and RST from the
peer, a zero window, sequence numbers that wrap.  Regression seeds for
bugs the fuzzer found are files of their own in corpus/ (regress-*),
kept as found.
"""
import os
import struct
import sys

ISS = 0x10000000          # the harness's ISNs (conn_init())
IRS = 0x20000000
SPORT, DPORT = 4000, 5000
PROTOS = ['builtin', 'reno', 'newreno', 'sack', 'ndp', 'dcqcn', 'irn', 'rack']
ST = {'established': 0, 'syn_sent': 1, 'syn_recv': 2, 'close_wait': 3,
      'fin_wait1': 4, 'last_ack': 5, 'fin_wait2': 6, 'zero_wnd': 7,
      'listen': 8}
PKT = {'syn': 1, 'synack': 2, 'ack': 3, 'data': 4, 'fin': 5, 'rst': 6,
       'probe': 7}
F_SACK, F_NACK, F_ACKREQ = 0x01, 0x02, 0x40
SIG_ACK, SIG_NACK, SIG_ECE, SIG_CNP, SIG_GRANT = 1, 2, 4, 8, 16


IRN_DCQCN, RACK_NO_TLP, DCQCN_SMALL_BC = 0x10, 0x20, 0x40   # program knobs
COOKIES = 0x80            # a listener answering with SYN cookies
SIG_KNOWN = SIG_ACK | SIG_NACK | SIG_ECE | SIG_CNP | SIG_GRANT
COOKIE_SEGS = [64, 256, 536, 1024, 1204, 1424, 1444, 8900]


def cookie(irs, seg, win, sig, minute=0):
    """The ISN fuzz_pkt's listener answers a SYN with (cookie.c with the
    harness's cookie_hash()): C, K and the signals already negotiated."""
    i = max(j for j, c in enumerate(COOKIE_SEGS) if c <= seg or j == 0)
    log = win.bit_length() - 1
    data = i | log << 3 | ((sig & SIG_KNOWN | SIG_ACK) >> 1) << 7
    h = ((irs * 0x9e3779b1) ^ (minute * 0x85ebca6b)) & 0xffffffff
    return (minute << 29 | ((h + data) & ((1 << 29) - 1))) & 0xffffffff


def preamble(state='established', proto='builtin', logk=4, signals=0,
             delack=2, seg=1000, segs=0, short=0, base=0, knobs=0):
    return struct.pack('!BBBBBHBBI', ST[state] | knobs, PROTOS.index(proto), logk,
                       signals, delack, seg, segs, short, base)


def pkt(kind, seq=0, ack=0, sack=0, flags=0, wnd=16, grant=0, payload=b'',
        synopt=None):
    hdr = struct.pack('!HHBBHIIIHHI', DPORT, SPORT, PKT[kind], flags,
                      len(payload), seq & 0xffffffff, ack & 0xffffffff,
                      sack & 0xffffffff, wnd, 0, grant)
    if synopt is not None:
        seg, win, sig, name = synopt
        hdr += struct.pack('!HHI16s', seg, win, sig, name.encode())
    return hdr + payload


def op_pkt(p, wait_ms=0, raw=False, ce=False, nomem=False, icmp=False):
    fl = int(raw) | int(ce) << 1 | int(nomem) << 2 | int(icmp) << 3
    return bytes([wait_ms << 2, fl, len(p)]) + p


def op_time(tens_ms):
    return bytes([tens_ms << 2 | 1])


def op_write(segs, short=0):
    return bytes([segs << 2 | 2, short])


OP_CLOSE = bytes([63 << 2 | 2])


def op_loop(loss=0):
    return bytes([loss << 2 | 3])


def ack(rel, sack_rel=None, flags=0, wnd=16, grant=0):
    """An ACK from the peer: cumulative @rel (relative to our base)."""
    if sack_rel is not None:
        flags |= F_SACK
    return pkt('ack', seq=IRS + 1, ack=ISS + 1 + rel,
               sack=ISS + 1 + (sack_rel or 0), flags=flags, wnd=wnd,
               grant=grant)


def data(rel, ack_rel=0, n=100, flags=0, c=0):
    """A data segment from the peer, @rel relative to its first; @c: the
    C it names (a path MTU drop), 0 for the handshake's."""
    return pkt('data', seq=IRS + 1 + rel, ack=ISS + 1 + ack_rel, sack=c,
               flags=flags, payload=bytes([0x61 + rel % 26]) * n)


def transfer(loss=0, rounds=6):
    """Loopback rounds with timer ticks between them, then close."""
    ops = b''
    for _ in range(rounds):
        ops += op_loop(loss) + op_time(15)
        loss = 0
    return ops + OP_CLOSE + op_loop() + op_time(1) + op_loop()


def seeds():
    s = {}
    for proto in PROTOS:
        sig = SIG_ACK | SIG_NACK | SIG_ECE | SIG_CNP
        if proto == 'ndp':
            sig |= SIG_GRANT
        s[f'xfer-{proto}'] = preamble(proto=proto, signals=sig, segs=30,
                                      short=100) + transfer()
        s[f'xfer-loss-{proto}'] = preamble(proto=proto, signals=sig,
                                           logk=5, segs=60) + transfer(0b100101, 16)
    sig = SIG_ACK | SIG_NACK | SIG_ECE | SIG_CNP
    s['knobs-irn-dcqcn'] = preamble(proto='irn', signals=sig, logk=5, segs=60,
                                    knobs=IRN_DCQCN) + op_pkt(
        ack(0, 0, flags=0x08)) + transfer(0b010010, 16)
    s['knobs-rack-notlp'] = preamble(proto='rack', signals=sig, logk=5,
                                     segs=40, knobs=RACK_NO_TLP) + \
        transfer(0b100000, 12)
    s['knobs-dcqcn-bc'] = preamble(proto='dcqcn', signals=sig, logk=5,
                                   segs=60, knobs=DCQCN_SMALL_BC) + \
        transfer(0b000100, 12)
    s['syn-sent'] = preamble('syn_sent', segs=8) + op_pkt(
        pkt('synack', seq=IRS, ack=ISS + 1, wnd=8,
            synopt=(1200, 8, SIG_ACK | SIG_NACK, 'newreno'))) + transfer()
    s['syn-sent-rst'] = preamble('syn_sent') + op_pkt(
        pkt('rst', seq=0, ack=ISS + 1))
    s['listen'] = preamble('listen', segs=6, seg=1444) + op_pkt(
        pkt('syn', seq=IRS, wnd=32,
            synopt=(1200, 32, SIG_ACK | SIG_NACK | SIG_ECE, 'rack'))) + \
        op_pkt(ack(0)) + op_write(4) + transfer()
    s['syn-recv'] = preamble('syn_recv', segs=4) + op_pkt(ack(0)) + \
        op_write(4) + transfer()
    s['recv-data'] = preamble(seg=100) + b''.join(
        op_pkt(data(i)) for i in (0, 1, 3, 2, 2, 5, 4)) + op_time(1) + \
        op_pkt(pkt('fin', seq=IRS + 1 + 6, ack=ISS + 1)) + op_pkt(
            pkt('probe', seq=IRS + 1, ack=ISS + 1))
    s['recv-ce-nomem'] = preamble(seg=100,
                                  signals=SIG_ACK | SIG_ECE | SIG_CNP) + \
        op_pkt(data(0), ce=True) + op_pkt(data(1), nomem=True) + \
        op_pkt(data(1), ce=True)
    s['close-wait'] = preamble('close_wait', segs=5) + transfer()
    s['last-ack'] = preamble('last_ack', segs=3) + transfer()
    s['fin-wait1'] = preamble('fin_wait1', segs=3) + op_loop() + op_time(1) + \
        op_loop() + op_pkt(pkt('fin', seq=IRS + 1, ack=ISS + 1 + 4))
    s['zero-window'] = preamble('zero_wnd', segs=10) + op_time(30) + \
        op_pkt(ack(0, wnd=4)) + op_loop() + op_pkt(ack(4, wnd=16)) + transfer()
    s['rst'] = preamble(segs=4) + op_loop() + op_pkt(
        pkt('rst', seq=IRS + 1, ack=ISS + 1))
    s['sack-nack'] = preamble(segs=12, signals=SIG_ACK | SIG_NACK) + \
        op_loop(0b000001) + op_pkt(ack(0, 1, F_NACK)) + \
        op_pkt(ack(0, 2, F_NACK)) + op_pkt(ack(0, 3, F_NACK)) + \
        op_time(1) + op_loop() + op_pkt(ack(12, 11)) + op_time(30)
    s['raw-acks'] = preamble(segs=20) + op_loop(0b111111) + \
        op_pkt(ack(5, 30), raw=True) + op_pkt(ack(25, 3), raw=True) + \
        op_time(40) + op_loop()
    s['rto'] = preamble(segs=8, logk=3) + op_loop(0b111111) + \
        b''.join(op_time(63) for _ in range(6)) + op_loop()
    s['wrap'] = preamble(segs=40, logk=5, base=0xfffffff0) + transfer(0b010)
    s['subseg'] = preamble(segs=1, short=10) + op_loop() + op_write(3, 20) + \
        op_loop() + op_time(1) + op_loop() + op_write(2) + transfer()
    # RFC 5961 and the other acceptance checks (kmod/engine/accept.c)
    s['rst-challenge'] = preamble(segs=4) + op_loop() + op_pkt(
        pkt('rst', seq=IRS + 1 + 5)) + op_pkt(
        pkt('rst', seq=IRS + 1 + 1000)) + transfer()
    s['syn-challenge'] = preamble(segs=4) + op_loop() + op_pkt(
        pkt('syn', seq=IRS + 77, synopt=(1000, 16, SIG_ACK, 'reno'))) + \
        transfer()
    s['ack-old-new'] = preamble(segs=20, logk=3) + transfer()[:-4] + \
        op_pkt(ack(5)) + op_pkt(ack(30)) + op_pkt(ack(-100000)) + \
        op_write(3) + transfer()
    s['req-rst'] = preamble('syn_recv', segs=2) + op_pkt(
        pkt('rst', seq=IRS + 1, ack=ISS + 1))
    s['req-rst-blind'] = preamble('syn_recv', segs=2) + op_pkt(
        pkt('rst', seq=ISS + 1, ack=IRS + 1)) + op_pkt(
        ack(0, wnd=16)) + op_pkt(pkt('ack', seq=IRS + 400, ack=ISS + 1)) + \
        transfer()
    s['icmp-syn-sent'] = preamble('syn_sent', segs=2) + op_pkt(
        pkt('syn', seq=ISS, synopt=(1000, 16, SIG_ACK, '')), icmp=True)
    s['icmp-blind'] = preamble(segs=8) + op_loop(0b000111) + op_pkt(
        pkt('data', seq=ISS + 1 + 200, payload=b'x'), icmp=True) + op_pkt(
        pkt('data', seq=ISS + 1 + 1, payload=b'x'), icmp=True) + transfer()
    s['len-dup'] = preamble(seg=100) + op_pkt(data(0)) + op_pkt(
        data(0, n=50)) + op_pkt(data(2, n=40)) + op_pkt(data(3)) + op_pkt(
        data(1)) + op_pkt(data(2, n=40)) + op_pkt(data(2, n=41)) + \
        op_pkt(data(4, n=101))
    # The peer's C drops from 100 to 70 after segment 1: full segments of
    # 70, one out of order, a short one, and C out of range (above the
    # handshake's, below 64).
    s['len-small-c'] = preamble(seg=100) + op_pkt(data(0)) + op_pkt(
        data(1)) + op_pkt(data(3, n=70, c=70)) + op_pkt(
        data(2, n=70, c=70)) + op_pkt(data(4, n=30, c=70)) + op_pkt(
        data(5, n=70, c=101)) + op_pkt(data(5, n=20, c=40)) + op_pkt(
        data(5, n=70, c=70))
    s['fin-repeat'] = preamble(segs=2) + op_pkt(
        pkt('fin', seq=IRS + 1, ack=ISS + 1)) + op_pkt(
        pkt('fin', seq=IRS + 1, ack=ISS + 1)) + transfer()
    isn = cookie(IRS, 1200, 16, SIG_KNOWN)
    s['cookie'] = preamble('listen', segs=4, seg=1444, signals=SIG_KNOWN,
                           knobs=COOKIES) + op_pkt(
        pkt('syn', seq=IRS, wnd=32,
            synopt=(1200, 32, SIG_ACK | SIG_NACK | SIG_ECE, 'rack'))) + \
        op_pkt(pkt('ack', seq=IRS + 1, ack=isn + 1 + (1 << 12))) + \
        op_pkt(pkt('ack', seq=IRS + 1, ack=isn + 1)) + op_write(4) + \
        transfer()
    s['cookie-data'] = preamble('listen', seg=1444, signals=SIG_KNOWN,
                                knobs=COOKIES) + op_pkt(
        pkt('syn', seq=IRS, wnd=32, synopt=(300, 8, SIG_ACK, 'reno'))) + \
        op_time(63) + op_pkt(pkt('data', seq=IRS + 1,
                                 ack=cookie(IRS, 300, 8, SIG_KNOWN) + 1,
                                 payload=b'y' * 100)) + op_write(2) + \
        transfer()
    return s


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), 'corpus')
    os.makedirs(out, exist_ok=True)
    for name, blob in seeds().items():
        with open(os.path.join(out, 'seed-' + name), 'wb') as f:
            f.write(blob)


if __name__ == '__main__':
    main()
