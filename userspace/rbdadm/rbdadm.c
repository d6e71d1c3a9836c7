// SPDX-License-Identifier: GPL-2.0
/*
 * rbdadm: the rbd initiator's admin tool. It drives the rbdi module
 * through its configfs tree (/sys/kernel/config/rbdi).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "output.h"
#include "rbdadm.h"

static int cmd_version(int argc, char **argv);
static void usage_version(void);

static const struct cmd cmds[] = {
	{ "login", NULL, "Log in to a LUN and create its block device", cmd_login, usage_login },
	{ "logout", NULL, "Log out and remove a session", cmd_logout, usage_logout },
	{ "restore", NULL, "Log in to every session recorded with --persist", cmd_restore, usage_restore },
	{ "discover", NULL, "List the targets and LUNs a portal offers this initiator", cmd_discover, usage_discover },
	{ "stats", NULL, "Show the counters of a session", cmd_stats, usage_stats },
	{ "rescan", NULL, "Read the LUN's capacity again and resize the device", cmd_rescan, usage_rescan },
	{ "list", NULL, "Show sessions and their devices", cmd_list, usage_list },
	{ "show", NULL, "Show one session in detail (without one: as list)", cmd_show, usage_show },
	{ "gen-initiatorname", NULL, "Print a new initiator name", cmd_geniname, usage_geniname },
	{ "version", NULL, "Show the version of rbdadm", cmd_version, usage_version },
};

#define NR_CMDS (sizeof(cmds) / sizeof(cmds[0]))

static void usage(FILE *f)
{
	size_t i;

	fputs("Usage: rbdadm [-j|--json|-o normal|json] COMMAND [ARGS]\n"
	      "       rbdadm COMMAND --help\n"
	      "\nCommands:\n", f);
	for (i = 0; i < NR_CMDS; i++)
		fprintf(f, "  %-18s %s%s%s%s\n", cmds[i].name, cmds[i].summary,
			cmds[i].alias ? " (alias: " : "",
			cmds[i].alias ? cmds[i].alias : "",
			cmds[i].alias ? ")" : "");
	fputs("\nOptions:\n"
	      "  -j, --json                      JSON output (every command)\n"
	      "  -o, --output-format FORMAT     normal (text, the default) or json\n"
	      "  -h, --help                      this help; after a command, its help\n"
	      "  -V, --version                   the version\n", f);
	usage_exit_status(f);
}

static void usage_version(void)
{
	puts("Usage: rbdadm version [-j|--json|-o normal|json]");
}

static int cmd_version(int argc, char **argv)
{
	int ret;

	ret = parse_common_opts(argc, argv, usage_version);
	if (ret >= 0)
		return ret;
	ret = no_operands(argc, argv, "version");
	if (ret >= 0)
		return ret;
	out_init(opt_json ? OUT_JSON : OUT_TEXT);
	out_str("version", "rbdadm", RBD_VERSION);
	return out_finish() ? EXIT_FAIL : EXIT_OK;
}

int main(int argc, char **argv)
{
	const char *name;
	size_t i;
	int arg, ret;

	ret = parse_global_opts(argc, argv, &arg, usage);
	if (ret >= 0)
		return ret;
	name = argv[arg];
	if (!strcmp(name, "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	for (i = 0; i < NR_CMDS; i++) {
		if (!strcmp(name, cmds[i].name) ||
		    (cmds[i].alias && !strcmp(name, cmds[i].alias)))
			return cmds[i].fn(argc - arg, argv + arg);
	}
	err("unknown command '%s' (see rbdadm --help)", name);
	return EXIT_USAGE;
}
