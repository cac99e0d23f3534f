/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic for Linux: how many whole segments one copy step of send() may
 * add to the send buffer's last run (sndbuf.c), as plain arithmetic so
 * that the unit tests check it against the segment-by-segment rule.
 */
#ifndef _TONIC_RUNFILL_H
#define _TONIC_RUNFILL_H

/**
 * struct tonic_run_fill - the state before the new segments
 * @c: C, bytes of a full segment
 * @queued: sk_wmem_queued once the segment being filled is queued
 * @sndbuf: sk_sndbuf
 * @len: the run's bytes once that segment is full
 * @run_max: most bytes of a run
 * @nsegs: the run's segments so far
 * @segs: most new segments wanted (the batch's push comes after them)
 * @avail: bytes at hand after that segment
 */
struct tonic_run_fill {
	u32 c;
	int queued;
	int sndbuf;
	u32 len;
	u32 run_max;
	u32 nsegs;
	u32 segs;
	u32 avail;
};

/**
 * tonic_run_fill_bytes() - bytes of new segments one copy step may add
 * @f: the state
 *
 * Each new segment only if it could have been started alone: less than
 * sndbuf queued at its start (sk_stream_memory_free(); the segment may
 * pass it), the run's bytes with it within @run_max, fewer than U16_MAX
 * segments in the run.  All are full but maybe the last.
 *
 * Return: at most @avail bytes.
 */
static inline u32 tonic_run_fill_bytes(const struct tonic_run_fill *f)
{
	u32 segs = f->segs;

	if (!f->avail || !segs || f->queued >= f->sndbuf ||
	    f->len + f->c > f->run_max || f->nsegs >= U16_MAX)
		return 0;
	segs = min_t(u32, segs, (u32)(f->sndbuf - f->queued - 1) / f->c + 1);
	segs = min_t(u32, segs, (f->run_max - f->len) / f->c);
	segs = min_t(u32, segs, U16_MAX - f->nsegs);
	return min_t(u64, f->avail, (u64)segs * f->c);
}

#endif
