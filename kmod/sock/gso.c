// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: UDP GSO super-packets.
 *
 * On the UDP wire, the data segments one tonic_tx() call releases (what
 * the engine let go at one instant, so within the flow's credit and
 * pace) leave as one skb of type SKB_GSO_UDP_L4 whose gso_size is a full
 * datagram, Tonic header + C.  It is built as TCP's skbs are, so that
 * skb_segment() takes the path it takes for TCP: every datagram gets a
 * new head for the IP and UDP headers and references to the pages, none
 * is a clone, and nothing below copies it again (a clone's head would be
 * copied by whoever writes headers into it: skb_cow_head(), or veth
 * before GRO).  The first datagram's Tonic header is in the head's
 * linear part (a lone datagram is sent as it is), the payload and every
 * later datagram are page fragments: the datagram's Tonic header, 28
 * bytes written into the socket's own header page (tonic_sock.hdr_frag),
 * then references to its segment's payload fragments in the send
 * buffer, never a copy.  A header is written into fresh bytes at every
 * transmission, so a resend never rewrites a header that an earlier
 * transmission may still hold in a queue.  When the head's fragments
 * are full the datagrams go on in members of its frag_list that hold
 * fragments only: skb_segment() walks fragments across such members (it
 * clones a member only if it has linear data).  A member's head, its
 * shared info alone, is built in the header page too.  A short datagram ends a
 * super-packet.
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
	g->max_segs = min_t(u32, max, UDP_MAX_SEGMENTS);
	g->max_len = TONIC_GSO_MAX_LEN;
	if (sk->sk_gso_max_size)
		g->max_len = min_t(u32, g->max_len, sk->sk_gso_max_size);
}

/*
 * Where byte @off of @run is: the fragment's index, returned, and @off
 * less the bytes before it in *@foff.  The walk starts at @cur, where the
 * previous segment of the same run ended, so a super-packet walks its
 * run's fragments once, not once per segment from the first; any other
 * segment starts over from fragment 0.
 */
static int tonic_run_seek(struct tonic_run_cursor *cur,
			  const struct sk_buff *run, u32 off, u32 *foff)
{
	const struct skb_shared_info *si = skb_shinfo(run);
	u32 pos = 0;
	int i = 0;

	if (cur->run == run && off >= cur->pos) {
		i = cur->frag;
		pos = cur->pos;
	}
	while (i < si->nr_frags && pos + skb_frag_size(&si->frags[i]) <= off)
		pos += skb_frag_size(&si->frags[i++]);
	cur->run = run;
	cur->frag = i;
	cur->pos = pos;
	*foff = off - pos;
	return i;
}

/* How many fragments from @i on, @foff bytes into the first, hold @len bytes. */
static int tonic_run_span(const struct sk_buff *run, int i, u32 foff, u32 len)
{
	const struct skb_shared_info *si = skb_shinfo(run);
	u32 end = foff + len, pos = 0;
	int n = 0;

	while (i + n < si->nr_frags && pos < end)
		pos += skb_frag_size(&si->frags[i + n++]);
	return n;
}

/*
 * Reference @len bytes of @run (a send-buffer skb, payload fragments
 * only) from @skb, never a copy: @n fragments from @i on, @foff bytes
 * into the first (tonic_run_seek(), tonic_run_span()).
 */
static __always_inline void tonic_seg_frags(struct sk_buff *skb,
					    const struct sk_buff *run, int i,
					    u32 foff, int n, u32 len)
{
	const skb_frag_t *f = &skb_shinfo(run)->frags[i];
	struct skb_shared_info *di = skb_shinfo(skb);
	skb_frag_t *d = &di->frags[di->nr_frags];
	u32 left = len;

	di->nr_frags += n;
	for (; n; n--, f++, d++) {
		u32 size = min(skb_frag_size(f) - foff, left);

		*d = *f;
		skb_frag_off_add(d, foff);
		skb_frag_size_set(d, size);
		get_page(skb_frag_page(f));
		left -= size;
		foff = 0;
	}
	skb->len += len;
	skb->data_len += len;
	skb->truesize += len;
}

/* A lone data packet referencing @n fragments of @run (tonic_seg_frags()). */
static struct sk_buff *tonic_seg_alloc(const struct sk_buff *run, int i,
				       u32 foff, int n, u32 len)
{
	struct sk_buff *skb;

	skb = alloc_skb(MAX_TONIC_HEADER, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, MAX_TONIC_HEADER);
	tonic_seg_frags(skb, run, i, foff, n, len);
	skb_push(skb, TONIC_HDR_LEN);
	skb_reset_transport_header(skb);
	skb->ip_summed = CHECKSUM_PARTIAL;
	/*
	 * A segment cut before the path MTU dropped below C + headers
	 * (tonic_mtu_reduced() cuts the later ones smaller; a smaller
	 * device MTU sends no ICMP error) keeps its size: IP fragments it
	 * rather than dropping it, the last resort that keeps the
	 * connection alive.
	 */
	skb->ignore_df = 1;
	return skb;
}

/**
 * tonic_seg_skb() - a lone data packet for a send-buffer segment
 * @cur: where the previous segment's fragments were found in its run
 *	(zeroed for none); updated
 * @run: the send-buffer skb holding the segment (payload fragments only)
 * @off: where the segment starts in @run
 * @len: its length
 *
 * Return: a new skb, room for the layers below, TONIC_HDR_LEN bytes of
 * header to fill at its transport header, then references to the
 * segment's payload; NULL without memory.
 */
struct sk_buff *tonic_seg_skb(struct tonic_run_cursor *cur,
			      const struct sk_buff *run, u32 off, u32 len)
{
	u32 foff;
	int i = tonic_run_seek(cur, run, off, &foff);

	return tonic_seg_alloc(run, i, foff, tonic_run_span(run, i, foff, len),
			       len);
}

/*
 * Take the header page references of the header fragments written since
 * the last call, at once rather than one atomic increment per datagram:
 * before the super-packet leaves, and before the page is refilled (which
 * reuses a page whose only reference is its own).
 */
static void tonic_gso_hdr_refs(struct tonic_gso *g, struct page_frag *pf)
{
	if (g->hdr_refs) {
		page_ref_add(pf->page, g->hdr_refs);
		g->hdr_refs = 0;
	}
}

/**
 * tonic_gso_end() - send what was collected, and count the packets
 *	tonic_xmit_seg() sent since the last call
 * @sk: the socket, locked
 * @g: the collection, empty afterwards
 */
void tonic_gso_end(struct sock *sk, struct tonic_gso *g)
{
	struct sk_buff *skb = g->first;

	tonic_gso_hdr_refs(g, &tonic_sk(sk)->hdr_frag);
	if (skb && g->segs > 1) {
		struct skb_shared_info *shinfo = skb_shinfo(skb);

		shinfo->gso_size = g->mss;
		shinfo->gso_type = SKB_GSO_UDP_L4;
		shinfo->gso_segs = g->segs;
		TONIC_SK_INC_STATS(sk, TONIC_MIB_GSO_PACKETS);
		TONIC_SK_ADD_STATS(sk, TONIC_MIB_GSO_SEGS, g->segs);
	}
	if (skb)
		tonic_transmit(sk, skb);
	/* tonic_xmit_seg() counts a batch's packets here, once. */
	if (g->segs_out) {
		tonic_sk(sk)->stats.segs_out += g->segs_out;
		TONIC_SK_ADD_STATS(sk, TONIC_MIB_SEGS_OUT, g->segs_out);
		g->segs_out = 0;
	}
	if (g->rtx_out) {
		tonic_sk(sk)->stats.retransmits += g->rtx_out;
		TONIC_SK_ADD_STATS(sk, TONIC_MIB_SEGS_RTX, g->rtx_out);
		g->rtx_out = 0;
	}
	g->first = NULL;
	g->last = NULL;
	g->segs = 0;
	g->len = 0;
}

/*
 * Header page bytes a chain member takes (tonic_gso_grow()): its shared
 * info, cache-line aligned.
 */
#define TONIC_GSO_MEMBER \
	(SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) + SMP_CACHE_BYTES)
/* Datagrams of two or more fragments a chain member holds at most. */
#define TONIC_GSO_PER_MEMBER	(MAX_SKB_FRAGS / 2)

/*
 * How many of @m datagrams (each two fragments or more) the header
 * page's @room bytes take: a header each, and the members they may need.
 */
static u32 tonic_hdr_fit(u32 room, u32 m)
{
	const u32 per = TONIC_GSO_PER_MEMBER * TONIC_HDR_LEN + TONIC_GSO_MEMBER;
	u32 n = room / per * TONIC_GSO_PER_MEMBER;

	room %= per;
	if (room > TONIC_GSO_MEMBER)
		n += (room - TONIC_GSO_MEMBER) / TONIC_HDR_LEN;
	return min(m, n);
}

/*
 * A new member of the chain, for fragments the last one has no room
 * for: an skb whose head is its shared info alone, built in the header
 * page (which has TONIC_GSO_MEMBER bytes free), as drivers build
 * received skbs in page fragments: no kmalloc()ed head to allocate and
 * free per member.  Its page reference is taken with the headers'.
 */
static struct sk_buff *tonic_gso_grow(struct tonic_gso *g,
				      struct page_frag *pf)
{
	const u32 size = SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	u32 off = ALIGN(pf->offset, SMP_CACHE_BYTES);
	struct sk_buff *lp = g->last, *m;

	m = build_skb(page_address(pf->page) + off, size);
	if (!m)
		return NULL;
	pf->offset = off + size;
	g->hdr_refs++;
	if (lp == g->first)
		skb_shinfo(lp)->frag_list = m;
	else
		lp->next = m;
	g->first->truesize += m->truesize;
	g->last = m;
	return m;
}

/* Room for @need more fragments in the chain: a new member if need be. */
static __always_inline struct sk_buff *tonic_gso_room(struct tonic_gso *g,
						      struct page_frag *pf,
						      int need)
{
	if (skb_shinfo(g->last)->nr_frags + need <= MAX_SKB_FRAGS)
		return g->last;
	return tonic_gso_grow(g, pf);
}

/* Room in the header page for a header and a chain member. */
static bool tonic_hdr_refill(struct tonic_gso *g, struct page_frag *pf)
{
	const u32 need = TONIC_HDR_LEN + TONIC_GSO_MEMBER;

	if (pf->page && pf->offset + need <= pf->size)
		return true;
	/* The refill must see every reference to the old page. */
	tonic_gso_hdr_refs(g, pf);
	return skb_page_frag_refill(need, pf, GFP_ATOMIC);
}

/* tonic_gso_add(), inlined in the loop of tonic_gso_add_run(). */
static __always_inline struct tonichdr *
__tonic_gso_add(struct sock *sk, struct tonic_gso *g,
		const struct sk_buff *run, u32 off, u32 len)
{
	struct page_frag *pf = &tonic_sk(sk)->hdr_frag;
	u32 dlen = TONIC_HDR_LEN + len;
	struct sk_buff *lp, *head;
	struct tonichdr *th;
	int n, i;
	u32 foff;

	i = tonic_run_seek(&g->cur, run, off, &foff);
	n = tonic_run_span(run, i, foff, len);
	if (g->first && (g->last_len != g->mss || dlen > g->mss ||
			 g->segs >= g->max_segs ||
			 g->len + dlen > g->max_len || n + 1 > MAX_SKB_FRAGS))
		tonic_gso_end(sk, g);
	if (!g->first) {
		head = tonic_seg_alloc(run, i, foff, n, len);
		if (!head)
			return NULL;
		/* Full datagrams of the run's C (smaller after a PMTU drop) */
		g->mss = TONIC_HDR_LEN + tonic_run_c(run);
		g->first = head;
		g->last = head;
		g->segs = 1;
		g->len = dlen;
		g->last_len = dlen;
		return tonic_hdr(head);
	}
	head = g->first;
	if (!tonic_hdr_refill(g, pf))
		return NULL;
	lp = tonic_gso_room(g, pf, n + 1);
	if (!lp)
		return NULL;
	th = page_address(pf->page) + pf->offset;
	skb_fill_page_desc_noacc(lp, skb_shinfo(lp)->nr_frags, pf->page,
				 pf->offset, TONIC_HDR_LEN);
	g->hdr_refs++;
	pf->offset += TONIC_HDR_LEN;
	lp->len += TONIC_HDR_LEN;
	lp->data_len += TONIC_HDR_LEN;
	lp->truesize += TONIC_HDR_LEN;
	tonic_seg_frags(lp, run, i, foff, n, len);
	if (lp != head) {
		head->len += dlen;
		head->data_len += dlen;
		head->truesize += dlen;
	}
	g->segs++;
	g->len += dlen;
	g->last_len = dlen;
	return th;
}

/**
 * tonic_gso_add() - add a datagram to the super-packet being built
 * @sk: the socket, locked
 * @g: the collection, GSO on (tonic_gso_begin() set max_segs)
 * @run: the send-buffer skb holding the segment the datagram carries
 * @off: where the segment starts in @run
 * @len: its length
 *
 * Sends what was collected first when the datagram cannot join it (the
 * previous datagram was short, or a limit is reached).
 *
 * Return: where the caller writes the datagram's Tonic header, or NULL
 * without memory (the datagram is not sent).
 */
struct tonichdr *tonic_gso_add(struct sock *sk, struct tonic_gso *g,
			       const struct sk_buff *run, u32 off, u32 len)
{
	return __tonic_gso_add(sk, g, run, off, len);
}

/*
 * Add @m full datagrams whose payload lies in fragment @f of their run,
 * @foff bytes into it, to the super-packet begun (g->first set), a header
 * from the template for each: the per-datagram step is two fragment
 * descriptors and a header.  The caller checked the super-packet's limits
 * and that the header page has room for @m headers and the chain members
 * they may need (tonic_hdr_fit()).  The payload page's
 * references are taken once, the header page's by tonic_gso_hdr_refs().
 *
 * Return: how many were added; fewer than @m without memory.
 */
static u32 tonic_gso_add_full(struct tonic_gso *g, struct page_frag *pf,
			      const skb_frag_t *f, u32 foff, u32 m, u32 seq,
			      const u8 *flags)
{
	struct page *page = skb_frag_page(f), *hpage = pf->page;
	u32 c = g->mss - TONIC_HDR_LEN, poff = skb_frag_off(f) + foff;
	u32 hoff = pf->offset, k = 0;
	u8 *hbase = page_address(hpage);
	struct sk_buff *head = g->first;
	/* A copy the compiler may keep in registers: no store aliases it. */
	const struct tonichdr t = g->hdr;

	while (k < m) {
		struct sk_buff *lp = g->last;
		struct skb_shared_info *si = skb_shinfo(lp);
		u32 j, end, bytes;
		skb_frag_t *d;

		if (si->nr_frags + 2 > MAX_SKB_FRAGS) {
			pf->offset = hoff;
			lp = tonic_gso_grow(g, pf);
			hoff = pf->offset;
			if (!lp)
				break;
			si = skb_shinfo(lp);
		}
		end = min_t(u32, m, k + (MAX_SKB_FRAGS - si->nr_frags) / 2);
		d = &si->frags[si->nr_frags];
		si->nr_frags += 2 * (end - k);
		for (j = k; j < end; j++, d += 2) {
			tonic_tmpl_hdr((struct tonichdr *)(hbase + hoff), &t,
				       flags[j], c, seq + j);
			skb_frag_fill_page_desc(d, hpage, hoff, TONIC_HDR_LEN);
			skb_frag_fill_page_desc(d + 1, page, poff, c);
			hoff += TONIC_HDR_LEN;
			poff += c;
		}
		bytes = (end - k) * g->mss;
		lp->len += bytes;
		lp->data_len += bytes;
		lp->truesize += bytes;
		if (lp != head) {
			head->len += bytes;
			head->data_len += bytes;
			head->truesize += bytes;
		}
		k = end;
	}
	pf->offset = hoff;
	if (k) {
		folio_ref_add(page_folio(page), k);
		g->hdr_refs += k;
		g->segs += k;
		g->len += k * g->mss;
		g->last_len = g->mss;
	}
	return k;
}

/**
 * tonic_gso_add_run() - add the datagrams of consecutive segments of a run
 * @sk: the socket, locked
 * @g: the collection, GSO on, its header template filled (@g->hdr)
 * @run: the send-buffer skb holding the segments
 * @off: where the first starts in @run
 * @n: how many; each but the run's last is C bytes, none is empty
 * @seq: the first one's sequence number on the wire, host order
 * @flags: TONIC_F_* of each
 *
 * As tonic_gso_add() and a header from the template for each segment.
 * Full datagrams that join a super-packet begun and whose payload lies
 * in one fragment of @run go in steps (tonic_gso_add_full()): the
 * fragment found, the limits and the header page checked once per step,
 * not per datagram.
 *
 * Return: how many datagrams were added; fewer than @n without memory
 * (the rest are not sent).
 */
u32 tonic_gso_add_run(struct sock *sk, struct tonic_gso *g,
		      const struct sk_buff *run, u32 off, u32 n, u32 seq,
		      const u8 *flags)
{
	struct page_frag *pf = &tonic_sk(sk)->hdr_frag;
	u32 c = tonic_run_c(run), k = 0;

	while (k < n) {
		u32 len = min(run->len - off, c), foff, m, done;
		const skb_frag_t *f;
		struct tonichdr *th;
		int i;

		i = tonic_run_seek(&g->cur, run, off, &foff);
		f = &skb_shinfo(run)->frags[i];
		/* Full datagrams in this fragment that may join now. */
		m = 0;
		if (g->first && g->last_len == g->mss &&
		    g->mss == TONIC_HDR_LEN + c && g->segs < g->max_segs) {
			m = min3(n - k, (skb_frag_size(f) - foff) / c,
				 g->max_segs - g->segs);
			m = min(m, (g->max_len - g->len) / g->mss);
		}
		if (m && !tonic_hdr_refill(g, pf))
			break;
		if (m) {
			m = tonic_hdr_fit(pf->size - pf->offset, m);
			done = tonic_gso_add_full(g, pf, f, foff, m, seq + k,
						  flags + k);
			k += done;
			off += done * c;
			if (done < m)
				break;
			continue;
		}
		/* The first of a super-packet, a short one, one across fragments. */
		th = __tonic_gso_add(sk, g, run, off, len);
		if (!th)
			break;
		tonic_gso_hdr(th, g, flags[k], len, seq + k);
		k++;
		off += c;
	}
	return k;
}
