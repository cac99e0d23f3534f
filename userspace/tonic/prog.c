// SPDX-License-Identifier: GPL-2.0
/*
 * tonic prog - load, list, replace and unload protocol programs.
 *
 *   tonic prog load FILE [VAR=VALUE ...]     attach every struct tonic_ops
 *                                             map of FILE, pin its link at
 *                                             /sys/fs/bpf/tonic/NAME
 *   tonic prog replace FILE [VAR=VALUE ...]  swap the program of a pinned
 *                                             link (bpf_link update, live
 *                                             flows restart with its init)
 *   tonic prog list                          protocols, '*' = default
 *   tonic prog unload NAME                   detach and unpin
 *   tonic prog default NAME                  set net.tonic.default_protocol
 *
 * VAR=VALUE sets a TONIC_PARAM() (const volatile) of the program before
 * load, e.g. irn_rto_low_ns=500000.  Uses libbpf's plain object API
 * (bpftool's skeletons and struct_ops commands do not work with this
 * libbpf and module-defined struct_ops types).  The link is pinned so it
 * outlives this process.  NAME is the map name minus "_ops", which
 * TONIC_PROTO() makes equal to the protocol's name.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/mount.h>
#include <sys/vfs.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "nl.h"

#define PIN_DIR		"/sys/fs/bpf/tonic"
#define BPFFS		"/sys/fs/bpf"
#define SYSCTL_DIR	"/proc/sys/net/tonic/"
#define BPF_FS_MAGIC_	0xcafe4a11

void prog_usage(void)
{
	fprintf(stderr,
		"       tonic prog load FILE|NAME [VAR=VALUE ...]\n"
		"       tonic prog replace FILE|NAME [VAR=VALUE ...]\n"
		"       tonic prog list\n"
		"       tonic prog unload NAME\n"
		"       tonic prog default NAME\n");
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG && !getenv("TONIC_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int ensure_pin_dir(void)
{
	struct statfs fs;

	if (statfs(BPFFS, &fs) || fs.f_type != BPF_FS_MAGIC_) {
		if (mount("bpf", BPFFS, "bpf", 0, NULL)) {
			fprintf(stderr, "tonic: %s is not bpffs and cannot be mounted: %s\n",
				BPFFS, strerror(errno));
			return -1;
		}
	}
	if (mkdir(PIN_DIR, 0700) && errno != EEXIST) {
		fprintf(stderr, "tonic: mkdir %s: %s\n", PIN_DIR, strerror(errno));
		return -1;
	}
	return 0;
}

/* Protocol name of a struct_ops map: "irn_ops" -> "irn". */
static void proto_name(const struct bpf_map *map, char *buf, size_t len)
{
	const char *n = bpf_map__name(map);
	size_t l = strlen(n);

	if (l > 4 && !strcmp(n + l - 4, "_ops"))
		l -= 4;
	if (l >= len)
		l = len - 1;
	memcpy(buf, n, l);
	buf[l] = '\0';
}

/* VAR=VALUE: patch a const volatile variable in .rodata before load. */
static int set_param(struct bpf_object *obj, const char *assign)
{
	const char *eq = strchr(assign, '=');
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec, *var;
	unsigned long long val;
	struct bpf_map *rodata;
	struct btf *btf;
	size_t sz;
	char *data, *end;
	int id, i;

	if (!eq || eq == assign) {
		fprintf(stderr, "tonic: expected VAR=VALUE, got '%s'\n", assign);
		return -1;
	}
	errno = 0;
	val = strtoull(eq + 1, &end, 0);
	if (errno || *end || end == eq + 1) {
		fprintf(stderr, "tonic: bad value in '%s'\n", assign);
		return -1;
	}
	btf = bpf_object__btf(obj);
	rodata = NULL;
	bpf_object__for_each_map(rodata, obj)
		if (strstr(bpf_map__name(rodata), ".rodata"))
			break;
	if (!btf || !rodata) {
		fprintf(stderr, "tonic: program has no parameters\n");
		return -1;
	}
	id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
	if (id < 0) {
		fprintf(stderr, "tonic: program has no .rodata BTF\n");
		return -1;
	}
	sec = btf__type_by_id(btf, id);
	data = bpf_map__initial_value(rodata, &sz);
	vs = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++, vs++) {
		var = btf__type_by_id(btf, vs->type);
		if (strncmp(btf__name_by_offset(btf, var->name_off), assign,
			    eq - assign) ||
		    btf__name_by_offset(btf, var->name_off)[eq - assign])
			continue;
		if (vs->offset + vs->size > sz)
			return -1;
		switch (vs->size) {
		case 1: *(unsigned char *)(data + vs->offset) = val; break;
		case 2: *(unsigned short *)(data + vs->offset) = val; break;
		case 4: *(unsigned int *)(data + vs->offset) = val; break;
		case 8: *(unsigned long long *)(data + vs->offset) = val; break;
		default:
			fprintf(stderr, "tonic: cannot set '%.*s'\n",
				(int)(eq - assign), assign);
			return -1;
		}
		return 0;
	}
	fprintf(stderr, "tonic: no parameter '%.*s'\n", (int)(eq - assign), assign);
	return -1;
}

static struct bpf_object *open_and_load(const char *file, int nparam,
					char **params)
{
	struct bpf_object *obj;
	int i, err;

	obj = bpf_object__open_file(file, NULL);
	if (!obj) {
		fprintf(stderr, "tonic: cannot open %s: %s\n", file, strerror(errno));
		return NULL;
	}
	for (i = 0; i < nparam; i++)
		if (set_param(obj, params[i]))
			goto fail;
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "tonic: loading %s failed: %s\n", file, strerror(-err));
		goto fail;
	}
	return obj;
fail:
	bpf_object__close(obj);
	return NULL;
}

/*
 * A program given by name ("irn") rather than by file: $TONIC_BPF_DIR,
 * then PREFIX/lib/tonic/bpf next to an installed PREFIX/sbin/tonic, then
 * the build tree's bpf/ next to build/tonic.  Return: a path, or @arg.
 */
static const char *prog_file(const char *arg, char *buf, size_t len)
{
	static const char *const rel[] = { "%s/../lib/tonic/bpf/%s.bpf.o",
					   "%s/bpf/%s.bpf.o" };
	const char *env = getenv("TONIC_BPF_DIR");
	char exe[PATH_MAX];
	ssize_t n;
	unsigned int i;

	if (strchr(arg, '/') || strstr(arg, ".o"))
		return arg;
	if (env) {
		snprintf(buf, len, "%s/%s.bpf.o", env, arg);
		if (!access(buf, R_OK))
			return buf;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return arg;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(buf, len, rel[i], exe, arg);
		if (!access(buf, R_OK))
			return buf;
	}
	return arg;
}

static int cmd_load(const char *arg, int nparam, char **params, bool replace)
{
	char fbuf[PATH_MAX + 64];
	const char *file = prog_file(arg, fbuf, sizeof(fbuf));
	struct bpf_object *obj;
	struct bpf_map *map;
	struct bpf_link *link;
	char name[64], path[256];
	int n = 0, err = 0;

	if (ensure_pin_dir())
		return 1;
	obj = open_and_load(file, nparam, params);
	if (!obj)
		return 1;
	bpf_object__for_each_map(map, obj) {
		if (bpf_map__type(map) != BPF_MAP_TYPE_STRUCT_OPS)
			continue;
		proto_name(map, name, sizeof(name));
		snprintf(path, sizeof(path), PIN_DIR "/%s", name);
		if (replace) {
			link = bpf_link__open(path);
			if (!link) {
				fprintf(stderr, "tonic: %s is not loaded (%s): %s\n",
					name, path, strerror(errno));
				err = 1;
				continue;
			}
			err = bpf_link__update_map(link, map);
			if (err) {
				fprintf(stderr, "tonic: replacing %s failed: %s\n",
					name, strerror(-err));
				err = 1;
			} else {
				printf("replaced %s\n", name);
				n++;
			}
			bpf_link__disconnect(link);
			bpf_link__destroy(link);
			continue;
		}
		link = bpf_map__attach_struct_ops(map);
		if (!link) {
			fprintf(stderr, "tonic: attaching %s failed: %s\n", name,
				strerror(errno));
			err = 1;
			continue;
		}
		if (bpf_link__pin(link, path)) {
			fprintf(stderr, "tonic: pinning %s at %s failed: %s\n",
				name, path, strerror(errno));
			bpf_link__destroy(link);
			err = 1;
			continue;
		}
		/* the pin keeps it attached after we exit */
		bpf_link__disconnect(link);
		bpf_link__destroy(link);
		printf("loaded %s (%s)\n", name, path);
		n++;
	}
	bpf_object__close(obj);
	if (!n && !err) {
		fprintf(stderr, "tonic: %s has no struct tonic_ops map\n", file);
		err = 1;
	}
	return err;
}

static int cmd_unload(const char *name)
{
	char path[256];
	int fd, err;

	if (strchr(name, '/') || !*name) {
		fprintf(stderr, "tonic: bad name '%s'\n", name);
		return 1;
	}
	snprintf(path, sizeof(path), PIN_DIR "/%s", name);
	fd = bpf_obj_get(path);
	if (fd < 0) {
		fprintf(stderr, "tonic: %s is not loaded: %s\n", name, strerror(errno));
		return 1;
	}
	/* detach now (unregisters the protocol) rather than at the last put */
	err = bpf_link_detach(fd);
	if (err)
		fprintf(stderr, "tonic: detaching %s: %s\n", name, strerror(errno));
	close(fd);
	if (unlink(path)) {
		fprintf(stderr, "tonic: unpinning %s: %s\n", path, strerror(errno));
		return 1;
	}
	printf("unloaded %s\n", name);
	return 0;
}

static int read_sysctl(const char *name, char *buf, size_t len)
{
	char path[128];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), SYSCTL_DIR "%s", name);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "tonic: %s: %s (is tonic.ko loaded?)\n", path,
			strerror(errno));
		return -1;
	}
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/* prog-get dump: append the names of the built-in protocols to @data. */
static int builtin_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TONIC_A_PROG_MAX + 1];
	char *list = data;
	size_t n = strlen(list);

	tnl_parse(nlh, tb, TONIC_A_PROG_MAX);
	if (tb[TONIC_A_PROG_NAME] && tb[TONIC_A_PROG_BUILTIN])
		snprintf(list + n, 256 - n, " %s ",
			 mnl_attr_get_str(tb[TONIC_A_PROG_NAME]));
	return MNL_CB_OK;
}

/* The built-ins as " a  b ", asked of the module itself; "" on error. */
static void builtin_names(char *list)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct tnl t;

	list[0] = '\0';
	if (tnl_open(&t))
		return;
	tnl_talk(&t, tnl_req(&t, buf, TONIC_CMD_PROG_GET, NLM_F_DUMP),
		 builtin_cb, list, "prog-get");
	tnl_close(&t);
}

/* One protocol: name, default flag, and where its program lives. */
static void list_one(const char *name, bool is_default, const char *builtins)
{
	char word[80];
	char path[300];
	struct bpf_link_info info;
	__u32 len = sizeof(info);
	int fd;

	out_obj_start(NULL);
	out_text("%c %-15s", is_default ? '*' : ' ', name);
	out_str("name", NULL, name);
	out_bool("default", NULL, is_default);
	snprintf(path, sizeof(path), PIN_DIR "/%s", name);
	fd = bpf_obj_get(path);
	memset(&info, 0, sizeof(info));
	if (fd < 0) {
		snprintf(word, sizeof(word), " %s ", name);
		out_str("kind", " %s", strstr(builtins, word) ? "built-in" :
							 "bpf (not pinned)");
	} else {
		out_str("kind", " %s", "bpf");
		if (!bpf_link_get_info_by_fd(fd, &info, &len)) {
			out_u64("link", " link %llu", info.id);
			out_u64("map", " map %llu", info.struct_ops.map_id);
		}
		out_str("pin", " %s", path);
		close(fd);
	}
	out_obj_end();
	out_nl();
}

static int cmd_list(void)
{
	char avail[1024], def[64], builtins[256];
	char *tok, *save = NULL;

	if (read_sysctl("available_protocols", avail, sizeof(avail)) ||
	    read_sysctl("default_protocol", def, sizeof(def)))
		return 1;
	builtin_names(builtins);
	out_arr_start(NULL);
	for (tok = strtok_r(avail, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save))
		list_one(tok, !strcmp(tok, def), builtins);
	out_arr_end();
	return 0;
}

static int cmd_default(const char *name)
{
	FILE *f = fopen(SYSCTL_DIR "default_protocol", "w");

	if (!f) {
		fprintf(stderr, "tonic: %s: %s\n", SYSCTL_DIR "default_protocol",
			strerror(errno));
		return 1;
	}
	fputs(name, f);
	if (fclose(f)) {
		fprintf(stderr, "tonic: cannot make %s the default: %s\n", name,
			strerror(errno));
		return 1;
	}
	return 0;
}

int prog_main(int argc, char **argv)
{
	libbpf_set_print(libbpf_print);
	if (argc >= 3 && !strcmp(argv[1], "load"))
		return cmd_load(argv[2], argc - 3, argv + 3, false);
	if (argc >= 3 && !strcmp(argv[1], "replace"))
		return cmd_load(argv[2], argc - 3, argv + 3, true);
	if (argc == 2 && !strcmp(argv[1], "list"))
		return cmd_list();
	if (argc == 3 && !strcmp(argv[1], "unload"))
		return cmd_unload(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "default"))
		return cmd_default(argv[2]);
	prog_usage();
	return 2;
}
