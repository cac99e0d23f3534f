// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic: run a protocol program on a simulated link from debugfs.
 *
 * With the module parameter bpf_sim=1, /sys/kernel/debug/tonic_bpf_sim
 * (root only) drives one flow of the engine inside tonic.ko through the
 * deterministic network of kmod/progs/bpf_sim.h, with the protocol looked up by
 * name exactly as a socket's would be.  The VM selftests use it to check
 * that attached BPF programs behave as their native builds do and that
 * live flows survive a replacement or a detach of their program, without
 * depending on the socket layer.  Write one command:
 *
 *   start NAME TOTAL [roce] [SEG ...]	new flow of TOTAL segments; the
 *					first transmission of each SEG is lost
 *   run N				process up to N events
 *   stop				end the flow
 *
 * and read the state: the line of tsim_report(), then
 * "fallbacks=N" (flows of this protocol moved to the built-in NewReno).
 */
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

#include "protocol.h"
#include "bpf_ops.h"
#include "bpf_sim.h"

static bool bpf_sim;
module_param(bpf_sim, bool, 0444);
MODULE_PARM_DESC(bpf_sim, "Create debugfs tonic_bpf_sim for the selftests");

static DEFINE_MUTEX(tonic_sim_mutex);	/* everything below */
static struct tsim *tonic_sim;
static const struct tonic_proto_ops *tonic_sim_ops;
static char tonic_sim_name[TONIC_PROTO_NAME_MAX];
static int tonic_sim_state;
static struct dentry *tonic_sim_file;

static void tonic_sim_end(void)
{
	if (tonic_sim) {
		tsim_stop(tonic_sim);
		kvfree(tonic_sim);
		tonic_sim = NULL;
	}
}

static int tonic_sim_start(char *args)
{
	char *name = strsep(&args, " "), *tok;
	u32 signals, total, seg;
	int err;

	tok = strsep(&args, " ");
	if (!name || !tok || kstrtou32(tok, 0, &total))
		return -EINVAL;
	tonic_sim_end();
	tonic_sim = kvzalloc(sizeof(*tonic_sim), GFP_KERNEL);
	if (!tonic_sim)
		return -ENOMEM;
	while ((tok = strsep(&args, " "))) {
		if (!*tok)
			continue;
		if (!strcmp(tok, "roce")) {
			tonic_sim->roce = 1;
			continue;
		}
		if (kstrtou32(tok, 0, &seg) || seg >= TSIM_SEGS) {
			tonic_sim_end();
			return -EINVAL;
		}
		tonic_sim->drop[seg] = 1;
	}
	tonic_sim_ops = tonic_proto_lookup(&init_net, name, &signals,
					   tonic_sim_name);
	err = tsim_start(tonic_sim, tonic_sim_ops, signals, total,
			 tonic_sim->roce);
	if (err)
		tonic_sim_end();
	tonic_sim_state = 0;
	return err;
}

static ssize_t tonic_sim_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	char buf[256], *cmd, *args;
	u32 n;
	int err = 0;

	if (len >= sizeof(buf))
		return -E2BIG;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	args = strim(buf);
	cmd = strsep(&args, " ");
	mutex_lock(&tonic_sim_mutex);
	if (!strcmp(cmd, "start")) {
		err = args ? tonic_sim_start(args) : -EINVAL;
	} else if (!strcmp(cmd, "run")) {
		if (!tonic_sim || !args || kstrtou32(args, 0, &n))
			err = -EINVAL;
		else if (!tonic_sim_state)
			tonic_sim_state = tsim_run(tonic_sim, n);
	} else if (!strcmp(cmd, "stop")) {
		tonic_sim_end();
	} else {
		err = -EINVAL;
	}
	mutex_unlock(&tonic_sim_mutex);
	return err ? err : len;
}

static ssize_t tonic_sim_read(struct file *file, char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	char *buf;
	int n = 0;
	ssize_t ret;

	buf = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	mutex_lock(&tonic_sim_mutex);
	if (tonic_sim) {
		n = tsim_report(tonic_sim, tonic_sim_name, tonic_sim_state,
				buf, PAGE_SIZE);
		n += scnprintf(buf + n, PAGE_SIZE - n, "fallbacks=%llu\n",
			       tonic_bpf_fallbacks(tonic_sim_ops));
	}
	mutex_unlock(&tonic_sim_mutex);
	ret = simple_read_from_buffer(ubuf, len, ppos, buf, n);
	kfree(buf);
	return ret;
}

static const struct file_operations tonic_sim_fops = {
	.owner = THIS_MODULE,
	.read = tonic_sim_read,
	.write = tonic_sim_write,
	.llseek = default_llseek,
};

/** tonic_bpf_sim_init() - create the debugfs file if bpf_sim=1 */
void tonic_bpf_sim_init(void)
{
	if (!bpf_sim)
		return;
	tonic_sim_file = debugfs_create_file("tonic_bpf_sim", 0600, NULL, NULL,
					     &tonic_sim_fops);
}

/** tonic_bpf_sim_exit() - remove it and end a running flow */
void tonic_bpf_sim_exit(void)
{
	debugfs_remove(tonic_sim_file);
	mutex_lock(&tonic_sim_mutex);
	tonic_sim_end();
	mutex_unlock(&tonic_sim_mutex);
}
