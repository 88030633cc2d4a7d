/*
 * steps.h - the step kinds a trial (or a soak cycle) runs on a guest: one
 * table row per kind (steps.c), one file per kind (step-*.c), and the
 * expect step's checks as a table of their own (expect.c).
 */
#ifndef MHL_TRIAL_STEPS_H
#define MHL_TRIAL_STEPS_H

#include <json-c/json.h>

#include "guest/session.h"
#include "record/record.h"
#include "scenario/scenario.h"

/* migrate: the migration's deadline when the step gives none (aborted past it). */
#define MHL_MIGRATE_DEADLINE_S 300

/*
 * A peer libvirt daemon a migrate step can send the guest to: run --peer
 * NAME=URI, connected once per run with its domain events registered
 * (cli/run-peer.c).
 */
typedef struct {
	char *name;
	char *uri;
	virConnectPtr conn;
} mhlPeer;

/* The peer named @name among @peers (mhlPeer *; may be NULL), or NULL. */
const mhlPeer *mhlPeerFind(const GPtrArray *peers, const char *name);

/* What the steps of one trial share. */
typedef struct {
	const mhlScenario *s;
	mhlGuest *g;
	json_object *steps;	/* the results of the steps so far, in order */
	json_object *before;	/* the guest snapshot taken before the first step */
	mhlSummary sum;		/* the record's summary, filled as steps end */
	/* pins held now, by workload id (summary.pinned_bytes: what is held at the shrink) */
	struct {
		char id[32];
		gint64 bytes;
	} held[MHL_MAX_STEPS];
	int nheld;
	bool shrunk;		/* a resize has asked for less: pinned_bytes is fixed there */
	GPtrArray *peers;	/* mhlPeer *: where a migrate step's to: names are, or NULL */
	const char *const *daemon_restart;	/* run --daemon-restart's argv, or NULL */
	virConnectPtr *connp;	/* the run's connection: a daemon-restart step puts the new one there; NULL: none to replace */
	bool infra;		/* set by a failing step that could not be carried out (the host's tooling failed): error, not fail */
	bool bare_resize;	/* a soak's cycle: a resize reads no host side (res.host: its samples
				 * and 1 s settle) and no plug path (res.plug: MemTotal looks before
				 * and after a grow), which a checkpoint does not keep (issue 36) */
} mhlTrial;

/*
 * Pin @id holds @bytes now (0: released, or a holder that pins nothing).
 * Until the first shrink, summary.pinned_bytes follows the most held at
 * once; mhlTrialHeldAtShrink fixes it at what a shrink found held.
 */
void mhlTrialHeld(mhlTrial *t, const char *id, gint64 bytes);
void mhlTrialHeldAtShrink(mhlTrial *t);

/*
 * What the pins held now keep in node @node's boot-time virtio-mem device,
 * at least, in bytes (a resize's pinned_in_device_bytes): from each held
 * pin's last census on record (the pin's census_after, a later check's or
 * io's census), its pages on the node in ZONE_MOVABLE (the device is the
 * node's only movable memory), or, if more, its pages on the node beyond
 * the node's boot memory @boot_bytes (onlined to a kernel zone, the device
 * shares it with the boot memory). -1 when not known: a held pin without a
 * census, or a DIMM or virtio-mem device hot-added by a step before (the
 * node's movable memory is then not the device's alone). @ids: the held
 * pins' ids. mhlTrialPinnedInDevice: of @t's held pins and scenario.
 */
#define MHL_CENSUS_PAGE_BYTES 4096	/* the census counts the guest's base pages (x86-64) */
gint64 mhlPinnedInDevice(json_object *steps, const char *const *ids, int nids, int node, guint64 boot_bytes);
gint64 mhlTrialPinnedInDevice(const mhlTrial *t, int node);

/*
 * The last resize's record @r against expect unplug: MHL_RESIZE_REACHED
 * (converged), MHL_RESIZE_SHORT (it did not converge, and the plugged size
 * ended below where it started, above the request and at or above what is
 * pinned in the device when that is known), or MHL_RESIZE_NEITHER (no
 * resize, a resize that did nothing or grew, one that started where the
 * record does not say, or one below its pins: nothing an unplug stopped by
 * pins leaves). *how (g_free it): what happened, how far it got and why it
 * stopped, as the expect's actual value.
 */
typedef enum { MHL_RESIZE_NEITHER, MHL_RESIZE_REACHED, MHL_RESIZE_SHORT } mhlResizeOutcome;
mhlResizeOutcome mhlResizeJudge(json_object *r, char **how);

/* A step kind: fills @res, returns 0 if its outcome is what the step requires. */
typedef int (*mhlStepFn)(mhlTrial *t, const mhlStep *st, json_object *res);

/* Run @st: the row of its kind. -1 + mhlError when the step fails. */
int mhlStepRun(mhlTrial *t, const mhlStep *st, json_object *res);

/* One function per kind (step-*.c, expect.c). */
int mhlStepPin(mhlTrial *t, const mhlStep *st, json_object *res);
int mhlStepResize(mhlTrial *t, const mhlStep *st, json_object *res);
int mhlStepHolder(mhlTrial *t, const mhlStep *st, json_object *res);	/* check, io, release */
int mhlStepBench(mhlTrial *t, const mhlStep *st, json_object *res);
int mhlStepSysrq(mhlTrial *t, const mhlStep *st, json_object *res);
int mhlStepWait(mhlTrial *t, const mhlStep *st, json_object *res);
int mhlStepSnapshot(mhlTrial *t, const mhlStep *st, json_object *res);
int mhlStepSelftest(mhlTrial *t, const mhlStep *st, json_object *res);
int mhlStepExec(mhlTrial *t, const mhlStep *st, json_object *res);
int mhlStepReboot(mhlTrial *t, const mhlStep *st, json_object *res);
int mhlStepSuspend(mhlTrial *t, const mhlStep *st, json_object *res);
int mhlStepMigrate(mhlTrial *t, const mhlStep *st, json_object *res);
int mhlStepSave(mhlTrial *t, const mhlStep *st, json_object *res);	/* step-save.c */
/*
 * Where a save step's private image directory is made (step-save.c): the
 * embedded driver's root (qemu:///embed?root=DIR: DIR, memhp-lab's own 0700
 * directory), else the temporary directory (a daemon on this host); never
 * the run directory. Newly allocated.
 */
char *mhlSaveImageBase(const char *uri);
int mhlStepManagedSave(mhlTrial *t, const mhlStep *st, json_object *res);
int mhlStepDaemonRestart(mhlTrial *t, const mhlStep *st, json_object *res);	/* step-daemon.c */
int mhlStepHugepages(mhlTrial *t, const mhlStep *st, json_object *res);	/* step-hugepages.c */
int mhlStepBalloon(mhlTrial *t, const mhlStep *st, json_object *res);	/* step-balloon.c */
int mhlStepDimm(mhlTrial *t, const mhlStep *st, json_object *res);	/* step-dimm.c */
int mhlStepVmem(mhlTrial *t, const mhlStep *st, json_object *res);	/* step-vmem.c */
/*
 * What the dimm and vmem steps share (step-dimm.c): res.elastic begun
 * ({mechanism, action, ok: false, requested_bytes, memtotal_before_bytes},
 * *mt0 the guest's MemTotal now); the device's XML attached (LIVE) with its
 * backend's new mapping noted in t->hot (the QEMU smaps diff), or libvirt's
 * refusal in elastic.refused (-1 + mhlError); the detach asked by alias
 * (refused: the same), -1 + mhlError.
 */
json_object *mhlHotplugBegin(mhlTrial *t, const mhlStep *st, json_object *res, const char *mechanism,
			     int64_t requested, guint64 *mt0);
int mhlHotplugAttach(mhlTrial *t, const mhlStep *st, json_object *el, const char *alias, const char *xml);
int mhlHotplugDetach(mhlTrial *t, const mhlStep *st, json_object *el, const char *alias);
/*
 * A completed migration job's statistics @p (@n of them, libvirt's typed
 * parameters) into @lc: lc.migration {data_transferred_bytes, ...,
 * downtime_ms, zero_pages, normal_pages, migrated_bytes: every page QEMU
 * sent, as data or as a zero-page marker, (zero + normal) x page size}
 * and lc.down_s, the downtime in seconds (step-migrate.c).
 */
void mhlMigrateStatsJSON(virTypedParameterPtr p, int n, json_object *lc);
/* At the trial's end: each daemon-restart's size_events_after, from the record's timeline. */
void mhlDaemonRestartEventsAfter(json_object *steps, json_object *timeline);

/*
 * KTAP as kselftest.h prints it (step-selftest.c): the results as
 * [{n, ok, skip, description}] (guest text: the caller cleans it), the
 * plan (-1 if none) and the counts.
 */
json_object *mhlKtapParse(const char *out, int *planned, int *npass, int *nfail, int *nskip,
			  bool *bailed);
/*
 * The selftest step's verdict of a kselftest run: "pass", "skip" or "fail".
 * A failed result or a bail-out fails it whatever the exit status says
 * (kselftest's ksft_exit_skip() exits 4 after a failed result too, as
 * run_vmtests.sh does after a SKIP that follows a FAIL); "skip" only for
 * exit 4 with no result failed and none passed.
 */
const char *mhlKtapVerdict(int exitcode, int planned, int npass, int nfail, int nskip, bool bailed);
int mhlStepExpect(mhlTrial *t, const mhlStep *st, json_object *res);

/* Pages of a census in a zone (by_zone) or of a kind (zero, thp, cma, pages); -1: absent. */
long long mhlCensusPages(json_object *census, const char *zone);

/*
 * The host side of a step that gives memory back (a resize, a DIMM's detach,
 * a balloon's inflation): mhlTrialHostSettle waits until the host's figures
 * stop moving (1 s quiet, and 1 s since the request @t_req at least; at
 * most 10 s) and takes the sample after;
 * mhlTrialHostSide writes res.host (record.h: source, measured_by, before,
 * after, plugged_before_bytes, settle_s, and for a shrink unplugged_bytes,
 * reclaimed_bytes, reclaimable_bytes, the shares) and adds a shrink to the
 * summary's host_* fields. @b and @a: the bytes the host gives what shrank
 * before and after, read from the samples as @by says ("backend": its
 * memory backend's resident bytes; "qemu_rss": QEMU's whole); @size_before
 * and @size_after: what the guest had of it (plugged, DIMM, not ballooned).
 */
int mhlTrialHostSettle(mhlTrial *t, double t_req, mhlHostSample *after);
void mhlTrialHostSide(mhlTrial *t, json_object *res, const mhlHostSample *before,
		      const mhlHostSample *after, int64_t b, int64_t a, const char *by, double t_req,
		      int64_t size_before, int64_t size_after);

/*
 * The other paths' result object (record.h, "the other paths") put into
 * @res: {mechanism, action, ok: false}; the step adds the rest and sets ok.
 */
json_object *mhlElasticBegin(json_object *res, const char *mechanism, const char *action);

/*
 * [{node, size_bytes, requested_bytes}] of every virtio-mem device now (QMP),
 * the lifecycle steps' plugged_before/after; *plugged (may be NULL): the
 * sizes' sum. NULL + mhlError.
 */
json_object *mhlTrialDevices(mhlTrial *t, guint64 *plugged);

/*
 * A lifecycle step's object (record.h, "lifecycle steps") put into @res:
 * {event: the step's kind, ok: false, plugged_before}; *memory (may be
 * NULL): the guest's memory now, boot memory + plugged. Returns the object
 * (owned by @res), or NULL + mhlError (it is in @res all the same).
 */
json_object *mhlLifecycleBegin(mhlTrial *t, const mhlStep *st, json_object *res, guint64 *memory);
/*
 * The guest back after a lifecycle event: its agent answering (agent_s,
 * from @since), every device at its request within @deadline (@key: the
 * seconds from @since), and plugged_after, into @lc. -1 + mhlError.
 */
int mhlLifecycleBack(mhlTrial *t, json_object *lc, double since, double deadline, const char *key);
/* Its end: seconds since @t0, ok when @rc is 0. Returns @rc. */
int mhlLifecycleEnd(json_object *lc, double t0, int rc);

#endif
