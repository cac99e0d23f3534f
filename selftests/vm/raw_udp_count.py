#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count, on a raw socket for UDP, the datagrams to one UDP port.

usage: raw_udp_count.py 4|6 PORT READY_FILE STOP_FILE

Opens the socket, creates READY_FILE, counts until STOP_FILE exists, then
prints the count.  The kernel gives a raw socket for UDP a copy of every
UDP datagram the host receives (raw_local_deliver()); early demux's
direct delivery must not take that copy away (test_edemux.sh).
"""
import os
import select
import socket
import sys

SO_RCVBUFFORCE = getattr(socket, "SO_RCVBUFFORCE", 33)  # Linux

def main():
    fam, port, ready, stop = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    af = socket.AF_INET6 if fam == "6" else socket.AF_INET
    s = socket.socket(af, socket.SOCK_RAW, socket.IPPROTO_UDP)
    # Past rmem_max (root): a copy dropped for room would fail the test.
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 32 << 20)
    open(ready, "w").close()
    n = 0
    while not os.path.exists(stop):
        r, _, _ = select.select([s], [], [], 0.1)
        while r:
            try:
                d = s.recv(65535, socket.MSG_DONTWAIT)
            except BlockingIOError:
                break
            # IPv4 raw sockets get the IP header, IPv6 ones do not.
            ihl = (d[0] & 0x0F) * 4 if af == socket.AF_INET else 0
            if int.from_bytes(d[ihl + 2:ihl + 4], "big") == port:
                n += 1
    print(n)


if __name__ == "__main__":
    main()
