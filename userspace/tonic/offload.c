// SPDX-License-Identifier: GPL-2.0
/*
 * tonic offload add|del|list CGROUP - make a cgroup's TCP sockets Tonic.
 *
 *   tonic offload add CGROUP [--protocol NAME]
 *   tonic offload del CGROUP
 *   tonic offload list
 *
 * CGROUP is a cgroup2 directory (absolute, or relative to /sys/fs/cgroup);
 * del also takes the id `list` shows, for a cgroup already removed.
 * The shim (shim.bpf.c, embedded) is attached to update_socket_protocol()
 * by the first add and detached by the del that empties its map; its
 * link and map are pinned in /sys/fs/bpf/tonic/shim/.  --protocol maps
 * the cgroup to a protocol program in tonic.ko's cgroup_protocol
 * parameter, read when a socket is created.  run.c uses the same calls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <linux/capability.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "tonic.h"

#define BPFFS		"/sys/fs/bpf"
#define CGROUP_ROOT	"/sys/fs/cgroup"
#define INIT_ROOT	"/proc/1/root"
#define CGROUP2_MAGIC	0x63677270
#define CGROUP_PARAM	"/sys/module/tonic/parameters/cgroup_protocol"
#define PROTOS		"/proc/sys/net/tonic/available_protocols"
#define BPF_FS_MAGIC_	0xcafe4a11
#define HOOK		"update_socket_protocol"

extern const char tonic_shim_obj[], tonic_shim_obj_end[];

/*
 * Where bpffs and cgroup2 are: /sys/fs/..., or, when this mount namespace
 * has its own /sys without them (`ip netns exec` remounts /sys), init's,
 * so that the pins are the system's and the cgroups the real ones.
 */
static char bpffs_dir[64] = BPFFS;
static char cgroup_dir[64] = CGROUP_ROOT;
static char pin_dir[96], shim_dir[96], shim_link[96], shim_map_path[96];

static bool is_fs(const char *path, long magic)
{
	struct statfs fs;

	return !statfs(path, &fs) && fs.f_type == magic;
}

static int find_roots(void)
{
	if (!is_fs(BPFFS, BPF_FS_MAGIC_) && is_fs(INIT_ROOT BPFFS, BPF_FS_MAGIC_))
		strcpy(bpffs_dir, INIT_ROOT BPFFS);
	if (!is_fs(CGROUP_ROOT, CGROUP2_MAGIC)) {
		if (!is_fs(INIT_ROOT CGROUP_ROOT, CGROUP2_MAGIC)) {
			fprintf(stderr, "tonic: no cgroup2 file system at %s\n",
				CGROUP_ROOT);
			return -1;
		}
		strcpy(cgroup_dir, INIT_ROOT CGROUP_ROOT);
	}
	snprintf(pin_dir, sizeof(pin_dir), "%s/tonic", bpffs_dir);
	snprintf(shim_dir, sizeof(shim_dir), "%s/tonic/shim", bpffs_dir);
	snprintf(shim_link, sizeof(shim_link), "%s/tonic/shim/link", bpffs_dir);
	snprintf(shim_map_path, sizeof(shim_map_path), "%s/tonic/shim/cgroups",
		 bpffs_dir);
	return 0;
}

const char *tonic_cgroup_root(void)
{
	return cgroup_dir;
}

void offload_usage(void)
{
	fprintf(stderr,
		"       tonic offload add CGROUP [--protocol NAME]\n"
		"       tonic offload del CGROUP\n"
		"       tonic offload list\n");
}

static int quiet_print(enum libbpf_print_level level, const char *fmt,
		       va_list ap)
{
	if (level == LIBBPF_DEBUG || !getenv("TONIC_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static bool has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1U << (cap % 32));
}

int shim_check(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {};
	const char *hook = getenv("TONIC_SHIM_HOOK") ?: HOOK;
	struct btf *btf;
	int id;

	libbpf_set_print(quiet_print);
	if (syscall(SYS_capget, &h, d) ||
	    !(has_cap(d, CAP_BPF) || has_cap(d, CAP_SYS_ADMIN)) ||
	    !has_cap(d, CAP_NET_ADMIN)) {
		fprintf(stderr, "tonic: offloading needs CAP_BPF and CAP_NET_ADMIN (run as root)\n");
		return -1;
	}
	if (find_roots())
		return -1;
	/* TONIC_SHIM_HOOK: the selftest's way to ask for a missing hook */
	btf = btf__load_vmlinux_btf();
	id = btf ? btf__find_by_name_kind(btf, hook, BTF_KIND_FUNC) : -1;
	btf__free(btf);
	if (id < 0) {
		fprintf(stderr, "tonic: this kernel has no %s() hook in its BTF (Linux 6.6 or later with BTF needed)\n",
			hook);
		return -1;
	}
	return 0;
}

/* Serialises shim attach/detach between concurrent tonic commands. */
static int shim_lock(void)
{
	int fd;

	if (!is_fs(bpffs_dir, BPF_FS_MAGIC_) &&
	    mount("bpf", bpffs_dir, "bpf", 0, NULL)) {
		fprintf(stderr, "tonic: cannot mount bpffs at %s: %s\n", bpffs_dir,
			strerror(errno));
		return -1;
	}
	if ((mkdir(pin_dir, 0700) && errno != EEXIST) ||
	    (mkdir(shim_dir, 0700) && errno != EEXIST)) {
		fprintf(stderr, "tonic: mkdir %s: %s\n", shim_dir, strerror(errno));
		return -1;
	}
	fd = open(shim_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX)) {
		fprintf(stderr, "tonic: locking %s: %s\n", shim_dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* The pinned map of offloaded cgroups, attaching the shim if needed. */
static int shim_map(bool attach)
{
	struct bpf_object *obj;
	struct bpf_link *link;
	struct bpf_program *prog;
	struct bpf_map *map;
	int fd;

	fd = bpf_obj_get(shim_map_path);
	if (fd >= 0 || !attach)
		return fd;
	obj = bpf_object__open_mem(tonic_shim_obj,
				   tonic_shim_obj_end - tonic_shim_obj, NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "tonic: loading the shim failed: %s\n", strerror(errno));
		goto fail;
	}
	prog = bpf_object__find_program_by_name(obj, "tonic_shim");
	map = bpf_object__find_map_by_name(obj, "tonic_cgroups");
	link = prog ? bpf_program__attach_trace(prog) : NULL;
	if (!link) {
		fprintf(stderr, "tonic: attaching the shim to %s failed: %s\n",
			HOOK, strerror(errno));
		goto fail;
	}
	if (bpf_map__pin(map, shim_map_path) || bpf_link__pin(link, shim_link)) {
		fprintf(stderr, "tonic: pinning the shim in %s failed: %s\n",
			shim_dir, strerror(errno));
		unlink(shim_map_path);
		bpf_link__destroy(link);
		goto fail;
	}
	bpf_link__disconnect(link);	/* the pin keeps it attached */
	bpf_link__destroy(link);
	fd = dup(bpf_map__fd(map));
	bpf_object__close(obj);
	return fd;
fail:
	bpf_object__close(obj);
	return -1;
}

/* Detach the shim once no cgroup is offloaded. */
static void shim_detach_if_unused(int map)
{
	__u64 key;
	int fd;

	if (!bpf_map_get_next_key(map, NULL, &key))
		return;
	fd = bpf_obj_get(shim_link);
	if (fd >= 0) {
		bpf_link_detach(fd);
		close(fd);
	}
	unlink(shim_link);
	unlink(shim_map_path);
}

/* cgroup2 id of directory @path: its inode number. */
static int cgroup_id(const char *path, __u64 *id, char *abs, size_t len)
{
	struct statfs fs;
	struct stat st;

	if (path[0] == '/')
		snprintf(abs, len, "%s", path);
	else
		snprintf(abs, len, "%s/%s", cgroup_dir, path);
	if (statfs(abs, &fs) || stat(abs, &st)) {
		fprintf(stderr, "tonic: %s: %s\n", abs, strerror(errno));
		return -1;
	}
	if (fs.f_type != CGROUP2_MAGIC ||
	    !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "tonic: %s is not a cgroup2 directory\n", abs);
		return -1;
	}
	*id = st.st_ino;
	return 0;
}

static int write_param(const char *line)
{
	int fd = open(CGROUP_PARAM, O_WRONLY | O_CLOEXEC);
	int err = 0;

	if (fd < 0 || write(fd, line, strlen(line)) < 0)
		err = -errno;
	if (fd >= 0)
		close(fd);
	return err;
}

/* Is @name one of tonic.ko's protocols in this namespace? */
static int protocol_ok(const char *name)
{
	char buf[1024] = " ", word[64];
	FILE *f = fopen(PROTOS, "r");
	size_t n;

	if (!f) {
		fprintf(stderr, "tonic: --protocol needs tonic.ko loaded (%s: %s)\n",
			PROTOS, strerror(errno));
		return -1;
	}
	n = fread(buf + 1, 1, sizeof(buf) - 3, f);
	fclose(f);
	buf[n + 1] = '\0';
	for (char *p = buf; *p; p++)
		if (*p == '\n')
			*p = ' ';
	strcat(buf, " ");
	snprintf(word, sizeof(word), " %s ", name);
	if (strlen(name) > 15 || !strstr(buf, word)) {
		fprintf(stderr, "tonic: no protocol '%s' (tonic prog list)\n", name);
		return -1;
	}
	return 0;
}

int offload_add_id(unsigned long long id, const char *protocol)
{
	__u32 zero = 0;
	char line[64];
	int lock, map, err = 0;

	if (protocol && protocol_ok(protocol))
		return -1;
	lock = shim_lock();
	if (lock < 0)
		return -1;
	map = shim_map(true);
	if (map < 0) {
		close(lock);
		return -1;
	}
	if (protocol) {
		snprintf(line, sizeof(line), "%llu %s", (unsigned long long)id,
			 protocol);
		err = write_param(line);
		if (err)
			fprintf(stderr, "tonic: %s: %s\n", CGROUP_PARAM, strerror(-err));
	}
	if (!err && bpf_map_update_elem(map, &id, &zero, BPF_ANY)) {
		err = -errno;
		fprintf(stderr, "tonic: adding cgroup %llu to the shim: %s\n",
			(unsigned long long)id, strerror(errno));
	}
	if (err)
		shim_detach_if_unused(map);
	close(map);
	close(lock);
	return err ? -1 : 0;
}

int offload_del_id(unsigned long long id)
{
	char line[32];
	int lock, map, err = 0;

	lock = shim_lock();
	if (lock < 0)
		return -1;
	snprintf(line, sizeof(line), "-%llu", (unsigned long long)id);
	write_param(line);	/* no mapping, or no module: nothing to drop */
	map = shim_map(false);
	if (map < 0 || bpf_map_delete_elem(map, &id)) {
		fprintf(stderr, "tonic: cgroup %llu is not offloaded\n",
			(unsigned long long)id);
		err = -1;
	}
	if (map >= 0) {
		shim_detach_if_unused(map);
		close(map);
	}
	close(lock);
	return err;
}

static __u64 find_ino;
static char find_path[4096];

static int find_cb(const char *path, const struct stat *st, int flag,
		   struct FTW *ftw)
{
	(void)flag;
	(void)ftw;
	if (st->st_ino != find_ino)
		return 0;
	snprintf(find_path, sizeof(find_path), "%s", path);
	return 1;
}

/* The protocol tonic.ko maps cgroup @id to, or "" */
static void param_protocol(__u64 id, char *name, size_t len)
{
	unsigned long long got;
	char buf[64], n[32];
	FILE *f = fopen(CGROUP_PARAM, "r");

	name[0] = '\0';
	while (f && fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "%llu %31s", &got, n) == 2 && got == id)
			snprintf(name, len, "%s", n);
	if (f)
		fclose(f);
}

static int cmd_list(void)
{
	__u64 key, *prev = NULL;
	size_t skip;
	char proto[32];
	int map;

	if (find_roots())
		return 1;
	skip = strncmp(cgroup_dir, INIT_ROOT, strlen(INIT_ROOT)) ? 0 :
	       strlen(INIT_ROOT);
	map = bpf_obj_get(shim_map_path);
	if (map < 0)
		return 0;	/* nothing offloaded */
	while (!bpf_map_get_next_key(map, prev, &key)) {
		find_ino = key;
		strcpy(find_path, "(removed)");
		nftw(cgroup_dir, find_cb, 16, FTW_PHYS | FTW_MOUNT);
		param_protocol(key, proto, sizeof(proto));
		printf("%llu %s%s%s\n", (unsigned long long)key,
		       find_path + (find_path[0] == '/' ? skip : 0),
		       proto[0] ? " protocol " : "", proto);
		prev = &key;
	}
	close(map);
	return 0;
}

int offload_main(int argc, char **argv)
{
	const char *protocol = NULL;
	char abs[4096];
	__u64 id;

	if (argc == 2 && !strcmp(argv[1], "list"))
		return cmd_list();
	if (argc == 5 && !strcmp(argv[3], "--protocol"))
		protocol = argv[4];
	else if (argc != 3)
		goto usage;
	if (strcmp(argv[1], "add") && (strcmp(argv[1], "del") || protocol))
		goto usage;
	if (shim_check())
		return 1;
	/* del by id: the directory may be gone already */
	if (!strcmp(argv[1], "del") && argv[2][0] != '/' &&
	    strspn(argv[2], "0123456789") == strlen(argv[2]))
		id = strtoull(argv[2], NULL, 10);
	else if (cgroup_id(argv[2], &id, abs, sizeof(abs)))
		return 1;
	if (!strcmp(argv[1], "add"))
		return offload_add_id(id, protocol) ? 1 : 0;
	return offload_del_id(id) ? 1 : 0;
usage:
	offload_usage();
	return 2;
}
