/* cmd-run.c - `memhp-lab run SCENARIO...`: options into mhlRunOptions, then cli/run.c. */
#include <glib.h>

#include "cli/cli.h"

#include <math.h>
#include <stdlib.h>

#include "cli/run.h"
#include "cli/shard.h"
#include "util.h"

const mhlOpt mhlCmdRunOpts[] = {
	{ "output", 1, 'o', "DIR", "run directory (default results/<scenario>-<time>)" },
	{ "jobs", 1, 'j', "N", "guests at once (default: what host cores and memory allow)" },
	{ "only", 1, MHL_LONG_ONLY + 'O', "PATTERN", "only the trials whose id matches PATTERN (glob)" },
	{ "keep", 0, MHL_LONG_ONLY + 'E', NULL, "after the steps of the one trial, hold its guest running (console log, and for a daemon URI virsh console and qemu-agent-command) until Ctrl-C; then judge and record as usual" },
	{ "shard", 1, MHL_LONG_ONLY + 'S', "K/N", "only shard K of N (a stable part: a trial always lands in the same shard), or auto: from CI_NODE_INDEX and CI_NODE_TOTAL, SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT, or JOB_COMPLETION_INDEX with MEMHP_SHARDS; report --merge joins the shards" },
	{ "quiet", 0, 'q', NULL, "no progress lines; just the table of verdicts" },
	{ "json", 0, MHL_LONG_ONLY + 'J', NULL, "the verdicts as one JSON object on stdout" },
	{ "uri", 1, 'u', "URI", "libvirt URI (default: LIBVIRT_DEFAULT_URI, else embedded qemu:///embed in a private root)" },
	{ "connect", 1, 'c', "URI", "the same, by virsh's name" },
	{ "host", 1, MHL_LONG_ONLY + 'H', "URI...", "a fleet host (repeatable): the trials spread over the hosts by what each can take (cores, free memory), the kernel and guest image uploaded through libvirt's storage API, the console streamed back; no path shared (docs/fleet.md)" },
	{ "hosts", 1, MHL_LONG_ONLY + 'F', "FILE", "the fleet's hosts from a YAML file: hosts: [{uri, slots, labels, pool}] (docs/fleet.md)" },
	{ "peer", 1, MHL_LONG_ONLY + 'P', "NAME=URI...", "a libvirt daemon that a scenario's migrate: {to: NAME} steps send the guest to (repeatable; the guest's kernel and image must be at the same paths there: docs/lifecycle.md)" },
	{ "daemon-restart", 1, MHL_LONG_ONLY + 'D', "ARGV", "the command that restarts --uri's libvirt daemon, for a scenario's daemon-restart steps: one string split as a shell would split words (quotes, backslashes), never run by a shell, e.g. 'systemctl restart virtqemud' (docs/lifecycle.md)" },
	{ "kernel", 1, MHL_LONG_ONLY + 'K', "KVER", "guest kernel: a tree, {kernels}, package:linux-image-NAME[=VERSION], a Debian kernel package, deb:FILE, a linux-image .deb, or build:DIR, a kernel you built (DIR/bzImage and DIR/config, or a build tree's arch/x86/boot/bzImage and .config) (overrides the scenario's kernel:; where a matrix axis gives it, runs only that value's trials)" },
	{ "pin-policy", 1, MHL_LONG_ONLY + 'p', "POLICY", "{pin policies} (overrides the scenario's pin_policy:; where a matrix axis gives it, runs only that value's trials)" },
	{ "stack", 1, MHL_LONG_ONLY + 'T', "STACK", "the hypervisor stack: {stacks} (the host's own QEMU and libvirt, or QEMU 10.0 and libvirt 11.3 from a root the lab builds once and whose libvirtd it starts for the run: docs/stacks.md) (overrides the scenario's stack:; where a matrix axis gives it, runs only that value's trials)" },
	{ "kernel-dir", 1, MHL_LONG_ONLY + 'k', "DIR", "kernel artifact (default: $MEMHP_CACHE/kernel/<kver>/current)" },
	{ "initrd", 1, MHL_LONG_ONLY + 'i', "FILE", "guest initramfs (default: <datadir>/initramfs.cpio: build/ of the checkout, or PREFIX/share/memhp-lab)" },
	{ "template", 1, MHL_LONG_ONLY + 't', "FILE", "domain template (default: <datadir>/domains/numa-virtio-mem.xml)" },
	{ "resume", 1, MHL_LONG_ONLY + 'R', "RUN_DIR", "run RUN_DIR's trials that have no record yet (a run killed mid-way); no SCENARIO" },
	{ "append", 0, MHL_LONG_ONLY + 'A', NULL, "let -o DIR hold another run already: this run's records are added to its trials.jsonl (without it a non-empty -o DIR is refused)" },
	{ "agent-timeout", 1, MHL_LONG_ONLY + 'a', "SEC", "deadline for the guest agent to answer (default 120)" },
	{ "help", 0, 'h', NULL, "show this help" },
	{ NULL, 0, 0, NULL, NULL }
};

int mhlCmdRun(int argc, char **argv)
{
	g_autoptr(GHashTable) vals = mhlCmdValsNew();
	g_autoptr(mhlCliPaths) paths = mhlCliPathsNew(NULL);
	g_autofree char *initrd = NULL;
	mhlRunOptions o = { .agent_deadline = 120, .bindir = paths->bindir, .srcdir = paths->datadir,
			    .cache = paths->cache, .initrd = paths->initrd, .tmpl = paths->tmpl };
	const char *v;
	int first, rc = mhlCmdStart("run", argc, argv, vals, &first);

	if ((o.resume = g_hash_table_lookup(vals, "resume")) && first >= 0 &&
	    !g_hash_table_contains(vals, "help")) {
		/* --resume takes the scenarios and their options from RUN_DIR/run.json */
		const char *const own[] = { "output", "kernel", "pin-policy", "kernel-dir", "only", "shard", "stack" };
		size_t k;

		mhlErrorReset();	/* "expected at least one SCENARIO": none is right here */
		for (k = 0; k < G_N_ELEMENTS(own); k++) {
			if (g_hash_table_contains(vals, own[k]) || argc > first) {
				mhlError("run: --resume takes the scenarios, -o, --kernel, --pin-policy, --stack, --kernel-dir and --only from RUN_DIR/run.json; give none of them");
				return MHL_EXIT_USAGE;
			}
		}
		rc = -1;
	}
	if (rc >= 0)
		return rc;
	if (mhlCmdUri(vals, &o.uri) < 0)
		return MHL_EXIT_USAGE;
	o.hosts = g_hash_table_lookup(vals, "host");
	o.hosts_file = g_hash_table_lookup(vals, "hosts");
	o.peers = g_hash_table_lookup(vals, "peer");
	o.daemon_restart = g_hash_table_lookup(vals, "daemon-restart");
	if ((o.hosts || o.hosts_file) && (g_hash_table_contains(vals, "uri") || g_hash_table_contains(vals, "connect") ||
					  g_hash_table_contains(vals, "keep"))) {
		mhlError("run: --host/--hosts spread the trials over hosts; --uri, --connect and --keep name one guest's place: give one or the other");
		return MHL_EXIT_USAGE;
	}
	o.kernel = g_hash_table_lookup(vals, "kernel");
	o.pin_policy = g_hash_table_lookup(vals, "pin-policy");
	o.stack = g_hash_table_lookup(vals, "stack");
	o.kernel_dir = g_hash_table_lookup(vals, "kernel-dir");
	o.outdir = g_hash_table_lookup(vals, "output");
	o.only = g_hash_table_lookup(vals, "only");
	if ((v = g_hash_table_lookup(vals, "shard")) && mhlShardParse(v, &o.shard_k, &o.shard_n) < 0)
		return MHL_EXIT_USAGE;
	o.quiet = g_hash_table_contains(vals, "quiet");
	o.keep = g_hash_table_contains(vals, "keep");
	o.append = g_hash_table_contains(vals, "append");
	o.json = g_hash_table_contains(vals, "json");
	/* absolute: QEMU opens it from its own working directory, not ours */
	if ((v = g_hash_table_lookup(vals, "initrd")))
		o.initrd = initrd = g_canonicalize_filename(v, NULL);
	if ((v = g_hash_table_lookup(vals, "template")))
		o.tmpl = v;
	if ((v = g_hash_table_lookup(vals, "agent-timeout"))) {
		char *end;

		/* finite first: nan compares false with every bound, and inf never ends */
		o.agent_deadline = g_ascii_strtod(v, &end);
		if (end == v || *end || !isfinite(o.agent_deadline) || o.agent_deadline <= 0 ||
		    o.agent_deadline > 86400) {
			mhlError("run: --agent-timeout '%s' is not a number of seconds in (0, 86400]", v);
			return MHL_EXIT_USAGE;
		}
	}
	if ((v = g_hash_table_lookup(vals, "jobs"))) {
		char *end;

		o.jobs = (int)strtol(v, &end, 10);
		if (*end || o.jobs < 1 || o.jobs > 64) {
			mhlError("run: -j '%s' is not a number of guests in [1, 64]", v);
			return MHL_EXIT_USAGE;
		}
	}
	return mhlRunTrials(&o, argv + first, argc - first);
}
