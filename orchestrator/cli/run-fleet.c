/*
 * run-fleet.c - `memhp-lab run --host URI... | --hosts FILE`: the trials of
 * a run spread over libvirt hosts that share no path with this machine
 * (docs/fleet.md). The hosts are checked against the trials before anything
 * connects; then each host's slots come from what it can take, and
 * trial/queue-fleet.c runs the trials there, each record landing in the one
 * local trials.jsonl as its trial ends, naming its host (domain.uri).
 */
#include <glib.h>

#include "cli/run.h"

#include <stdio.h>
#include <string.h>

#include "fleet/fleet.h"
#include "host/session.h"
#include "scenario/names.h"
#include "trial/queue.h"
#include "util.h"

/* What a fleet host cannot give: a backing that needs this machine's paths. */
static int fleetJobCheck(const mhlJob *j, GPtrArray *hosts)
{
	guint i;

	if (!mhlMemBackingOf(j->s->backing)->fleet) {
		g_autofree char *can = mhlMemBackingsFleet();

		mhlError("%s: trial '%s': memory_backing: %s needs a hugetlbfs or file path that memhp-lab sets up on this machine; a fleet host (--host/--hosts) cannot give it: run it without --host, or use memory_backing: %s",
			 j->s->path, j->s->name, j->s->backing, can);
		return -1;
	}
	for (i = 0; i < hosts->len; i++)
		if (mhlFleetHostHasLabels(hosts->pdata[i], j->s->host_labels))
			return 0;
	{
		g_autofree char *want = g_strjoinv(", ", j->s->host_labels);

		mhlError("%s: trial '%s' asks for a host with host_labels [%s], and no host given has them all (labels come from the hosts file)",
			 j->s->path, j->s->name, want);
	}
	return -1;
}

int mhlRunFleetHosts(const mhlRunOptions *o, GPtrArray *jobs, GPtrArray *hosts)
{
	guint i;

	if (mhlFleetHostsParse(o->hosts, o->hosts_file, hosts) < 0)
		return -1;
	for (i = 0; i < jobs->len; i++)
		if (fleetJobCheck(jobs->pdata[i], hosts) < 0)
			return -1;
	return 0;
}

/* Each host's slots for the run's largest guest; a host where none fits is left out, saying so. */
static int fleetSlots(const mhlRunOptions *o, GPtrArray *hosts, uint64_t need)
{
	guint i;
	int total = 0;

	for (i = 0; i < hosts->len; i++) {
		mhlFleetHost *h = hosts->pdata[i];

		if (!h->conn)
			continue;
		h->slots = mhlFleetSlots(h, need, o->jobs);
		if (!h->slots) {
			fprintf(stderr, "memhp-lab: warning: host '%s': a guest of %" G_GUINT64_FORMAT " MiB does not fit in its %" G_GUINT64_FORMAT " MiB free (free + buffers + cached); the run goes on without it\n",
				h->uri, need >> 20, h->avail_bytes >> 20);
			mhlFleetHostSetLost(h, "no room for a guest");
		}
		total += h->slots;
		if (!o->quiet)
			fprintf(stderr, "memhp-lab: host %s: %d slot(s) (%d cores, %" G_GUINT64_FORMAT " MiB free%s%s)\n",
				h->uri, h->slots, h->cores, h->avail_bytes >> 20, h->max_slots ? ", slots from the hosts file" : "",
				o->jobs ? ", -j" : "");
	}
	if (!total)
		mhlError("run: no host has room for a guest of %" G_GUINT64_FORMAT " MiB", need >> 20);
	return total ? 0 : -1;
}

/*
 * The trials no host took (every host went away or refused its upload
 * before they started): each gets its record, naming why each host left,
 * so that trials.jsonl holds every trial of the run. An interrupted run
 * leaves them to --resume without a record, as a local run does.
 */
static void fleetNotRun(mhlRunConfig *cfg, GPtrArray *jobs, GPtrArray *hosts)
{
	g_autoptr(GString) why = g_string_new("no host was left to take it");
	guint i;

	if (mhlInterrupted)
		return;
	for (i = 0; i < hosts->len; i++) {
		mhlFleetHost *h = hosts->pdata[i];
		g_autofree char *lost = mhlFleetHostLost(h);

		g_string_append_printf(why, "%s host '%s': %s", i ? ";" : " (", h->uri, lost ? lost : "still up");
	}
	if (hosts->len)
		g_string_append_c(why, ')');
	for (i = 0; i < jobs->len; i++) {
		mhlJob *j = jobs->pdata[i];
		mhlRunConfig c = *cfg;

		if (j->rec)
			continue;
		c.kernel_identity = j->identity;
		c.uri = "";	/* no host: domain.uri is empty */
		mhlTrialNotRun(&c, j->s, why->str);
		fprintf(stderr, "memhp-lab: %s: not run: %s\n", j->s->name, why->str);
	}
}

int mhlRunFleet(const mhlRunOptions *o, mhlRunConfig *cfg, GPtrArray *jobs, GPtrArray *hosts,
		const char *outdir, uint64_t need_bytes)
{
	g_autofree char *records = g_build_filename(outdir, "trials.jsonl", NULL);
	guint i;

	if (mhlLibvirtStart(outdir) < 0 || mhlFleetConnect(hosts) < 0 || fleetSlots(o, hosts, need_bytes) < 0) {
		mhlFleetDisconnect(hosts);
		return -1;
	}
	if (!o->quiet)
		fprintf(stderr, "memhp-lab: %u trial(s) over %u host(s), %s (%s), records %s\n", jobs->len, hosts->len,
			cfg->accel, cfg->accel_why, records);
	mhlQueueRunFleet(hosts, cfg, jobs);
	fleetNotRun(cfg, jobs, hosts);
	mhlFleetDisconnect(hosts);
	if (!o->quiet && !o->json) {
		for (i = 0; i < hosts->len; i++) {
			mhlFleetHost *h = hosts->pdata[i];
			g_autofree char *lost = mhlFleetHostLost(h);

			fprintf(stderr, "memhp-lab: host %s: %d trial(s)%s%s\n", h->uri, h->ran, lost ? "; gone: " : "",
				lost ? lost : "");
		}
	}
	return 0;
}
