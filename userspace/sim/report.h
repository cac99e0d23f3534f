/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic simulator: experiment output.
 *
 * Every byte an experiment writes (data files for plots, the summary) goes
 * through here and into one FNV-1a hash, so two runs can be compared by
 * one number.  Metrics are also kept as key/value pairs for the tests.
 * With no output directory nothing is written but the hash is the same.
 */
#ifndef _SIM_REPORT_H
#define _SIM_REPORT_H

#include <stdio.h>
#include <stdint.h>

#define SIM_MAX_METRICS	96

struct sim_metric {
	char key[48];
	double v;
};

struct sim_report {
	const char *dir;
	int verbose;
	uint64_t hash;
	unsigned int nmetrics;
	struct sim_metric m[SIM_MAX_METRICS];
	int failed;
	char why[256];
};

struct sim_file {
	struct sim_report *r;
	FILE *f;
};

void rep_init(struct sim_report *r, const char *dir, int verbose);
int rep_open(struct sim_report *r, struct sim_file *sf, const char *exp,
	     const char *name);
void rep_close(struct sim_file *sf);
void rep_printf(struct sim_file *sf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rep_metric(struct sim_report *r, const char *exp, const char *key,
		double v);
int rep_get(const struct sim_report *r, const char *key, double *v);
void rep_fail(struct sim_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* _SIM_REPORT_H */
