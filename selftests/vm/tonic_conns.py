#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tonic connections for the netlink selftests.

  tonic_conns.py hold PORT COUNT [ADDR]
      listen on ADDR:PORT (default 127.0.0.1; IPv6 if ADDR has a colon),
      open COUNT connections to
      it, accept them, print "ready", keep all of them open until stdin
      closes, then close them and print "closed".
  tonic_conns.py serve PORT BYTES
      accept one connection on 0.0.0.0:PORT, read BYTES bytes, check the
      pattern, print "ok BYTES".
  tonic_conns.py send ADDR PORT BYTES SEGMENT
      connect with TONIC_SEGMENT_SIZE = SEGMENT, send BYTES bytes of the
      pattern, shut down and wait for the peer to close.
"""
import resource
import socket
import sys

IPPROTO_TONIC = 253
SOL_TONIC = 253
TONIC_SEGMENT_SIZE = 1


def pattern(n):
    block = bytes(range(251))  # 251 is prime: a misplaced segment shows
    return (block * (n // len(block) + 1))[:n]


def tonic_socket(family=socket.AF_INET):
    return socket.socket(family, socket.SOCK_STREAM, IPPROTO_TONIC)


def hold(port, count, addr="127.0.0.1"):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 2 * count + 64
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(hard, want)))
    family = socket.AF_INET6 if ":" in addr else socket.AF_INET
    lst = tonic_socket(family)
    lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lst.bind((addr, port))
    lst.listen(128)
    socks = []
    for _ in range(count):
        c = tonic_socket(family)
        c.connect((addr, port))
        s, _ = lst.accept()
        socks += [c, s]
    print("ready", flush=True)
    sys.stdin.read()
    for s in socks:
        s.close()
    lst.close()
    print("closed", flush=True)


def serve(port, nbytes):
    lst = tonic_socket()
    lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lst.bind(("0.0.0.0", port))
    lst.listen(1)
    print("listening", flush=True)
    s, _ = lst.accept()
    data = bytearray()
    while True:
        chunk = s.recv(1 << 16)
        if not chunk:
            break
        data += chunk
    s.close()
    lst.close()
    if data != pattern(nbytes):
        print("bad data: %d bytes" % len(data), flush=True)
        sys.exit(1)
    print("ok %d" % len(data), flush=True)


def send(addr, port, nbytes, seg):
    c = tonic_socket()
    c.setsockopt(SOL_TONIC, TONIC_SEGMENT_SIZE, seg)
    c.connect((addr, port))
    c.sendall(pattern(nbytes))
    c.shutdown(socket.SHUT_WR)
    while c.recv(1 << 16):
        pass
    c.close()


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "hold":
        hold(int(args[0]), int(args[1]), *args[2:3])
    elif cmd == "serve":
        serve(int(args[0]), int(args[1]))
    elif cmd == "send":
        send(args[0], int(args[1]), int(args[2]), int(args[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
