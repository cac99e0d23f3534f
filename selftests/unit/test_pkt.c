// SPDX-License-Identifier: GPL-2.0
/*
 * The receive parser (kmod/engine/pkt.c): each check of a header, as
 * tonic_hdr_bad() made them before they moved there, and the SYN option
 * view.
 */
#include "unit.h"
#include "pkt.h"

static u8 buf[TONIC_SYN_LEN + 200];

/* A header of @type with @len payload bytes (big endian fields). */
static u32 mk(u8 type, u16 len, u16 sport, u16 dport)
{
	u32 hlen = type == TONIC_PKT_SYN || type == TONIC_PKT_SYNACK ?
		   TONIC_SYN_LEN : TONIC_HDR_LEN;

	memset(buf, 0, sizeof(buf));
	buf[0] = sport >> 8;
	buf[1] = sport;
	buf[2] = dport >> 8;
	buf[3] = dport;
	buf[4] = type;
	buf[6] = len >> 8;
	buf[7] = len;
	return hlen + len;
}

static int parse(u32 len)
{
	struct tonic_pkt p;

	return tonic_pkt_parse(buf, len, &p);
}

static void header_lengths(void)
{
	CHECK_EQ(tonic_pkt_hdr_len(0), 0);
	CHECK_EQ(tonic_pkt_hdr_len(TONIC_PKT_SYN), TONIC_SYN_LEN);
	CHECK_EQ(tonic_pkt_hdr_len(TONIC_PKT_SYNACK), TONIC_SYN_LEN);
	CHECK_EQ(tonic_pkt_hdr_len(TONIC_PKT_ACK), TONIC_HDR_LEN);
	CHECK_EQ(tonic_pkt_hdr_len(TONIC_PKT_PROBE), TONIC_HDR_LEN);
	CHECK_EQ(tonic_pkt_hdr_len(__TONIC_PKT_MAX), 0);
	CHECK_EQ(tonic_pkt_hdr_len(255), 0);
	CHECK_EQ(TONIC_HDR_LEN, 28);
	CHECK_EQ(TONIC_SYN_LEN, 52);
}

static void each_check(void)
{
	u8 t;

	for (t = TONIC_PKT_SYN; t < __TONIC_PKT_MAX; t++) {
		u16 len = t == TONIC_PKT_DATA ? 100 : 0;
		u32 n = mk(t, len, 1, 2);

		CHECK_EQ(parse(n), TONIC_PKT_OK);
		CHECK_EQ(parse(n - 1), n - 1 < tonic_pkt_hdr_len(t) ?
			 TONIC_PKT_ESHORT : TONIC_PKT_ELEN);
		CHECK_EQ(parse(n + 1), TONIC_PKT_ELEN);
		/* payload only on DATA, and DATA always has some */
		n = mk(t, t == TONIC_PKT_DATA ? 0 : 1, 1, 2);
		CHECK_EQ(parse(n), TONIC_PKT_EPAYLOAD);
		n = mk(t, len, 0, 2);
		CHECK_EQ(parse(n), TONIC_PKT_EPORT);
		n = mk(t, len, 1, 0);
		CHECK_EQ(parse(n), TONIC_PKT_EPORT);
	}
	CHECK_EQ(parse(mk(0, 0, 1, 2)), TONIC_PKT_ETYPE);
	CHECK_EQ(parse(mk(__TONIC_PKT_MAX, 0, 1, 2)), TONIC_PKT_ETYPE);
	CHECK_EQ(parse(TONIC_HDR_LEN - 1), TONIC_PKT_ESHORT);
	/* a SYN cut inside its options */
	CHECK_EQ(parse(mk(TONIC_PKT_SYN, 0, 1, 2) - 24), TONIC_PKT_ESHORT);
	/* the length check comes before the payload rule, as it did */
	mk(TONIC_PKT_ACK, 5, 1, 2);
	CHECK_EQ(parse(TONIC_HDR_LEN), TONIC_PKT_ELEN);
}

static void fields_and_options(void)
{
	struct tonic_pkt p;
	u32 n = mk(TONIC_PKT_SYNACK, 0, 0x1234, 0xfedc);
	u8 *o = buf + TONIC_HDR_LEN;

	buf[5] = 0x41;
	memcpy(buf + 8, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c", 12);
	buf[20] = 0x01;
	buf[21] = 0x02;
	memcpy(buf + 24, "\xaa\xbb\xcc\xdd", 4);
	o[0] = 0x05;		/* C 1400 */
	o[1] = 0x78;
	o[2] = 0x00;		/* K 64 */
	o[3] = 0x40;
	o[4] = 0x80;		/* signals, an unknown bit included */
	o[7] = 0x03;
	memset(o + 8, 'x', 16);	/* a name filling its field */
	/* any alignment */
	memmove(buf + 1, buf, n);
	CHECK_EQ(tonic_pkt_parse(buf + 1, n, &p), TONIC_PKT_OK);
	CHECK_EQ(p.source, 0x1234);
	CHECK_EQ(p.dest, 0xfedc);
	CHECK_EQ(p.type, TONIC_PKT_SYNACK);
	CHECK_EQ(p.flags, 0x41);
	CHECK_EQ(p.seq, 0x01020304);
	CHECK_EQ(p.ack, 0x05060708);
	CHECK_EQ(p.sack, 0x090a0b0c);
	CHECK_EQ(p.wnd, 0x0102);
	CHECK_EQ(p.grant, 0xaabbccdd);
	CHECK_EQ(p.hdr_len, TONIC_SYN_LEN);
	CHECK_EQ(p.syn.seg_size, 1400);
	CHECK_EQ(p.syn.window, 64);
	CHECK_EQ(p.syn.signals, 0x80000003);
	CHECK_EQ(strlen(p.syn.protocol), 16);
	CHECK(tonic_syn_usable(&p.syn));
	p.syn.seg_size = TONIC_MIN_SEGMENT - 1;
	CHECK(!tonic_syn_usable(&p.syn));
	p.syn.seg_size = TONIC_MIN_SEGMENT;
	p.syn.window = 0;
	CHECK(!tonic_syn_usable(&p.syn));
}

int main(void)
{
	tap_plan(3);
	TAP_RUN(header_lengths);
	TAP_RUN(each_check);
	TAP_RUN(fields_and_options);
	return tap_exit();
}
