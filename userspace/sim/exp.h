/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic simulator: the experiments (exp_*.c) and their helpers (stat.c).
 */
#ifndef _SIM_EXP_H
#define _SIM_EXP_H

#include "sim.h"
#include "proto.h"
#include "report.h"

/**
 * struct exp_opts - how to run an experiment
 * @seed: PRNG seed
 * @small: a reduced version for the self-tests (well under a second)
 * @trace: print events an experiment follows (-v) to stderr
 */
struct exp_opts {
	u64 seed;
	int small;
	int trace;
};

struct exp_desc {
	const char *name;
	const char *what;
	int (*run)(struct sim_report *r, const struct exp_opts *o);
};

int exp_reno1(struct sim_report *r, const struct exp_opts *o);
int exp_reno200(struct sim_report *r, const struct exp_opts *o);
int exp_dcqcn(struct sim_report *r, const struct exp_opts *o);
int exp_irn(struct sim_report *r, const struct exp_opts *o);
int exp_loss(struct sim_report *r, const struct exp_opts *o);

extern const struct exp_desc sim_experiments[];

/* stat.c */
struct stat_sum {
	double mean;
	double sd;
	double min;
	double max;
	double jain;
};

void stat_summarise(const double *v, unsigned int n, struct stat_sum *st);
double stat_percentile(double *v, unsigned int n, double p);
void stat_cdf(struct sim_file *sf, double *v, unsigned int n);

/* Check a finished run's invariants; records a failure in @r. */
int exp_check(struct sim_report *r, const char *exp, const struct sim *s);

#endif /* _SIM_EXP_H */
