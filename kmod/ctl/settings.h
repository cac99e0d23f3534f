/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic for Linux: the per-namespace settings, one line each.
 *
 * The one list of them.  TONIC_SETTING(name, ATTR, default, min, max)
 * expands, where this file is included with TONIC_SETTING() defined, to:
 *
 * - the int @name of struct tonic_net (kmod/protocol.h), set to @default
 *   in a new namespace (kmod/ctl/pernet.c);
 * - the sysctl net.tonic.@name, which accepts @min..@max (kmod/ctl/sysctl.c);
 * - the netlink config attribute TONIC_A_CONFIG_<ATTR> (kmod/ctl/netlink.c),
 *   whose `checks:` in Documentation/netlink/specs/tonic.yaml must say
 *   the same @min and @max: selftests/unit/test_settings.sh compares them,
 *   and the build fails when the spec has another number of settings;
 * - its key in `tonic config` (userspace/tonic/config.c).
 *
 * @min and @max are plain numbers for that test.  The order is the
 * spec's.  No include guard: it is meant to be included once per expansion.
 */
/* default C, bytes; 0 = path MTU minus headers (netlink: else >= 64) */
TONIC_SETTING(segment_size, SEGMENT_SIZE, 0, 0, 65000)
/* default K, segments (TONIC_MAX_WINDOW) */
TONIC_SETTING(window, WINDOW, 128, 1, 256)
/* default flush delay T, microseconds */
TONIC_SETTING(flush_delay_us, FLUSH_DELAY_US, 200, 0, 1000000)
/* SYN retransmissions before ETIMEDOUT (TCP: 1..MAX_TCP_SYNCNT) */
TONIC_SETTING(syn_retries, SYN_RETRIES, 5, 1, 127)
/* FIN retransmissions before the connection is reset */
TONIC_SETTING(fin_retries, FIN_RETRIES, 8, 1, 127)
/* minimum retransmission timeout, ms (engine and FIN/probe) */
TONIC_SETTING(rto_min_ms, RTO_MIN_MS, 200, 1, 60000)
/* at most one CNP per connection per interval, microseconds */
TONIC_SETTING(cnp_interval_us, CNP_INTERVAL_US, 50, 0, 1000000)
/* initial SO_SNDBUF of new sockets, bytes (min: tcp_wmem's default min) */
TONIC_SETTING(wmem_default, WMEM_DEFAULT, sysctl_tonic_wmem[1], 4096, 67108864)
/* initial SO_RCVBUF of new sockets, bytes */
TONIC_SETTING(rmem_default, RMEM_DEFAULT, sysctl_tonic_rmem[1], 4096, 67108864)
/* lowest RTO while at most rto_low_segs are outstanding, microseconds;
 * the default is about 2 RTTs of the TCG guest
 */
TONIC_SETTING(rto_low_us, RTO_LOW_US, 1000, 1, 60000000)
/* flight (segments) up to which rto_low_us applies; 0 = off; IRN's N */
TONIC_SETTING(rto_low_segs, RTO_LOW_SEGS, 3, 0, 256)
/* ACK at least every this many in-order full segments; 1 = each;
 * the default is RFC 5681 §4.2's, as TCP
 */
TONIC_SETTING(delack_segs, DELACK_SEGS, 2, 1, 256)
/* longest an ACK for in-order data is held, microseconds (< rto_low_us) */
TONIC_SETTING(delack_us, DELACK_US, 500, 1, 1000000)
/* highest retransmission timeout (the backoff's cap), ms; TCP_RTO_MAX */
TONIC_SETTING(rto_max_ms, RTO_MAX_MS, 120000, 1, 120000)
/* wire of new connections: 1 = UDP to udp_port, 0 = raw IP (protocol=);
 * the default is the module parameter encap= (1)
 */
TONIC_SETTING(encap, ENCAP, tonic_default_encap, 0, 1)
/* UDP port P of the UDP wire, the same at both ends */
TONIC_SETTING(udp_port, UDP_PORT, TONIC_UDP_PORT, 1, 65535)
/* challenge ACKs (RFC 5961) a namespace sends per second, on average
 * (the budget of each second is random in [limit/2, 3*limit/2), as
 * TCP's); 2147483647 = unlimited (TCP's default since 6.0: TCP also
 * limits per socket, Tonic does not); RFC 5961 §7 suggests 1000
 */
TONIC_SETTING(challenge_ack_limit, CHALLENGE_ACK_LIMIT, 1000, 0, 2147483647)
/* SYN cookies: 0 off, 1 when a listener's request queue is full, 2
 * always (net.ipv4.tcp_syncookies)
 */
TONIC_SETTING(syncookies, SYNCOOKIES, 1, 0, 2)
/* most datagrams in one UDP GSO super-packet (UDP wire); 1 = one skb
 * per segment.  Super-packets also stop at 64 KB (IP's length field).
 */
TONIC_SETTING(gso_segs, GSO_SEGS, 64, 1, 64)
/* ACK at least every this many in-order full segments of a sender that
 * chose an ACK ratio and asks for its ACKs itself (TONIC_F_ACKFREQ)
 */
TONIC_SETTING(delack_max, DELACK_MAX, 16, 1, 255)
/* early demux of received packets (edemux.c): 1 on, 0 off (the netfilter
 * hooks are removed); on also needs net.ipv4.ip_early_demux
 */
TONIC_SETTING(early_demux, EARLY_DEMUX, 1, 0, 1)
