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

#include "accel.h"
#include "kernel.h"
#include "report.h"
#include "scenario.h"
#include "trial.h"

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

static int cmdRun(int argc, char **argv);
static int cmdCheck(int argc, char **argv);
static int cmdReport(int argc, char **argv);
static int cmdHelp(int argc, char **argv);

static const mhlCmd cmds[] = {
	{ "run", "SCENARIO", "boot a guest per trial, run the scenario's steps, record the outcome",
	  runOpts, cmdRun },
	{ "check", "SCENARIO", "validate a scenario file without booting anything", checkOpts, cmdCheck },
	{ "report", "RUN_DIR", "render RUN_DIR/trials.jsonl as HTML, JUnit, KTAP, KCIDB into RUN_DIR/report",
	  reportOpts, cmdReport },
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

static void *eventLoop(void *opaque)
{
	(void)opaque;
	for (;;)
		if (virEventRunDefaultImpl() < 0)
			fprintf(stderr, "memhp-lab: warning: event loop: %s\n", virGetLastErrorMessage());
	return NULL;
}

/* A private root for qemu:///embed, with the qemu.conf this machine needs. */
static char *embedRootCreate(void)
{
	static const char conf[] =
		"# memhp-lab: embedded QEMU driver settings (see docs/architecture.md)\n"
		"stdio_handler = \"file\"\n"
		"security_driver = \"none\"\n"
		"cgroup_controllers = [ ]\n"
		"namespaces = [ ]\n"
		"user = \"root\"\n"
		"group = \"root\"\n";
	g_autofree char *root = g_strdup("/tmp/mhl-XXXXXX");
	g_autofree char *etc = NULL, *path = NULL;
	g_autoptr(GError) err = NULL;

	if (!g_mkdtemp(root)) {
		mhlError("cannot create the embedded driver root under /tmp: %s", g_strerror(errno));
		return NULL;
	}
	etc = g_build_filename(root, "etc", NULL);
	path = g_build_filename(etc, "qemu.conf", NULL);
	if (g_mkdir_with_parents(etc, 0700) < 0 || !g_file_set_contents(path, conf, -1, &err)) {
		mhlError("cannot write '%s': %s", path, err ? err->message : g_strerror(errno));
		return NULL;
	}
	return g_steal_pointer(&root);
}

static void libvirtQuiet(void *opaque, virErrorPtr e)
{
	(void)opaque; (void)e;	/* errors are reported by us, with context */
}

static char *exeDir(void)
{
	g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);

	return exe ? g_path_get_dirname(exe) : g_strdup(".");
}

static void printSummary(json_object *rec, const char *records)
{
	json_object *sum = NULL, *v;
	long long mb, ma;

	json_object_object_get_ex(rec, "summary", &sum);
#define GETI(k) (sum && json_object_object_get_ex(sum, k, &v) ? (long long)json_object_get_int64(v) : -1LL)
#define GETD(k) (sum && json_object_object_get_ex(sum, k, &v) ? json_object_get_double(v) : -1)
	mb = GETI("pinned_pages_movable_before");
	ma = GETI("pinned_pages_movable_after");
	printf("\n%s: %s\n", json_object_get_string(json_object_object_get(rec, "trial")),
	       json_object_get_string(json_object_object_get(rec, "verdict")));
	if (json_object_object_get_ex(rec, "reason", &v) && v)
		printf("  reason:           %s\n", json_object_get_string(v));
	printf("  boot to agent:    %.1f s (%s)\n", GETD("boot_to_agent_s"),
	       json_object_get_string(json_object_object_get(json_object_object_get(rec, "domain"), "accel")));
	if (GETI("pinned_bytes") >= 0)
		printf("  pinned:           %lld MiB\n", GETI("pinned_bytes") >> 20);
	if (mb >= 0)
		printf("  left ZONE_MOVABLE at pin time: %lld of %lld pages in Movable (%lld left there)\n",
		       mb - ma, mb, ma);
	if (GETI("pins_failed") >= 0)
		printf("  pins failed:      %lld\n", GETI("pins_failed"));
	if (GETI("requested_bytes") >= 0)
		printf("  unplug:           requested %lld MiB, reached %lld MiB",
		       GETI("requested_bytes") >> 20, GETI("reached_bytes") >> 20);
	if (GETD("seconds_to_converge") >= 0)
		printf(", converged in %.1f s\n", GETD("seconds_to_converge"));
	else if (GETI("requested_bytes") >= 0)
		printf(", did not converge\n");
	if (sum && json_object_object_get_ex(sum, "pattern_ok_after_resize", &v))
		printf("  integrity:        pattern %s after the unplug", json_object_get_boolean(v) ? "intact" : "CORRUPT");
	if (sum && json_object_object_get_ex(sum, "pattern_ok_at_release", &v))
		printf(", %s at release\n", json_object_get_boolean(v) ? "intact" : "CORRUPT");
	else
		printf("\n");
	printf("  console:          %zu finding(s), log %s\n",
	       json_object_array_length(json_object_object_get(rec, "console_findings")),
	       json_object_get_string(json_object_object_get(rec, "console_log")));
	printf("  record:           %s\n", records);
#undef GETI
#undef GETD
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
	if (argc - *first != 1) {
		mhlError("%s: expected one %s, got %d (see 'memhp-lab %s --help')",
			 name, c->args, argc - *first, name);
		return EXIT_USAGE;
	}
	return -1;
}

static int cmdCheck(int argc, char **argv)
{
	g_autoptr(GHashTable) vals = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
	g_autoptr(mhlScenario) s = NULL;
	int first, rc = cmdStart("check", argc, argv, vals, &first);

	if (rc >= 0)
		return rc;
	if (!(s = mhlScenarioLoad(argv[first])))
		return EXIT_USAGE;
	printf("%s: ok: scenario '%s', kernel %s, %d node(s), %d step(s)\n", argv[first], s->name,
	       s->kernel, s->nnodes, s->nsteps);
	return EXIT_PASS;
}

static int cmdRun(int argc, char **argv)
{
	g_autoptr(GHashTable) vals = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
	g_autoptr(mhlScenario) s = NULL;
	g_autofree char *bindir = exeDir(), *root = NULL, *uri = NULL, *outdir = NULL;
	g_autofree char *image = NULL, *initrd = NULL, *tmpl = NULL, *why = NULL, *records = NULL;
	g_autofree char *srcdir = g_build_filename(bindir, "..", NULL);
	g_autoptr(json_object) identity = NULL;
	const char *cache = g_getenv("MEMHP_CACHE");
	g_autofree char *cache_dflt = g_build_filename(g_get_home_dir(), ".cache", "memhp-lab", NULL);
	mhlRunConfig cfg = { .emulator = "/usr/bin/qemu-system-x86_64", .agent_deadline = 120 };
	virConnectPtr conn = NULL;
	json_object *rec = NULL;
	pthread_t loop;
	mhlVerdict verdict;
	const char *v;
	int first, rc = cmdStart("run", argc, argv, vals, &first);

	if (rc >= 0)
		return rc;
	if (!(s = mhlScenarioLoad(argv[first])))
		return EXIT_USAGE;
	if (!cache)
		cache = cache_dflt;
	if (mhlScenarioOverride(s, g_hash_table_lookup(vals, "kernel"),
				g_hash_table_lookup(vals, "pin-policy")) < 0)
		return EXIT_USAGE;
	image = mhlKernelResolve(s, cache, g_hash_table_lookup(vals, "kernel-dir"), srcdir,
				 &identity);
	if (!image)
		return EXIT_USAGE;
	initrd = g_strdup(g_hash_table_lookup(vals, "initrd"));
	if (!initrd)
		initrd = g_build_filename(bindir, "initramfs.cpio.gz", NULL);
	tmpl = g_strdup(g_hash_table_lookup(vals, "template"));
	if (!tmpl)
		tmpl = g_build_filename(bindir, "..", "domains", "numa-virtio-mem.xml", NULL);
	if ((v = g_hash_table_lookup(vals, "agent-timeout")))
		cfg.agent_deadline = g_ascii_strtod(v, NULL);
	if (cfg.agent_deadline <= 0) {
		mhlError("run: --agent-timeout '%s' is not a positive number of seconds", v);
		return EXIT_USAGE;
	}
	{
		const char *need[] = { image, initrd, tmpl, cfg.emulator };
		size_t i;

		for (i = 0; i < G_N_ELEMENTS(need); i++) {
			if (access(need[i], R_OK) < 0) {
				mhlError("run: cannot read '%s': %s (make demo builds it)", need[i],
					 g_strerror(errno));
				return EXIT_USAGE;
			}
		}
		cfg.accel = mhlAccelChoose(cfg.emulator, image, cache, &why);
	}
	if ((v = g_hash_table_lookup(vals, "output"))) {
		outdir = g_canonicalize_filename(v, NULL);
	} else {
		g_autoptr(GDateTime) now = g_date_time_new_now_local();
		g_autofree char *stamp = g_date_time_format(now, "%Y%m%d-%H%M%S");
		g_autofree char *rel = g_strdup_printf("results/%s-%s", s->name, stamp);

		outdir = g_canonicalize_filename(rel, NULL);
	}
	if (g_mkdir_with_parents(outdir, 0755) < 0) {
		mhlError("run: cannot create run directory '%s': %s", outdir, g_strerror(errno));
		return EXIT_USAGE;
	}
	records = g_build_filename(outdir, "trials.jsonl", NULL);

	mhlSignalsInstall();
	{
		/* libvirt's own log (embedded driver included) goes to the run directory. */
		g_autofree char *out = g_strdup_printf("3:file:%s/libvirt.log", outdir);

		g_setenv("LIBVIRT_LOG_OUTPUTS", out, FALSE);
	}
	virSetErrorFunc(NULL, libvirtQuiet);
	if (virInitialize() < 0 || virEventRegisterDefaultImpl() < 0) {
		mhlErrorVirt("cannot initialize libvirt's event loop");
		return EXIT_USAGE;
	}
	pthread_create(&loop, NULL, eventLoop, NULL);
	pthread_detach(loop);

	if ((v = g_hash_table_lookup(vals, "uri"))) {
		uri = g_strdup(v);
	} else {
		if (!(root = embedRootCreate()))
			return EXIT_USAGE;
		uri = g_strdup_printf("qemu:///embed?root=%s", root);
	}
	conn = virConnectOpen(uri);
	if (!conn) {
		mhlErrorVirt("cannot connect to libvirt at '%s'", uri);
		if (root)
			mhlRemoveTree(root);
		return EXIT_USAGE;
	}
	cfg.uri = uri;
	cfg.outdir = outdir;
	cfg.kernel_image = image;
	cfg.kernel_identity = identity;
	cfg.initrd = initrd;
	cfg.tmpl_path = tmpl;
	cfg.accel_why = why;
	fprintf(stderr, "memhp-lab: trial 1 of 1: %s on kernel %s, pin_policy %s, %s (%s), %s\n",
		s->name, s->kernel, s->pin_policy, cfg.accel, why, uri);
	verdict = mhlTrialRun(conn, &cfg, s, &rec);
	virConnectClose(conn);
	if (root)
		mhlRemoveTree(root);
	printSummary(rec, records);
	json_object_put(rec);
	mhlReportAfterRun(outdir);
	return verdict == MHL_VERDICT_PASS ? EXIT_PASS : EXIT_FAILED;
}

static int cmdReport(int argc, char **argv)
{
	g_autoptr(GHashTable) vals = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
	g_autoptr(mhlRun) run = NULL, other = NULL;
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
	if (!(run = mhlRunLoad(argv[first])))
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
