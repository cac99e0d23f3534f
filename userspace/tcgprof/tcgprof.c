// SPDX-License-Identifier: GPL-2.0
/*
 * tcgprof: a guest-instruction profiler for qemu TCG (a qemu plugin).
 *
 *   qemu-system-x86_64 ... -plugin build/tcgprof.so,ctl=FILE[,out=DIR][,poll_ms=N]
 *
 * Under TCG the guest's own sampling (perf cpu-clock) only sees where the
 * emulated CPU halts, not where it works. This plugin counts, on the host,
 * the guest instructions executed per translation block (TB) start address
 * instead: inline per-vCPU adds of the TB's instruction count and of 1, so
 * nothing leaves generated code. A TB never contains a taken branch, so all of its
 * instructions belong to the function its start address is in; guest user
 * space (below 0xffff800000000000) is counted as one bucket, address 0.
 *
 * Counting always runs; a window is the difference between two snapshots.
 * A host thread polls FILE (which the guest writes through the shared 9p
 * tree) every poll_ms (default 20) and acts when its content changes:
 *   "start LABEL"  take a snapshot (ends a window still open, as "stop")
 *   "stop LABEL"   write DIR/tcgprof.LABEL.raw (DIR defaults to FILE's)
 * A window still open when qemu exits is written then. The raw file has
 * "#" header lines, then "0xADDRESS INSNS EXECS I0 I1 ..." for every TB
 * start address that executed in the window (EXECS of a function's first
 * block is its call count; I0, I1, ... its instructions on vCPU 0, 1, ...,
 * for the first TCGPROF_VCPUS); scripts/tcgprof-report.py maps them to
 * symbols.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define KERNEL_START	0xffff800000000000ULL
#define USER_KEY	0
#define TCGPROF_VCPUS	8	/* vCPUs given a column of their own */

struct counts {
	uint64_t insns, execs;
};

struct block {
	uint64_t addr;			/* TB start, or USER_KEY */
	struct qemu_plugin_scoreboard *score;	/* struct counts per vCPU */
	struct counts base;		/* sums at the window's start */
	uint64_t base_v[TCGPROF_VCPUS];	/* instructions per vCPU then */
};

/* The translation callback adds blocks while the poll thread walks them. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static GHashTable *blocks;

static char *ctl_path;
static char *out_dir;
static unsigned int poll_ms = 20;

static pthread_t poller;
static int quit;			/* set at exit; read by the poll thread */
static char label[128];			/* open window, "" if none */
static struct timespec t_start;

static struct block *block_get(uint64_t addr)
{
	struct block *b;

	pthread_mutex_lock(&lock);
	b = g_hash_table_lookup(blocks, &addr);
	if (!b) {
		b = g_new0(struct block, 1);
		b->addr = addr;
		b->score = qemu_plugin_scoreboard_new(sizeof(struct counts));
		g_hash_table_insert(blocks, &b->addr, b);
	}
	pthread_mutex_unlock(&lock);
	return b;
}

static void vcpu_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t pc = qemu_plugin_tb_vaddr(tb);
	struct block *b = block_get(pc >= KERNEL_START ? pc : USER_KEY);

	/* Retranslations of one address share the entry. */
	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb, QEMU_PLUGIN_INLINE_ADD_U64,
		qemu_plugin_scoreboard_u64_in_struct(b->score, struct counts, insns),
		qemu_plugin_tb_n_insns(tb));
	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb, QEMU_PLUGIN_INLINE_ADD_U64,
		qemu_plugin_scoreboard_u64_in_struct(b->score, struct counts, execs), 1);
}

static struct counts block_sum(struct block *b)
{
	return (struct counts) {
		qemu_plugin_u64_sum(qemu_plugin_scoreboard_u64_in_struct(b->score,
			struct counts, insns)),
		qemu_plugin_u64_sum(qemu_plugin_scoreboard_u64_in_struct(b->score,
			struct counts, execs)),
	};
}

static unsigned int vcpus_shown(void)
{
	int n = qemu_plugin_num_vcpus();

	return n < TCGPROF_VCPUS ? (n > 0 ? n : 0) : TCGPROF_VCPUS;
}

static uint64_t block_vcpu(struct block *b, unsigned int i)
{
	return qemu_plugin_u64_get(qemu_plugin_scoreboard_u64_in_struct(b->score,
		struct counts, insns), i);
}

/* Called with lock held. */
static void window_start(const char *name)
{
	GHashTableIter it;
	gpointer k, v;

	g_hash_table_iter_init(&it, blocks);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		struct block *b = v;
		unsigned int i;

		b->base = block_sum(b);
		for (i = 0; i < vcpus_shown(); i++)
			b->base_v[i] = block_vcpu(b, i);
	}
	g_strlcpy(label, name, sizeof(label));
	clock_gettime(CLOCK_MONOTONIC, &t_start);
}

struct row {
	uint64_t addr;
	struct counts c;
	uint64_t v[TCGPROF_VCPUS];
};

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Called with lock held: write the open window's counts, close it. */
static void window_stop(const char *why)
{
	struct timespec now;
	GHashTableIter it;
	gpointer k, v;
	struct row *rows;
	size_t n = 0, i;
	unsigned int j;
	uint64_t total = 0, user = 0;
	char *path, *tmp;
	FILE *f;

	if (!label[0])
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	rows = g_new(struct row, g_hash_table_size(blocks));
	g_hash_table_iter_init(&it, blocks);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		struct block *b = v;
		struct counts c = block_sum(b);

		c.insns -= b->base.insns;
		c.execs -= b->base.execs;
		if (!c.execs)
			continue;
		rows[n].addr = b->addr;
		for (j = 0; j < vcpus_shown(); j++)
			rows[n].v[j] = block_vcpu(b, j) - b->base_v[j];
		rows[n++].c = c;
		total += c.insns;
		if (b->addr == USER_KEY)
			user += c.insns;
	}
	qsort(rows, n, sizeof(*rows), row_cmp);

	path = g_strdup_printf("%s/tcgprof.%s.raw", out_dir, label);
	tmp = g_strdup_printf("%s.tmp", path);
	f = fopen(tmp, "w");
	if (f) {
		fprintf(f, "# tcgprof window %s (%s)\n", label, why);
		fprintf(f, "# seconds %.3f\n", (now.tv_sec - t_start.tv_sec) +
			(now.tv_nsec - t_start.tv_nsec) / 1e9);
		fprintf(f, "# vcpus %d\n", qemu_plugin_num_vcpus());
		fprintf(f, "# insns %" PRIu64 " user %" PRIu64 "\n", total, user);
		for (i = 0; i < n; i++) {
			fprintf(f, "0x%016" PRIx64 " %" PRIu64 " %" PRIu64, rows[i].addr,
				rows[i].c.insns, rows[i].c.execs);
			for (j = 0; j < vcpus_shown(); j++)
				fprintf(f, " %" PRIu64, rows[i].v[j]);
			fputc('\n', f);
		}
		if (fclose(f) == 0)
			rename(tmp, path);
	}
	if (!f)
		fprintf(stderr, "tcgprof: cannot write %s: %s\n", tmp, strerror(errno));
	g_free(tmp);
	g_free(path);
	g_free(rows);
	label[0] = 0;
}

static void handle(const char *cmd)
{
	char word[16], name[sizeof(label)];

	if (sscanf(cmd, "%15s %127s", word, name) != 2 || strchr(name, '/'))
		return;
	pthread_mutex_lock(&lock);
	if (!strcmp(word, "start")) {
		window_stop("restarted");
		window_start(name);
	} else if (!strcmp(word, "stop") && !strcmp(name, label)) {
		window_stop("stopped");
	}
	pthread_mutex_unlock(&lock);
}

/* Acts on each change of the control file's content. */
static void *poll_thread(void *arg)
{
	char last[256] = "", buf[256];
	struct timespec ts = { poll_ms / 1000, (poll_ms % 1000) * 1000000L };

	while (!__atomic_load_n(&quit, __ATOMIC_RELAXED)) {
		FILE *f = fopen(ctl_path, "r");

		if (f) {
			size_t n = fread(buf, 1, sizeof(buf) - 1, f);

			fclose(f);
			buf[n] = 0;
			/* A write may be seen half done: act on whole lines. */
			if (n && buf[n - 1] == '\n' && strcmp(buf, last)) {
				g_strlcpy(last, buf, sizeof(last));
				handle(buf);
			}
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void plugin_exit(qemu_plugin_id_t id, void *p)
{
	__atomic_store_n(&quit, 1, __ATOMIC_RELAXED);
	pthread_join(poller, NULL);
	pthread_mutex_lock(&lock);
	window_stop("qemu exited");
	pthread_mutex_unlock(&lock);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	if (!info->system_emulation) {
		fprintf(stderr, "tcgprof: system emulation only\n");
		return -1;
	}
	for (i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq)
			goto bad;
		*eq++ = 0;
		if (!strcmp(argv[i], "ctl"))
			ctl_path = g_strdup(eq);
		else if (!strcmp(argv[i], "out"))
			out_dir = g_strdup(eq);
		else if (!strcmp(argv[i], "poll_ms") && atoi(eq) > 0)
			poll_ms = atoi(eq);
		else
			goto bad;
	}
	if (!ctl_path)
		goto bad;
	if (!out_dir)
		out_dir = g_path_get_dirname(ctl_path);

	blocks = g_hash_table_new(g_int64_hash, g_int64_equal);
	if (pthread_create(&poller, NULL, poll_thread, NULL)) {
		fprintf(stderr, "tcgprof: cannot start the poll thread\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, vcpu_tb_trans);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
	return 0;
bad:
	fprintf(stderr, "tcgprof: usage: -plugin tcgprof.so,ctl=FILE[,out=DIR][,poll_ms=N]\n");
	return -1;
}
