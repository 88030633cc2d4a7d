/*
 * opts.c - a command's options parsed from its table (getopt_long), its
 * arguments counted against the registry row, and its libvirt URI.
 */
#include <glib.h>

#include "cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

/* getopt_long tables from ours (@lo: one more entry than @opts has). */
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
	g_autoptr(GString) so = g_string_new("");
	g_autofree struct option *lo = NULL;
	size_t n = 0;
	int ch;

	while (c->opts[n].name)
		n++;
	lo = g_new0(struct option, n + 1);
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
		if (o->arg && g_str_has_suffix(o->arg, "...") && optarg && g_hash_table_contains(vals, o->name))
			g_hash_table_insert(vals, (gpointer)o->name, g_strjoin("\n", (char *)g_hash_table_lookup(vals, o->name),
										optarg, NULL));
		else
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
