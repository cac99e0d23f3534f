// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: the private port and connection hash tables.
 *
 * Like DCCP, Tonic keeps its own struct inet_hashinfo (bind, bind2,
 * established and listener tables) so that port allocation, bind
 * conflicts and 4-tuple lookup are the kernel's own inet_* code.  One
 * global table serves every namespace; the lookups compare net.
 */
#include <linux/memblock.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <net/inet_hashtables.h>
#include <net/inet_timewait_sock.h>

#include "protocol.h"

struct inet_hashinfo tonic_hashinfo;

/* Used by inet_hash_connect() to pick an ephemeral port; no TIME_WAIT. */
struct inet_timewait_death_row tonic_death_row = {
	.tw_refcount		= REFCOUNT_INIT(1),
	.sysctl_max_tw_buckets	= 0,
	.hashinfo		= &tonic_hashinfo,
};

static int ehash_order;
static int bhash_order;

/**
 * tonic_hash_init() - allocate the private bind/established/listen tables
 *
 * Return: 0 or a negative errno.
 */
int tonic_hash_init(void)
{
	struct inet_hashinfo *h = &tonic_hashinfo;
	unsigned long goal;
	int i, rc;

	rc = inet_hashinfo2_init_mod(h);
	if (rc)
		return rc;
	rc = -ENOBUFS;
	h->bind_bucket_cachep = kmem_cache_create("tonic_bind_bucket",
						  sizeof(struct inet_bind_bucket), 0,
						  SLAB_HWCACHE_ALIGN | SLAB_ACCOUNT,
						  NULL);
	if (!h->bind_bucket_cachep)
		goto out_free_hashinfo2;
	h->bind2_bucket_cachep = kmem_cache_create("tonic_bind2_bucket",
						   sizeof(struct inet_bind2_bucket), 0,
						   SLAB_HWCACHE_ALIGN | SLAB_ACCOUNT,
						   NULL);
	if (!h->bind2_bucket_cachep)
		goto out_free_bind_cache;

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
		goto out_free_bind2_cache;
	for (i = 0; i <= h->ehash_mask; i++)
		INIT_HLIST_NULLS_HEAD(&h->ehash[i].chain, i);

	if (inet_ehash_locks_alloc(h))
		goto out_free_ehash;

	bhash_order = ehash_order;
	do {
		h->bhash_size = (1UL << bhash_order) * PAGE_SIZE /
				sizeof(struct inet_bind_hashbucket);
		if (h->bhash_size > 64 * 1024 && bhash_order > 0)
			continue;
		h->bhash = (struct inet_bind_hashbucket *)
			__get_free_pages(GFP_KERNEL | __GFP_NOWARN, bhash_order);
	} while (!h->bhash && --bhash_order >= 0);
	if (!h->bhash)
		goto out_free_locks;
	h->bhash2 = (struct inet_bind_hashbucket *)
		__get_free_pages(GFP_KERNEL | __GFP_NOWARN, bhash_order);
	if (!h->bhash2)
		goto out_free_bhash;
	for (i = 0; i < h->bhash_size; i++) {
		spin_lock_init(&h->bhash[i].lock);
		INIT_HLIST_HEAD(&h->bhash[i].chain);
		spin_lock_init(&h->bhash2[i].lock);
		INIT_HLIST_HEAD(&h->bhash2[i].chain);
	}
	h->pernet = false;
	return 0;

out_free_bhash:
	free_pages((unsigned long)h->bhash, bhash_order);
out_free_locks:
	inet_ehash_locks_free(h);
out_free_ehash:
	free_pages((unsigned long)h->ehash, ehash_order);
out_free_bind2_cache:
	kmem_cache_destroy(h->bind2_bucket_cachep);
out_free_bind_cache:
	kmem_cache_destroy(h->bind_bucket_cachep);
out_free_hashinfo2:
	inet_hashinfo2_free_mod(h);
	memset(h, 0, sizeof(*h));
	return rc;
}

/** tonic_hash_exit() - free what tonic_hash_init() allocated */
void tonic_hash_exit(void)
{
	struct inet_hashinfo *h = &tonic_hashinfo;

	free_pages((unsigned long)h->bhash2, bhash_order);
	free_pages((unsigned long)h->bhash, bhash_order);
	inet_ehash_locks_free(h);
	free_pages((unsigned long)h->ehash, ehash_order);
	kmem_cache_destroy(h->bind2_bucket_cachep);
	kmem_cache_destroy(h->bind_bucket_cachep);
	inet_hashinfo2_free_mod(h);
}
