// SPDX-License-Identifier: GPL-2.0
/*
 * tonic-perf: a netperf/neper-style benchmark for Tonic and Linux TCP.
 *
 *   tonic-perf -s [-P PORT] [-4|-6] [-B ADDR] [--once]
 *   tonic-perf -H HOST [-m stream|rr] [-p tcp|tonic] [-c CONNS] [-l SECONDS]
 *              [-r REQ] [-R RESP] [-w WRITE] [--cc NAME] [--prog NAME] ...
 *
 * A control connection (always TCP) carries the test description and the
 * server's results; the data connections use the protocol under test. Both
 * sides are single-threaded epoll loops. The client prints a human summary
 * and, as its last line on stdout, one JSON object.
 *
 * Exit status: 0 success, 1 the test failed (connection error, byte counts
 * or checksums that disagree, ...), 2 bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <linux/tcp.h>
#include <linux/tonic.h>

#include "hist.h"

#define VERSION		"1.0"
#define DEFAULT_PORT	5201
#define MAX_CONNS	4096
#define MAX_MSG		(1 << 20)	/* largest -w, -r, -R */
#define RDBUF		(256 << 10)
#define PATLEN		65521		/* prime: a shifted stream never matches */
#define CTRL_LINE	4096
#define SETUP_MS	10000		/* control replies and data accepts */

enum mode { MODE_STREAM, MODE_RR };

static struct opts {
	bool server;
	const char *host;
	const char *bind_addr;
	int port;
	int data_port;
	int family;
	enum mode mode;
	int proto;
	const char *cc;
	const char *prog;
	int conns;
	double duration;
	long req, resp, wsize;
	bool verify;
	bool hist;		/* print the latency histogram in the JSON */
	int nodelay;		/* -1: default (on for rr) */
	double interval;	/* < 0: default */
	bool quiet;
	bool once;
	const char *label;
	double drain;
} o = {
	.port = DEFAULT_PORT,
	.data_port = 0,
	.family = AF_UNSPEC,
	.mode = MODE_STREAM,
	.proto = IPPROTO_TCP,
	.conns = 1,
	.duration = 10,
	.req = 1024,
	.resp = -1,
	.wsize = 128 << 10,
	.nodelay = -1,
	.interval = -1,
	.drain = 30,
};

static uint8_t pattern[PATLEN + MAX_MSG];
static uint8_t rdbuf[RDBUF];

/* ---- small helpers ---- */

static void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("tonic-perf: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'tonic-perf --help' for more information.\n", stderr);
	exit(2);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct cpu {
	double user, sys;
	double machine;		/* busy seconds of all CPUs, from /proc/stat */
};

static void cpu_snap(struct cpu *c)
{
	struct rusage ru;
	unsigned long long v[10] = { 0 };
	unsigned long long busy = 0;
	FILE *f;
	int i;

	getrusage(RUSAGE_SELF, &ru);
	c->user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	c->sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	c->machine = 0;
	f = fopen("/proc/stat", "r");
	if (!f)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
		for (i = 0; i < 8; i++)
			if (i != 3 && i != 4)	/* idle, iowait */
				busy += v[i];
		c->machine = (double)busy / (double)sysconf(_SC_CLK_TCK);
	}
	fclose(f);
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static const char *proto_name(int proto)
{
	return proto == IPPROTO_TCP ? "tcp" : "tonic";
}

static const char *mode_name(enum mode m)
{
	return m == MODE_STREAM ? "stream" : "rr";
}

/* Position-sensitive 64-bit checksum of a byte stream (Fletcher-like). */
struct csum {
	uint64_t a, b, len;
	uint8_t part[8];
	unsigned int plen;
};

static inline void csum_word(struct csum *c, uint64_t w)
{
	c->a += w;
	c->b += c->a;
}

static void csum_update(struct csum *c, const uint8_t *p, size_t n)
{
	uint64_t w;

	c->len += n;
	while (c->plen && n) {
		c->part[c->plen++] = *p++;
		n--;
		if (c->plen == 8) {
			memcpy(&w, c->part, 8);
			csum_word(c, w);
			c->plen = 0;
		}
	}
	for (; n >= 8; n -= 8, p += 8) {
		memcpy(&w, p, 8);
		csum_word(c, w);
	}
	while (n--)
		c->part[c->plen++] = *p++;
}

static uint64_t csum_final(const struct csum *c)
{
	struct csum t = *c;
	uint64_t w = 0;

	if (t.plen) {
		memset(t.part + t.plen, 0, 8 - t.plen);
		memcpy(&w, t.part, 8);
		csum_word(&t, w);
	}
	csum_word(&t, t.len);
	return t.a ^ (t.b * 0x9e3779b97f4a7c15ull);
}

static void pattern_init(void)
{
	uint64_t x = 0x2545f4914f6cdd1dull;
	size_t i;

	for (i = 0; i < PATLEN; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		pattern[i] = (uint8_t)(x >> 24);
	}
	for (i = PATLEN; i < sizeof(pattern); i++)
		pattern[i] = pattern[i - PATLEN];
}

static inline const uint8_t *pattern_at(uint64_t off)
{
	return pattern + off % PATLEN;
}

/* ---- per-connection state, shared by both sides ---- */

struct conn {
	int fd;
	bool open;		/* not yet closed by us */
	bool eof;		/* peer finished sending */
	bool wr_shut;
	uint64_t tx, rx;	/* stream offsets */
	struct csum ctx, crx;
	uint64_t verify_err;
	uint64_t first_bad;	/* stream offset of the first bad byte */
	/* rr, client side */
	uint64_t t_req;
	long want_rx;		/* bytes of the current response still due */
	long want_tx;		/* bytes of the current request still to write */
	bool idle;
	/* rr, server side */
	uint64_t reqs;
	uint32_t events;
	uint64_t retrans_bytes, retrans_segs;
	char tonic_proto[TONIC_PROTO_NAME_MAX + 1];
};

static void conn_verify(struct conn *c, const uint8_t *buf, size_t n)
{
	size_t i;

	csum_update(&c->crx, buf, n);
	if (memcmp(buf, pattern_at(c->rx), n) == 0)
		return;
	for (i = 0; i < n; i++) {
		if (buf[i] != pattern_at(c->rx)[i]) {
			if (!c->verify_err)
				c->first_bad = c->rx + i;
			c->verify_err++;
		}
	}
}

static void conn_collect_retrans(struct conn *c, int proto)
{
	if (proto == IPPROTO_TCP) {
		struct tcp_info ti;
		socklen_t len = sizeof(ti);

		memset(&ti, 0, sizeof(ti));
		if (getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
			return;
		c->retrans_segs = ti.tcpi_total_retrans;
		if (len >= offsetof(struct tcp_info, tcpi_bytes_retrans) +
			   sizeof(ti.tcpi_bytes_retrans))
			c->retrans_bytes = ti.tcpi_bytes_retrans;
		else
			c->retrans_bytes = (uint64_t)ti.tcpi_total_retrans * ti.tcpi_snd_mss;
		return;
	}
#ifdef TONIC_INFO
	{
		struct tonic_info ti;
		socklen_t len = sizeof(ti);

		memset(&ti, 0, sizeof(ti));
		if (getsockopt(c->fd, SOL_TONIC, TONIC_INFO, &ti, &len))
			return;
		c->retrans_segs = ti.retransmits;
		c->retrans_bytes = ti.retransmits * ti.segment_size;
		memcpy(c->tonic_proto, ti.protocol, TONIC_PROTO_NAME_MAX);
		c->tonic_proto[TONIC_PROTO_NAME_MAX] = 0;
	}
#endif
}

/*
 * Options of a data socket. Errors are returned as text in err (the server
 * sends them back to the client).
 */
static int data_sockopts(int fd, int proto, const char *cc, const char *prog,
			 int nodelay, char *err, size_t errlen)
{
	int one = 1;

	if (proto == IPPROTO_TCP) {
		if (cc && *cc && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc))) {
			snprintf(err, errlen, "setsockopt(TCP_CONGESTION, %s): %s", cc,
				 strerror(errno));
			return -1;
		}
		if (nodelay && setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one))) {
			snprintf(err, errlen, "setsockopt(TCP_NODELAY): %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	/* Tonic's counterpart of TCP_NODELAY: announce partial segments at once. */
#ifdef TONIC_FLUSH_DELAY
	if (nodelay) {
		int zero = 0;

		if (setsockopt(fd, SOL_TONIC, TONIC_FLUSH_DELAY, &zero, sizeof(zero))) {
			snprintf(err, errlen, "setsockopt(SOL_TONIC, TONIC_FLUSH_DELAY, 0): %s",
				 strerror(errno));
			return -1;
		}
	}
#endif
	if (prog && *prog) {
#ifdef TONIC_PROTOCOL
		if (setsockopt(fd, SOL_TONIC, TONIC_PROTOCOL, prog, strlen(prog))) {
			snprintf(err, errlen, "setsockopt(SOL_TONIC, TONIC_PROTOCOL, %s): %s",
				 prog, strerror(errno));
			return -1;
		}
#else
		snprintf(err, errlen, "--prog %s: linux/tonic.h has no TONIC_PROTOCOL option", prog);
		return -1;
#endif
	}
	return 0;
}

/* ---- the control connection: lines of text ---- */

struct ctrl {
	int fd;
	char buf[CTRL_LINE];
	size_t len;
};

static int ctrl_send(struct ctrl *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int ctrl_send(struct ctrl *c, const char *fmt, ...)
{
	char line[CTRL_LINE];
	va_list ap;
	size_t n, off = 0;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (r < 0 || (size_t)r >= sizeof(line))
		return -1;
	n = (size_t)r;
	while (off < n) {
		ssize_t w = send(c->fd, line + off, n - off, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd p = { .fd = c->fd, .events = POLLOUT };

			poll(&p, 1, 1000);
			continue;
		}
		if (w <= 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

/*
 * Read one line (without its newline) into out. Returns 1 on a line, 0 when
 * more data is needed (timeout_ms == 0: non-blocking), -1 on EOF or error.
 */
static int ctrl_recv(struct ctrl *c, char *out, size_t outlen, int timeout_ms)
{
	double end = now_s() + timeout_ms / 1000.0;

	for (;;) {
		char *nl = memchr(c->buf, '\n', c->len);
		ssize_t r;

		if (nl) {
			size_t n = (size_t)(nl - c->buf);

			if (n >= outlen)
				n = outlen - 1;
			memcpy(out, c->buf, n);
			out[n] = 0;
			c->len -= (size_t)(nl - c->buf) + 1;
			memmove(c->buf, nl + 1, c->len);
			return 1;
		}
		if (c->len == sizeof(c->buf))
			return -1;
		if (timeout_ms) {
			struct pollfd p = { .fd = c->fd, .events = POLLIN };
			int left = (int)((end - now_s()) * 1000);

			if (left <= 0) {
				errno = ETIMEDOUT;
				return -1;
			}
			if (poll(&p, 1, left) < 0 && errno != EINTR)
				return -1;
		}
		r = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len, MSG_DONTWAIT);
		if (r == 0) {
			errno = ECONNRESET;
			return -1;
		}
		if (r < 0) {
			if (errno == EAGAIN || errno == EINTR) {
				if (!timeout_ms)
					return 0;
				continue;
			}
			return -1;
		}
		c->len += (size_t)r;
	}
}

/* "key=value" from a space-separated line; NULL when absent. */
static const char *kv(const char *line, const char *key, char *val, size_t vlen)
{
	size_t kl = strlen(key);
	const char *p = line;

	while (p && *p) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			const char *v = p + kl + 1;
			size_t n = strcspn(v, " ");

			if (n >= vlen)
				n = vlen - 1;
			memcpy(val, v, n);
			val[n] = 0;
			return val;
		}
		p = strchr(p, ' ');
	}
	return NULL;
}

/* A number after "key": in a flat JSON object we wrote ourselves. */
static double json_num(const char *js, const char *key, double def)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(js, pat);
	if (!p)
		return def;
	return strtod(p + strlen(pat), NULL);
}

static void json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* ---- socket setup ---- */

static int resolve(const char *host, int port, int family, int passive,
		   struct sockaddr_storage *ss, socklen_t *len, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = family, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	char portstr[16];
	int r;

	if (passive)
		hints.ai_flags = AI_PASSIVE;
	snprintf(portstr, sizeof(portstr), "%d", port);
	r = getaddrinfo(host, portstr, &hints, &res);
	if (r) {
		snprintf(err, errlen, "cannot resolve %s: %s", host ? host : "(any)",
			 gai_strerror(r));
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static void set_port(struct sockaddr_storage *ss, int port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
}

static socklen_t ss_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET ? sizeof(struct sockaddr_in) :
					  sizeof(struct sockaddr_in6);
}

/* An IPv4-mapped IPv6 address becomes a plain IPv4 one. */
static void unmap_v4(struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in s4 = { .sin_family = AF_INET };

	if (ss->ss_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
		return;
	s4.sin_port = s6->sin6_port;
	memcpy(&s4.sin_addr, &s6->sin6_addr.s6_addr[12], 4);
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, &s4, sizeof(s4));
}

static int listen_on(struct sockaddr_storage *ss, int proto, char *err, size_t errlen,
		     const char *cc, const char *prog)
{
	int one = 1, zero = 0;
	int fd = socket(ss->ss_family, SOCK_STREAM, proto);

	if (fd < 0) {
		snprintf(err, errlen, "socket(%s, SOCK_STREAM, %s): %s",
			 ss->ss_family == AF_INET ? "AF_INET" : "AF_INET6",
			 proto == IPPROTO_TCP ? "IPPROTO_TCP" : "IPPROTO_TONIC", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss->ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (data_sockopts(fd, proto, cc, prog, 0, err, errlen))
		goto fail;
	if (bind(fd, (struct sockaddr *)ss, ss_len(ss))) {
		snprintf(err, errlen, "bind(%s port %d): %s", proto_name(proto),
			 ntohs(ss->ss_family == AF_INET ? ((struct sockaddr_in *)ss)->sin_port :
				((struct sockaddr_in6 *)ss)->sin6_port), strerror(errno));
		goto fail;
	}
	if (listen(fd, 1024)) {
		snprintf(err, errlen, "listen(%s): %s", proto_name(proto), strerror(errno));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

/* ---- server ---- */

struct test {
	enum mode mode;
	int proto;
	char cc[64], prog[64];
	int conns;
	long req, resp;
	bool verify;
	int nodelay;
	double duration;
};

static int parse_test(const char *line, struct test *t, char *err, size_t errlen)
{
	char v[64];

	memset(t, 0, sizeof(*t));
	if (strncmp(line, "TEST ", 5)) {
		snprintf(err, errlen, "bad request");
		return -1;
	}
	if (!kv(line, "mode", v, sizeof(v)) || (strcmp(v, "stream") && strcmp(v, "rr")))
		goto bad;
	t->mode = strcmp(v, "rr") ? MODE_STREAM : MODE_RR;
	if (!kv(line, "proto", v, sizeof(v)) || (strcmp(v, "tcp") && strcmp(v, "tonic")))
		goto bad;
	t->proto = strcmp(v, "tcp") ? IPPROTO_TONIC : IPPROTO_TCP;
	if (kv(line, "cc", v, sizeof(v)) && strcmp(v, "-"))
		memcpy(t->cc, v, sizeof(t->cc));
	if (kv(line, "prog", v, sizeof(v)) && strcmp(v, "-"))
		memcpy(t->prog, v, sizeof(t->prog));
	t->conns = kv(line, "conns", v, sizeof(v)) ? atoi(v) : 0;
	t->req = kv(line, "req", v, sizeof(v)) ? atol(v) : 0;
	t->resp = kv(line, "resp", v, sizeof(v)) ? atol(v) : 0;
	t->verify = kv(line, "verify", v, sizeof(v)) && atoi(v);
	t->nodelay = kv(line, "nodelay", v, sizeof(v)) && atoi(v);
	t->duration = kv(line, "dur", v, sizeof(v)) ? atof(v) : 0;
	if (t->conns < 1 || t->conns > MAX_CONNS || t->req < 1 || t->req > MAX_MSG ||
	    t->resp < 1 || t->resp > MAX_MSG)
		goto bad;
	return 0;
bad:
	snprintf(err, errlen, "bad test description: %.200s", line);
	return -1;
}

static void server_test(int cfd)
{
	char line[CTRL_LINE], err[512] = "";
	struct ctrl ctl = { .fd = cfd };
	struct sockaddr_storage local;
	socklen_t llen = sizeof(local);
	struct conn *cs = NULL;
	struct test t;
	struct cpu c0, c1;
	int lfd = -1, ep = -1, accepted = 0, open_conns = 0, i;
	uint64_t rx = 0, tx = 0, reqs = 0, vbad = 0, first_bad = 0, rtb = 0, rts = 0;
	uint64_t crx = 0, ctx_sum = 0;
	double t0, deadline;
	struct epoll_event evs[64];
	char tproto[TONIC_PROTO_NAME_MAX + 1] = "";

	if (ctrl_recv(&ctl, line, sizeof(line), SETUP_MS) != 1)
		return;
	if (parse_test(line, &t, err, sizeof(err)))
		goto fail;
	getsockname(cfd, (struct sockaddr *)&local, &llen);
	unmap_v4(&local);
	set_port(&local, o.data_port ? o.data_port : o.port + 1);
	lfd = listen_on(&local, t.proto, err, sizeof(err), t.cc, t.prog);
	if (lfd < 0)
		goto fail;
	set_nonblock(lfd);
	cs = calloc((size_t)t.conns, sizeof(*cs));
	ep = epoll_create1(0);
	if (!cs || ep < 0) {
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	cpu_snap(&c0);
	t0 = now_s();
	ctrl_send(&ctl, "READY port=%d\n", o.data_port ? o.data_port : o.port + 1);

	/* Accept the data connections. */
	while (accepted < t.conns) {
		struct pollfd p[2] = { { .fd = lfd, .events = POLLIN },
				       { .fd = cfd, .events = POLLIN } };
		int fd;

		if (now_s() - t0 > SETUP_MS / 1000.0) {
			snprintf(err, sizeof(err), "only %d of %d data connections arrived",
				 accepted, t.conns);
			goto fail;
		}
		if (poll(p, 2, 200) <= 0)
			continue;
		if (p[1].revents) {
			snprintf(err, sizeof(err), "client went away during setup");
			goto fail;
		}
		fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);
		if (fd < 0)
			continue;
		if (data_sockopts(fd, t.proto, t.proto == IPPROTO_TCP ? t.cc : NULL, NULL,
				  t.nodelay, err, sizeof(err))) {
			close(fd);
			goto fail;
		}
		cs[accepted].fd = fd;
		cs[accepted].open = true;
		cs[accepted].events = EPOLLIN;
		{
			struct epoll_event ev = { .events = EPOLLIN,
						  .data.ptr = &cs[accepted] };
			epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
		}
		accepted++;
		open_conns++;
	}
	close(lfd);
	lfd = -1;

	/* Serve until every connection has been closed by the client. */
	deadline = now_s() + t.duration + o.drain + 30;
	while (open_conns) {
		int n = epoll_wait(ep, evs, 64, 500);

		if (now_s() > deadline) {
			snprintf(err, sizeof(err), "test did not finish in time");
			goto fail;
		}
		{
			struct pollfd p = { .fd = cfd, .events = POLLIN };

			if (poll(&p, 1, 0) > 0) {
				snprintf(err, sizeof(err), "client went away");
				goto fail;
			}
		}
		for (i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;
			uint32_t want;

			if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
				for (;;) {
					ssize_t r = recv(c->fd, rdbuf, sizeof(rdbuf), 0);

					if (r > 0) {
						if (t.verify)
							conn_verify(c, rdbuf, (size_t)r);
						c->rx += (uint64_t)r;
						if (t.mode == MODE_RR)
							c->reqs = c->rx / (uint64_t)t.req;
						if ((size_t)r < sizeof(rdbuf))
							break;
						continue;
					}
					if (r == 0) {
						c->eof = true;
						break;
					}
					if (errno == EINTR)
						continue;
					if (errno != EAGAIN) {
						snprintf(err, sizeof(err), "recv on data connection: %s",
							 strerror(errno));
						goto fail;
					}
					break;
				}
			}
			/* rr: answer every complete request. */
			while (t.mode == MODE_RR && c->tx < c->reqs * (uint64_t)t.resp) {
				uint64_t due = c->reqs * (uint64_t)t.resp - c->tx;
				size_t n2 = due > MAX_MSG ? MAX_MSG : (size_t)due;
				ssize_t w = send(c->fd, pattern_at(c->tx), n2, MSG_NOSIGNAL);

				if (w < 0 && errno == EINTR)
					continue;
				if (w < 0 && errno == EAGAIN)
					break;
				if (w < 0) {
					snprintf(err, sizeof(err), "send on data connection: %s",
						 strerror(errno));
					goto fail;
				}
				if (t.verify)
					csum_update(&c->ctx, pattern_at(c->tx), (size_t)w);
				c->tx += (uint64_t)w;
			}
			if (c->eof && c->tx >= c->reqs * (uint64_t)t.resp) {
				conn_collect_retrans(c, t.proto);
				epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
				close(c->fd);
				c->open = false;
				open_conns--;
				continue;
			}
			want = EPOLLIN;
			if (t.mode == MODE_RR && c->tx < c->reqs * (uint64_t)t.resp)
				want |= EPOLLOUT;
			if (c->eof)
				want &= ~(uint32_t)EPOLLIN;
			if (want != c->events) {
				struct epoll_event ev = { .events = want, .data.ptr = c };

				epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
				c->events = want;
			}
		}
	}
	cpu_snap(&c1);
	for (i = 0; i < t.conns; i++) {
		rx += cs[i].rx;
		tx += cs[i].tx;
		reqs += cs[i].reqs;
		vbad += cs[i].verify_err;
		if (cs[i].verify_err && (!first_bad || cs[i].first_bad < first_bad))
			first_bad = cs[i].first_bad;
		rtb += cs[i].retrans_bytes;
		rts += cs[i].retrans_segs;
		crx += csum_final(&cs[i].crx);
		ctx_sum += csum_final(&cs[i].ctx);
		if (cs[i].tonic_proto[0])
			memcpy(tproto, cs[i].tonic_proto, sizeof(tproto));
	}
	ctrl_send(&ctl,
		  "RESULT {\"rx\":%" PRIu64 ",\"tx\":%" PRIu64 ",\"requests\":%" PRIu64
		  ",\"cpu_user\":%.6f,\"cpu_sys\":%.6f,\"retrans_bytes\":%" PRIu64
		  ",\"retrans_segs\":%" PRIu64 ",\"verify_errors\":%" PRIu64
		  ",\"first_bad\":%" PRIu64 ",\"csum_rx\":\"%016" PRIx64
		  "\",\"csum_tx\":\"%016" PRIx64 "\",\"elapsed\":%.6f,\"tonic_protocol\":\"%s\"}\n",
		  rx, tx, reqs, c1.user - c0.user, c1.sys - c0.sys, rtb, rts, vbad, first_bad,
		  crx, ctx_sum, now_s() - t0, tproto);
	if (!o.quiet)
		fprintf(stderr, "tonic-perf: served %s/%s x%d: rx %" PRIu64 " tx %" PRIu64
			" requests %" PRIu64 "\n", mode_name(t.mode), proto_name(t.proto),
			t.conns, rx, tx, reqs);
	goto out;
fail:
	fprintf(stderr, "tonic-perf: server: %s\n", err);
	ctrl_send(&ctl, "ERROR %s\n", err);
out:
	if (cs)
		for (i = 0; i < accepted; i++)
			if (cs[i].open)
				close(cs[i].fd);
	free(cs);
	if (lfd >= 0)
		close(lfd);
	if (ep >= 0)
		close(ep);
}

static int run_server(void)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char err[512];
	int lfd;

	if (resolve(o.bind_addr, o.port, o.family == AF_UNSPEC && !o.bind_addr ?
		    AF_INET6 : o.family, 1, &ss, &len, err, sizeof(err)) ||
	    (lfd = listen_on(&ss, IPPROTO_TCP, err, sizeof(err), NULL, NULL)) < 0) {
		/* No IPv6 in this namespace: fall back to IPv4. */
		if (o.family != AF_UNSPEC || o.bind_addr ||
		    resolve(NULL, o.port, AF_INET, 1, &ss, &len, err, sizeof(err)) ||
		    (lfd = listen_on(&ss, IPPROTO_TCP, err, sizeof(err), NULL, NULL)) < 0) {
			fprintf(stderr, "tonic-perf: server: %s\n", err);
			return 1;
		}
	}
	if (!o.quiet)
		fprintf(stderr, "tonic-perf: server listening on port %d (data port %d)\n",
			o.port, o.data_port ? o.data_port : o.port + 1);
	for (;;) {
		int cfd = accept(lfd, NULL, NULL);
		int one = 1;

		if (cfd < 0) {
			if (errno == EINTR)
				continue;
			perror("tonic-perf: accept");
			return 1;
		}
		setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		server_test(cfd);
		close(cfd);
		if (o.once)
			return 0;
	}
}

/* ---- client ---- */

struct result {
	const char *error;
	char errbuf[600];
	double elapsed;
	uint64_t tx, rx, requests, vbad, first_bad;
	uint64_t retrans_bytes, retrans_segs;
	uint64_t csum_tx, csum_rx;
	struct hist lat;
	struct cpu c0, c1;
	char srv[CTRL_LINE];
	bool have_srv;
	char tonic_proto[TONIC_PROTO_NAME_MAX + 1];
};

static struct result res;

static void fail_res(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail_res(const char *fmt, ...)
{
	va_list ap;

	if (res.error)
		return;
	va_start(ap, fmt);
	vsnprintf(res.errbuf, sizeof(res.errbuf), fmt, ap);
	va_end(ap);
	res.error = res.errbuf;
}

static int connect_data(struct conn *cs, int n, struct sockaddr_storage *dst)
{
	char err[512];
	int i, pending = 0;
	double end = now_s() + SETUP_MS / 1000.0;

	for (i = 0; i < n; i++) {
		cs[i].fd = socket(dst->ss_family, SOCK_STREAM | SOCK_NONBLOCK, o.proto);
		if (cs[i].fd < 0) {
			fail_res("socket(%s, SOCK_STREAM, %s): %s",
				 dst->ss_family == AF_INET ? "AF_INET" : "AF_INET6",
				 o.proto == IPPROTO_TCP ? "IPPROTO_TCP" : "IPPROTO_TONIC",
				 strerror(errno));
			return -1;
		}
		cs[i].open = true;
		if (data_sockopts(cs[i].fd, o.proto, o.cc, o.prog, o.nodelay, err, sizeof(err))) {
			fail_res("%s", err);
			return -1;
		}
		if (connect(cs[i].fd, (struct sockaddr *)dst, ss_len(dst)) &&
		    errno != EINPROGRESS) {
			fail_res("connect (data, %s): %s", proto_name(o.proto), strerror(errno));
			return -1;
		}
		pending++;
	}
	/* Wait for every connection to be established. */
	for (i = 0; i < n; i++) {
		struct pollfd p = { .fd = cs[i].fd, .events = POLLOUT };
		int left = (int)((end - now_s()) * 1000), soerr = 0;
		socklen_t sl = sizeof(soerr);

		if (left < 1 || poll(&p, 1, left) != 1) {
			fail_res("connect (data, %s): timed out", proto_name(o.proto));
			return -1;
		}
		getsockopt(cs[i].fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
		if (soerr) {
			fail_res("connect (data, %s): %s", proto_name(o.proto), strerror(soerr));
			return -1;
		}
	}
	return pending;
}

static void progress(double t, uint64_t bytes, uint64_t trans, double dt)
{
	if (o.mode == MODE_STREAM)
		fprintf(stderr, "[%7.1fs] %10.2f Mb/s\n", t, (double)bytes * 8 / dt / 1e6);
	else
		fprintf(stderr, "[%7.1fs] %10.1f trans/s\n", t, (double)trans / dt);
}

/*
 * One request/response connection of the client: write what is due, read
 * what has arrived, start the next request while the test runs. Returns -1
 * on a connection error.
 */
static int rr_step(struct conn *c, int ep, double deadline, int *active)
{
	uint32_t want;

	for (;;) {
		while (c->want_tx > 0) {
			ssize_t w = send(c->fd, pattern_at(c->tx), (size_t)c->want_tx,
					 MSG_NOSIGNAL);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0 && errno == EAGAIN)
				break;
			if (w < 0) {
				fail_res("send on data connection: %s", strerror(errno));
				return -1;
			}
			if (o.verify)
				csum_update(&c->ctx, pattern_at(c->tx), (size_t)w);
			c->tx += (uint64_t)w;
			c->want_tx -= w;
			if (!c->want_tx)
				c->want_rx = o.resp;
		}
		while (c->want_rx > 0) {
			size_t cap = (size_t)c->want_rx < sizeof(rdbuf) ?
				     (size_t)c->want_rx : sizeof(rdbuf);
			ssize_t r = recv(c->fd, rdbuf, cap, 0);

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0 && errno == EAGAIN)
				break;
			if (r <= 0) {
				fail_res("data connection closed during the test: %s",
					 r ? strerror(errno) : "EOF");
				return -1;
			}
			if (o.verify)
				conn_verify(c, rdbuf, (size_t)r);
			c->rx += (uint64_t)r;
			c->want_rx -= r;
		}
		if (c->want_tx || c->want_rx)
			break;
		/* A transaction completed. */
		{
			uint64_t tn = now_ns();

			hist_add(&res.lat, tn - c->t_req);
			c->t_req = tn;
		}
		c->want_tx = o.req;
		if (now_s() >= deadline) {
			c->idle = true;
			shutdown(c->fd, SHUT_WR);
			(*active)--;
			return 0;
		}
	}
	want = c->want_tx ? EPOLLOUT : EPOLLIN;
	if (want != c->events) {
		struct epoll_event ev = { .events = want, .data.ptr = c };

		epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
		c->events = want;
	}
	return 0;
}

static void client_loop(struct conn *cs, int ep)
{
	int n = o.conns, i, active = n;
	double start = now_s(), deadline = start + o.duration, next_prog;
	uint64_t last_bytes = 0, last_trans = 0, sent = 0;
	struct epoll_event evs[64];
	double interval = o.interval;

	if (interval < 0)
		interval = o.duration >= 10 ? 1 : 0;
	if (o.quiet)
		interval = 0;
	next_prog = interval > 0 ? start + interval : 1e300;

	for (i = 0; i < n; i++) {
		struct epoll_event ev = { .events = EPOLLOUT | EPOLLIN, .data.ptr = &cs[i] };

		cs[i].events = ev.events;
		cs[i].want_tx = o.mode == MODE_RR ? o.req : 0;
		cs[i].t_req = now_ns();
		epoll_ctl(ep, EPOLL_CTL_ADD, cs[i].fd, &ev);
	}

	while (active) {
		double t = now_s(), wait_s;
		int nev;

		if (t >= next_prog) {
			progress(t - start, sent - last_bytes, res.lat.count - last_trans,
				 interval);
			last_bytes = sent;
			last_trans = res.lat.count;
			next_prog += interval;
		}
		if (t >= deadline && o.mode == MODE_STREAM) {
			for (i = 0; i < n; i++)
				shutdown(cs[i].fd, SHUT_WR);
			break;
		}
		if (t > deadline + o.drain) {
			uint64_t due = 0;

			for (i = 0; i < n; i++)
				due += !cs[i].idle;
			fail_res("%" PRIu64 " responses still outstanding %.0f s after the end",
				 due, o.drain);
			return;
		}
		if (t >= deadline) {
			/* rr: idle connections stop now. */
			for (i = 0; i < n; i++)
				if (!cs[i].idle && cs[i].want_tx == o.req && cs[i].want_rx == 0) {
					cs[i].idle = true;
					shutdown(cs[i].fd, SHUT_WR);
					active--;
				}
			if (!active)
				break;
		}
		wait_s = (t < deadline ? deadline : deadline + o.drain) - t;
		if (next_prog - t < wait_s)
			wait_s = next_prog - t;
		nev = epoll_wait(ep, evs, 64, (int)(wait_s * 1000) + 1);
		for (i = 0; i < nev; i++) {
			struct conn *c = evs[i].data.ptr;

			if (c->idle)
				continue;
			if (o.mode == MODE_STREAM) {
				if (evs[i].events & (EPOLLERR | EPOLLHUP | EPOLLIN)) {
					ssize_t r = recv(c->fd, rdbuf, sizeof(rdbuf), MSG_DONTWAIT);

					if (r == 0 || (r < 0 && errno != EAGAIN)) {
						fail_res("data connection closed during the test: %s",
							 r ? strerror(errno) : "EOF");
						return;
					}
				}
				/* A bounded burst, so that the deadline is seen in time. */
				for (int k = 0; k < 16; k++) {
					ssize_t w = send(c->fd, pattern_at(c->tx), (size_t)o.wsize,
							 MSG_NOSIGNAL);

					if (w < 0 && errno == EINTR)
						continue;
					if (w < 0 && errno == EAGAIN)
						break;
					if (w < 0) {
						fail_res("send on data connection: %s", strerror(errno));
						return;
					}
					if (o.verify)
						csum_update(&c->ctx, pattern_at(c->tx), (size_t)w);
					c->tx += (uint64_t)w;
					sent += (uint64_t)w;
					if (w < o.wsize)
						break;
				}
				continue;
			}
			/* rr: write the request, then read the response. */
			if (rr_step(c, ep, deadline, &active))
				return;
		}
	}
}

static int run_client(void)
{
	struct sockaddr_storage ctl_addr, data_addr;
	socklen_t alen;
	struct ctrl ctl = { .fd = -1 };
	struct conn *cs = NULL;
	char err[512], line[CTRL_LINE], v[64];
	int ep = -1, i, one = 1;
	double t_start = 0;
	int rc;

	hist_init(&res.lat);
	cpu_snap(&res.c0);	/* again just before the data connections */
	if (resolve(o.host, o.port, o.family, 0, &ctl_addr, &alen, err, sizeof(err))) {
		fail_res("%s", err);
		goto report;
	}
	ctl.fd = socket(ctl_addr.ss_family, SOCK_STREAM, IPPROTO_TCP);
	if (ctl.fd < 0) {
		fail_res("socket (control): %s", strerror(errno));
		goto report;
	}
	if (connect(ctl.fd, (struct sockaddr *)&ctl_addr, alen)) {
		fail_res("connect to %s port %d (control): %s", o.host, o.port, strerror(errno));
		goto report;
	}
	setsockopt(ctl.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	ctrl_send(&ctl, "TEST mode=%s proto=%s cc=%s prog=%s conns=%d req=%ld resp=%ld "
		  "verify=%d nodelay=%d dur=%.3f\n", mode_name(o.mode), proto_name(o.proto),
		  o.cc ? o.cc : "-", o.prog ? o.prog : "-", o.conns, o.req, o.resp,
		  o.verify, o.nodelay, o.duration);
	if (ctrl_recv(&ctl, line, sizeof(line), SETUP_MS) != 1) {
		fail_res("no answer from the server: %s", strerror(errno));
		goto report;
	}
	if (!strncmp(line, "ERROR ", 6)) {
		fail_res("server: %s", line + 6);
		goto report;
	}
	if (strncmp(line, "READY ", 6) || !kv(line, "port", v, sizeof(v))) {
		fail_res("unexpected answer from the server: %s", line);
		goto report;
	}
	alen = sizeof(data_addr);
	getpeername(ctl.fd, (struct sockaddr *)&data_addr, &alen);
	unmap_v4(&data_addr);
	set_port(&data_addr, atoi(v));

	cs = calloc((size_t)o.conns, sizeof(*cs));
	ep = epoll_create1(0);
	if (!cs || ep < 0) {
		fail_res("out of memory");
		goto report;
	}
	for (i = 0; i < o.conns; i++)
		cs[i].fd = -1;
	cpu_snap(&res.c0);
	if (connect_data(cs, o.conns, &data_addr) < 0)
		goto report;
	t_start = now_s();
	client_loop(cs, ep);
	if (res.error)
		goto report;
	/* The server answers once it has seen every connection end. */
	rc = ctrl_recv(&ctl, line, sizeof(line), (int)((o.drain + 30) * 1000));
	res.elapsed = now_s() - t_start;
	if (rc != 1) {
		fail_res("no result from the server: %s", strerror(errno));
		goto report;
	}
	if (!strncmp(line, "ERROR ", 6)) {
		fail_res("server: %s", line + 6);
		goto report;
	}
	if (strncmp(line, "RESULT ", 7)) {
		fail_res("unexpected answer from the server: %s", line);
		goto report;
	}
	snprintf(res.srv, sizeof(res.srv), "%s", line + 7);
	res.have_srv = true;
	for (i = 0; i < o.conns; i++) {
		/* Read what is left (the server's FIN) before taking TCP_INFO. */
		recv(cs[i].fd, rdbuf, sizeof(rdbuf), MSG_DONTWAIT);
		conn_collect_retrans(&cs[i], o.proto);
		res.tx += cs[i].tx;
		res.rx += cs[i].rx;
		res.vbad += cs[i].verify_err;
		if (cs[i].verify_err && (!res.first_bad || cs[i].first_bad < res.first_bad))
			res.first_bad = cs[i].first_bad;
		res.retrans_bytes += cs[i].retrans_bytes;
		res.retrans_segs += cs[i].retrans_segs;
		res.csum_tx += csum_final(&cs[i].ctx);
		res.csum_rx += csum_final(&cs[i].crx);
		if (cs[i].tonic_proto[0])
			memcpy(res.tonic_proto, cs[i].tonic_proto, sizeof(res.tonic_proto));
	}
report:
	cpu_snap(&res.c1);
	if (!res.elapsed && t_start)
		res.elapsed = now_s() - t_start;
	if (cs)
		for (i = 0; i < o.conns; i++)
			if (cs[i].fd >= 0)
				close(cs[i].fd);
	free(cs);
	if (ep >= 0)
		close(ep);
	if (ctl.fd >= 0)
		close(ctl.fd);
	return 0;
}

/* Checks of the server's numbers against ours, then the report. */
static int client_report(void)
{
	const char *s = res.srv;
	double s_rx = json_num(s, "rx", 0), s_tx = json_num(s, "tx", 0);
	double s_req = json_num(s, "requests", 0), s_user = json_num(s, "cpu_user", 0);
	double s_sys = json_num(s, "cpu_sys", 0), s_rtb = json_num(s, "retrans_bytes", 0);
	double s_rts = json_num(s, "retrans_segs", 0), s_vbad = json_num(s, "verify_errors", 0);
	double c_user = res.c1.user - res.c0.user, c_sys = res.c1.sys - res.c0.sys;
	double machine = res.c1.machine - res.c0.machine;
	double gb, cpu, goodput = 0, tps = 0;
	uint64_t trans = res.lat.count;
	char srv_crx[32] = "", srv_ctx[32] = "";
	const char *p;
	FILE *f = stdout;
	bool verify_ok = true;

	if (res.have_srv) {
		p = strstr(s, "\"csum_rx\":\"");
		if (p)
			snprintf(srv_crx, 17, "%s", p + 11);
		p = strstr(s, "\"csum_tx\":\"");
		if (p)
			snprintf(srv_ctx, 17, "%s", p + 11);
		if ((uint64_t)s_rx != res.tx)
			fail_res("byte count mismatch: client sent %" PRIu64 ", server received %.0f",
				 res.tx, s_rx);
		else if ((uint64_t)s_tx != res.rx)
			fail_res("byte count mismatch: server sent %.0f, client received %" PRIu64,
				 s_tx, res.rx);
		else if (o.mode == MODE_RR && (uint64_t)s_req != trans)
			fail_res("request count mismatch: client completed %" PRIu64
				 ", server answered %.0f", trans, s_req);
		if (o.verify) {
			char a[17], b[17];

			snprintf(a, sizeof(a), "%016" PRIx64, res.csum_tx);
			snprintf(b, sizeof(b), "%016" PRIx64, res.csum_rx);
			if (res.vbad || s_vbad) {
				verify_ok = false;
				fail_res("data corrupted: %" PRIu64 " bad bytes at the client, %.0f at the server",
					 res.vbad, s_vbad);
			} else if (strcmp(a, srv_crx) || strcmp(b, srv_ctx)) {
				verify_ok = false;
				fail_res("checksum mismatch: client tx %s / server rx %s, server tx %s / client rx %s",
					 a, srv_crx, srv_ctx, b);
			}
		}
		if (!res.error && trans == 0 && o.mode == MODE_RR)
			fail_res("no request completed");
		if (!res.error && s_rx == 0 && o.mode == MODE_STREAM)
			fail_res("no data arrived");
	}
	gb = ((double)res.tx + (double)res.rx) / 1e9;
	cpu = c_user + c_sys + s_user + s_sys;
	if (res.elapsed > 0) {
		goodput = s_rx * 8 / res.elapsed;
		tps = (double)trans / res.elapsed;
	}
	if (o.mode == MODE_RR && res.elapsed > 0)
		goodput = ((double)res.tx + (double)res.rx) * 8 / res.elapsed;

	if (res.error)
		fprintf(stderr, "tonic-perf: error: %s\n", res.error);
	if (!res.error && !o.quiet) {
		printf("%s over %s%s%s, %d connection%s, %.2f s\n", mode_name(o.mode),
		       proto_name(o.proto), o.cc || o.prog ? "/" : "",
		       o.cc ? o.cc : (o.prog ? o.prog : ""), o.conns, o.conns > 1 ? "s" : "",
		       res.elapsed);
		if (o.mode == MODE_STREAM)
			printf("  goodput        %.2f Mb/s (%" PRIu64 " bytes)\n", goodput / 1e6,
			       res.tx);
		else
			printf("  transactions   %" PRIu64 " (%.1f/s), latency us p50 %.1f p99 %.1f p999 %.1f\n",
			       trans, tps, hist_quantile(&res.lat, 0.5) / 1e3,
			       hist_quantile(&res.lat, 0.99) / 1e3,
			       hist_quantile(&res.lat, 0.999) / 1e3);
		printf("  cpu            %.3f s client + %.3f s server = %.2f s/GB\n",
		       c_user + c_sys, s_user + s_sys, gb > 0 ? cpu / gb : 0);
		printf("  retransmitted  %.0f bytes\n", (double)res.retrans_bytes + s_rtb);
	}
	fprintf(f, "{\"tool\":\"tonic-perf\",\"version\":\"%s\",\"label\":", VERSION);
	json_str(f, o.label);
	fprintf(f, ",\"ok\":%s,\"error\":", res.error ? "false" : "true");
	json_str(f, res.error);
	fprintf(f, ",\"mode\":\"%s\",\"proto\":\"%s\",\"cc\":", mode_name(o.mode),
		proto_name(o.proto));
	json_str(f, o.cc);
	fprintf(f, ",\"prog\":");
	json_str(f, o.prog);
	fprintf(f, ",\"tonic_protocol\":");
	json_str(f, res.tonic_proto[0] ? res.tonic_proto : NULL);
	fprintf(f, ",\"family\":\"%s\",\"conns\":%d,\"duration_s\":%.3f,\"elapsed_s\":%.6f",
		o.family == AF_INET6 ? "ipv6" : o.family == AF_INET ? "ipv4" : "any",
		o.conns, o.duration, res.elapsed);
	fprintf(f, ",\"req\":%ld,\"resp\":%ld,\"write\":%ld,\"nodelay\":%s", o.req, o.resp,
		o.wsize, o.nodelay ? "true" : "false");
	fprintf(f, ",\"client\":{\"tx\":%" PRIu64 ",\"rx\":%" PRIu64 ",\"cpu_user\":%.6f,"
		"\"cpu_sys\":%.6f,\"retrans_bytes\":%" PRIu64 ",\"retrans_segs\":%" PRIu64 "}",
		res.tx, res.rx, c_user, c_sys, res.retrans_bytes, res.retrans_segs);
	fprintf(f, ",\"server\":%s", res.have_srv ? res.srv : "null");
	fprintf(f, ",\"goodput_bps\":%.0f,\"transactions\":%" PRIu64 ",\"transactions_per_s\":%.3f",
		goodput, trans, tps);
	if (o.mode == MODE_RR && trans)
		fprintf(f, ",\"latency_us\":{\"min\":%.3f,\"mean\":%.3f,\"p50\":%.3f,\"p90\":%.3f,"
			"\"p99\":%.3f,\"p999\":%.3f,\"max\":%.3f}",
			(double)res.lat.min / 1e3, res.lat.sum / (double)trans / 1e3,
			hist_quantile(&res.lat, 0.5) / 1e3, hist_quantile(&res.lat, 0.9) / 1e3,
			hist_quantile(&res.lat, 0.99) / 1e3, hist_quantile(&res.lat, 0.999) / 1e3,
			(double)res.lat.max / 1e3);
	else
		fprintf(f, ",\"latency_us\":null");
	if (o.hist && o.mode == MODE_RR) {
		unsigned int b;
		bool first = true;

		/* [lowest ns, highest ns, count] of every non-empty bucket */
		fprintf(f, ",\"latency_hist_ns\":[");
		for (b = 0; b < HIST_BUCKETS; b++) {
			if (!res.lat.b[b])
				continue;
			fprintf(f, "%s[%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]", first ? "" : ",",
				hist_lo(b), hist_hi(b), res.lat.b[b]);
			first = false;
		}
		fprintf(f, "]");
	}
	fprintf(f, ",\"cpu_s\":%.6f,\"cpu_s_per_gb\":", cpu);
	if (gb > 0)
		fprintf(f, "%.4f", cpu / gb);
	else
		fprintf(f, "null");
	fprintf(f, ",\"machine_cpu_s\":%.3f,\"machine_cpu_s_per_gb\":", machine);
	if (gb > 0)
		fprintf(f, "%.4f", machine / gb);
	else
		fprintf(f, "null");
	fprintf(f, ",\"retrans_bytes\":%.0f,\"retrans_segs\":%.0f",
		(double)res.retrans_bytes + s_rtb, (double)res.retrans_segs + s_rts);
	fprintf(f, ",\"verify\":{\"enabled\":%s,\"ok\":%s,\"client_errors\":%" PRIu64
		",\"server_errors\":%.0f}}\n", o.verify ? "true" : "false",
		o.verify ? (verify_ok && !res.vbad && !s_vbad ? "true" : "false") : "null",
		res.vbad, s_vbad);
	fflush(f);
	return res.error ? 1 : 0;
}

/* ---- arguments ---- */

static void usage(FILE *f)
{
	fprintf(f,
"Usage: tonic-perf -s [-P PORT] [-B ADDR] [-4|-6] [--once]\n"
"       tonic-perf -H HOST [OPTIONS]\n"
"\n"
"Benchmark Tonic (IPPROTO_TONIC) and Linux TCP side by side.\n"
"\n"
"Common:\n"
"  -P, --port PORT       control port (default %d); data uses PORT+1\n"
"      --data-port PORT  data port instead of PORT+1 (server)\n"
"  -4, -6                IPv4 or IPv6 only\n"
"  -q, --quiet           no progress or summary, only the JSON line\n"
"Server:\n"
"  -s, --server          run the server (serves tests one after another)\n"
"  -B, --bind ADDR       listen on ADDR (default: every address)\n"
"      --once            exit after one test\n"
"Client:\n"
"  -H, --host HOST       run a test against the server on HOST\n"
"  -m, --mode MODE       stream (goodput, client to server) or rr\n"
"                        (request/response latency); default stream\n"
"  -p, --proto PROTO     tcp or tonic (default tcp)\n"
"      --cc NAME         TCP congestion control (TCP_CONGESTION), tcp only\n"
"      --prog NAME       Tonic transport-logic program (TONIC_PROTOCOL), tonic only\n"
"  -c, --conns N         concurrent connections (1..%d, default 1)\n"
"  -l, --length SECONDS  test duration (default 10)\n"
"  -r, --req BYTES       rr request size (default 1024)\n"
"  -R, --resp BYTES      rr response size (default: the request size)\n"
"  -w, --write BYTES     stream write size (default 131072)\n"
"      --verify          check every byte against the sent pattern and\n"
"                        compare checksums of both directions\n"
"      --nodelay / --no-nodelay  TCP_NODELAY, or a Tonic flush delay of 0\n"
"                        (default: on for rr, off for stream)\n"
"  -i, --interval S      progress line every S seconds on stderr (default 1\n"
"                        when the test lasts 10 s or more, 0 = none)\n"
"      --drain S         how long to wait for the last data after the end (30)\n"
"      --label TEXT      copied into the JSON output\n"
"      --hist            rr: add the latency histogram to the JSON output\n"
"  -h, --help            this text\n"
"  -V, --version         the version\n"
"\n"
"The client prints a summary and, as its last line, a JSON object with\n"
"goodput, latency percentiles, CPU seconds per GB (getrusage of both sides)\n"
"and retransmitted bytes. Exit status: 0 ok, 1 test failed, 2 bad arguments.\n",
		DEFAULT_PORT, MAX_CONNS);
}

static long num_arg(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v;
	long mult = 1;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end != s && *end) {
		if (!strcmp(end, "k") || !strcmp(end, "K"))
			mult = 1024, end++;
		else if (!strcmp(end, "m") || !strcmp(end, "M"))
			mult = 1024 * 1024, end++;
	}
	if (errno || end == s || *end || v > hi / mult || v * mult < lo)
		die_usage("invalid value for %s: '%s' (expected an integer in %ld..%ld)",
			  opt, s, lo, hi);
	return v * mult;
}

static double sec_arg(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi))
		die_usage("invalid value for %s: '%s' (expected seconds in %g..%g)", opt, s, lo, hi);
	return v;
}

enum { OPT_CC = 256, OPT_PROG, OPT_VERIFY, OPT_NODELAY, OPT_NO_NODELAY, OPT_ONCE,
       OPT_LABEL, OPT_DRAIN, OPT_DATA_PORT, OPT_HIST };

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "server", no_argument, NULL, 's' },
		{ "host", required_argument, NULL, 'H' },
		{ "port", required_argument, NULL, 'P' },
		{ "bind", required_argument, NULL, 'B' },
		{ "mode", required_argument, NULL, 'm' },
		{ "proto", required_argument, NULL, 'p' },
		{ "conns", required_argument, NULL, 'c' },
		{ "length", required_argument, NULL, 'l' },
		{ "req", required_argument, NULL, 'r' },
		{ "resp", required_argument, NULL, 'R' },
		{ "write", required_argument, NULL, 'w' },
		{ "interval", required_argument, NULL, 'i' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "cc", required_argument, NULL, OPT_CC },
		{ "prog", required_argument, NULL, OPT_PROG },
		{ "verify", no_argument, NULL, OPT_VERIFY },
		{ "nodelay", no_argument, NULL, OPT_NODELAY },
		{ "no-nodelay", no_argument, NULL, OPT_NO_NODELAY },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "label", required_argument, NULL, OPT_LABEL },
		{ "drain", required_argument, NULL, OPT_DRAIN },
		{ "data-port", required_argument, NULL, OPT_DATA_PORT },
		{ "hist", no_argument, NULL, OPT_HIST },
		{ NULL, 0, NULL, 0 }
	};
	bool client_opt = false;
	int ch;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":sH:P:B:m:p:c:l:r:R:w:i:qhV46", lo, NULL)) != -1) {
		switch (ch) {
		case 's': o.server = true; break;
		case 'H': o.host = optarg; break;
		case 'P': o.port = (int)num_arg("-P", optarg, 1, 65534); break;
		case OPT_DATA_PORT:
			o.data_port = (int)num_arg("--data-port", optarg, 1, 65535); break;
		case 'B': o.bind_addr = optarg; break;
		case 'm':
			client_opt = true;
			if (!strcmp(optarg, "stream"))
				o.mode = MODE_STREAM;
			else if (!strcmp(optarg, "rr"))
				o.mode = MODE_RR;
			else
				die_usage("invalid mode '%s' (expected stream or rr)", optarg);
			break;
		case 'p':
			client_opt = true;
			if (!strcmp(optarg, "tcp"))
				o.proto = IPPROTO_TCP;
			else if (!strcmp(optarg, "tonic"))
				o.proto = IPPROTO_TONIC;
			else
				die_usage("invalid protocol '%s' (expected tcp or tonic)", optarg);
			break;
		case 'c':
			client_opt = true;
			o.conns = (int)num_arg("-c", optarg, 1, MAX_CONNS); break;
		case 'l':
			client_opt = true;
			o.duration = sec_arg("-l", optarg, 0.1, 86400); break;
		case 'r':
			client_opt = true;
			o.req = num_arg("-r", optarg, 1, MAX_MSG); break;
		case 'R':
			client_opt = true;
			o.resp = num_arg("-R", optarg, 1, MAX_MSG); break;
		case 'w':
			client_opt = true;
			o.wsize = num_arg("-w", optarg, 1, MAX_MSG); break;
		case 'i': o.interval = sec_arg("-i", optarg, 0, 86400); break;
		case 'q': o.quiet = true; break;
		case '4': o.family = AF_INET; break;
		case '6': o.family = AF_INET6; break;
		case OPT_CC:
			client_opt = true;
			if (!*optarg || strlen(optarg) >= 16 || strchr(optarg, ' '))
				die_usage("invalid --cc name '%s'", optarg);
			o.cc = optarg; break;
		case OPT_PROG:
			client_opt = true;
			if (!*optarg || strlen(optarg) >= TONIC_PROTO_NAME_MAX || strchr(optarg, ' '))
				die_usage("invalid --prog name '%s' (at most %d characters)",
					  optarg, TONIC_PROTO_NAME_MAX - 1);
			o.prog = optarg; break;
		case OPT_VERIFY: client_opt = true; o.verify = true; break;
		case OPT_NODELAY: client_opt = true; o.nodelay = 1; break;
		case OPT_NO_NODELAY: client_opt = true; o.nodelay = 0; break;
		case OPT_ONCE: o.once = true; break;
		case OPT_HIST: client_opt = true; o.hist = true; break;
		case OPT_LABEL: o.label = optarg; break;
		case OPT_DRAIN: o.drain = sec_arg("--drain", optarg, 0, 3600); break;
		case 'h': usage(stdout); exit(0);
		case 'V':
			printf("tonic-perf %s (TONIC_PROTOCOL: %s, TONIC_INFO: %s)\n", VERSION,
#ifdef TONIC_PROTOCOL
			       "yes",
#else
			       "no",
#endif
#ifdef TONIC_INFO
			       "yes");
#else
			       "no");
#endif
			exit(0);
		case ':': die_usage("option '%s' needs a value", argv[optind - 1]);
		default:
			if (optopt)
				die_usage("unknown option '-%c'", optopt);
			die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (o.server == !!o.host)
		die_usage("give either -s (server) or -H HOST (client)");
	if (o.server && client_opt)
		die_usage("test options (-m, -p, -c, -l, -r, -R, -w, --cc, --prog, ...) belong to the client");
	if (o.cc && o.proto != IPPROTO_TCP)
		die_usage("--cc applies to -p tcp only");
	if (o.prog && o.proto != IPPROTO_TONIC)
		die_usage("--prog applies to -p tonic only");
#ifndef TONIC_PROTOCOL
	if (o.prog)
		die_usage("--prog: linux/tonic.h has no TONIC_PROTOCOL option in this build");
#endif
	if (o.resp < 0)
		o.resp = o.req;
	if (o.nodelay < 0)
		o.nodelay = o.mode == MODE_RR;
}

int main(int argc, char **argv)
{
	parse_args(argc, argv);
	signal(SIGPIPE, SIG_IGN);
	pattern_init();
	if (o.server)
		return run_server();
	run_client();
	return client_report();
}
