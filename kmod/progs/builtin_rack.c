// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic: the built-in "rack" protocol (RACK-TLP loss detection with
 * NewReno's congestion response).
 *
 * This is bpf/rack.bpf.c compiled natively (tonic_prog.h without
 * __bpf__), as the simulator and the native tests compile it, so the
 * built-in and the loadable program are one source and cannot differ.
 * It exports tonic_prog_rack and tonic_prog_rack_signals.
 */
#include "../../bpf/rack.bpf.c"
