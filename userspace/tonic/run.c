// SPDX-License-Identifier: GPL-2.0
/*
 * tonic run [--protocol NAME] -- CMD [ARG...]
 *
 * Runs CMD in a cgroup of its own (/sys/fs/cgroup/tonic-run.PID; init's
 * /sys/fs/cgroup under `ip netns exec`, offload.c) that is
 * offloaded (offload.c): its TCP sockets are Tonic sockets, with protocol
 * NAME if given.  Waits for CMD and exits with its status (128 + signal
 * if it was killed); then kills what CMD left in the cgroup, removes the
 * cgroup and detaches the shim if no other offload remains.  SIGINT,
 * SIGTERM and SIGHUP sent to tonic are passed on to CMD.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tonic.h"

static pid_t child;

void run_usage(void)
{
	fprintf(stderr, "       tonic run [--protocol NAME] -- CMD [ARG...]\n");
}

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static int write_file(const char *dir, const char *file, const char *val)
{
	char path[512];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		err = -errno;
	if (fd >= 0)
		close(fd);
	return err;
}

/* Kill what CMD left behind (daemons) and remove the cgroup. */
static void remove_cgroup(const char *cg)
{
	int i;

	write_file(cg, "cgroup.kill", "1");
	for (i = 0; i < 500; i++) {	/* 5 s for the killed to go */
		if (!rmdir(cg) || errno != EBUSY)
			return;
		usleep(10000);
	}
	fprintf(stderr, "tonic: cannot remove %s: %s\n", cg, strerror(errno));
}

int run_main(int argc, char **argv)
{
	const char *protocol = NULL;
	struct sigaction sa = { .sa_handler = forward };
	char cg[160];
	struct stat st;
	int i = 1, status, err;

	if (i + 1 < argc && !strcmp(argv[i], "--protocol")) {
		protocol = argv[i + 1];
		i += 2;
	}
	if (i >= argc || strcmp(argv[i], "--") || i + 1 >= argc) {
		run_usage();
		return 2;
	}
	argv += i + 1;
	if (shim_check())
		return 1;
	snprintf(cg, sizeof(cg), "%s/tonic-run.%d", tonic_cgroup_root(),
		 getpid());
	if (mkdir(cg, 0755) || stat(cg, &st)) {
		fprintf(stderr, "tonic: cannot create cgroup %s: %s\n", cg,
			strerror(errno));
		return 1;
	}
	if (offload_add_id(st.st_ino, protocol)) {
		rmdir(cg);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	child = fork();
	if (child == 0) {
		/* move ourselves first, so CMD never runs outside it */
		err = write_file(cg, "cgroup.procs", "0");
		if (err) {
			fprintf(stderr, "tonic: joining %s: %s\n", cg, strerror(-err));
			_exit(1);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "tonic: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (child < 0) {
		fprintf(stderr, "tonic: fork: %s\n", strerror(errno));
		status = 1 << 8;
	} else {
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
	}
	offload_del_id(st.st_ino);
	remove_cgroup(cg);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
