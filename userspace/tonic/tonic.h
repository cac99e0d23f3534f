/* SPDX-License-Identifier: GPL-2.0 */
/* tonic CLI: one entry point per subcommand family. */
#ifndef _TONIC_CLI_H
#define _TONIC_CLI_H

/* prog.c: tonic prog load|replace|list|unload|default */
int prog_main(int argc, char **argv);
void prog_usage(void);

/* Netlink commands (nl.c, stats.c, flows.c, config.c, monitor.c). */
extern int tonic_json;		/* -j: JSON output */
extern int tonic_pretty;	/* -p: indented JSON */
int stats_main(int argc, char **argv);
void stats_usage(void);
int flows_main(int argc, char **argv);
void flows_usage(void);
int config_main(int argc, char **argv);
void config_usage(void);
int monitor_main(int argc, char **argv);
void monitor_usage(void);

/* offload.c, run.c: the cgroup shim (issue 16) */
int offload_main(int argc, char **argv);
void offload_usage(void);
int run_main(int argc, char **argv);
void run_usage(void);
int shim_check(void);
const char *tonic_cgroup_root(void);
int offload_add_id(unsigned long long id, const char *protocol);
int offload_del_id(unsigned long long id);

#endif /* _TONIC_CLI_H */
