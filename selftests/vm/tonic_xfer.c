// SPDX-License-Identifier: GPL-2.0
/*
 * tonic_xfer: the socket test tool for the VM selftests.
 *
 *   tonic_xfer server [-6] [-p PORT] [-c COUNT] [-R MS] [-f]
 *	Accept COUNT connections one after another.  Read each to EOF,
 *	then answer "<bytes> <sha256>\n" and close (so every transfer also
 *	exercises the half-close).  -R MS: read nothing, wait MS and close
 *	with the data unread, which must reset the connection.  -f: serve
 *	each connection in a child process, so that a slow one does not
 *	hold up the next.
 *   tonic_xfer client [-6] -a ADDR [-p PORT] -b BYTES [-w WRITE] [-s SEED]
 *		       [-F FLUSH_US] [-S SEG] [-K WIN] [-N] [-E]
 *	Connect (-N: non-blocking, then poll and SO_ERROR), send BYTES of a
 *	seeded pseudo-random stream in WRITE-byte writes, shutdown(SHUT_WR),
 *	read the server's answer and compare it with its own count and
 *	SHA-256.  -E: expect the connection to be reset; print the errno.
 *   tonic_xfer echo [-6] [-p PORT]
 *	Non-blocking epoll echo server; runs until killed.
 *   tonic_xfer many [-6] -a ADDR [-p PORT] -n N
 *	N concurrent non-blocking connects, one 16-byte message each, read
 *	the echo back and check it.
 *
 * Output lines are stable keywords the shell tests grep: "ready",
 * "recv", "sent", "info", "error <where> <ERRNO>", "many".  Exit status:
 * 0 success, 1 data mismatch, 2 usage, 3 connect failed, 4 I/O error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../../uapi/linux/tonic.h"
#include "sha256.h"

static int family = AF_INET;
static int port = 7000;
static const char *addr;
static int proto = IPPROTO_TONIC;

static const char *ename(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "E?";
}

static void fail_errno(const char *where, int code)
{
	printf("error %s %s\n", where, ename(errno));
	fflush(stdout);
	exit(code);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static socklen_t make_addr(struct sockaddr_storage *ss, const char *a, int p)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(p);
		if (a && inet_pton(AF_INET, a, &sin->sin_addr) != 1) {
			fprintf(stderr, "bad address %s\n", a);
			exit(2);
		}
		return sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(p);
		if (a && inet_pton(AF_INET6, a, &sin6->sin6_addr) != 1) {
			fprintf(stderr, "bad address %s\n", a);
			exit(2);
		}
		return sizeof(*sin6);
	}
}

static int listen_on(int p)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(&ss, NULL, p);
	int fd, one = 1;

	fd = socket(family, SOCK_STREAM, proto);
	if (fd < 0)
		fail_errno("socket", 4);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len))
		fail_errno("bind", 4);
	if (listen(fd, 1024))
		fail_errno("listen", 4);
	printf("ready\n");
	fflush(stdout);
	return fd;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

static int run_server(int count, int reset_ms, bool forking)
{
	static char buf[1 << 16];
	int lfd = listen_on(port);
	int i;

	if (forking)
		signal(SIGCHLD, SIG_IGN);	/* no zombies */
	for (i = 0; count <= 0 || i < count; i++) {
		struct sha256 sh;
		unsigned long long total = 0;
		char hex[65], line[128];
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0) {
			if (errno == EINTR)
				continue;
			fail_errno("accept", 4);
		}
		if (forking) {
			pid_t pid = fork();

			if (pid < 0)
				fail_errno("fork", 4);
			if (pid) {
				close(fd);
				continue;
			}
			close(lfd);
			count = 1;	/* the child serves this one and exits */
		}
		if (reset_ms) {
			usleep(reset_ms * 1000);
			close(fd);
			printf("closed-unread\n");
			fflush(stdout);
			continue;
		}
		sha256_init(&sh);
		for (;;) {
			ssize_t n = recv(fd, buf, sizeof(buf), 0);

			if (n < 0) {
				if (errno == EINTR)
					continue;
				printf("error recv %s\n", ename(errno));
				fflush(stdout);
				break;
			}
			if (!n)
				break;
			sha256_update(&sh, buf, n);
			total += n;
		}
		sha256_final_hex(&sh, hex);
		printf("recv %llu %s\n", total, hex);
		fflush(stdout);
		snprintf(line, sizeof(line), "%llu %s\n", total, hex);
		if (write_all(fd, line, strlen(line)))
			printf("error reply %s\n", ename(errno));
		close(fd);
		if (forking)
			_exit(0);
	}
	close(lfd);
	return 0;
}

static uint64_t rng_state;

static void fill(char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		rng_state ^= rng_state << 13;
		rng_state ^= rng_state >> 7;
		rng_state ^= rng_state << 17;
		buf[i] = (char)(rng_state >> 24);
	}
}

static int make_socket(bool nonblock)
{
	int fd = socket(family, SOCK_STREAM | (nonblock ? SOCK_NONBLOCK : 0),
			proto);

	if (fd < 0)
		fail_errno("socket", 4);
	return fd;
}

static void do_connect(int fd, const char *a, int p, bool nonblock)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(&ss, a, p);

	if (!connect(fd, (struct sockaddr *)&ss, len)) {
		if (nonblock) {
			printf("error connect-nonblock-returned-0 -\n");
			exit(3);
		}
		return;
	}
	if (!nonblock)
		fail_errno("connect", 3);
	if (errno != EINPROGRESS)
		fail_errno("connect", 3);
	{
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		int err = 0;
		socklen_t elen = sizeof(err);

		if (poll(&pfd, 1, 120000) != 1) {
			printf("error connect-poll ETIMEDOUT\n");
			exit(3);
		}
		getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen);
		if (err) {
			errno = err;
			fail_errno("connect", 3);
		}
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	}
}

static void print_info(int fd)
{
	struct tonic_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, SOL_TONIC, TONIC_INFO, &ti, &len)) {
		printf("info unavailable %s\n", ename(errno));
		return;
	}
	printf("info state=%u C=%u K=%u cwnd=%u outstanding=%u retrans=%llu timeouts=%llu segs_out=%llu segs_in=%llu acked=%llu received=%llu dup=%llu ooo=%llu subseg=%llu rtt_us=%u proto=%s\n",
	       ti.state, ti.segment_size, ti.window, ti.cwnd, ti.outstanding,
	       (unsigned long long)ti.retransmits,
	       (unsigned long long)ti.timeouts,
	       (unsigned long long)ti.segs_out, (unsigned long long)ti.segs_in,
	       (unsigned long long)ti.bytes_acked,
	       (unsigned long long)ti.bytes_received,
	       (unsigned long long)ti.dup_segs_in,
	       (unsigned long long)ti.ooo_segs_in,
	       (unsigned long long)ti.subsegments, ti.rtt_us, ti.protocol);
}

static int run_client(unsigned long long bytes, size_t wsz, uint64_t seed,
		      int flush_us, int seg, int win, bool nonblock,
		      bool expect_reset)
{
	char *buf = malloc(wsz > 65536 ? wsz : 65536);
	unsigned long long left = bytes, peer_bytes = 0;
	char hex[65], peer_hex[80] = "", reply[256];
	size_t rlen = 0;
	struct sha256 sh;
	double t0, t1;
	int fd;

	fd = make_socket(nonblock);
	if (seg >= 0 && setsockopt(fd, SOL_TONIC, TONIC_SEGMENT_SIZE, &seg,
				   sizeof(seg)))
		fail_errno("setsockopt-seg", 2);
	if (win > 0 && setsockopt(fd, SOL_TONIC, TONIC_WINDOW, &win,
				  sizeof(win)))
		fail_errno("setsockopt-win", 2);
	if (flush_us >= 0 && setsockopt(fd, SOL_TONIC, TONIC_FLUSH_DELAY,
					&flush_us, sizeof(flush_us)))
		fail_errno("setsockopt-flush", 2);
	t0 = now_s();
	do_connect(fd, addr, port, nonblock);

	rng_state = seed ? seed : 0x9e3779b97f4a7c15ULL;
	sha256_init(&sh);
	while (left) {
		size_t n = left < wsz ? left : wsz;

		fill(buf, n);
		sha256_update(&sh, buf, n);
		if (write_all(fd, buf, n)) {
			if (expect_reset) {
				printf("error send %s\n", ename(errno));
				return 0;
			}
			fail_errno("send", 4);
		}
		left -= n;
	}
	sha256_final_hex(&sh, hex);
	if (shutdown(fd, SHUT_WR))
		fail_errno("shutdown", 4);
	for (;;) {
		ssize_t n = recv(fd, reply + rlen, sizeof(reply) - 1 - rlen, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (expect_reset) {
				printf("error recv %s\n", ename(errno));
				return 0;
			}
			fail_errno("recv", 4);
		}
		if (!n)
			break;
		rlen += n;
		if (rlen >= sizeof(reply) - 1)
			break;
	}
	t1 = now_s();
	reply[rlen] = 0;
	if (expect_reset) {
		printf("error none -\n");
		return 1;
	}
	sscanf(reply, "%llu %70s", &peer_bytes, peer_hex);
	printf("sent %llu %s peer %llu %s %s %.3fs %.1fMbit/s\n", bytes, hex,
	       peer_bytes, peer_hex,
	       peer_bytes == bytes && !strcmp(hex, peer_hex) ? "ok" : "MISMATCH",
	       t1 - t0, bytes * 8 / (t1 - t0) / 1e6);
	print_info(fd);
	close(fd);
	return peer_bytes == bytes && !strcmp(hex, peer_hex) ? 0 : 1;
}

struct conn {
	int fd;
	size_t have;
	char buf[64];
};

static int run_echo(void)
{
	struct rlimit rl = { 8192, 8192 };
	struct epoll_event ev, evs[64];
	int lfd = listen_on(port);
	int ep = epoll_create1(0);

	setrlimit(RLIMIT_NOFILE, &rl);
	fcntl(lfd, F_SETFL, O_NONBLOCK);
	ev.events = EPOLLIN;
	ev.data.ptr = NULL;
	epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
	for (;;) {
		int n = epoll_wait(ep, evs, 64, -1), i;

		for (i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;
			char buf[4096];
			ssize_t r;

			if (!c) {
				int fd;

				while ((fd = accept4(lfd, NULL, NULL,
						     SOCK_NONBLOCK)) >= 0) {
					c = calloc(1, sizeof(*c));
					c->fd = fd;
					ev.events = EPOLLIN | EPOLLRDHUP;
					ev.data.ptr = c;
					epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
				}
				continue;
			}
			for (;;) {
				r = recv(c->fd, buf, sizeof(buf), 0);
				if (r > 0) {
					/* Small messages: the send never blocks. */
					if (send(c->fd, buf, r, MSG_NOSIGNAL) != r)
						break;
					continue;
				}
				if (r < 0 && errno == EAGAIN)
					break;
				epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
				close(c->fd);
				free(c);
				break;
			}
		}
	}
	return 0;
}

static int run_many(int n)
{
	struct rlimit rl = { n + 64, n + 64 };
	struct conn *cs = calloc(n, sizeof(*cs));
	struct epoll_event ev, *evs = calloc(n, sizeof(*evs));
	int ep = epoll_create1(0), i, connected = 0, done = 0, bad = 0;
	double t0 = now_s();

	setrlimit(RLIMIT_NOFILE, &rl);
	for (i = 0; i < n; i++) {
		struct sockaddr_storage ss;
		socklen_t len = make_addr(&ss, addr, port);

		cs[i].fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK, proto);
		if (cs[i].fd < 0)
			fail_errno("socket", 4);
		if (connect(cs[i].fd, (struct sockaddr *)&ss, len) &&
		    errno != EINPROGRESS)
			fail_errno("connect", 3);
		ev.events = EPOLLOUT;
		ev.data.u32 = i;
		epoll_ctl(ep, EPOLL_CTL_ADD, cs[i].fd, &ev);
	}
	while (done < n && now_s() - t0 < 300) {
		int k = epoll_wait(ep, evs, n, 1000), j;

		for (j = 0; j < k; j++) {
			struct conn *c = &cs[evs[j].data.u32];

			if (evs[j].events & EPOLLOUT && !c->have) {
				int err = 0;
				socklen_t el = sizeof(err);
				char msg[17];

				getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &el);
				if (err) {
					printf("error connect %s\n", ename(err));
					bad++;
					done++;
					epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
					continue;
				}
				connected++;
				snprintf(msg, sizeof(msg), "msg-%011u", evs[j].data.u32);
				if (send(c->fd, msg, 16, MSG_NOSIGNAL) != 16) {
					bad++;
					done++;
					epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
					continue;
				}
				c->have = 1;	/* sent; now wait for the echo */
				ev.events = EPOLLIN;
				ev.data.u32 = evs[j].data.u32;
				epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
				continue;
			}
			if (evs[j].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
				ssize_t r = recv(c->fd, c->buf + c->have - 1,
						 17 - c->have, 0);
				char want[17];

				if (r <= 0) {
					bad++;
					done++;
					epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
					continue;
				}
				c->have += r;
				if (c->have < 17)
					continue;
				snprintf(want, sizeof(want), "msg-%011u", evs[j].data.u32);
				if (memcmp(c->buf, want, 16))
					bad++;
				done++;
				epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
			}
		}
	}
	for (i = 0; i < n; i++)
		close(cs[i].fd);
	printf("many %d connected %d echoed %d bad %d %.2fs\n", n, connected,
	       done - bad, bad + (n - done), now_s() - t0);
	return bad || done < n;
}

int main(int argc, char **argv)
{
	unsigned long long bytes = 0;
	int count = 0, reset_ms = 0, flush_us = -1, seg = -1, win = 0, n = 0;
	bool nonblock = false, expect_reset = false;
	size_t wsz = 65536;
	uint64_t seed = 0;
	const char *mode;
	bool forking = false;
	int opt;

	if (argc < 2) {
		fprintf(stderr, "usage: tonic_xfer server|client|echo|many ...\n");
		return 2;
	}
	mode = argv[1];
	optind = 2;
	while ((opt = getopt(argc, argv, "6a:p:c:R:b:w:s:F:S:K:NEn:P:f")) != -1) {
		switch (opt) {
		case '6': family = AF_INET6; break;
		case 'a': addr = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'c': count = atoi(optarg); break;
		case 'R': reset_ms = atoi(optarg); break;
		case 'b': bytes = strtoull(optarg, NULL, 0); break;
		case 'w': wsz = strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'F': flush_us = atoi(optarg); break;
		case 'S': seg = atoi(optarg); break;
		case 'K': win = atoi(optarg); break;
		case 'N': nonblock = true; break;
		case 'E': expect_reset = true; break;
		case 'n': n = atoi(optarg); break;
		case 'P': proto = atoi(optarg); break;
		case 'f': forking = true; break;
		default: return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!wsz)
		wsz = 1;
	if (!strcmp(mode, "server"))
		return run_server(count, reset_ms, forking);
	if (!strcmp(mode, "echo"))
		return run_echo();
	if (!addr) {
		fprintf(stderr, "-a ADDR needed\n");
		return 2;
	}
	if (!strcmp(mode, "client"))
		return run_client(bytes, wsz, seed, flush_us, seg, win, nonblock,
				  expect_reset);
	if (!strcmp(mode, "many"))
		return run_many(n);
	fprintf(stderr, "unknown mode %s\n", mode);
	return 2;
}
