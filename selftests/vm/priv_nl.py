#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Every operation of the tonic netlink family, as the calling user in its
# namespace, through the kernel's ynl library and the YAML spec; one line
# "KEY RESULT" each (RESULT: ok, or the errno's name), for
# test_privilege.sh.  Usage: priv_nl.py WINDOW NAME...: config-set
# window WINDOW, then prog-default-set NAME for each NAME in turn.
import errno
import sys

sys.path.insert(0, "/usr/src/linux-source-6.12/tools/net/ynl")
from lib import YnlFamily, NlError  # noqa: E402

SPEC = "Documentation/netlink/specs/tonic.yaml"
ynl = YnlFamily(SPEC, "")


def run(key, fn):
    try:
        r = fn()
    except NlError as e:
        print(key, errno.errorcode.get(e.error, e.error))
        return None
    except OSError as e:
        print(key, errno.errorcode.get(e.errno, e.errno))
        return None
    print(key, "ok")
    return r


run("stats-get", lambda: ynl.do("stats-get", {}))
run("flow-get-dump", lambda: ynl.dump("flow-get", {}))
progs = run("prog-get-dump", lambda: ynl.dump("prog-get", {}))
if progs is not None:
    print("progs", ",".join(sorted(p["name"] for p in progs)))
run("prog-default-get", lambda: ynl.do("prog-default-get", {}))
run("config-get", lambda: ynl.do("config-get", {}))
run("config-set", lambda: ynl.do("config-set", {"window": int(sys.argv[1])}))
cfg = run("config-get-after", lambda: ynl.do("config-get", {}))
if cfg is not None:
    print("window", cfg["window"])
for name in sys.argv[2:]:
    run("prog-default-set:" + name,
        lambda: ynl.do("prog-default-set", {"name": name}))
d = run("prog-default-get-after", lambda: ynl.do("prog-default-get", {}))
if d is not None:
    print("default", d["name"])
# a socket of its own: ynl binds it, which must come before any request
run("events", lambda: YnlFamily(SPEC, "").ntf_subscribe("events"))
