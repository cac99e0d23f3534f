/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic: the per-flow state area of a protocol program.
 *
 * Portable C, shared by the struct_ops type (kmod/progs/bpf_ops.h) and the
 * native build of the programs in bpf/ (bpf/tonic_prog.h).  The BPF
 * build gets both from the module's BTF (vmlinux.h): the enum is an enum,
 * not a macro, for that reason, and kmod/progs/bpf_ops.c makes sure it is
 * emitted.
 */
#ifndef _TONIC_BPF_USER_H
#define _TONIC_BPF_USER_H

#include "engine.h"

/**
 * enum tonic_user_size - size of a program's per-flow state
 * @TONIC_USER_BYTES: bytes of per-flow state a program may use (Tonic:
 *	256 B for grant)
 */
enum tonic_user_size {
	TONIC_USER_BYTES = 256,
};

/**
 * struct tonic_user - per-flow state owned by a protocol program
 * @data: zeroed when the flow starts (and when its program is replaced)
 *
 * A program casts this to its own struct of at most TONIC_USER_BYTES.
 */
struct tonic_user {
	u64 data[TONIC_USER_BYTES / 8];
};

#endif /* _TONIC_BPF_USER_H */
