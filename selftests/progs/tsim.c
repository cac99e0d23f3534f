// SPDX-License-Identifier: GPL-2.0
/*
 * tsim - run a protocol program natively on the network of kmod/progs/bpf_sim.h.
 *
 *   tsim NAME TOTAL [roce] [SEG ...]
 *
 * Prints the same line as tonic.ko's debugfs tonic_bpf_sim for the same
 * scenario (selftests/vm/test_bpf_sim.sh compares them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "bpf_sim.h"

#define TONIC_PROG(p)							\
	extern const struct tonic_proto_ops tonic_prog_##p;		\
	extern const u32 tonic_prog_##p##_signals;
#include "progs.h"
#undef TONIC_PROG

static const struct {
	const char *name;
	const struct tonic_proto_ops *ops;
	const u32 *signals;
} progs[] = {
#define TONIC_PROG(p) { #p, &tonic_prog_##p, &tonic_prog_##p##_signals },
#include "progs.h"
#undef TONIC_PROG
};

int main(int argc, char **argv)
{
	static struct tsim s;
	char line[4096];
	unsigned int i, p;
	int state, a;

	if (argc < 3) {
		fprintf(stderr, "usage: tsim NAME TOTAL [roce] [SEG ...]\n");
		return 2;
	}
	for (p = 0; p < sizeof(progs) / sizeof(progs[0]); p++)
		if (!strcmp(argv[1], progs[p].name))
			break;
	if (p == sizeof(progs) / sizeof(progs[0])) {
		fprintf(stderr, "tsim: no program '%s'\n", argv[1]);
		return 2;
	}
	for (a = 3; a < argc; a++) {
		if (!strcmp(argv[a], "roce")) {
			s.roce = 1;
			continue;
		}
		i = strtoul(argv[a], NULL, 0);
		if (i >= TSIM_SEGS)
			return 2;
		s.drop[i] = 1;
	}
	if (tsim_start(&s, progs[p].ops, *progs[p].signals,
		       strtoul(argv[2], NULL, 0), s.roce)) {
		fprintf(stderr, "tsim: cannot start\n");
		return 1;
	}
	state = tsim_run(&s, 1000000);
	tsim_report(&s, argv[1], state, line, sizeof(line));
	fputs(line, stdout);
	tsim_stop(&s);
	return state > 0 ? 0 : 1;
}
