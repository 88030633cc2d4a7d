/*
 * memhp-lab - the memory-hotplug lab orchestrator.
 *
 * Commands are rows of a table (name, options, handler), as virsh does; usage
 * is printed from the same table. Each command's option table and handler
 * live in cli/cmd-<name>.c. Errors are reported once, where they are known,
 * and printed here as "error: ..." with the file:line of the report.
 */
#include <glib.h>

#include "util.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

#ifndef MHL_VERSION
#define MHL_VERSION "unknown"	/* the Makefile passes git describe */
#endif

static int cmdHelp(int argc, char **argv);

static const mhlCmd cmds[] = {
	{ "run", "SCENARIO...", "boot a guest per trial, run the scenario's steps, record the outcome",
	  mhlCmdRunOpts, mhlCmdRun },
	{ "soak", "SCENARIO", "one long-lived guest, a seeded schedule of pins and resizes, checkpoints (docs/soak.md)",
	  mhlCmdSoakOpts, mhlCmdSoak },
	{ "check", "SCENARIO...", "validate scenario files without booting anything", mhlCmdCheckOpts,
	  mhlCmdCheck },
	{ "report", "RUN_DIR", "render RUN_DIR/trials.jsonl as HTML, JUnit, KTAP, KCIDB into RUN_DIR/report",
	  mhlCmdReportOpts, mhlCmdReport },
	{ "doctor", "", "check the host: libvirt, QEMU, KVM, kernels, guest image, memory",
	  mhlCmdDoctorOpts, mhlCmdDoctor },
	{ "cleanup", "", "remove what runs that are gone left: embedded roots, their guests; --uri: a daemon's domains",
	  mhlCmdCleanupOpts, mhlCmdCleanup },
	{ "help", "[COMMAND]", "show help", NULL, cmdHelp },
	{ NULL, NULL, NULL, NULL, NULL }
};

void mhlCmdUsage(FILE *f, const mhlCmd *c)
{
	const mhlOpt *o;

	fprintf(f, "usage: memhp-lab %s [OPTION]... %s\n  %s\n", c->name, c->args, c->summary);
	for (o = c->opts; o && o->name; o++) {
		g_autofree char *lhs = g_strdup_printf("--%s%s%s", o->name, o->arg ? " " : "",
						       o->arg ? o->arg : "");

		if (o->val < MHL_LONG_ONLY)
			fprintf(f, "    -%c, %-22s %s\n", o->val, lhs, o->help);
		else
			fprintf(f, "        %-22s %s\n", lhs, o->help);
	}
}

static void usage(FILE *f)
{
	const mhlCmd *c;

	fprintf(f, "usage: memhp-lab COMMAND [OPTION]... [ARG]...\n\ncommands:\n");
	for (c = cmds; c->name; c++)
		fprintf(f, "  %-8s %-10s %s\n", c->name, c->args, c->summary);
	fprintf(f, "\nexit status: 0 all trials passed, 1 some failed, 2 usage or setup error\n");
}

const mhlCmd *mhlCmdFind(const char *name)
{
	const mhlCmd *c;

	for (c = cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* getopt_long tables from ours. */
static void optsBuild(const mhlOpt *opts, struct option *lo, GString *so)
{
	int i;

	for (i = 0; opts[i].name; i++) {
		lo[i] = (struct option){ opts[i].name, opts[i].has_arg, NULL, opts[i].val };
		if (opts[i].val >= MHL_LONG_ONLY)
			continue;
		g_string_append_c(so, (char)opts[i].val);
		if (opts[i].has_arg)
			g_string_append_c(so, ':');
	}
	lo[i] = (struct option){ 0 };
}

int mhlCmdParseOpts(const mhlCmd *c, int argc, char **argv, GHashTable *vals)
{
	struct option lo[16];
	g_autoptr(GString) so = g_string_new("");
	int ch;

	optsBuild(c->opts, lo, so);
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, so->str, lo, NULL)) != -1) {
		const mhlOpt *o;

		if (ch == '?' || ch == ':') {
			mhlError("%s: unknown option or missing value: '%s' (see 'memhp-lab %s --help')",
				 c->name, argv[optind - 1], c->name);
			return -1;
		}
		for (o = c->opts; o->name && o->val != ch; o++)
			;
		g_hash_table_insert(vals, (gpointer)o->name, g_strdup(optarg ? optarg : ""));
	}
	return optind;
}

int mhlCmdUri(GHashTable *vals, const char **uri)
{
	const char *u = g_hash_table_lookup(vals, "uri"), *c = g_hash_table_lookup(vals, "connect");
	const char *env = g_getenv("LIBVIRT_DEFAULT_URI");

	if (u && c && strcmp(u, c)) {
		mhlError("--uri '%s' and --connect '%s' name two URIs; give one", u, c);
		return -1;
	}
	*uri = u ? u : c ? c : env && *env ? env : NULL;
	return 0;
}

GHashTable *mhlCmdValsNew(void)
{
	return g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
}

int mhlCmdStart(const char *name, int argc, char **argv, GHashTable *vals, int *first)
{
	const mhlCmd *c = mhlCmdFind(name);

	*first = mhlCmdParseOpts(c, argc, argv, vals);
	if (*first < 0)
		return MHL_EXIT_USAGE;
	if (g_hash_table_contains(vals, "help")) {
		mhlCmdUsage(stdout, c);
		return MHL_EXIT_PASS;
	}
	if (!*c->args && argc != *first) {
		mhlError("%s: takes no arguments (see 'memhp-lab %s --help')", name, name);
		return MHL_EXIT_USAGE;
	}
	/* "X..." takes one or more, "X" exactly one. */
	if (*c->args && (g_str_has_suffix(c->args, "...") ? argc - *first < 1 : argc - *first != 1)) {
		mhlError("%s: expected %s %s, got %d (see 'memhp-lab %s --help')", name,
			 g_str_has_suffix(c->args, "...") ? "at least one" : "one", c->args,
			 argc - *first, name);
		return MHL_EXIT_USAGE;
	}
	return -1;
}

static int cmdHelp(int argc, char **argv)
{
	const mhlCmd *c = argc > 1 ? mhlCmdFind(argv[1]) : NULL;

	if (argc > 1 && !c) {
		mhlError("help: unknown command '%s'", argv[1]);
		return MHL_EXIT_USAGE;
	}
	if (c && c->opts)
		mhlCmdUsage(stdout, c);
	else
		usage(stdout);
	return MHL_EXIT_PASS;
}

int main(int argc, char **argv)
{
	const mhlCmd *c;
	int rc;

	if (argc < 2) {
		usage(stderr);
		return MHL_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmdHelp(1, argv);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("memhp-lab %s\n", MHL_VERSION);
		return MHL_EXIT_PASS;
	}
	c = mhlCmdFind(argv[1]);
	if (!c) {
		g_autoptr(GString) names = g_string_new("");

		for (c = cmds; c->name; c++)
			g_string_append_printf(names, "%s%s", c == cmds ? "" : ", ", c->name);
		fprintf(stderr, "error: unknown command '%s' (commands: %s)\n", argv[1], names->str);
		return MHL_EXIT_USAGE;
	}
	rc = c->handler(argc - 1, argv + 1);
	if (rc != MHL_EXIT_PASS && mhlErrorLast() && strcmp(mhlErrorLast(), "unknown error")) {
		fflush(stdout);
		fprintf(stderr, "error: %s\n", mhlErrorLast());
	}
	return rc;
}
