/*
 * registry.c - memhp-lab's commands as rows of one table (name, arguments,
 * summary, options, handler, exit statuses), as virsh's cmdGroups: --help,
 * the man page and the bash completion (cli/usage.c, cli/man.c) are printed
 * from it, and main() dispatches through it.
 */
#include <glib.h>

#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

#include "util.h"

static int cmdHelp(int argc, char **argv);

static const mhlCmd cmds[] = {
	{ "run", "SCENARIO...", "boot a guest per trial, run the scenario's steps, record the outcome",
	  mhlCmdRunOpts, mhlCmdRun,
	  "0 every trial passed, was skipped or failed as a known deviation (xfail), not all skipped, 1 the kernel under test failed: a trial failed, passed unexpectedly (xpass) or erred in its guest (a crash, a hang, the guest gone), 2 usage or setup error (nothing was run), 3 the lab or the host failed: a trial could not be carried out (libvirt, QEMU, the host), or its record was lost, 4 every trial was skipped (kselftest's skip), 5 interrupted (a signal; trials not run); several: 1 before 5 before 3" },
	{ "soak", "SCENARIO", "one long-lived guest, a seeded schedule of pins and resizes, checkpoints (docs/soak.md)",
	  mhlCmdSoakOpts, mhlCmdSoak,
	  "0 no finding, 1 findings (the kernel under test), 2 usage or setup error, 3 the lab or the host failed (its host went away, no cycle ran, the record not written), 5 interrupted (continue with --resume)" },
	{ "check", "SCENARIO...", "validate scenario files without booting anything", mhlCmdCheckOpts,
	  mhlCmdCheck, "0 every file accepted, 1 some file refused, 2 usage error (an unknown option, no file named)" },
	{ "report", "RUN_DIR...", "render RUN_DIR/trials.jsonl as {format titles} into RUN_DIR/report (--history -o OUT_DIR: several runs over time)",
	  mhlCmdReportOpts, mhlCmdReport,
	  "0 rendered, 1 a regression since --compare's run (with --history: in the newest run), 2 usage error, a missing or empty run, 3 the lab failed: an unreadable line (in either run), a lost trial (started, never recorded), a format or the history not written (gnuplot, the disk); a regression and a failure of the lab: 1" },
	{ "doctor", "", "check the host: libvirt, QEMU, KVM, kernels, guest image, memory",
	  mhlCmdDoctorOpts, mhlCmdDoctor, "0 ready (WARN lines allowed: TCG instead of KVM, a kernel not asked for not built, a kernel's rdma flavour not built), 1 something to fix (a FAIL line), 2 usage error" },
	{ "cleanup", "", "remove what runs that are gone left: embedded roots, their guests; --uri: a daemon's domains; --volumes: its fleet volumes",
	  mhlCmdCleanupOpts, mhlCmdCleanup,
	  "0 cleaned (or nothing to clean), 1 a daemon's domains or volumes could not be listed or removed, 2 usage error or no connection" },
	{ "help", "[COMMAND]", "show help", NULL, cmdHelp, "0, 2 unknown command" },
	{ NULL, NULL, NULL, NULL, NULL, NULL }
};

const mhlCmd *mhlCmds(void)
{
	return cmds;
}

const mhlCmd *mhlCmdFind(const char *name)
{
	const mhlCmd *c;

	for (c = cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static int cmdHelp(int argc, char **argv)
{
	const mhlCmd *c;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: memhp-lab help [COMMAND]\n\nthe commands, or one command's options and exit status\n\nexit status: 0, 2 unknown command\n");
		return MHL_EXIT_PASS;
	}
	c = argc > 1 ? mhlCmdFind(argv[1]) : NULL;

	if (argc > 1 && !c) {
		mhlError("help: unknown command '%s'", argv[1]);
		return MHL_EXIT_USAGE;
	}
	if (c && c->opts)
		mhlCmdUsage(stdout, c);
	else
		mhlCliUsage(stdout);
	return MHL_EXIT_PASS;
}
