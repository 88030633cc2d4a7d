/*
 * dispatch.c - memhp-lab's command line before a command: virsh's global
 * options (-c URI, -d), --help, --man, --bash-completion, --version, then
 * the command's handler through the registry. Errors are reported once,
 * where they are known, and printed here as "error: ..." (with the file:line
 * of the report under -d).
 */
#include <glib.h>

#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

#include "util.h"

/*
 * The global options before the command, taken off @argc/@argv. Returns -1
 * to go on, or an exit status (-c without its URI).
 */
static int globalOpts(int *argc, char ***argv)
{
	while (*argc >= 2 && (*argv)[1][0] == '-') {
		char *a = (*argv)[1];

		if ((!strcmp(a, "-c") || !strcmp(a, "--connect")) && *argc >= 3) {
			g_setenv("LIBVIRT_DEFAULT_URI", (*argv)[2], TRUE);
			*argc -= 2;
			*argv += 2;
		} else if (!strncmp(a, "--connect=", 10)) {
			g_setenv("LIBVIRT_DEFAULT_URI", a + 10, TRUE);
			(*argc)--;
			(*argv)++;
		} else if (!strcmp(a, "-d") || !strcmp(a, "--debug")) {
			mhlErrorDebug = true;
			g_log_set_debug_enabled(TRUE);
			(*argc)--;
			(*argv)++;
		} else if (!strcmp(a, "-c") || !strcmp(a, "--connect")) {
			fprintf(stderr, "error: %s needs a libvirt URI\n", a);
			return MHL_EXIT_USAGE;
		} else {
			break;
		}
	}
	return -1;
}

/* "error: unknown command 'X' (commands: run, soak, ...)" */
static int unknownCommand(const char *name)
{
	g_autoptr(GString) names = g_string_new("");
	const mhlCmd *c;

	for (c = mhlCmds(); c->name; c++)
		g_string_append_printf(names, "%s%s", c == mhlCmds() ? "" : ", ", c->name);
	fprintf(stderr, "error: unknown command '%s' (commands: %s)\n", name, names->str);
	return MHL_EXIT_USAGE;
}

int mhlCliMain(int argc, char **argv)
{
	const mhlCmd *c;
	int rc = globalOpts(&argc, &argv);

	if (rc >= 0)
		return rc;
	argv[0] = (char *)"memhp-lab";
	if (argc < 2) {
		mhlCliUsage(stderr);
		return MHL_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return mhlCmdFind("help")->handler(1, argv);
	if (!strcmp(argv[1], "--man")) {
		mhlCliManPage(stdout);
		return MHL_EXIT_PASS;
	}
	if (!strcmp(argv[1], "--bash-completion")) {
		mhlCliBashCompletion(stdout);
		return MHL_EXIT_PASS;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("memhp-lab %s\n", MHL_VERSION);
		return MHL_EXIT_PASS;
	}
	if (!(c = mhlCmdFind(argv[1])))
		return unknownCommand(argv[1]);
	rc = c->handler(argc - 1, argv + 1);
	if (rc != MHL_EXIT_PASS && mhlErrorLast() && strcmp(mhlErrorLast(), "unknown error")) {
		fflush(stdout);
		fprintf(stderr, "error: %s\n", mhlErrorLast());
	}
	return rc;
}
