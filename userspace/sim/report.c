// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic simulator: experiment output (report.h).
 */
#include <stdarg.h>
#include <string.h>
#include <stdlib.h>
#include "report.h"

#define FNV_OFFSET	0xcbf29ce484222325ULL
#define FNV_PRIME	0x100000001b3ULL

static void hash_bytes(struct sim_report *r, const char *p, size_t n)
{
	while (n--) {
		r->hash ^= (unsigned char)*p++;
		r->hash *= FNV_PRIME;
	}
}

void rep_init(struct sim_report *r, const char *dir, int verbose)
{
	memset(r, 0, sizeof(*r));
	r->dir = dir;
	r->verbose = verbose;
	r->hash = FNV_OFFSET;
}

int rep_open(struct sim_report *r, struct sim_file *sf, const char *exp,
	     const char *name)
{
	char path[512];

	sf->r = r;
	sf->f = NULL;
	hash_bytes(r, name, strlen(name));
	if (!r->dir)
		return 0;
	snprintf(path, sizeof(path), "%s/%s-%s", r->dir, exp, name);
	sf->f = fopen(path, "w");
	if (!sf->f) {
		perror(path);
		return -1;
	}
	return 0;
}

void rep_close(struct sim_file *sf)
{
	if (sf->f)
		fclose(sf->f);
	sf->f = NULL;
}

void rep_printf(struct sim_file *sf, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	hash_bytes(sf->r, buf, (size_t)n);
	if (sf->f)
		fwrite(buf, 1, (size_t)n, sf->f);
}

void rep_metric(struct sim_report *r, const char *exp, const char *key,
		double v)
{
	char line[160];
	int n;

	n = snprintf(line, sizeof(line), "%s.%s %.6g\n", exp, key, v);
	if (n > 0)
		hash_bytes(r, line, (size_t)n < sizeof(line) ? (size_t)n :
			   sizeof(line) - 1);
	if (r->verbose)
		fputs(line, stdout);
	if (r->nmetrics < SIM_MAX_METRICS) {
		snprintf(r->m[r->nmetrics].key, sizeof(r->m[0].key), "%s.%s",
			 exp, key);
		r->m[r->nmetrics++].v = v;
	}
}

int rep_get(const struct sim_report *r, const char *key, double *v)
{
	unsigned int i;

	for (i = 0; i < r->nmetrics; i++) {
		if (!strcmp(r->m[i].key, key)) {
			*v = r->m[i].v;
			return 0;
		}
	}
	return -1;
}

void rep_fail(struct sim_report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	r->failed = 1;
	fprintf(stderr, "sim: check failed: %s\n", r->why);
}
