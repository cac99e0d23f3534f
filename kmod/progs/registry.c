// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic: protocols by name, like TCP congestion control (tcp_cong.c).
 *
 * The built-ins are always there: "newreno" (kmod/engine/newreno.c) and
 * "rack" (bpf/rack.bpf.c compiled in, kmod/progs/builtin_rack.c); BPF programs
 * (kmod/progs/bpf_ops.c) come and go.  Per network namespace:
 *
 *   net.tonic.default_protocol    used by sockets that chose none
 *   net.tonic.allowed_protocols   names unprivileged sockets may choose
 *   net.tonic.available_protocols read only: built in and attached now
 *
 * An attached program may take a built-in's name: it shadows the
 * built-in until it is detached (so "newreno" can be replaced at run time).
 *
 * Privilege rule (tcp_cong.c:410): a socket may select a protocol that
 * is built in, allowed, or the namespace default; anything else needs
 * CAP_NET_ADMIN in the namespace's user namespace.  The allowed list may
 * name programs that are not loaded yet.  Only the host's administrator
 * (CAP_NET_ADMIN in the initial user namespace) may make a program usable
 * by unprivileged sockets: anyone else (container root) may put in a
 * namespace's default and allowed list only what the initial namespace
 * allows, as TCP's allowed list is the host's and a non-initial
 * namespace's default must be one of it (tcp_cong.c:291).
 * Documentation/privilege.md has every control.
 *
 * Lookups run in softirq (passive opens) and take no mutex: attached
 * programs are found through RCU-protected slot attachments.
 */
#include <linux/ctype.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "protocol.h"
#include "bpf_ops.h"

#define TONIC_BUILTIN		"rack"	/* the namespace default */
#define TONIC_ALLOWED_MAX	256

static const u32 tonic_newreno_signals = TONIC_NEWRENO_SIGNALS;

/* The protocols built into the module; the first is the fallback. */
static const struct tonic_builtin {
	const struct tonic_proto_ops *ops;
	const u32 *signals;	/* TONIC_SIG_* it needs from the receiver */
} tonic_builtins[] = {
	{ &tonic_newreno_ops, &tonic_newreno_signals },
	{ &tonic_prog_rack, &tonic_prog_rack_signals },
};

static const struct tonic_builtin *tonic_builtin_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tonic_builtins); i++)
		if (!strncmp(tonic_builtins[i].ops->name, name,
			     TONIC_PROTO_NAME_MAX))
			return &tonic_builtins[i];
	return NULL;
}

/**
 * tonic_proto_builtin_name() - name of the @i-th built-in protocol
 * @i: index from 0
 *
 * Return: the name, or NULL past the last.
 */
const char *tonic_proto_builtin_name(unsigned int i)
{
	return i < ARRAY_SIZE(tonic_builtins) ? tonic_builtins[i].ops->name :
						NULL;
}

struct tonic_proto_net {
	struct net *net;
	spinlock_t lock;	/* the two strings */
	char default_name[TONIC_PROTO_NAME_MAX];
	char allowed[TONIC_ALLOWED_MAX];
	struct ctl_table_header *hdr;
};

static unsigned int tonic_proto_net_id __read_mostly;

static struct tonic_proto_net *tonic_proto_net(const struct net *net)
{
	return net_generic(net, tonic_proto_net_id);
}

/* The attached program called @name, under rcu_read_lock(). */
static struct tonic_bpf_slot *tonic_slot_find_rcu(const char *name,
						  struct tonic_ops **opsp)
{
	struct tonic_bpf_att *att;
	unsigned int i;

	for (i = 0; i < TONIC_BPF_SLOTS; i++) {
		att = rcu_dereference(tonic_bpf_slots[i].att);
		if (att && !strncmp(att->ops->name, name, TONIC_PROTO_NAME_MAX)) {
			if (opsp)
				*opsp = att->ops;
			return &tonic_bpf_slots[i];
		}
	}
	return NULL;
}

/**
 * tonic_proto_attached() - is a program called @name attached?
 * @name: protocol name
 *
 * Return: true if one is.
 */
bool tonic_proto_attached(const char *name)
{
	bool found;

	rcu_read_lock();
	found = tonic_slot_find_rcu(name, NULL);
	rcu_read_unlock();
	return found;
}

/**
 * tonic_proto_exists() - is a protocol called @name available?
 * @name: protocol name
 *
 * Return: true for the built-ins and for attached programs.
 */
bool tonic_proto_exists(const char *name)
{
	return tonic_builtin_find(name) || tonic_proto_attached(name);
}

/* Is @name a word of the space-separated @list? */
static bool tonic_in_list(const char *list, const char *name)
{
	size_t n = strnlen(name, TONIC_PROTO_NAME_MAX);
	const char *p = list;

	while (*p) {
		size_t w;

		p = skip_spaces(p);
		w = strcspn(p, " \t\n");
		if (w && w == n && !strncmp(p, name, n))
			return true;
		p += w;
	}
	return false;
}

/* Built in, allowed or the default in @net (its lock not held). */
static bool tonic_proto_unrestricted(struct net *net, const char *name)
{
	struct tonic_proto_net *pn = tonic_proto_net(net);
	bool ok;

	if (tonic_builtin_find(name))
		return true;
	spin_lock_bh(&pn->lock);
	ok = tonic_in_list(pn->allowed, name) ||
	     !strncmp(pn->default_name, name, TONIC_PROTO_NAME_MAX);
	spin_unlock_bh(&pn->lock);
	return ok;
}

/* May a writer that is not the host's administrator name every word of
 * @list in a namespace's default or allowed list?
 */
static bool tonic_proto_host_allows(const char *list)
{
	char word[TONIC_PROTO_NAME_MAX];
	const char *p = list;

	while (*p) {
		size_t w;

		p = skip_spaces(p);
		w = strcspn(p, " \t\n");
		if (!w)
			break;
		if (w >= sizeof(word))
			return false;
		memcpy(word, p, w);
		word[w] = '\0';
		if (!tonic_proto_unrestricted(&init_net, word))
			return false;
		p += w;
	}
	return true;
}

/**
 * tonic_proto_select() - may @sk use protocol @name? (TONIC_PROTOCOL)
 * @sk: the socket
 * @name: NUL-terminated protocol name
 *
 * Context: process context (setsockopt).
 * Return: 0; -ENOENT if no such protocol is available; -EPERM if the
 * caller lacks CAP_NET_ADMIN in the socket's netns and the protocol is
 * neither built in, nor allowed, nor the namespace default.
 */
int tonic_proto_select(const struct sock *sk, const char *name)
{
	struct net *net = sock_net(sk);

	if (!tonic_proto_exists(name))
		return -ENOENT;
	if (tonic_proto_unrestricted(net, name) ||
	    sockopt_ns_capable(net->user_ns, CAP_NET_ADMIN))
		return 0;
	return -EPERM;
}

/**
 * tonic_proto_lookup() - engine ops of a connection's protocol
 * @net: the connection's namespace
 * @name: the name its socket chose, or "" for the namespace default
 * @signals: set to the TONIC_SIG_* the protocol needs from the receiver:
 *	a program's own, a built-in's from tonic_builtins[]
 * @used: set to the name actually used (TONIC_PROTO_NAME_MAX bytes)
 *
 * An attached program shadows a built-in of its name.  A protocol that
 * is gone (detached since it was chosen) yields the built-in NewReno.
 * The returned ops are static and stay valid for the module's lifetime;
 * their hooks notice a later detach or replacement.
 *
 * Context: any, including softirq.
 * Return: the ops, never NULL.
 */
const struct tonic_proto_ops *tonic_proto_lookup(struct net *net,
						 const char *name,
						 u32 *signals, char *used)
{
	const struct tonic_builtin *b = &tonic_builtins[0];
	struct tonic_proto_net *pn = tonic_proto_net(net);
	const struct tonic_proto_ops *ops;
	char want[TONIC_PROTO_NAME_MAX];
	struct tonic_bpf_slot *s;
	struct tonic_ops *bops;

	if (name && name[0]) {
		strscpy(want, name, sizeof(want));
	} else {
		spin_lock_bh(&pn->lock);
		memcpy(want, pn->default_name, sizeof(want));
		spin_unlock_bh(&pn->lock);
	}
	if (tonic_builtin_find(want))
		b = tonic_builtin_find(want);
	ops = b->ops;
	*signals = *b->signals | TONIC_SIG_ACK;
	strscpy(used, ops->name, TONIC_PROTO_NAME_MAX);
	rcu_read_lock();
	s = tonic_slot_find_rcu(want, &bops);
	if (s) {
		ops = &s->proto;
		*signals = bops->signals | TONIC_SIG_ACK;
		strscpy(used, bops->name, TONIC_PROTO_NAME_MAX);
	}
	rcu_read_unlock();
	return ops;
}

/**
 * tonic_proto_default() - the namespace default protocol's name
 * @net: namespace
 * @buf: TONIC_PROTO_NAME_MAX bytes
 */
void tonic_proto_default(struct net *net, char *buf)
{
	struct tonic_proto_net *pn = tonic_proto_net(net);

	spin_lock_bh(&pn->lock);
	memcpy(buf, pn->default_name, TONIC_PROTO_NAME_MAX);
	spin_unlock_bh(&pn->lock);
}

/**
 * tonic_proto_set_default() - change the namespace default protocol
 * @net: namespace
 * @name: NUL-terminated name (netlink prog-default-set)
 * @host_admin: the writer has CAP_NET_ADMIN in the initial user namespace
 *
 * Return: 0, -ENOENT if no protocol is called @name, -EPERM if the writer
 * is not the host's administrator and the initial namespace does not
 * allow @name (tcp_set_default_congestion_control()).
 */
int tonic_proto_set_default(struct net *net, const char *name,
			    bool host_admin)
{
	struct tonic_proto_net *pn = tonic_proto_net(net);

	if (!tonic_proto_exists(name))
		return -ENOENT;
	if (!host_admin && !tonic_proto_host_allows(name))
		return -EPERM;
	spin_lock_bh(&pn->lock);
	strscpy(pn->default_name, name, TONIC_PROTO_NAME_MAX);
	spin_unlock_bh(&pn->lock);
	return 0;
}

/* ---- sysctl ---- */

static int tonic_sysctl_default(const struct ctl_table *table, int write,
				void *buffer, size_t *lenp, loff_t *ppos)
{
	struct tonic_proto_net *pn = table->data;
	char val[TONIC_PROTO_NAME_MAX];
	struct ctl_table tbl = {
		.data = val,
		.maxlen = sizeof(val),
	};
	int err;

	spin_lock_bh(&pn->lock);
	memcpy(val, pn->default_name, sizeof(val));
	spin_unlock_bh(&pn->lock);
	err = proc_dostring(&tbl, write, buffer, lenp, ppos);
	if (err || !write)
		return err;
	return tonic_proto_set_default(pn->net, val, capable(CAP_NET_ADMIN));
}

static int tonic_sysctl_allowed(const struct ctl_table *table, int write,
				void *buffer, size_t *lenp, loff_t *ppos)
{
	struct tonic_proto_net *pn = table->data;
	struct ctl_table tbl = { .maxlen = TONIC_ALLOWED_MAX };
	const char *p;
	char *val;
	int err;

	val = kzalloc(TONIC_ALLOWED_MAX, GFP_KERNEL);
	if (!val)
		return -ENOMEM;
	tbl.data = val;
	spin_lock_bh(&pn->lock);
	memcpy(val, pn->allowed, TONIC_ALLOWED_MAX);
	spin_unlock_bh(&pn->lock);
	err = proc_dostring(&tbl, write, buffer, lenp, ppos);
	if (err || !write)
		goto out;
	for (p = val; *p; p++) {
		if (!islower(*p) && !isdigit(*p) && *p != '_' && *p != '-' &&
		    *p != ' ' && *p != '\n') {
			err = -EINVAL;
			goto out;
		}
	}
	if (!capable(CAP_NET_ADMIN) && !tonic_proto_host_allows(val)) {
		err = -EPERM;
		goto out;
	}
	spin_lock_bh(&pn->lock);
	memcpy(pn->allowed, val, TONIC_ALLOWED_MAX);
	spin_unlock_bh(&pn->lock);
out:
	kfree(val);
	return err;
}

static int tonic_sysctl_available(const struct ctl_table *table, int write,
				  void *buffer, size_t *lenp, loff_t *ppos)
{
	struct ctl_table tbl = {
		.maxlen = (TONIC_BPF_SLOTS + ARRAY_SIZE(tonic_builtins)) *
			  TONIC_PROTO_NAME_MAX + 16,
	};
	struct tonic_bpf_att *att;
	unsigned int i;
	size_t len;
	char *val;
	int err;

	if (write)
		return -EPERM;
	val = kzalloc(tbl.maxlen, GFP_KERNEL);
	if (!val)
		return -ENOMEM;
	tbl.data = val;
	len = 0;
	for (i = 0; i < ARRAY_SIZE(tonic_builtins); i++)
		len += scnprintf(val + len, tbl.maxlen - len, "%s%s",
				 i ? " " : "", tonic_builtins[i].ops->name);
	rcu_read_lock();
	for (i = 0; i < TONIC_BPF_SLOTS; i++) {
		att = rcu_dereference(tonic_bpf_slots[i].att);
		if (att && !tonic_builtin_find(att->ops->name))
			len += scnprintf(val + len, tbl.maxlen - len, " %s",
					 att->ops->name);
	}
	rcu_read_unlock();
	err = proc_dostring(&tbl, write, buffer, lenp, ppos);
	kfree(val);
	return err;
}

static const struct ctl_table tonic_proto_sysctl[] = {
	{
		.procname = "default_protocol",
		.maxlen = TONIC_PROTO_NAME_MAX,
		.mode = 0644,
		.proc_handler = tonic_sysctl_default,
	},
	{
		.procname = "allowed_protocols",
		.maxlen = TONIC_ALLOWED_MAX,
		.mode = 0644,
		.proc_handler = tonic_sysctl_allowed,
	},
	{
		.procname = "available_protocols",
		.maxlen = (TONIC_BPF_SLOTS + ARRAY_SIZE(tonic_builtins)) *
			  TONIC_PROTO_NAME_MAX,
		.mode = 0444,
		.proc_handler = tonic_sysctl_available,
	},
};

static int __net_init tonic_proto_net_init(struct net *net)
{
	struct tonic_proto_net *pn = tonic_proto_net(net);
	struct ctl_table *tbl;
	unsigned int i;

	pn->net = net;
	spin_lock_init(&pn->lock);
	strscpy(pn->default_name, TONIC_BUILTIN, sizeof(pn->default_name));
	strscpy(pn->allowed, TONIC_BUILTIN, sizeof(pn->allowed));
	tbl = kmemdup(tonic_proto_sysctl, sizeof(tonic_proto_sysctl),
		      GFP_KERNEL);
	if (!tbl)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(tonic_proto_sysctl); i++)
		tbl[i].data = pn;
	pn->hdr = register_net_sysctl_sz(net, "net/tonic", tbl,
					 ARRAY_SIZE(tonic_proto_sysctl));
	if (!pn->hdr) {
		kfree(tbl);
		return -ENOMEM;
	}
	return 0;
}

static void __net_exit tonic_proto_net_exit(struct net *net)
{
	struct tonic_proto_net *pn = tonic_proto_net(net);
	const struct ctl_table *tbl = pn->hdr->ctl_table_arg;

	unregister_net_sysctl_table(pn->hdr);
	kfree(tbl);
}

static struct pernet_operations tonic_proto_net_ops = {
	.init = tonic_proto_net_init,
	.exit = tonic_proto_net_exit,
	.id = &tonic_proto_net_id,
	.size = sizeof(struct tonic_proto_net),
};

/**
 * tonic_registry_init() - per-netns protocol selection and the BPF type
 *
 * Registers the struct_ops type last: it cannot be unregistered.
 *
 * Return: 0 or a negative errno.
 */
int tonic_registry_init(void)
{
	int err;

	err = register_pernet_subsys(&tonic_proto_net_ops);
	if (err)
		return err;
	err = tonic_bpf_init_module();
	if (err) {
		unregister_pernet_subsys(&tonic_proto_net_ops);
		return err;
	}
	tonic_bpf_sim_init();
	return 0;
}

/** tonic_registry_exit() - undo tonic_registry_init() */
void tonic_registry_exit(void)
{
	tonic_bpf_sim_exit();
	unregister_pernet_subsys(&tonic_proto_net_ops);
}
