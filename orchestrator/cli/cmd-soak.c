/* cmd-soak.c - `memhp-lab soak SCENARIO`: options into mhlSoakOptions, then soak/soak.c. */
#include <glib.h>

#include "cli/cli.h"

#include <math.h>
#include <stdlib.h>

#include "reports/report.h"
#include "soak/soak.h"
#include "util.h"

#define MHL_SOAK_MAX_DURATION (366 * 86400)

const mhlOpt mhlCmdSoakOpts[] = {
	{ "duration", 1, 'd', "D", "soak time: 90s, 30m, 8h, 2d, 1h30m (required unless --cycles or --resume)" },
	{ "seed", 1, 's', "N", "the schedule's seed (default 1)" },
	{ "cycles", 1, 'n', "N", "stop after N cycles (default: no limit)" },
	{ "output", 1, 'o', "DIR", "run directory (default results/soak-<scenario>-<time>)" },
	{ "resume", 1, MHL_LONG_ONLY + 'r', "RUN_DIR", "continue RUN_DIR's soak after its last checkpoint (no SCENARIO)" },
	{ "print-schedule", 0, MHL_LONG_ONLY + 'P', NULL, "print the first --cycles cycles of the schedule as JSON; boot nothing" },
	{ "quiet", 0, 'q', NULL, "no progress lines" },
	{ "uri", 1, 'u', "URI", "libvirt URI (default: LIBVIRT_DEFAULT_URI, else embedded qemu:///embed in a private root)" },
	{ "connect", 1, 'c', "URI", "the same, by virsh's name" },
	{ "help", 0, 'h', NULL, "show this help" },
	{ NULL, 0, 0, NULL, NULL }
};

int mhlCmdSoak(int argc, char **argv)
{
	g_autoptr(GHashTable) vals = mhlCmdValsNew();
	g_autoptr(mhlCliPaths) paths = mhlCliPathsNew(NULL);
	mhlSoakOptions o = { .seed = 1, .agent_deadline = 120, .initrd = paths->initrd, .tmpl = paths->tmpl,
			     .srcdir = paths->datadir, .cache = paths->cache };
	g_autofree char *outdir = NULL;
	const char *v;
	char *end;
	int rc, first = mhlCmdParseOpts(mhlCmdFind("soak"), argc, argv, vals);

	if (first < 0)
		return MHL_EXIT_USAGE;
	if (g_hash_table_contains(vals, "help")) {
		mhlCmdUsage(stdout, mhlCmdFind("soak"));
		return MHL_EXIT_PASS;
	}
	o.resume = g_hash_table_lookup(vals, "resume");
	if (argc - first != (o.resume ? 0 : 1)) {
		mhlError("soak: expected %s (see 'memhp-lab soak --help')",
			 o.resume ? "no SCENARIO with --resume" : "one SCENARIO");
		return MHL_EXIT_USAGE;
	}
	o.scenario = o.resume ? NULL : argv[first];
	o.outdir = g_hash_table_lookup(vals, "output");
	if (mhlCmdUri(vals, &o.uri) < 0)
		return MHL_EXIT_USAGE;
	o.quiet = g_hash_table_contains(vals, "quiet");
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
			 g_hash_table_contains(vals, "cycles") || o.outdir)) {
		mhlError("soak: --resume continues RUN_DIR's own duration, seed and cycles; give no --duration, --seed, --cycles or -o");
		return MHL_EXIT_USAGE;
	}
	rc = mhlSoakRun(&o, &outdir);
	if (outdir)
		mhlReportAfterRun(outdir, o.quiet, paths->datadir);
	return rc;
}
