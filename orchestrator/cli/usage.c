/*
 * usage.c - --help: memhp-lab's own usage and each command's, printed from
 * the registry (cli/registry.c) and the option tables (cli/cmd-*.c). A help
 * text names a closed set by a token ("{formats}") that is replaced by the
 * set's names from its table, so that no list of them is spelled here.
 */
#include <glib.h>

#include "cli/cli.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "reports/report.h"
#include "scenario/names.h"

/* html,junit,ktap,kcidb */
static char *formatNames(void)
{
	return mhlReportFormatsJoin(offsetof(mhlReportFormatDesc, name), ",", ",");
}

/* HTML, JUnit, KTAP, KCIDB */
static char *formatTitles(void)
{
	return mhlReportFormatsJoin(offsetof(mhlReportFormatDesc, title), ", ", ", ");
}

/* 6.12, 6.1 or 7.3 */
static char *kernelNames(void)
{
	return mhlNamesJoin(MHL_ROWS(mhlKernelForms), " or ");
}

/* series or baseline */
static char *policyNames(void)
{
	return mhlNamesJoin(MHL_ROWS(mhlPinPolicies), " or ");
}

/* debian or backports */
static char *stackNames(void)
{
	return mhlNamesJoin(MHL_ROWS(mhlStacks), " or ");
}

/* The tokens a summary or an option's help may hold, and what replaces them. */
static const struct {
	const char *token;
	char *(*text)(void);
} helpTokens[] = {
	{ "{formats}", formatNames },
	{ "{format titles}", formatTitles },
	{ "{kernels}", kernelNames },
	{ "{pin policies}", policyNames },
	{ "{stacks}", stackNames },
};

char *mhlCliText(const char *text)
{
	GString *g = g_string_new(text);
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(helpTokens); i++) {
		g_autofree char *with = NULL;

		if (!strstr(g->str, helpTokens[i].token))
			continue;
		with = helpTokens[i].text();
		g_string_replace(g, helpTokens[i].token, with, 0);
	}
	return g_string_free(g, FALSE);
}

void mhlCmdUsage(FILE *f, const mhlCmd *c)
{
	g_autofree char *summary = mhlCliText(c->summary);
	const mhlOpt *o;

	fprintf(f, "usage: memhp-lab %s [OPTION]... %s\n  %s\n", c->name, c->args, summary);
	for (o = c->opts; o && o->name; o++) {
		g_autofree char *lhs = g_strdup_printf("--%s%s%s", o->name, o->arg ? " " : "",
						       o->arg ? o->arg : "");
		g_autofree char *help = mhlCliText(o->help);

		if (o->val < MHL_LONG_ONLY)
			fprintf(f, "    -%c, %-22s %s\n", o->val, lhs, help);
		else
			fprintf(f, "        %-22s %s\n", lhs, help);
	}
	fprintf(f, "exit status: %s\n", c->exits);
}

void mhlCliUsage(FILE *f)
{
	const mhlCmd *c;

	fprintf(f, "usage: memhp-lab [-c URI] [-d] COMMAND [OPTION]... [ARG]...\n\n"
		   "  -c, --connect URI  the libvirt URI for every command (as LIBVIRT_DEFAULT_URI; a command's own -c wins)\n"
		   "  -d, --debug        errors with their source location (file.c:LINE), debug messages on stderr\n\n"
		   "commands:\n");
	for (c = mhlCmds(); c->name; c++) {
		g_autofree char *summary = mhlCliText(c->summary);

		fprintf(f, "  %-8s %-10s %s\n", c->name, c->args, summary);
	}
	fprintf(f, "\nexit status: 0 all passed, 1 some failed, 2 usage or setup error (per command: memhp-lab help COMMAND)\n"
		   "memhp-lab --man and --bash-completion print the man page and the bash completion (make install installs both)\n");
}
