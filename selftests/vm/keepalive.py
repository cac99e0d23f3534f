#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Dead-peer detection on a Tonic (or, with --tcp, a TCP) connection.

keepalive.py [--tcp] [--user-timeout] ADDR PORT CUT_FILE

Default: sets SO_KEEPALIVE, TCP_KEEPIDLE 1, TCP_KEEPINTVL 1, TCP_KEEPCNT 3,
connects, prints "connected", idles 4 s and prints "alive ERR" (SO_ERROR).
--user-timeout: sets TCP_USER_TIMEOUT 2000 ms instead and prints "alive 0".
Then creates CUT_FILE (the test cuts the path), waits 0.5 s, sends 10 kB
in the --user-timeout case, and blocks in recv() for at most 60 s,
printing "recv ERRNO-NAME" (ETIMEDOUT expected) or "recv timeout".
"""
import errno
import socket
import sys
import time

args = sys.argv[1:]
tcp = "--tcp" in args
user_timeout = "--user-timeout" in args
args = [a for a in args if not a.startswith("--")]
addr, port, cut_file = args[0], int(args[1]), args[2]
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 6 if tcp else 253)
if user_timeout:
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, 2000)
else:
    s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, 1)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, 1)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, 3)
s.connect((addr, port))
print("connected", flush=True)
if not user_timeout:
    time.sleep(4)
print("alive", s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR), flush=True)
open(cut_file, "w").close()
time.sleep(0.5)
if user_timeout:
    s.send(b"x" * 10000)
s.settimeout(60)
try:
    d = s.recv(10)
    print("recv data %r" % d, flush=True)
except OSError as e:
    # socket.timeout is TimeoutError, which the kernel's ETIMEDOUT also
    # raises: only the latter has an errno
    print("recv", errno.errorcode.get(e.errno, "timeout"), flush=True)
