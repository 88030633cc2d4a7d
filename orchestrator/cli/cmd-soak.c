/* cmd-soak.c - `memhp-lab soak SCENARIO`: options into mhlSoakOptions, then soak/soak.c. */
#include <glib.h>

#include "cli/cli.h"

#include <math.h>
#include <stdlib.h>

#include "reports/report.h"
#include "scenario/scenario.h"
#include "soak/soak.h"
#include "util.h"

#define MHL_SOAK_MAX_DURATION (366 * 86400)

const mhlOpt mhlCmdSoakOpts[] = {
	{ "duration", 1, 'd', "D", "soak time: 90s, 30m, 8h, 2d, 1h30m (required unless --cycles or --resume)" },
	{ "seed", 1, 's', "N", "the schedule's seed (default 1); a nightly keeps one seed so that its nights are one trial id (docs/soak.md)" },
	{ "kernel", 1, MHL_LONG_ONLY + 'K', "KERNEL", "the guest kernel instead of the scenario's, as run --kernel takes it: a tree, package:NAME, deb:FILE or build:DIR (a kernel you built); kept for --resume" },
	{ "stack", 1, MHL_LONG_ONLY + 'T', "STACK", "the hypervisor stack instead of the scenario's, as run --stack takes it: {stacks} (docs/stacks.md); kept for --resume" },
	{ "cycles", 1, 'n', "N", "stop after N cycles (default: no limit)" },
	{ "output", 1, 'o', "DIR", "run directory (default results/soak-<scenario>-<time>)" },
	{ "resume", 1, MHL_LONG_ONLY + 'r', "RUN_DIR", "continue RUN_DIR's soak after its last checkpoint (no SCENARIO); a DIR of soaks over hosts: every soak not over, over its hosts or --host/--hosts" },
	{ "print-schedule", 0, MHL_LONG_ONLY + 'P', NULL, "print the first --cycles cycles of the schedule as JSON; boot nothing" },
	{ "quiet", 0, 'q', NULL, "no progress lines" },
	{ "uri", 1, 'u', "URI", "libvirt URI (default: LIBVIRT_DEFAULT_URI, else embedded qemu:///embed in a private root)" },
	{ "connect", 1, 'c', "URI", "the same, by virsh's name" },
	{ "host", 1, MHL_LONG_ONLY + 'H', "URI...", "a fleet host (repeatable): one soak per seed at once, each on a slot of a host, the kernel and guest image uploaded, the console streamed back; DIR/seed-S per seed (docs/soak.md)" },
	{ "hosts", 1, MHL_LONG_ONLY + 'F', "FILE", "the fleet's hosts from a YAML file: hosts: [{uri, slots, labels, pool}] (docs/fleet.md)" },
	{ "seeds", 1, MHL_LONG_ONLY + 'S', "LIST", "with --host/--hosts: the soaks' seeds, e.g. 1,2,3 or 1-4 (default: 1..N, one per host slot)" },
	{ "help", 0, 'h', NULL, "show this help" },
	{ NULL, 0, 0, NULL, NULL }
};

/* --host/--hosts/--seeds: what soaks over hosts cannot take. */
static int soakFleetOpts(GHashTable *vals, mhlSoakFleetOptions *fo)
{
	fo->hosts = g_hash_table_lookup(vals, "host");
	fo->hosts_file = g_hash_table_lookup(vals, "hosts");
	fo->seeds = g_hash_table_lookup(vals, "seeds");
	if (!fo->hosts && !fo->hosts_file) {
		if (fo->seeds)
			mhlError("soak: --seeds runs one soak per seed over hosts: give --host or --hosts (one soak here takes --seed N)");
		return fo->seeds ? -1 : 0;
	}
	if (g_hash_table_contains(vals, "uri") || g_hash_table_contains(vals, "connect") ||
	    g_hash_table_contains(vals, "print-schedule") || g_hash_table_contains(vals, "seed")) {
		mhlError("soak: --host/--hosts run the soaks on fleet hosts, one per seed of --seeds; --uri, --connect, --seed and --print-schedule are for one soak: give one or the other");
		return -1;
	}
	if (fo->seeds && g_hash_table_contains(vals, "resume")) {
		mhlError("soak: --resume continues the seeds its directory names; give no --seeds");
		return -1;
	}
	return 0;
}

/* Soaks over hosts (soak/fleet-soak.c), then each finished soak's reports. */
static int soakFleet(mhlSoakFleetOptions *fo, const mhlSoakOptions *o, const char *datadir)
{
	g_autoptr(GPtrArray) outdirs = g_ptr_array_new_with_free_func(g_free);
	guint i;
	int rc;

	fo->base = *o;
	rc = mhlSoakFleetRun(fo, outdirs);
	for (i = 0; i < outdirs->len; i++)
		mhlReportAfterRun(outdirs->pdata[i], o->quiet, datadir, mhlScenarioPlannedSteps);
	return rc;
}

int mhlCmdSoak(int argc, char **argv)
{
	g_autoptr(GHashTable) vals = mhlCmdValsNew();
	g_autoptr(mhlCliPaths) paths = mhlCliPathsNew(NULL);
	mhlSoakOptions o = { .seed = 1, .agent_deadline = 120, .initrd = paths->initrd, .tmpl = paths->tmpl,
			     .srcdir = paths->datadir, .cache = paths->cache };
	g_autofree char *outdir = NULL;
	mhlSoakFleetOptions fo = { 0 };
	const char *v;
	char *end;
	int rc, first = mhlCmdParseOpts(mhlCmdFind("soak"), argc, argv, vals);

	if (first < 0)
		return MHL_EXIT_USAGE;
	if (g_hash_table_contains(vals, "help")) {
		mhlCmdUsage(stdout, mhlCmdFind("soak"));
		return MHL_EXIT_PASS;
	}
	o.resume = o.untrusted = g_hash_table_lookup(vals, "resume");
	if (argc - first != (o.resume ? 0 : 1)) {
		mhlError("soak: expected %s (see 'memhp-lab soak --help')",
			 o.resume ? "no SCENARIO with --resume" : "one SCENARIO");
		return MHL_EXIT_USAGE;
	}
	o.scenario = o.resume ? NULL : argv[first];
	o.outdir = g_hash_table_lookup(vals, "output");
	if (mhlCmdUri(vals, &o.uri) < 0)
		return MHL_EXIT_USAGE;
	if (soakFleetOpts(vals, &fo) < 0)
		return MHL_EXIT_USAGE;
	o.quiet = g_hash_table_contains(vals, "quiet");
	o.kernel = g_hash_table_lookup(vals, "kernel");
	o.stack = g_hash_table_lookup(vals, "stack");
	o.print_schedule = g_hash_table_contains(vals, "print-schedule");
	/* finite: "inf" parses as a number, and a soak of inf never ends on time */
	if ((v = g_hash_table_lookup(vals, "duration")) &&
	    ((o.duration_s = mhlSoakDurationParse(v)) < 0 || !isfinite(o.duration_s) ||
	     o.duration_s > MHL_SOAK_MAX_DURATION)) {
		mhlError("soak: --duration '%s' is not a duration of at most %d days (e.g. 90s, 30m, 8h, 2d, 1h30m)",
			 v, MHL_SOAK_MAX_DURATION / 86400);
		return MHL_EXIT_USAGE;
	}
	if ((v = g_hash_table_lookup(vals, "seed"))) {
		o.seed = g_ascii_strtoull(v, &end, 10);
		/* strtoull takes "-1" as 2^64-1: a seed is digits only */
		if (*end || !*v || !g_ascii_isdigit(*v)) {
			mhlError("soak: --seed '%s' is not a non-negative integer", v);
			return MHL_EXIT_USAGE;
		}
	}
	if ((v = g_hash_table_lookup(vals, "cycles"))) {
		o.cycles = (int)strtol(v, &end, 10);
		if (*end || o.cycles < 1) {
			mhlError("soak: --cycles '%s' is not a positive number", v);
			return MHL_EXIT_USAGE;
		}
	}
	if (!o.resume && !o.print_schedule && !g_hash_table_contains(vals, "duration") && !o.cycles) {
		mhlError("soak: say how long: --duration D or --cycles N (see 'memhp-lab soak --help')");
		return MHL_EXIT_USAGE;
	}
	if (o.resume && (g_hash_table_contains(vals, "duration") || g_hash_table_contains(vals, "seed") ||
			 g_hash_table_contains(vals, "cycles") || o.outdir || o.kernel || o.stack)) {
		mhlError("soak: --resume continues RUN_DIR's own duration, seed, cycles, kernel and stack; give no --duration, --seed, --cycles, --kernel, --stack or -o");
		return MHL_EXIT_USAGE;
	}
	if ((fo.hosts || fo.hosts_file || o.uri) && o.stack) {
		mhlError("soak: --stack names a stack memhp-lab starts itself; --uri, --host and --hosts name daemons of their own: give one or the other");
		return MHL_EXIT_USAGE;
	}
	if (fo.hosts || fo.hosts_file || (o.resume && mhlSoakFleetDir(o.resume)))
		return soakFleet(&fo, &o, paths->datadir);
	rc = mhlSoakRun(&o, &outdir);
	if (outdir)
		mhlReportAfterRun(outdir, o.quiet, paths->datadir, mhlScenarioPlannedSteps);
	return rc;
}
