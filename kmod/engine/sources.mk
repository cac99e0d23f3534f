# SPDX-License-Identifier: GPL-2.0
#
# The transport-logic engine, the receiver model, the receive parser and
# the socket layer's portable checks (accept.c, cookie.c, negotiate.c):
# files built into tonic.ko (by the top-level Kbuild) and into
# build/libtonic_engine.a (by mk/engine.mk).
ENGINE_SRCS := engine.c flowtable.c sched.c delivery.c ctx.c credit.c newreno.c \
	receiver.c pkt.c accept.c cookie.c negotiate.c
