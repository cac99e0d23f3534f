/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic for Linux: the MIB counters, one line each, in /proc order.
 *
 * The one list of them.  TONIC_MIB(ID, Name) expands, where this file is
 * included with TONIC_MIB() defined, to:
 *
 * - the counter TONIC_MIB_<ID> of enum tonic_mib_field (kmod/protocol.h);
 * - its "<Name> <value>" line of /proc/net/tonic_stat (kmod/ctl/mib.c);
 * - its netlink attribute TONIC_A_STATS_<ID> of the stats attribute set
 *   (kmod/ctl/netlink.c): add the attribute, lower case and with dashes, to
 *   Documentation/netlink/specs/tonic.yaml and run `make netlink-gen`
 *   (the build fails while the two disagree);
 * - its key in `tonic stats`: ID in lower case (userspace/tonic/stats.c).
 *
 * No include guard: it is meant to be included once per expansion.
 */
TONIC_MIB(SEGS_OUT, SegsOut)			/* data segments sent, incl. retransmissions */
TONIC_MIB(SEGS_RTX, SegsRetrans)		/* data segments retransmitted */
TONIC_MIB(SEGS_IN, SegsIn)			/* data segments received (valid checksum) */
TONIC_MIB(SUBSEGS, SubSegments)			/* sub-segments announced after the flush delay */
TONIC_MIB(ACKS_OUT, AcksOut)			/* ACK packets sent */
TONIC_MIB(ACKS_IN, AcksIn)			/* ACK packets received */
TONIC_MIB(NACKS_OUT, NacksOut)			/* ACKs sent with the NACK flag */
TONIC_MIB(NACKS_IN, NacksIn)			/* ACKs received with the NACK flag */
TONIC_MIB(CNPS_OUT, CnpsOut)			/* CNPs sent (CE seen, rate limited) */
TONIC_MIB(CNPS_IN, CnpsIn)			/* CNPs received */
TONIC_MIB(ECE_OUT, EceOut)			/* ACKs sent with ECN echo */
TONIC_MIB(GRANTS_OUT, GrantsOut)		/* ACKs sent carrying grant tokens */
TONIC_MIB(GRANTS_IN, GrantsIn)			/* ACKs received carrying grant tokens */
TONIC_MIB(TIMEOUTS, Timeouts)			/* retransmission timeouts (engine) */
TONIC_MIB(SYN_RTX, SynRetrans)			/* SYN retransmissions */
TONIC_MIB(FIN_RTX, FinRetrans)			/* FIN retransmissions */
TONIC_MIB(PROBES_OUT, ProbesOut)		/* zero-window probes sent */
TONIC_MIB(RSTS_OUT, RstsOut)			/* resets sent */
TONIC_MIB(RSTS_IN, RstsIn)			/* valid resets received */
TONIC_MIB(ACTIVE_OPENS, ActiveOpens)		/* connect() that sent a SYN */
TONIC_MIB(PASSIVE_OPENS, PassiveOpens)		/* connections accepted from a listener */
TONIC_MIB(CONN_FAILED, ConnFailed)		/* handshakes that failed (refused, timed out) */
TONIC_MIB(DROP_CSUM, DropCsum)			/* dropped: bad checksum */
TONIC_MIB(DROP_MALFORMED, DropMalformed)	/* dropped: too short, bad type or length */
TONIC_MIB(DROP_NOSOCK, DropNoSocket)		/* dropped: no socket (a reset was sent) */
TONIC_MIB(DROP_WINDOW, DropWindow)		/* dropped: outside the receive window */
TONIC_MIB(DROP_DUP, DropDuplicate)		/* dropped: duplicate data segment */
TONIC_MIB(DROP_MEM, DropMemory)			/* dropped: receive memory exhausted */
TONIC_MIB(DROP_STATE, DropState)		/* dropped: unexpected in this state / bad seq */
TONIC_MIB(LISTEN_DROPS, ListenDrops)		/* SYNs dropped: backlog full */
TONIC_MIB(PROG_CLAMPED, ProgClamped)		/* program outputs the engine clamped */
TONIC_MIB(ENGINE_BATCHES, EngineBatches)	/* engine tx calls that emitted segments */
TONIC_MIB(DELAYED_ACKS, DelayedAcks)		/* ACKs sent by the delayed-ACK timer */
TONIC_MIB(TIMER_MISSING, TimerMissing)		/* a connection owed progress with no timer armed */
TONIC_MIB(EARLY_TIMERS, EarlyTimers)		/* early timers expired (loss probes, reordering) */
TONIC_MIB(UDP_FALLBACK, UdpFallback)		/* connect/listen on raw IP: UDP port not bound */
TONIC_MIB(CHALLENGE_ACKS, ChallengeAcks)		/* challenge ACKs sent (RFC 5961) */
TONIC_MIB(OOW_ICMPS, OutOfWindowIcmps)		/* ICMP errors ignored: quoted seq not in flight */
TONIC_MIB(SYNCOOKIES_SENT, SyncookiesSent)	/* SYN-ACKs sent as SYN cookies */
TONIC_MIB(SYNCOOKIES_RECV, SyncookiesRecv)	/* valid SYN cookies received */
TONIC_MIB(SYNCOOKIES_FAILED, SyncookiesFailed)	/* invalid SYN cookies received */
TONIC_MIB(GSO_PACKETS, GsoPackets)		/* UDP GSO super-packets sent (2 or more segments) */
TONIC_MIB(GSO_SEGS, GsoSegs)			/* data segments sent inside super-packets */
TONIC_MIB(GRO_BATCHES, GroBatches)		/* GRO batches taken by a connection (2 or more datagrams) */
TONIC_MIB(GRO_SEGS, GroSegs)			/* datagrams inside those batches */
TONIC_MIB(ACKS_LATE, AcksLate)			/* ACKs below the cumulative ack: not duplicates */
TONIC_MIB(RCV_COALESCE, RcvCoalesce)		/* in-order segments merged into the receive queue's last skb */
TONIC_MIB(GRO_FAST_BATCHES, GroFastBatches)	/* GRO batches queued whole, as one skb (in order, in the window) */
TONIC_MIB(GRO_FAST_SEGS, GroFastSegs)		/* segments inside those batches */
TONIC_MIB(EARLY_DEMUX, EarlyDemux)		/* packets given their connection's kept route */
TONIC_MIB(BACKLOG_COALESCE, BacklogCoalesce)	/* datagrams appended to the last one in a socket's backlog */
TONIC_MIB(EARLY_DELIVER, EarlyDeliver)		/* datagrams early demux delivered itself, past IP and UDP */
