// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic receive parser: header checks and SYN options (pkt.h).
 */
#include "pkt.h"

void tonic_syn_parse(const struct tonic_synopt *opt,
		     struct tonic_syn_view *view)
{
	view->seg_size = tenv_be16(opt->seg_size);
	view->window = tenv_be16(opt->window);
	view->signals = tenv_be32(opt->signals);
	/* The peer's name need not be terminated. */
	memcpy(view->protocol, opt->protocol, sizeof(opt->protocol));
	view->protocol[sizeof(opt->protocol)] = '\0';
}

enum tonic_pkt_err tonic_pkt_parse(const void *buf, u32 len,
				   struct tonic_pkt *pkt)
{
	struct tonichdr th;
	enum tonic_pkt_err err;

	/* Copies: a buffer at any address, any alignment. */
	if (len < TONIC_HDR_LEN)
		return TONIC_PKT_ESHORT;
	memcpy(&th, buf, sizeof(th));
	err = tonic_pkt_check(&th, len);
	if (err)
		return err;

	memset(pkt, 0, sizeof(*pkt));
	pkt->source = tenv_be16(th.source);
	pkt->dest = tenv_be16(th.dest);
	pkt->type = th.type;
	pkt->flags = th.flags;
	pkt->len = tenv_be16(th.len);
	pkt->seq = tenv_be32(th.seq);
	pkt->ack = tenv_be32(th.ack);
	pkt->sack = tenv_be32(th.sack);
	pkt->wnd = tenv_be16(th.wnd);
	pkt->grant = tenv_be32(th.grant);
	pkt->hdr_len = tonic_pkt_hdr_len(th.type);
	if (pkt->hdr_len == TONIC_SYN_LEN) {
		struct tonic_synopt opt;

		memcpy(&opt, (const u8 *)buf + TONIC_HDR_LEN, sizeof(opt));
		tonic_syn_parse(&opt, &pkt->syn);
	}
	return TONIC_PKT_OK;
}
