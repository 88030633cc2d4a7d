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
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

#ifndef MHL_VERSION
#define MHL_VERSION "unknown"	/* the Makefile passes git describe */
#endif

static int cmdHelp(int argc, char **argv);

static const mhlCmd cmds[] = {
	{ "run", "SCENARIO...", "boot a guest per trial, run the scenario's steps, record the outcome",
	  mhlCmdRunOpts, mhlCmdRun,
	  "0 every trial passed, was skipped or failed as a known deviation (xfail), not all skipped, 1 some failed, erred, passed unexpectedly (xpass), were interrupted or not run, 2 usage or setup error (nothing was run), 4 every trial was skipped (kselftest's skip)" },
	{ "soak", "SCENARIO", "one long-lived guest, a seeded schedule of pins and resizes, checkpoints (docs/soak.md)",
	  mhlCmdSoakOpts, mhlCmdSoak,
	  "0 no finding, 1 findings (or interrupted), 2 usage or setup error" },
	{ "check", "SCENARIO...", "validate scenario files without booting anything", mhlCmdCheckOpts,
	  mhlCmdCheck, "0 every file accepted, 1 some file refused, 2 usage error (an unknown option, no file named)" },
	{ "report", "RUN_DIR...", "render RUN_DIR/trials.jsonl as HTML, JUnit, KTAP, KCIDB into RUN_DIR/report (--history -o OUT_DIR: several runs over time)",
	  mhlCmdReportOpts, mhlCmdReport,
	  "0 rendered, 1 an unreadable line (in either run), a lost trial (started, never recorded), a regression since --compare's run (with --history: in the newest run) or a format not written, 2 usage error, a missing or empty run" },
	{ "doctor", "", "check the host: libvirt, QEMU, KVM, kernels, guest image, memory",
	  mhlCmdDoctorOpts, mhlCmdDoctor, "0 ready (WARN lines allowed: TCG instead of KVM, a kernel not asked for not built), 1 something to fix (a FAIL line), 2 usage error" },
	{ "cleanup", "", "remove what runs that are gone left: embedded roots, their guests; --uri: a daemon's domains; --volumes: its fleet volumes",
	  mhlCmdCleanupOpts, mhlCmdCleanup,
	  "0 cleaned (or nothing to clean), 1 a daemon's domains or volumes could not be listed or removed, 2 usage error or no connection" },
	{ "help", "[COMMAND]", "show help", NULL, cmdHelp, "0, 2 unknown command" },
	{ NULL, NULL, NULL, NULL, NULL, NULL }
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
	fprintf(f, "exit status: %s\n", c->exits);
}

/* The environment memhp-lab (and its Makefile) reads: the man page's ENVIRONMENT, docs/cli.md. */
static const struct {
	const char *name;
	const char *help;
} envVars[] = {
	{ "MEMHP_CACHE", "where the guest kernels and the KVM probe's answer are cached (default ~/.cache/memhp-lab)" },
	{ "MEMHP_ACCEL", "kvm or tcg: skip the KVM probe and use this accelerator" },
	{ "MEMHP_KVM_DEVICE", "the device node the KVM probe opens first (default /dev/kvm; for tests)" },
	{ "MEMHP_CONSOLE_MAX", "a console log's cap, a size of 4 KiB or more (default 64M); past it the log keeps its head and the guest's last lines (a quarter of the cap, 1 MiB at most), the bytes between dropped and counted (console_truncated)" },
	{ "MEMHP_ARTIFACT_URL", "where CI publishes the run directory (report --artifact-url's default): KCIDB log_url and JUnit's console-log lines point under it" },
	{ "MEMHP_GNUPLOT", "the gnuplot binary the HTML report runs (default gnuplot from PATH)" },
	{ "LIBVIRT_DEFAULT_URI", "the libvirt URI of run, soak, doctor and cleanup when neither --uri nor -c is given (as virsh; memhp-lab -c URI sets it for every command); unset: the embedded driver" },
	{ "LIBVIRT_LOG_OUTPUTS", "libvirt's log outputs; unset, memhp-lab logs to RUN_DIR/libvirt.log" },
	{ "CI_NODE_INDEX", "run --shard auto in a GitLab CI parallel: job: this job's shard, from 1" },
	{ "CI_NODE_TOTAL", "run --shard auto in a GitLab CI parallel: job: the number of shards" },
	{ "SLURM_ARRAY_TASK_ID", "run --shard auto in a Slurm job array: this task's id" },
	{ "SLURM_ARRAY_TASK_MIN", "run --shard auto in a Slurm job array: the first id (default 0)" },
	{ "SLURM_ARRAY_TASK_COUNT", "run --shard auto in a Slurm job array: the number of shards" },
	{ "JOB_COMPLETION_INDEX", "run --shard auto in a Kubernetes Indexed Job: this pod's shard, from 0" },
	{ "MEMHP_SHARDS", "run --shard auto in a Kubernetes Indexed Job: the number of shards (the Job's completions)" },
	{ NULL, NULL }
};

/*
 * How bash completes an option's value, by the value's name in the table
 * (mhlOpt.arg): a compgen action; unnamed ones complete nothing.
 */
static const struct {
	const char *arg;
	const char *compgen;
} complArgs[] = {
	{ "DIR", "-d" },
	{ "RUN_DIR", "-d" },
	{ "OTHER_RUN", "-d" },
	{ "FILE", "-f" },
	{ "KVER", "-W '6.12 6.1'" },
	{ "POLICY", "-W 'series baseline'" },
	{ "LIST", "-W 'html junit ktap kcidb html,junit,ktap,kcidb'" },
	{ NULL, NULL }
};

/* @s for roff: backslashes and hyphens escaped, a leading dot or quote made literal. */
static char *manEscape(const char *s)
{
	GString *g = g_string_new(NULL);

	if (*s == '.' || *s == '\'')
		g_string_append(g, "\\&");
	for (; *s; s++) {
		if (*s == '\\')
			g_string_append(g, "\\e");
		else if (*s == '-')
			g_string_append(g, "\\-");
		else
			g_string_append_c(g, *s);
	}
	return g_string_free(g, FALSE);
}

/* memhp-lab.1, from the tables that drive parsing and --help (make install puts it in man1/). */
static void manPage(FILE *f)
{
	const mhlCmd *c;
	int i;

	fprintf(f, ".\\\" memhp-lab.1 - generated by 'memhp-lab --man' from the option tables; do not edit\n");
	fprintf(f, ".TH MEMHP\\-LAB 1 \"\" \"memhp-lab %s\" \"User Commands\"\n", MHL_VERSION);
	fprintf(f, ".SH NAME\nmemhp\\-lab \\- boot NUMA QEMU guests with virtio\\-mem, long\\-term pin their memory, unplug it, record what happened\n");
	fprintf(f, ".SH SYNOPSIS\n.B memhp\\-lab\n.I COMMAND\n[\\fIOPTION\\fR]... [\\fIARG\\fR]...\n.br\n"
		   ".B memhp\\-lab\n.BR \\-\\-version \" | \" \\-\\-help \" | \" \\-\\-man \" | \" \\-\\-bash\\-completion\n");
	fprintf(f, ".SH DESCRIPTION\nmemhp\\-lab boots one libvirt QEMU guest per trial of a scenario (YAML), "
		   "long\\-term pins guest memory as RDMA, VFIO and io_uring do, asks the host to take the "
		   "virtio\\-mem memory back and appends one JSON record per trial to RUN_DIR/trials.jsonl, "
		   "rendered as HTML, JUnit, KTAP and KCIDB reports. Without a libvirt URI it runs the embedded "
		   "QEMU driver in a private root, no daemon needed.\n");
	fprintf(f, ".SH COMMANDS\n");
	for (c = cmds; c->name; c++) {
		const mhlOpt *o;
		g_autofree char *sum = manEscape(c->summary), *ex = manEscape(c->exits);

		fprintf(f, ".SS \"memhp\\-lab %s [OPTION]... %s\"\n%s.\n", c->name, c->args, sum);
		for (o = c->opts; o && o->name; o++) {
			g_autofree char *help = manEscape(o->help);

			fprintf(f, ".TP\n");
			if (o->val < MHL_LONG_ONLY)
				fprintf(f, "\\fB\\-%c\\fR, ", o->val);
			fprintf(f, "\\fB\\-\\-%s\\fR%s%s%s\n%s\n", o->name, o->arg ? " \\fI" : "",
				o->arg ? o->arg : "", o->arg ? "\\fR" : "", help);
		}
		fprintf(f, ".PP\nExit status: %s.\n", ex);
	}
	fprintf(f, ".SH EXIT STATUS\nThe same meaning for every command: 0 success (every trial passed), "
		   "1 something failed (a trial, a check, a regression), 2 usage or setup error (nothing was run); "
		   "what each means per command is listed with it above.\n");
	fprintf(f, ".SH ENVIRONMENT\n");
	for (i = 0; envVars[i].name; i++) {
		g_autofree char *help = manEscape(envVars[i].help);

		fprintf(f, ".TP\n.B %s\n%s\n", envVars[i].name, help);
	}
	fprintf(f, ".SH FILES\n.TP\n.I RUN_DIR/trials.jsonl\none JSON record per trial (docs/record.md)\n"
		   ".TP\n.I RUN_DIR/report/\nindex.html, junit.xml, results.ktap, kcidb.json\n"
		   ".TP\n.I PREFIX/share/memhp\\-lab/\nthe guest image, domains/, kernel/, scenarios/, docs/ (docs/cli.md: JSON outputs and their schemas)\n");
	fprintf(f, ".SH SEE ALSO\n.BR virsh (1),\n.BR qemu\\-system\\-x86_64 (1)\n");
}

/* The bash completion of memhp-lab: commands, each one's options and their values, scenario files. */
static void bashCompletion(FILE *f)
{
	const mhlCmd *c;
	int i;

	fprintf(f, "# bash completion for memhp-lab - generated by 'memhp-lab --bash-completion'"
		   " from the option tables; do not edit\n");
	fprintf(f, "_memhp_lab()\n{\n\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}"
		   " cmd=${COMP_WORDS[1]} opts= args=\n");
	fprintf(f, "\tif [ \"$COMP_CWORD\" = 1 ]; then\n\t\tCOMPREPLY=($(compgen -W '");
	for (c = cmds; c->name; c++)
		fprintf(f, "%s ", c->name);
	fprintf(f, "--help --version' -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase $cmd in\n");
	for (c = cmds; c->name; c++) {
		const mhlOpt *o;

		fprintf(f, "\t%s)\n\t\topts='", c->name);
		for (o = c->opts; o && o->name; o++) {
			if (o->val < MHL_LONG_ONLY)
				fprintf(f, "-%c ", o->val);
			fprintf(f, "--%s ", o->name);
		}
		fprintf(f, "'\n\t\tcase $prev in\n");
		for (o = c->opts; o && o->name; o++) {
			const char *act = "";

			if (!o->arg)
				continue;
			for (i = 0; complArgs[i].arg; i++)
				if (!strcmp(complArgs[i].arg, o->arg))
					act = complArgs[i].compgen;
			if (o->val < MHL_LONG_ONLY)
				fprintf(f, "\t\t-%c|", o->val);
			else
				fprintf(f, "\t\t");
			if (*act)
				fprintf(f, "--%s) COMPREPLY=($(compgen %s -- \"$cur\")); return;;\n", o->name, act);
			else
				fprintf(f, "--%s) COMPREPLY=(); return;;\n", o->name);
		}
		fprintf(f, "\t\tesac\n");
		if (g_str_has_prefix(c->args, "SCENARIO"))
			fprintf(f, "\t\targs=scenario;;\n");
		else if (g_str_has_prefix(c->args, "RUN_DIR"))
			fprintf(f, "\t\targs=dir;;\n");
		else if (!strcmp(c->args, "[COMMAND]"))
			fprintf(f, "\t\targs=command;;\n");
		else
			fprintf(f, "\t\t;;\n");
	}
	fprintf(f, "\tesac\n");
	fprintf(f, "\tif [[ $cur == -* ]]; then\n\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n");
	fprintf(f, "\telif [ \"$args\" = scenario ]; then\n"
		   "\t\t# scenario files (*.yaml, *.yml) and directories to descend into\n"
		   "\t\tcompopt -o filenames 2>/dev/null\n"
		   "\t\tCOMPREPLY=($(compgen -d -- \"$cur\") $(compgen -f -X '!*.yaml' -- \"$cur\")"
		   " $(compgen -f -X '!*.yml' -- \"$cur\"))\n");
	fprintf(f, "\telif [ \"$args\" = dir ]; then\n\t\tcompopt -o filenames 2>/dev/null\n"
		   "\t\tCOMPREPLY=($(compgen -d -- \"$cur\"))\n");
	fprintf(f, "\telif [ \"$args\" = command ]; then\n\t\tCOMPREPLY=($(compgen -W '");
	for (c = cmds; c->name; c++)
		fprintf(f, "%s ", c->name);
	fprintf(f, "' -- \"$cur\"))\n\tfi\n}\ncomplete -F _memhp_lab memhp-lab\n");
}

static void usage(FILE *f)
{
	const mhlCmd *c;

	fprintf(f, "usage: memhp-lab [-c URI] [-d] COMMAND [OPTION]... [ARG]...\n\n"
		   "  -c, --connect URI  the libvirt URI for every command (as LIBVIRT_DEFAULT_URI; a command's own -c wins)\n"
		   "  -d, --debug        errors with their source location (file.c:LINE), debug messages on stderr\n\n"
		   "commands:\n");
	for (c = cmds; c->name; c++)
		fprintf(f, "  %-8s %-10s %s\n", c->name, c->args, c->summary);
	fprintf(f, "\nexit status: 0 all passed, 1 some failed, 2 usage or setup error (per command: memhp-lab help COMMAND)\n"
		   "memhp-lab --man and --bash-completion print the man page and the bash completion (make install installs both)\n");
}

const mhlCmd *mhlCmdFind(const char *name)
{
	const mhlCmd *c;

	for (c = cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

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
		usage(stdout);
	return MHL_EXIT_PASS;
}

/*
 * glibc's allocator, set for a process that runs for days (issue 29): by
 * default a freed mmap'ed block raises the mmap threshold to its size (the
 * console scan's 1 MiB read buffer, an agent reply, a slabinfo), so later
 * big buffers come from the heap among long-lived small ones and the heap
 * grows in steps it never trims, and every thread that allocates may get an
 * arena of its own. A 20-minute soak here grew 25.9 -> 26.5 MiB of RSS (621
 * B/cycle, significant) with a live heap that did not grow (ASan's heap
 * profile, cycles 10 to 40); with these three settings (as GLIBC_TUNABLES)
 * the same soak held 24.8 MiB flat from cycle 26 to its end, slope 0.
 * Before any thread starts.
 */
static void mallocSettings(void)
{
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);	/* fixed: blocks this big are mmap'ed and unmapped at free */
	mallopt(M_TRIM_THRESHOLD, 256 * 1024);	/* fixed: free memory at the heap's top goes back beyond it */
	mallopt(M_ARENA_MAX, 1);		/* one arena: the threads mostly wait on libvirt and the guest */
}

int main(int argc, char **argv)
{
	const mhlCmd *c;
	int rc;

	mallocSettings();
	/* global options, virsh's: -c URI and -d before the command */
	while (argc >= 2 && argv[1][0] == '-') {
		if ((!strcmp(argv[1], "-c") || !strcmp(argv[1], "--connect")) && argc >= 3) {
			g_setenv("LIBVIRT_DEFAULT_URI", argv[2], TRUE);
			argc -= 2;
			argv += 2;
		} else if (!strncmp(argv[1], "--connect=", 10)) {
			g_setenv("LIBVIRT_DEFAULT_URI", argv[1] + 10, TRUE);
			argc--;
			argv++;
		} else if (!strcmp(argv[1], "-d") || !strcmp(argv[1], "--debug")) {
			mhlErrorDebug = true;
			g_log_set_debug_enabled(TRUE);
			argc--;
			argv++;
		} else if (!strcmp(argv[1], "-c") || !strcmp(argv[1], "--connect")) {
			fprintf(stderr, "error: %s needs a libvirt URI\n", argv[1]);
			return MHL_EXIT_USAGE;
		} else {
			break;
		}
	}
	argv[0] = (char *)"memhp-lab";
	if (argc < 2) {
		usage(stderr);
		return MHL_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmdHelp(1, argv);
	if (!strcmp(argv[1], "--man")) {
		manPage(stdout);
		return MHL_EXIT_PASS;
	}
	if (!strcmp(argv[1], "--bash-completion")) {
		bashCompletion(stdout);
		return MHL_EXIT_PASS;
	}
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
