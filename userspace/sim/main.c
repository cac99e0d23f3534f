// SPDX-License-Identifier: GPL-2.0
/*
 * tonic-sim: run the simulator's experiments.
 *
 *   tonic-sim [-s SEED] [-o DIR] [--small] [-q] [-v] EXPERIMENT...|all|list
 *
 * Data files go to DIR as EXPERIMENT-NAME; metrics to stdout (and to
 * DIR/EXPERIMENT.metrics); the last line is the FNV-1a hash of all output,
 * identical for identical seeds.
 */
#include <time.h>
#include "exp.h"

const struct exp_desc sim_experiments[] = {
	{ "reno1", "Tonic 6.2: one NewReno flow, cwnd and sequence traces",
	  exp_reno1 },
	{ "reno200", "Tonic 6.2: 200 NewReno flows, 5 s, throughput CDF",
	  exp_reno200 },
	{ "dcqcn", "Tonic 6.2: DCQCN, two flows converging, 200 flows",
	  exp_dcqcn },
	{ "irn", "IRN 4: IRN vs RoCE go-back-N, with and without PFC",
	  exp_irn },
	{ "loss", "bulk flows at 1 % and 5 % loss both ways: timeouts",
	  exp_loss },
	{ NULL, NULL, NULL },
};

static void usage(void)
{
	const struct exp_desc *d;

	fprintf(stderr, "usage: tonic-sim [-s SEED] [-o DIR] [--small] [-q] [-v] EXPERIMENT...|all|list\n");
	for (d = sim_experiments; d->name; d++)
		fprintf(stderr, "  %-8s %s\n", d->name, d->what);
}

static int run_one(const struct exp_desc *d, const char *dir,
		   const struct exp_opts *o, int verbose, u64 *hash)
{
	struct sim_report r;
	struct timespec a, b;
	int err;

	rep_init(&r, dir, verbose);
	clock_gettime(CLOCK_MONOTONIC, &a);
	err = d->run(&r, o);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (dir) {
		char path[512];
		unsigned int i;
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s.metrics", dir, d->name);
		f = fopen(path, "w");
		if (f) {
			for (i = 0; i < r.nmetrics; i++)
				fprintf(f, "%s %.6g\n", r.m[i].key, r.m[i].v);
			fprintf(f, "%s.hash %016llx\n", d->name,
				(unsigned long long)r.hash);
			fclose(f);
		}
	}
	fprintf(stderr, "%s: %s in %.1f s, hash %016llx\n", d->name,
		err ? "FAILED" : (r.failed ? "CHECK FAILED" : "done"),
		(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9,
		(unsigned long long)r.hash);
	*hash ^= r.hash;
	return err || r.failed;
}

int main(int argc, char **argv)
{
	struct exp_opts o = { .seed = 1 };
	const char *dir = NULL;
	const struct exp_desc *d;
	int i, verbose = 1, bad = 0, ran = 0;
	u64 hash = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-s") && i + 1 < argc) {
			o.seed = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			dir = argv[++i];
		} else if (!strcmp(argv[i], "--small")) {
			o.small = 1;
		} else if (!strcmp(argv[i], "-v")) {
			o.trace = 1;
		} else if (!strcmp(argv[i], "-q")) {
			verbose = 0;
		} else if (!strcmp(argv[i], "list")) {
			usage();
			return 0;
		} else if (argv[i][0] == '-') {
			usage();
			return 2;
		} else {
			int all = !strcmp(argv[i], "all"), found = 0;

			for (d = sim_experiments; d->name; d++) {
				if (!all && strcmp(d->name, argv[i]))
					continue;
				found = 1;
				ran++;
				bad |= run_one(d, dir, &o, verbose, &hash);
			}
			if (!found) {
				usage();
				return 2;
			}
		}
	}
	if (!ran) {
		usage();
		return 2;
	}
	printf("hash %016llx\n", (unsigned long long)hash);
	return bad ? 1 : 0;
}
