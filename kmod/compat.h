/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic: kernel API differences between the 6.12 releases the module
 * builds against (`make compat` builds it for each).  Kbuild detects each
 * in the headers rather than comparing version numbers, which distribution
 * backports make unreliable.
 */
#ifndef _TONIC_COMPAT_H
#define _TONIC_COMPAT_H

#include <net/inet_sock.h>
#include <linux/ipv6.h>

/* 6.12.112 moved a socket's flow-label list from ipv6_pinfo to inet_sock. */
#ifdef TONIC_FL_LIST_IN_INET_SOCK
#define tonic_ipv6_fl_list(sk)	(inet_sk(sk)->ipv6_fl_list)
#else
#define tonic_ipv6_fl_list(sk)	(inet6_sk(sk)->ipv6_fl_list)
#endif

#endif /* _TONIC_COMPAT_H */
