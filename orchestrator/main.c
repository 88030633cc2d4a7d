/*
 * memhp-lab - the memory-hotplug lab orchestrator.
 *
 * Commands are rows of a table (name, options, handler), as virsh does; usage
 * is printed from the same table. Errors are reported once, where they are
 * known, and printed here as "error: ..." with the file:line of the report.
 */
#include <glib.h>

#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/accel.h"
#include "cli/doctor.h"
#include "host/kernel.h"
#include "cli/run.h"
#include "reports/report.h"
#include "scenario/scenario.h"
#include "soak/soak.h"
#include "trial/trial.h"

#define EXIT_PASS	0	/* every trial passed */
#define EXIT_FAILED	1	/* some trial failed, erred or was interrupted */
#define EXIT_USAGE	2	/* usage or setup error: nothing was run */

#define MHL_LONG_ONLY 256	/* option values from here on have no short form */

typedef struct {
	const char *name;
	int has_arg;
	int val;
	const char *arg;
	const char *help;
} mhlOpt;

typedef struct {
	const char *name;
	const char *args;
	const char *summary;
	const mhlOpt *opts;
	int (*handler)(int argc, char **argv);
} mhlCmd;

static const mhlOpt runOpts[] = {
	{ "output", 1, 'o', "DIR", "run directory (default results/<scenario>-<time>)" },
	{ "jobs", 1, 'j', "N", "guests at once (default: what host cores and memory allow)" },
	{ "only", 1, MHL_LONG_ONLY + 'O', "PATTERN", "only the trials whose id matches PATTERN (glob)" },
	{ "quiet", 0, 'q', NULL, "no progress lines; just the table of verdicts" },
	{ "json", 0, MHL_LONG_ONLY + 'J', NULL, "the verdicts as one JSON object on stdout" },
	{ "uri", 1, 'u', "URI", "libvirt URI (default: embedded qemu:///embed in a private root)" },
	{ "kernel", 1, MHL_LONG_ONLY + 'K', "KVER", "guest kernel tree, 6.12 or 6.1 (overrides the scenario's kernel:)" },
	{ "pin-policy", 1, MHL_LONG_ONLY + 'p', "POLICY", "series or baseline (overrides the scenario's pin_policy:)" },
	{ "kernel-dir", 1, MHL_LONG_ONLY + 'k', "DIR", "kernel artifact (default: $MEMHP_CACHE/kernel/<kver>/current)" },
	{ "initrd", 1, MHL_LONG_ONLY + 'i', "FILE", "guest initramfs (default: <bindir>/initramfs.cpio.gz)" },
	{ "template", 1, MHL_LONG_ONLY + 't', "FILE", "domain template (default: <bindir>/../domains/numa-virtio-mem.xml)" },
	{ "agent-timeout", 1, MHL_LONG_ONLY + 'a', "SEC", "deadline for the guest agent to answer (default 120)" },
	{ "help", 0, 'h', NULL, "show this help" },
	{ NULL, 0, 0, NULL, NULL }
};
static const mhlOpt checkOpts[] = {
	{ "help", 0, 'h', NULL, "show this help" },
	{ NULL, 0, 0, NULL, NULL }
};

static const mhlOpt reportOpts[] = {
	{ "format", 1, 'f', "LIST", "formats, comma-separated: html,junit,ktap,kcidb (default: all)" },
	{ "compare", 1, 'c', "OTHER_RUN", "HTML: what changed per trial since OTHER_RUN, regressions first" },
	{ "origin", 1, MHL_LONG_ONLY + 'O', "NAME", "KCIDB origin ([a-z0-9_]+, default memhp)" },
	{ "help", 0, 'h', NULL, "show this help" },
	{ NULL, 0, 0, NULL, NULL }
};

static const mhlOpt soakOpts[] = {
	{ "duration", 1, 'd', "D", "soak time: 90s, 30m, 8h, 2d, 1h30m (required unless --cycles or --resume)" },
	{ "seed", 1, 's', "N", "the schedule's seed (default 1)" },
	{ "cycles", 1, 'n', "N", "stop after N cycles (default: no limit)" },
	{ "output", 1, 'o', "DIR", "run directory (default results/soak-<scenario>-<time>)" },
	{ "resume", 1, MHL_LONG_ONLY + 'r', "RUN_DIR", "continue RUN_DIR's soak after its last checkpoint (no SCENARIO)" },
	{ "print-schedule", 0, MHL_LONG_ONLY + 'P', NULL, "print the first --cycles cycles of the schedule as JSON; boot nothing" },
	{ "quiet", 0, 'q', NULL, "no progress lines" },
	{ "uri", 1, 'u', "URI", "libvirt URI (default: embedded qemu:///embed in a private root)" },
	{ "help", 0, 'h', NULL, "show this help" },
	{ NULL, 0, 0, NULL, NULL }
};

static int cmdRun(int argc, char **argv);
static int cmdSoak(int argc, char **argv);
static int cmdCheck(int argc, char **argv);
static int cmdReport(int argc, char **argv);
static int cmdDoctor(int argc, char **argv);
static int cmdHelp(int argc, char **argv);

static const mhlCmd cmds[] = {
	{ "run", "SCENARIO...", "boot a guest per trial, run the scenario's steps, record the outcome",
	  runOpts, cmdRun },
	{ "soak", "SCENARIO", "one long-lived guest, a seeded schedule of pins and resizes, checkpoints (docs/soak.md)",
	  soakOpts, cmdSoak },
	{ "check", "SCENARIO", "validate a scenario file without booting anything", checkOpts, cmdCheck },
	{ "report", "RUN_DIR", "render RUN_DIR/trials.jsonl as HTML, JUnit, KTAP, KCIDB into RUN_DIR/report",
	  reportOpts, cmdReport },
	{ "doctor", "", "check the host: libvirt, QEMU, KVM, kernels, guest image, memory",
	  checkOpts, cmdDoctor },
	{ "help", "[COMMAND]", "show help", NULL, cmdHelp },
	{ NULL, NULL, NULL, NULL, NULL }
};

static void usageCmd(FILE *f, const mhlCmd *c)
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

static const mhlCmd *findCmd(const char *name)
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

static int parseOpts(const mhlCmd *c, int argc, char **argv, GHashTable *vals)
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

static char *exeDir(void)
{
	g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);

	return exe ? g_path_get_dirname(exe) : g_strdup(".");
}

/*
 * Common start of a command taking one SCENARIO: parse the options into
 * @vals, handle --help, check the argument count. Returns an exit status to
 * return at once, or -1 to go on with argv[*first] as the scenario.
 */
static int cmdStart(const char *name, int argc, char **argv, GHashTable *vals, int *first)
{
	const mhlCmd *c = findCmd(name);

	*first = parseOpts(c, argc, argv, vals);
	if (*first < 0)
		return EXIT_USAGE;
	if (g_hash_table_contains(vals, "help")) {
		usageCmd(stdout, c);
		return EXIT_PASS;
	}
	/* "X..." takes one or more, "X" exactly one. */
	if (g_str_has_suffix(c->args, "...") ? argc - *first < 1 : argc - *first != 1) {
		mhlError("%s: expected %s %s, got %d (see 'memhp-lab %s --help')", name,
			 g_str_has_suffix(c->args, "...") ? "at least one" : "one", c->args,
			 argc - *first, name);
		return EXIT_USAGE;
	}
	return -1;
}

static int cmdCheck(int argc, char **argv)
{
	g_autoptr(GHashTable) vals = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
	mhlScenario *s;
	int first, n, rc = cmdStart("check", argc, argv, vals, &first);

	if (rc >= 0)
		return rc;
	if ((n = mhlScenarioLoadAll(argv[first], all)) < 0)
		return EXIT_USAGE;
	s = all->pdata[0];
	printf("%s: ok: scenario '%s', kernel %s, %d node(s), %d step(s)", argv[first],
	       s->scenario_name, s->kernel, s->nnodes, s->nsteps);
	if (n > 1 || s->nparams)
		printf(", %d trial(s) from its matrix", n);
	printf("\n");
	if (n > 1 || s->nparams) {
		guint i;

		for (i = 0; i < all->len; i++)
			printf("  %s\n", ((mhlScenario *)all->pdata[i])->name);
	}
	return EXIT_PASS;
}

static void libvirtSilent(void *opaque, virErrorPtr e)
{
	(void)opaque; (void)e;	/* doctor prints each failure itself */
}

static int cmdDoctor(int argc, char **argv)
{
	g_autoptr(GHashTable) vals = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
	g_autofree char *bindir = exeDir();
	g_autofree char *srcdir = g_build_filename(bindir, "..", NULL);
	g_autofree char *cache_dflt = g_build_filename(g_get_home_dir(), ".cache", "memhp-lab", NULL);
	int first = parseOpts(findCmd("doctor"), argc, argv, vals);

	if (first < 0)
		return EXIT_USAGE;
	if (g_hash_table_contains(vals, "help")) {
		usageCmd(stdout, findCmd("doctor"));
		return EXIT_PASS;
	}
	if (argc != first) {
		mhlError("doctor: takes no arguments (see 'memhp-lab doctor --help')");
		return EXIT_USAGE;
	}
	virSetErrorFunc(NULL, libvirtSilent);
	return mhlDoctor(bindir, srcdir, g_getenv("MEMHP_CACHE") ? g_getenv("MEMHP_CACHE") : cache_dflt);
}

static int cmdRun(int argc, char **argv)
{
	g_autoptr(GHashTable) vals = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
	g_autofree char *bindir = exeDir(), *initrd = NULL, *tmpl = NULL;
	g_autofree char *srcdir = g_build_filename(bindir, "..", NULL);
	g_autofree char *cache_dflt = g_build_filename(g_get_home_dir(), ".cache", "memhp-lab", NULL);
	mhlRunOptions o = { .agent_deadline = 120, .bindir = bindir, .srcdir = srcdir };
	const char *v;
	int first, rc = cmdStart("run", argc, argv, vals, &first);

	if (rc >= 0)
		return rc;
	o.cache = g_getenv("MEMHP_CACHE") ? g_getenv("MEMHP_CACHE") : cache_dflt;
	o.uri = g_hash_table_lookup(vals, "uri");
	o.kernel = g_hash_table_lookup(vals, "kernel");
	o.pin_policy = g_hash_table_lookup(vals, "pin-policy");
	o.kernel_dir = g_hash_table_lookup(vals, "kernel-dir");
	o.outdir = g_hash_table_lookup(vals, "output");
	o.only = g_hash_table_lookup(vals, "only");
	o.quiet = g_hash_table_contains(vals, "quiet");
	o.json = g_hash_table_contains(vals, "json");
	initrd = g_strdup(g_hash_table_lookup(vals, "initrd"));
	o.initrd = initrd ? initrd : (initrd = g_build_filename(bindir, "initramfs.cpio.gz", NULL));
	tmpl = g_strdup(g_hash_table_lookup(vals, "template"));
	o.tmpl = tmpl ? tmpl : (tmpl = g_build_filename(srcdir, "domains", "numa-virtio-mem.xml", NULL));
	if ((v = g_hash_table_lookup(vals, "agent-timeout")))
		o.agent_deadline = g_ascii_strtod(v, NULL);
	if (o.agent_deadline <= 0) {
		mhlError("run: --agent-timeout '%s' is not a positive number of seconds", v);
		return EXIT_USAGE;
	}
	if ((v = g_hash_table_lookup(vals, "jobs"))) {
		char *end;

		o.jobs = (int)strtol(v, &end, 10);
		if (*end || o.jobs < 1 || o.jobs > 64) {
			mhlError("run: -j '%s' is not a number of guests in [1, 64]", v);
			return EXIT_USAGE;
		}
	}
	return mhlRunTrials(&o, argv + first, argc - first);
}

static int cmdSoak(int argc, char **argv)
{
	g_autoptr(GHashTable) vals = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
	g_autofree char *bindir = exeDir();
	g_autofree char *srcdir = g_build_filename(bindir, "..", NULL);
	g_autofree char *cache_dflt = g_build_filename(g_get_home_dir(), ".cache", "memhp-lab", NULL);
	g_autofree char *initrd = g_build_filename(bindir, "initramfs.cpio.gz", NULL);
	g_autofree char *tmpl = g_build_filename(srcdir, "domains", "numa-virtio-mem.xml", NULL);
	mhlSoakOptions o = { .seed = 1, .agent_deadline = 120, .initrd = initrd, .tmpl = tmpl,
			     .srcdir = srcdir };
	const char *v;
	char *end;
	int first = parseOpts(findCmd("soak"), argc, argv, vals);

	if (first < 0)
		return EXIT_USAGE;
	if (g_hash_table_contains(vals, "help")) {
		usageCmd(stdout, findCmd("soak"));
		return EXIT_PASS;
	}
	o.resume = g_hash_table_lookup(vals, "resume");
	if (argc - first != (o.resume ? 0 : 1)) {
		mhlError("soak: expected %s (see 'memhp-lab soak --help')",
			 o.resume ? "no SCENARIO with --resume" : "one SCENARIO");
		return EXIT_USAGE;
	}
	o.scenario = o.resume ? NULL : argv[first];
	o.cache = g_getenv("MEMHP_CACHE") ? g_getenv("MEMHP_CACHE") : cache_dflt;
	o.outdir = g_hash_table_lookup(vals, "output");
	o.uri = g_hash_table_lookup(vals, "uri");
	o.quiet = g_hash_table_contains(vals, "quiet");
	o.print_schedule = g_hash_table_contains(vals, "print-schedule");
	if ((v = g_hash_table_lookup(vals, "duration")) && (o.duration_s = mhlSoakDurationParse(v)) < 0) {
		mhlError("soak: --duration '%s' is not a duration (e.g. 90s, 30m, 8h, 2d, 1h30m)", v);
		return EXIT_USAGE;
	}
	if ((v = g_hash_table_lookup(vals, "seed"))) {
		o.seed = g_ascii_strtoull(v, &end, 10);
		if (*end || !*v) {
			mhlError("soak: --seed '%s' is not a non-negative integer", v);
			return EXIT_USAGE;
		}
	}
	if ((v = g_hash_table_lookup(vals, "cycles"))) {
		o.cycles = (int)strtol(v, &end, 10);
		if (*end || o.cycles < 1) {
			mhlError("soak: --cycles '%s' is not a positive number", v);
			return EXIT_USAGE;
		}
	}
	if (!o.resume && !o.print_schedule && !g_hash_table_contains(vals, "duration") && !o.cycles) {
		mhlError("soak: say how long: --duration D or --cycles N (see 'memhp-lab soak --help')");
		return EXIT_USAGE;
	}
	if (o.resume && (g_hash_table_contains(vals, "duration") || g_hash_table_contains(vals, "seed") ||
			 g_hash_table_contains(vals, "cycles") || o.outdir)) {
		mhlError("soak: --resume continues RUN_DIR's own duration, seed and cycles; give no --duration, --seed, --cycles or -o");
		return EXIT_USAGE;
	}
	return mhlSoakRun(&o);
}

static int cmdReport(int argc, char **argv)
{
	g_autoptr(GHashTable) vals = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
	g_autoptr(mhlRun) run = NULL, other = NULL;
	g_autofree char *dir = NULL;
	mhlReportOpts opts = { .formats = (1u << MHL_REPORT_LAST) - 1, .origin = "memhp" };
	const char *v;
	guint i;
	int first, rc = cmdStart("report", argc, argv, vals, &first);

	if (rc >= 0)
		return rc;
	if ((v = g_hash_table_lookup(vals, "format")) && mhlReportFormatsParse(v, &opts.formats) < 0)
		return EXIT_USAGE;
	if ((v = g_hash_table_lookup(vals, "origin")) && !g_regex_match_simple("^[a-z0-9_]+$", v, 0, 0)) {
		mhlError("report: --origin '%s' is not a KCIDB origin (lowercase letters, digits, '_')", v);
		return EXIT_USAGE;
	}
	if (v)
		opts.origin = v;
	/* Absolute: gnuplot runs in the plots' directory and must still find everything. */
	dir = g_canonicalize_filename(argv[first], NULL);
	if (!(run = mhlRunLoad(dir)))
		return EXIT_USAGE;
	if ((v = g_hash_table_lookup(vals, "compare")) && !(other = mhlRunLoad(v)))
		return EXIT_USAGE;
	opts.compare = other;
	for (i = 0; i < run->bad->len; i++) {
		mhlRunBad *b = run->bad->pdata[i];

		fprintf(stderr, "error: %s:%d: %s\n", run->records, b->line, b->why);
	}
	for (i = 0; other && i < other->bad->len; i++) {
		mhlRunBad *b = other->bad->pdata[i];

		fprintf(stderr, "error: %s:%d: %s (in --compare)\n", other->records, b->line, b->why);
	}
	if (mhlReportWrite(run, &opts) < 0)
		return EXIT_FAILED;
	printf("%s: %u trial(s), %u unreadable line(s):", run->records, run->trials->len, run->bad->len);
	for (i = 0; i < MHL_REPORT_LAST; i++)
		if (opts.formats & (1u << i))
			printf(" %s/report/%s", run->dir, mhlReportFormatFiles[i]);
	printf("\n");
	if (other) {
		g_autoptr(GPtrArray) rows = mhlCompareRuns(run, other);

		printf("compared with %s (before) -> %s (after):\n", other->dir, run->dir);
		for (i = 0; i < rows->len; i++) {
			mhlCompareRow *r = rows->pdata[i];

			printf("  %-15s %s: %s\n", mhlCompareRankNames[r->rank], r->trial, *r->what ? r->what : "no change");
		}
	}
	return run->bad->len || (other && other->bad->len) ? EXIT_FAILED : EXIT_PASS;
}

static int cmdHelp(int argc, char **argv)
{
	const mhlCmd *c = argc > 1 ? findCmd(argv[1]) : NULL;

	if (argc > 1 && !c) {
		mhlError("help: unknown command '%s'", argv[1]);
		return EXIT_USAGE;
	}
	if (c && c->opts)
		usageCmd(stdout, c);
	else
		usage(stdout);
	return EXIT_PASS;
}

int main(int argc, char **argv)
{
	const mhlCmd *c;
	int rc;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmdHelp(1, argv);
	c = findCmd(argv[1]);
	if (!c) {
		fprintf(stderr, "error: unknown command '%s' (commands: run, check, report, help)\n", argv[1]);
		return EXIT_USAGE;
	}
	rc = c->handler(argc - 1, argv + 1);
	if (rc != EXIT_PASS && mhlErrorLast() && strcmp(mhlErrorLast(), "unknown error")) {
		fflush(stdout);
		fprintf(stderr, "error: %s\n", mhlErrorLast());
	}
	return rc;
}
