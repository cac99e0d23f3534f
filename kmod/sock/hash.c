// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: the listener and established tables.
 *
 * A private struct inet_hashinfo of which only the established (ehash)
 * and listener (lhash2) arrays are used, so that the kernel's exported
 * lookups (__inet_lookup_skb(), __inet_lookup_established() and their
 * IPv6 twins, SO_REUSEPORT selection included) find Tonic's sockets.
 * Inserting and removing are here: the kernel's inet_hash() and friends
 * pick TCP's tables for any protocol but DCCP.  One table serves every
 * namespace; lookups compare net.  Ports are bind.c's, request sockets
 * reqsk.c's (in the established table too).
 */
#include <linux/memblock.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/inet6_hashtables.h>
#include <net/inet_hashtables.h>
#include <net/sock_reuseport.h>

#include "protocol.h"

struct inet_hashinfo tonic_hashinfo;

/* Does @sk travel as IPv6 (not IPv4, nor IPv4-mapped)? */
static bool tonic_ehash_v6(const struct sock *sk)
{
#if IS_ENABLED(CONFIG_IPV6)
	return sk->sk_family == AF_INET6 &&
	       !ipv6_addr_v4mapped(&sk->sk_v6_daddr);
#else
	return false;
#endif
}

/* As sk_ehashfn(): sockets and request socks, by their wire's 4-tuple */
static u32 tonic_ehashfn(const struct sock *sk)
{
#if IS_ENABLED(CONFIG_IPV6)
	if (tonic_ehash_v6(sk))
		return inet6_ehashfn(sock_net(sk), &sk->sk_v6_rcv_saddr,
				     sk->sk_num, &sk->sk_v6_daddr,
				     sk->sk_dport);
#endif
	return inet_ehashfn(sock_net(sk), sk->sk_rcv_saddr, sk->sk_num,
			    sk->sk_daddr, sk->sk_dport);
}

/*
 * Is @sk's 4-tuple (and device) in @list already?  As
 * inet_ehash_lookup_by_sk(), matching IPv4-mapped sockets by their IPv4
 * addresses as __inet_check_established() does.
 */
static bool tonic_ehash_dup(const struct sock *sk,
			    const struct hlist_nulls_head *list)
{
	const __portpair ports = INET_COMBINED_PORTS(sk->sk_dport, sk->sk_num);
	const int dif = sk->sk_bound_dev_if;
	const struct hlist_nulls_node *node;
	struct net *net = sock_net(sk);
	struct sock *esk;

	INET_ADDR_COOKIE(acookie, sk->sk_daddr, sk->sk_rcv_saddr);

	sk_nulls_for_each(esk, node, list) {
		if (esk->sk_hash != sk->sk_hash)
			continue;
#if IS_ENABLED(CONFIG_IPV6)
		if (tonic_ehash_v6(sk)) {
			if (inet6_match(net, esk, &sk->sk_v6_daddr,
					&sk->sk_v6_rcv_saddr, ports, dif, dif))
				return true;
			continue;
		}
#endif
		if (inet_match(net, esk, acookie, ports, dif, dif))
			return true;
	}
	return false;
}

/**
 * tonic_ehash_insert() - put a connection or request sock in the
 *	established table
 * @sk: the socket, addresses and ports set
 * @osk: the request sock @sk replaces (removed), or NULL
 * @found_dup: if not NULL (and no @osk): fail when the 4-tuple is taken
 *
 * As inet_ehash_insert().
 *
 * Return: false if @osk was already gone or the 4-tuple is taken
 * (*@found_dup then set): @sk is not inserted.
 */
bool tonic_ehash_insert(struct sock *sk, struct sock *osk, bool *found_dup)
{
	struct inet_hashinfo *h = &tonic_hashinfo;
	struct hlist_nulls_head *list;
	spinlock_t *lock;
	bool ok = true;

	WARN_ON_ONCE(!sk_unhashed(sk));
	sk->sk_hash = tonic_ehashfn(sk);
	list = &inet_ehash_bucket(h, sk->sk_hash)->chain;
	lock = inet_ehash_lockp(h, sk->sk_hash);

	spin_lock(lock);
	if (osk) {
		WARN_ON_ONCE(sk->sk_hash != osk->sk_hash);
		ok = sk_nulls_del_node_init_rcu(osk);
	} else if (found_dup) {
		*found_dup = tonic_ehash_dup(sk, list);
		ok = !*found_dup;
	}
	if (ok)
		__sk_nulls_add_node_rcu(sk, list);
	spin_unlock(lock);
	return ok;
}

/**
 * tonic_ehash_nolisten() - hash a new child; destroy it if it lost
 * @sk: the child
 * @osk: as tonic_ehash_insert()
 * @found_dup: as tonic_ehash_insert()
 *
 * As inet_ehash_nolisten().
 *
 * Return: true if @sk was hashed; false if it was destroyed.
 */
bool tonic_ehash_nolisten(struct sock *sk, struct sock *osk, bool *found_dup)
{
	if (tonic_ehash_insert(sk, osk, found_dup)) {
		sock_prot_inuse_add(sock_net(sk), sk->sk_prot, 1);
		return true;
	}
	this_cpu_inc(*sk->sk_prot->orphan_count);
	inet_sk_set_state(sk, TCP_CLOSE);
	sock_set_flag(sk, SOCK_DEAD);
	inet_csk_destroy_sock(sk);
	return false;
}

/* As inet_lhash2_bucket_sk(). */
static struct inet_listen_hashbucket *tonic_lhash2_bucket(struct sock *sk)
{
	u32 hash;

#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6)
		hash = ipv6_portaddr_hash(sock_net(sk), &sk->sk_v6_rcv_saddr,
					  inet_sk(sk)->inet_num);
	else
#endif
		hash = ipv4_portaddr_hash(sock_net(sk), sk->sk_rcv_saddr,
					  inet_sk(sk)->inet_num);
	return inet_lhash2_bucket(&tonic_hashinfo, hash);
}

static bool tonic_saddr_any(const struct sock *sk)
{
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6)
		return ipv6_addr_any(&sk->sk_v6_rcv_saddr);
#endif
	return !sk->sk_rcv_saddr;
}

/*
 * As inet_reuseport_add_sock(): a SO_REUSEPORT listener joins the group
 * of one of the same owner, port, address, family and device.
 */
static int tonic_reuseport_add(struct sock *sk,
			       struct inet_listen_hashbucket *ilb)
{
	const struct hlist_nulls_node *node;
	kuid_t uid = sock_i_uid(sk);
	struct sock *sk2;

	sk_nulls_for_each_rcu(sk2, node, &ilb->nulls_head) {
		if (sk2 != sk &&
		    sk2->sk_family == sk->sk_family &&
		    ipv6_only_sock(sk2) == ipv6_only_sock(sk) &&
		    sk2->sk_bound_dev_if == sk->sk_bound_dev_if &&
		    inet_csk(sk2)->icsk_bind_hash ==
		    inet_csk(sk)->icsk_bind_hash &&
		    sk2->sk_reuseport && uid_eq(uid, sock_i_uid(sk2)) &&
		    inet_rcv_saddr_equal(sk, sk2, false))
			return reuseport_add_sock(sk, sk2, tonic_saddr_any(sk));
	}
	return reuseport_alloc(sk, tonic_saddr_any(sk));
}

/**
 * tonic_hash() - proto.hash: a listener into the listener table
 * @sk: the socket, locked (listen())
 *
 * As inet_hash(): other states go to the established table.
 *
 * Return: 0, or a negative errno from the SO_REUSEPORT group.
 */
int tonic_hash(struct sock *sk)
{
	struct inet_listen_hashbucket *ilb2;
	int err = 0;

	if (sk->sk_state == TCP_CLOSE)
		return 0;
	if (sk->sk_state != TCP_LISTEN) {
		local_bh_disable();
		tonic_ehash_nolisten(sk, NULL, NULL);
		local_bh_enable();
		return 0;
	}
	WARN_ON(!sk_unhashed(sk));
	ilb2 = tonic_lhash2_bucket(sk);
	spin_lock(&ilb2->lock);
	if (sk->sk_reuseport) {
		err = tonic_reuseport_add(sk, ilb2);
		if (err)
			goto unlock;
	}
	sock_set_flag(sk, SOCK_RCU_FREE);
	/* IPv6 members last, so IPv4 lookups meet IPv4 groups first */
	if (IS_ENABLED(CONFIG_IPV6) && sk->sk_reuseport &&
	    sk->sk_family == AF_INET6)
		__sk_nulls_add_node_tail_rcu(sk, &ilb2->nulls_head);
	else
		__sk_nulls_add_node_rcu(sk, &ilb2->nulls_head);
	sock_prot_inuse_add(sock_net(sk), sk->sk_prot, 1);
unlock:
	spin_unlock(&ilb2->lock);
	return err;
}

/**
 * tonic_unhash() - proto.unhash: out of the listener or established table
 * @sk: the socket
 */
void tonic_unhash(struct sock *sk)
{
	spinlock_t *lock;

	if (sk_unhashed(sk))
		return;
	if (sk->sk_state == TCP_LISTEN) {
		struct inet_listen_hashbucket *ilb2 = tonic_lhash2_bucket(sk);

		spin_lock(&ilb2->lock);
		if (!sk_unhashed(sk)) {
			if (rcu_access_pointer(sk->sk_reuseport_cb))
				reuseport_stop_listen_sock(sk);
			__sk_nulls_del_node_init_rcu(sk);
			sock_prot_inuse_add(sock_net(sk), sk->sk_prot, -1);
		}
		spin_unlock(&ilb2->lock);
		return;
	}
	lock = inet_ehash_lockp(&tonic_hashinfo, sk->sk_hash);
	spin_lock_bh(lock);
	if (!sk_unhashed(sk)) {
		__sk_nulls_del_node_init_rcu(sk);
		sock_prot_inuse_add(sock_net(sk), sk->sk_prot, -1);
	}
	spin_unlock_bh(lock);
}

static int ehash_order;

/**
 * tonic_hash_init() - allocate the port, established and listener tables
 *
 * Return: 0 or a negative errno.
 */
int tonic_hash_init(void)
{
	struct inet_hashinfo *h = &tonic_hashinfo;
	unsigned long goal;
	int i, rc;

	rc = tonic_bind_init();
	if (rc)
		return rc;
	rc = inet_hashinfo2_init_mod(h);
	if (rc)
		goto out_free_bind;
	rc = -ENOBUFS;

	/* 16K established buckets are plenty for a module's test traffic. */
	goal = 16384UL * sizeof(struct inet_ehash_bucket) >> PAGE_SHIFT;
	for (ehash_order = 0; (1UL << ehash_order) < goal; ehash_order++)
		;
	do {
		unsigned long size = (1UL << ehash_order) * PAGE_SIZE /
				     sizeof(struct inet_ehash_bucket);

		while (size & (size - 1))
			size--;
		h->ehash_mask = size - 1;
		h->ehash = (struct inet_ehash_bucket *)
			__get_free_pages(GFP_KERNEL | __GFP_NOWARN, ehash_order);
	} while (!h->ehash && --ehash_order >= 0);
	if (!h->ehash)
		goto out_free_hashinfo2;
	for (i = 0; i <= h->ehash_mask; i++)
		INIT_HLIST_NULLS_HEAD(&h->ehash[i].chain, i);

	if (inet_ehash_locks_alloc(h))
		goto out_free_ehash;
	h->pernet = false;
	return 0;

out_free_ehash:
	free_pages((unsigned long)h->ehash, ehash_order);
out_free_hashinfo2:
	inet_hashinfo2_free_mod(h);
	memset(h, 0, sizeof(*h));
out_free_bind:
	tonic_bind_exit();
	return rc;
}

/** tonic_hash_exit() - free what tonic_hash_init() allocated */
void tonic_hash_exit(void)
{
	struct inet_hashinfo *h = &tonic_hashinfo;

	inet_ehash_locks_free(h);
	free_pages((unsigned long)h->ehash, ehash_order);
	inet_hashinfo2_free_mod(h);
	tonic_bind_exit();
}
