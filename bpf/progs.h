/* SPDX-License-Identifier: GPL-2.0 */
/*
 * progs.h - the protocol programs shipped in bpf/, one line each.
 *
 * The one list of them: a program NAME is bpf/NAME.bpf.c and is added by
 * one TONIC_PROG(NAME) line here.  Everything else derives from it:
 *
 * - mk/bpf.mk and mk/sim.mk build each (they read the lines below, so
 *   keep exactly one TONIC_PROG(NAME) at the start of a line);
 * - selftests/vm/lib.sh's tonic_progs prints them for the VM tests and
 *   scripts/demo.sh;
 * - C code expands the list as an X-macro over the native build's
 *   tonic_prog_NAME and tonic_prog_NAME_signals (tsim, test_progs, the
 *   simulator):
 *
 *	#define TONIC_PROG(name) ...
 *	#include "progs.h"
 *	#undef TONIC_PROG
 *
 * The order is the order of the tests and of `tonic prog list`.
 */
TONIC_PROG(reno)
TONIC_PROG(newreno)
TONIC_PROG(sack)
TONIC_PROG(ndp)
TONIC_PROG(dcqcn)
TONIC_PROG(irn)
TONIC_PROG(rack)
