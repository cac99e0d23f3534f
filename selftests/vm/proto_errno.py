#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# TONIC_PROTOCOL errnos for an unprivileged caller while "irn" is loaded
# and not in net.tonic.allowed_protocols (test_bpf_data.sh).
import errno, socket
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 253)
def err(name):
    try:
        s.setsockopt(253, 5, name)
    except OSError as e:
        return e.errno
    return 0
r = (err(b"irn"), err(b"nosuchproto"), err(b"x" * 40), err(b"newreno"))
print(r)
raise SystemExit(r != (errno.EPERM, errno.ENOENT, errno.ENOENT, 0))
