// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: UDP GSO super-packets.
 *
 * On the UDP wire, the data segments one tonic_tx() call releases (what
 * the engine let go at one instant, so within the flow's credit and
 * pace) leave as one skb of type SKB_GSO_UDP_L4 whose gso_size is a full
 * datagram, Tonic header + C.  Each datagram is built exactly as a lone
 * packet is (tonic_xmit_seg(): a clone of the send-buffer segment with
 * its own Tonic header pushed into the headroom) and hangs on the
 * frag_list of a head that holds no data, only the IP and UDP headers.
 * skb_segment() turns every frag_list member that starts on a gso_size
 * boundary back into a clone of itself (the IP/UDP headers copied in
 * front), so software GSO copies no payload, and a device with USO and
 * NETIF_F_FRAGLIST takes the super-packet as it is.  This is the layout
 * GRO gives TCP's frag_list skbs: it needs every datagram but the last
 * to be a full one, so a short datagram ends a super-packet.
 *
 * The frag_list is what keeps the header per datagram without copying:
 * payload pages cannot carry headers (a resend rewrites them while the
 * first send may still sit in a queue), and headers as page fragments
 * would spend two of MAX_SKB_FRAGS per datagram.
 *
 * Checksums: the head is CHECKSUM_PARTIAL at the UDP header with the
 * pseudo-header sum of the whole length, as udp_send_skb() leaves a GSO
 * skb; __udp_gso_segment() gives each datagram its own length and
 * checksum (the device or skb_checksum_help() completes it).
 */
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/dst.h>
#include <net/sock.h>

#include "protocol.h"

/*
 * skb_segment() wants each datagram to have the head's headroom before
 * its UDP payload: what a member has left in front of its Tonic header.
 */
#define TONIC_GSO_HEADROOM	(MAX_TONIC_HEADER - TONIC_HDR_LEN)

/* Ample for IPv4 or IPv6 with the UDP header: the length fields are 16 bits. */
#define TONIC_GSO_MAX_LEN	(0xffff - sizeof(struct ipv6hdr) - sizeof(struct udphdr))

/**
 * tonic_gso_begin() - start collecting the datagrams of one tonic_tx()
 * @sk: the socket, locked
 * @g: the collection; GSO stays off (max_segs 0) on raw IP, through
 *	IPsec or with net.tonic.gso_segs = 1
 */
void tonic_gso_begin(struct sock *sk, struct tonic_gso *g)
{
	const struct tonic_sock *tsk = tonic_sk(sk);
	struct dst_entry *dst = __sk_dst_get(sk);
	u32 max = READ_ONCE(tonic_sk_net(sk)->gso_segs);

	memset(g, 0, sizeof(*g));
	/* Raw IP has no GSO type; UDP GSO does not go through IPsec. */
	if (!tsk->udp || max < 2 || (dst && dst_xfrm(dst)))
		return;
	g->mss = TONIC_HDR_LEN + tsk->seg_size;
	g->max_segs = min_t(u32, max, UDP_MAX_SEGMENTS);
	g->max_len = TONIC_GSO_MAX_LEN;
	if (sk->sk_gso_max_size)
		g->max_len = min_t(u32, g->max_len, sk->sk_gso_max_size);
}

/*
 * skb_segment() makes each datagram a clone of its frag_list member and
 * pushes the IP and UDP headers in front of the Tonic header.  It can do
 * that in place, without copying the head (pskb_expand_head()), only if
 * no other reference may use the headroom (skb_header_cloned()).  The
 * send-buffer segment never does (tonic_sndbuf_append() released it), and
 * neither does a member once its Tonic header is in place: segmenting
 * frees it, and a retransmission while it lives copies the segment
 * (tonic_xmit_seg()).  So a member becomes payload-only too, and the
 * datagram skb_segment() makes is the one reference that may write
 * headers (anything that clones it makes it cloned again).  A lone
 * datagram is the packet itself and keeps its headroom.
 */
static void tonic_gso_release_header(struct sk_buff *skb)
{
	skb->nohdr = 1;
	atomic_add(1 << SKB_DATAREF_SHIFT, &skb_shinfo(skb)->dataref);
}

/* Turn the lone datagram into the first of a super-packet. */
static bool tonic_gso_open(struct tonic_gso *g)
{
	struct sk_buff *head;

	head = alloc_skb(TONIC_GSO_HEADROOM, GFP_ATOMIC);
	if (!head)
		return false;
	skb_reserve(head, TONIC_GSO_HEADROOM);
	skb_reset_transport_header(head);
	skb_shinfo(head)->frag_list = g->first;
	head->len = g->first->len;
	head->data_len = g->first->len;
	head->truesize += g->first->truesize;
	head->ignore_df = 1;	/* as a lone segment: see tonic_xmit_seg() */
	tonic_gso_release_header(g->first);
	g->head = head;
	g->last = g->first;
	return true;
}

/**
 * tonic_gso_end() - send what was collected
 * @sk: the socket, locked
 * @g: the collection, empty afterwards
 */
void tonic_gso_end(struct sock *sk, struct tonic_gso *g)
{
	struct sk_buff *head = g->head;

	if (head) {
		struct skb_shared_info *shinfo = skb_shinfo(head);

		shinfo->gso_size = g->mss;
		shinfo->gso_type = SKB_GSO_UDP_L4;
		shinfo->gso_segs = g->segs;
		TONIC_SK_INC_STATS(sk, TONIC_MIB_GSO_PACKETS);
		TONIC_SK_ADD_STATS(sk, TONIC_MIB_GSO_SEGS, g->segs);
		tonic_transmit(sk, head);
	} else if (g->first) {
		tonic_transmit(sk, g->first);
	}
	g->head = NULL;
	g->first = NULL;
	g->last = NULL;
	g->segs = 0;
	g->len = 0;
}

/**
 * tonic_gso_add() - add a data packet to the super-packet being built
 * @sk: the socket, locked
 * @g: the collection
 * @skb: the packet, Tonic header in place, not yet sent
 *
 * Sends what was collected first when @skb cannot join it (the previous
 * datagram was short, or a limit is reached).
 */
void tonic_gso_add(struct sock *sk, struct tonic_gso *g, struct sk_buff *skb)
{
	struct sk_buff *head;

	if (g->first && (g->last_len != g->mss || g->segs >= g->max_segs ||
			 g->len + skb->len > g->max_len))
		tonic_gso_end(sk, g);
	g->last_len = skb->len;
	if (!g->first) {
		g->first = skb;
		g->segs = 1;
		g->len = skb->len;
		return;
	}
	if (!g->head && !tonic_gso_open(g)) {
		tonic_gso_end(sk, g);
		g->first = skb;
		g->segs = 1;
		g->len = skb->len;
		return;
	}
	head = g->head;
	tonic_gso_release_header(skb);
	g->last->next = skb;
	g->last = skb;
	head->len += skb->len;
	head->data_len += skb->len;
	head->truesize += skb->truesize;
	g->segs++;
	g->len += skb->len;
}
