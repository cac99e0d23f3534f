// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: the port table (bind(), listen(), connect()'s port).
 *
 * One bucket per (namespace, L3 master device, port) lists the sockets
 * bound to it through sk_bind_node.  The rules are TCP's, from
 * net/ipv4/inet_connection_sock.c and inet_hashtables.c, without their
 * bhash2 index and fast paths (which only make the same answer quicker):
 * a bind conflicts with an owner whose device scope and address overlap
 * unless both allow it (SO_REUSEADDR, neither listening; SO_REUSEPORT,
 * same owner), addresses compared by inet_rcv_saddr_equal() (wildcards,
 * v4-mapped, IPV6_V6ONLY).  Ports bind(0) and connect() choose come from
 * ip_local_port_range minus ip_local_reserved_ports, odd ones first for
 * bind(0) and even ones for connect(), as TCP's; a port connect() chose
 * is shared by connections whose 4-tuples differ.
 *
 * A bound socket's icsk_bind_hash points into its bucket, because
 * inet_csk_destroy_sock() checks that a bound socket has one; no kernel
 * code follows it for Tonic sockets, and icsk_bind2_hash stays NULL.
 */
#include <linux/random.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/inet_connection_sock.h>
#include <net/inet_hashtables.h>
#include <net/ip.h>
#include <net/sock_reuseport.h>

#include "protocol.h"

/* Buckets of the table (a power of 2); chains are short at test scale. */
#define TONIC_BHASH_SIZE	4096

/**
 * struct tonic_bind_bucket - the sockets bound to one port
 * @ib: what icsk_bind_hash points to; its ib_net, l3mdev, port and node
 *	(in the table's chain) are the bucket's
 * @owners: the bound sockets, by sk_bind_node
 * @connect_only: made by connect() and bound by no bind() since: more
 *	connections may share it when their 4-tuples differ
 */
struct tonic_bind_bucket {
	struct inet_bind_bucket ib;
	struct hlist_head owners;
	bool connect_only;
};

static struct inet_bind_hashbucket *tonic_bhash;
static struct kmem_cache *tonic_bind_cachep;

static struct inet_bind_hashbucket *tonic_bhead(const struct net *net,
						unsigned short port)
{
	return &tonic_bhash[inet_bhashfn(net, port, TONIC_BHASH_SIZE)];
}

static struct tonic_bind_bucket *tonic_bucket(const struct sock *sk)
{
	struct inet_bind_bucket *ib = inet_csk(sk)->icsk_bind_hash;

	return ib ? container_of(ib, struct tonic_bind_bucket, ib) : NULL;
}

static struct tonic_bind_bucket *
tonic_bind_find(struct inet_bind_hashbucket *head, const struct net *net,
		unsigned short port, int l3mdev)
{
	struct tonic_bind_bucket *tb;

	hlist_for_each_entry(tb, &head->chain, ib.node)
		if (net_eq(ib_net(&tb->ib), net) && tb->ib.port == port &&
		    tb->ib.l3mdev == l3mdev)
			return tb;
	return NULL;
}

static struct tonic_bind_bucket *
tonic_bind_create(struct inet_bind_hashbucket *head, struct net *net,
		  unsigned short port, int l3mdev)
{
	struct tonic_bind_bucket *tb;

	tb = kmem_cache_zalloc(tonic_bind_cachep, GFP_ATOMIC);
	if (!tb)
		return NULL;
	write_pnet(&tb->ib.ib_net, net);
	tb->ib.l3mdev = l3mdev;
	tb->ib.port = port;
	INIT_HLIST_HEAD(&tb->owners);
	hlist_add_head(&tb->ib.node, &head->chain);
	return tb;
}

/* Free @tb once its last owner left; the chain's lock is held. */
static void tonic_bind_release(struct tonic_bind_bucket *tb)
{
	if (!hlist_empty(&tb->owners))
		return;
	__hlist_del(&tb->ib.node);
	kmem_cache_free(tonic_bind_cachep, tb);
}

static void tonic_bind_add(struct sock *sk, struct tonic_bind_bucket *tb)
{
	inet_sk(sk)->inet_num = tb->ib.port;
	sk_add_bind_node(sk, &tb->owners);
	inet_csk(sk)->icsk_bind_hash = &tb->ib;
}

/*
 * As inet_bind_conflict(): may @sk and @sk2 not share a port, addresses
 * aside?  @relax: two SO_REUSEADDR sockets may (bind() to a port, not
 * bind(0)); @reuseport_ok: two SO_REUSEPORT sockets of one owner may.
 */
static bool tonic_reuse_conflict(const struct sock *sk, struct sock *sk2,
				 kuid_t uid, bool relax, bool reuseport_cb_ok,
				 bool reuseport_ok)
{
	int dev2 = READ_ONCE(sk2->sk_bound_dev_if);

	if (sk == sk2)
		return false;
	if (sk->sk_bound_dev_if && dev2 && sk->sk_bound_dev_if != dev2)
		return false;
	if (sk->sk_reuse && sk2->sk_reuse && sk2->sk_state != TCP_LISTEN)
		return !relax || (!reuseport_ok && sk->sk_reuseport &&
				  sk2->sk_reuseport && reuseport_cb_ok &&
				  uid_eq(uid, sock_i_uid(sk2)));
	return !reuseport_ok || !sk->sk_reuseport || !sk2->sk_reuseport ||
	       !reuseport_cb_ok || !uid_eq(uid, sock_i_uid(sk2));
}

/* As inet_csk_bind_conflict(), over every owner of @tb. */
static bool tonic_bind_conflict(struct sock *sk,
				const struct tonic_bind_bucket *tb,
				bool relax, bool reuseport_ok)
{
	kuid_t uid = sock_i_uid(sk);
	struct sock_reuseport *cb;
	bool cb_ok;
	struct sock *sk2;

	rcu_read_lock();
	cb = rcu_dereference(sk->sk_reuseport_cb);
	/* a group whose listeners closed may take new members */
	cb_ok = !cb || READ_ONCE(cb->num_closed_socks);
	rcu_read_unlock();

	sk_for_each_bound(sk2, &tb->owners)
		if (tonic_reuse_conflict(sk, sk2, uid, relax, cb_ok,
					 reuseport_ok) &&
		    inet_rcv_saddr_equal(sk, sk2, true))
			return true;
	return false;
}

/* Bind @sk to @port unless that conflicts; 0 or -EADDRINUSE. */
static int tonic_bind_port(struct sock *sk, unsigned short port, int l3mdev,
			   bool relax, bool reuseport_ok, bool force)
{
	struct inet_bind_hashbucket *head = tonic_bhead(sock_net(sk), port);
	struct tonic_bind_bucket *tb;
	int err = -EADDRINUSE;

	spin_lock_bh(&head->lock);
	tb = tonic_bind_find(head, sock_net(sk), port, l3mdev);
	if (tb && !force && tonic_bind_conflict(sk, tb, relax, reuseport_ok))
		goto out;
	if (!tb)
		tb = tonic_bind_create(head, sock_net(sk), port, l3mdev);
	if (!tb)
		goto out;
	tb->connect_only = false;
	/* listen() checks a bound socket again, in its new state */
	if (!inet_csk(sk)->icsk_bind_hash)
		tonic_bind_add(sk, tb);
	WARN_ON_ONCE(inet_csk(sk)->icsk_bind_hash != &tb->ib);
	err = 0;
out:
	spin_unlock_bh(&head->lock);
	return err;
}

/* bind(0), listen() unbound: as inet_csk_find_open_port(). */
static int tonic_bind_any(struct sock *sk, int l3mdev)
{
	struct net *net = sock_net(sk);
	int attempt_half, low, high, i, port;
	u32 remaining, offset;
	bool relax = false;

ports_exhausted:
	/* SO_REUSEADDR sockets try the lower half first */
	attempt_half = sk->sk_reuse == SK_CAN_REUSE ? 1 : 0;
other_half_scan:
	inet_sk_get_local_port_range(sk, &low, &high);
	high++;
	if (high - low < 4)
		attempt_half = 0;
	if (attempt_half) {
		int half = low + (((high - low) >> 2) << 1);

		if (attempt_half == 1)
			high = half;
		else
			low = half;
	}
	remaining = high - low;
	if (likely(remaining > 1))
		remaining &= ~1U;
	/* odd ports first: connect() starts with even ones */
	offset = get_random_u32_below(remaining) | 1U;
other_parity_scan:
	port = low + offset;
	for (i = 0; i < remaining; i += 2, port += 2) {
		if (unlikely(port >= high))
			port -= remaining;
		if (inet_is_local_reserved_port(net, port))
			continue;
		if (!tonic_bind_port(sk, port, l3mdev, relax, false, false))
			return 0;
		cond_resched();
	}
	offset--;
	if (!(offset & 1))
		goto other_parity_scan;
	if (attempt_half == 1) {
		attempt_half = 2;
		goto other_half_scan;
	}
	if (READ_ONCE(net->ipv4.sysctl_ip_autobind_reuse) && !relax) {
		relax = true;
		goto ports_exhausted;
	}
	return -EADDRINUSE;
}

/**
 * tonic_get_port() - proto.get_port: bind @sk to a port
 * @sk: the socket, locked
 * @snum: the port; 0 picks a free one
 *
 * Return: 0, or -EADDRINUSE.
 */
int tonic_get_port(struct sock *sk, unsigned short snum)
{
	int l3mdev = inet_sk_bound_l3mdev(sk);

	if (!snum)
		return tonic_bind_any(sk, l3mdev);
	return tonic_bind_port(sk, snum, l3mdev, true, true,
			       sk->sk_reuse == SK_FORCE_REUSE);
}

/**
 * tonic_put_port() - proto.put_port: unbind @sk
 * @sk: the socket
 */
void tonic_put_port(struct sock *sk)
{
	struct tonic_bind_bucket *tb = tonic_bucket(sk);
	struct inet_bind_hashbucket *head;

	if (!tb)
		return;
	head = tonic_bhead(sock_net(sk), tb->ib.port);
	spin_lock_bh(&head->lock);
	__sk_del_bind_node(sk);
	inet_csk(sk)->icsk_bind_hash = NULL;
	inet_sk(sk)->inet_num = 0;
	tonic_bind_release(tb);
	spin_unlock_bh(&head->lock);
}

/**
 * tonic_inherit_port() - a listener's child takes its port
 * @sk: the listener
 * @child: the new connection (its inet_num set)
 *
 * Context: softirq.
 * Return: 0, -ENOENT if @sk is no longer bound, or -ENOMEM.
 */
int tonic_inherit_port(const struct sock *sk, struct sock *child)
{
	unsigned short port = inet_sk(child)->inet_num;
	struct net *net = sock_net(sk);
	struct inet_bind_hashbucket *head = tonic_bhead(net, port);
	struct tonic_bind_bucket *tb;
	int err = 0;

	spin_lock(&head->lock);
	tb = tonic_bucket(sk);
	if (!tb) {
		err = -ENOENT;
	} else if (tb->ib.port != port) {
		/* redirected to this listener from another port (tproxy) */
		int l3mdev = inet_sk_bound_l3mdev(sk);

		tb = tonic_bind_find(head, net, port, l3mdev) ? :
		     tonic_bind_create(head, net, port, l3mdev);
		if (!tb)
			err = -ENOMEM;
	}
	if (!err)
		tonic_bind_add(child, tb);
	spin_unlock(&head->lock);
	return err;
}

/* connect() tries @port: free, or shared with other connect()s. */
static int tonic_connect_port(struct sock *sk, unsigned short port,
			      int l3mdev)
{
	struct inet_bind_hashbucket *head = tonic_bhead(sock_net(sk), port);
	struct tonic_bind_bucket *tb;
	bool dup = false;

	spin_lock_bh(&head->lock);
	tb = tonic_bind_find(head, sock_net(sk), port, l3mdev);
	if (tb && !tb->connect_only)
		goto busy;
	if (!tb) {
		tb = tonic_bind_create(head, sock_net(sk), port, l3mdev);
		if (!tb) {
			spin_unlock_bh(&head->lock);
			return -ENOMEM;
		}
		tb->connect_only = true;
	}
	inet_sk(sk)->inet_num = port;
	inet_sk(sk)->inet_sport = htons(port);
	if (tonic_ehash_insert(sk, NULL, &dup)) {
		sock_prot_inuse_add(sock_net(sk), sk->sk_prot, 1);
		tonic_bind_add(sk, tb);
		spin_unlock_bh(&head->lock);
		return 0;
	}
	inet_sk(sk)->inet_num = 0;
	inet_sk(sk)->inet_sport = 0;
	tonic_bind_release(tb);
busy:
	spin_unlock_bh(&head->lock);
	return -EADDRINUSE;
}

/**
 * tonic_hash_connect() - connect(): a source port if @sk has none, then
 *	the established table, unless its 4-tuple is taken
 * @sk: the socket, locked, addresses and destination port set
 *
 * As inet_hash_connect(): an unbound socket scans ip_local_port_range
 * from a random offset, even ports first (odd ones are bind(0)'s).
 *
 * Return: 0, -EADDRNOTAVAIL (no free 4-tuple) or -ENOMEM.
 */
int tonic_hash_connect(struct sock *sk)
{
	int low, high, step, i, port, err, l3mdev;
	struct net *net = sock_net(sk);
	u32 remaining, offset;
	bool local_ports;

	if (inet_sk(sk)->inet_num) {
		bool dup = false;

		local_bh_disable();
		if (tonic_ehash_insert(sk, NULL, &dup))
			sock_prot_inuse_add(net, sk->sk_prot, 1);
		local_bh_enable();
		return dup ? -EADDRNOTAVAIL : 0;
	}

	l3mdev = inet_sk_bound_l3mdev(sk);
	/* IP_LOCAL_PORT_RANGE: every port of the socket's own range */
	local_ports = inet_sk_get_local_port_range(sk, &low, &high);
	step = local_ports ? 1 : 2;
	high++;
	remaining = high - low;
	if (!local_ports && remaining > 1)
		remaining &= ~1U;
	offset = get_random_u32_below(remaining);
	if (!local_ports)
		offset &= ~1U;
other_parity_scan:
	port = low + offset;
	for (i = 0; i < remaining; i += step, port += step) {
		if (unlikely(port >= high))
			port -= remaining;
		if (inet_is_local_reserved_port(net, port))
			continue;
		err = tonic_connect_port(sk, port, l3mdev);
		if (err != -EADDRINUSE)
			return err;
		cond_resched();
	}
	if (!local_ports) {
		offset++;
		if ((offset & 1) && remaining > 1)
			goto other_parity_scan;
	}
	return -EADDRNOTAVAIL;
}

/**
 * tonic_set_saddr() - connect() chose the source address of @sk
 * @sk: the socket, locked, bound to no address
 * @saddr: the address (__be32 or struct in6_addr)
 * @family: its family
 *
 * The port table keys on ports only: nothing moves.
 */
void tonic_set_saddr(struct sock *sk, const void *saddr, int family)
{
#if IS_ENABLED(CONFIG_IPV6)
	if (family == AF_INET6) {
		sk->sk_v6_rcv_saddr = *(const struct in6_addr *)saddr;
		return;
	}
#endif
	inet_sk(sk)->inet_saddr = *(const __be32 *)saddr;
	sk_rcv_saddr_set(sk, inet_sk(sk)->inet_saddr);
}

/**
 * tonic_reset_saddr() - forget the address connect() chose
 * @sk: the socket, locked
 *
 * An address the user bound stays.
 */
void tonic_reset_saddr(struct sock *sk)
{
	if (!(sk->sk_userlocks & SOCK_BINDADDR_LOCK))
		inet_reset_saddr(sk);
}

/**
 * tonic_bind_init() - allocate the port table
 *
 * Return: 0 or -ENOMEM.
 */
int tonic_bind_init(void)
{
	int i;

	tonic_bind_cachep = kmem_cache_create("tonic_bind_bucket",
					      sizeof(struct tonic_bind_bucket),
					      0, SLAB_HWCACHE_ALIGN | SLAB_ACCOUNT,
					      NULL);
	if (!tonic_bind_cachep)
		return -ENOMEM;
	tonic_bhash = kvmalloc_array(TONIC_BHASH_SIZE, sizeof(*tonic_bhash),
				     GFP_KERNEL);
	if (!tonic_bhash) {
		kmem_cache_destroy(tonic_bind_cachep);
		return -ENOMEM;
	}
	for (i = 0; i < TONIC_BHASH_SIZE; i++) {
		spin_lock_init(&tonic_bhash[i].lock);
		INIT_HLIST_HEAD(&tonic_bhash[i].chain);
	}
	return 0;
}

/** tonic_bind_exit() - free the port table, empty once no socket is left */
void tonic_bind_exit(void)
{
	int i;

	for (i = 0; i < TONIC_BHASH_SIZE; i++)
		WARN_ON_ONCE(!hlist_empty(&tonic_bhash[i].chain));
	kvfree(tonic_bhash);
	kmem_cache_destroy(tonic_bind_cachep);
}
