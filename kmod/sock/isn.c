// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: initial sequence numbers (RFC 6528), both families.
 *
 * A keyed SipHash of the connection's addresses and ports plus a clock
 * in nanoseconds, as secure_dccp_sequence_number() (which kernels
 * without DCCP lack) and TCP's secure_tcp_seq(): an off-path attacker
 * cannot guess it, and a new incarnation of a 4-tuple starts ahead of
 * the old one.
 */
#include <linux/siphash.h>
#include <linux/timekeeping.h>
#include <net/ipv6.h>

#include "protocol.h"

static siphash_aligned_key_t tonic_isn_key;

struct tonic_isn_in {
	struct in6_addr saddr;	/* IPv4: the first word */
	struct in6_addr daddr;
	__be16 sport;
	__be16 dport;
	u32 pad;
};

static u32 tonic_isn(const struct tonic_isn_in *in)
{
	net_get_random_once(&tonic_isn_key, sizeof(tonic_isn_key));
	return (u32)siphash(in, sizeof(*in), &tonic_isn_key) +
	       (u32)ktime_get_real_ns();
}

/**
 * tonic_isn4() - the ISN of an IPv4 connection
 * @saddr: our address
 * @daddr: the peer's
 * @sport: our port
 * @dport: the peer's
 *
 * Return: the ISN.
 */
u32 tonic_isn4(__be32 saddr, __be32 daddr, __be16 sport, __be16 dport)
{
	struct tonic_isn_in in = {
		.saddr.s6_addr32[0] = saddr,
		.daddr.s6_addr32[0] = daddr,
		.sport = sport,
		.dport = dport,
	};

	return tonic_isn(&in);
}

/**
 * tonic_isn6() - the ISN of an IPv6 connection
 * @saddr: our address
 * @daddr: the peer's
 * @sport: our port
 * @dport: the peer's
 *
 * Return: the ISN.
 */
u32 tonic_isn6(const struct in6_addr *saddr, const struct in6_addr *daddr,
	       __be16 sport, __be16 dport)
{
	struct tonic_isn_in in = {
		.saddr = *saddr,
		.daddr = *daddr,
		.sport = sport,
		.dport = dport,
	};

	return tonic_isn(&in);
}
