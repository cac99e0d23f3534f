#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Keepalive on a Tonic (or, with --tcp, a TCP) connection to ADDR:PORT.

keepalive.py [--tcp] ADDR PORT IDLE_FILE
Connects, sets SO_KEEPALIVE, TCP_KEEPIDLE 1, TCP_KEEPINTVL 1, TCP_KEEPCNT 3,
prints "connected", waits 4 s idle and prints "alive ERR" (SO_ERROR), then
creates IDLE_FILE (the test cuts the path) and blocks in recv() for at
most 60 s, printing "recv ERRNO-NAME" (ETIMEDOUT expected).
"""
import errno
import socket
import sys
import time

tcp = sys.argv[1] == "--tcp"
args = sys.argv[2:] if tcp else sys.argv[1:]
addr, port, idle_file = args[0], int(args[1]), args[2]
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 6 if tcp else 253)
s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, 1)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, 1)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, 3)
s.connect((addr, port))
print("connected", flush=True)
time.sleep(4)
print("alive", s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR), flush=True)
open(idle_file, "w").close()
s.settimeout(60)
try:
    d = s.recv(10)
    print("recv data %r" % d, flush=True)
except OSError as e:
    # socket.timeout is TimeoutError, which the kernel's ETIMEDOUT also
    # raises: only the latter has an errno
    print("recv", errno.errorcode.get(e.errno, "timeout"), flush=True)
