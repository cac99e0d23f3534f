// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic engine: the userspace side of tonic_env.h.
 *
 * Not part of tonic.ko (not in ENGINE_SRCS): it holds the state the
 * userspace mapping needs, i.e. the allocation fault injector.
 */
#include "tonic_env.h"

int tenv_alloc_fail_after;
