/* trial.h - one trial: boot a fresh guest, run the steps, write the record. */
#ifndef MHL_TRIAL_H
#define MHL_TRIAL_H

#include <glib.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <libvirt/libvirt.h>

#include "fleet/fleet.h"
#include "guest/session.h"
#include "host/hugepages.h"
#include "record/record.h"
#include "scenario/scenario.h"
#include "trial/steps.h"

typedef struct {
	const char *uri;
	const char *outdir;	/* absolute; trials.jsonl and console logs go here */
	const char *kernel_image;	/* bzImage */
	json_object *kernel_identity;	/* for the record: identity.json, or the prebuilt's facts */
	GPtrArray *skips;	/* per step: NULL, or why the kernel cannot run it; NULL: none */
	const char *initrd;
	const char *tmpl_path;	/* domain template */
	const char *emulator;
	const char *accel;	/* "kvm" or "tcg" */
	const char *accel_why;
	double agent_deadline;
	int index, total;	/* this trial's place in the run, for progress lines */
	bool quiet;		/* no progress lines */
	bool keep;		/* --keep: hold the guest after its steps until a signal (one trial) */
	/* a fleet run (fleet/): the host this trial runs on, NULL otherwise */
	mhlFleetHost *host;	/* kernel_image and initrd are then its volumes' paths there */
	int attempt;		/* 1, or 2 when its first host went away during it */
	bool requeue;		/* if this host goes away during the trial, it runs once more elsewhere */
	GPtrArray *peers;	/* mhlPeer * (trial/steps.h): run --peer, where migrate steps go; NULL: none */
	const char *const *daemon_restart;	/* run --daemon-restart's argv (a daemon-restart step runs it), or NULL */
	virConnectPtr *connp;	/* the run's connection, replaced by a daemon-restart step (-j 1 only); NULL: @conn as given */
} mhlRunConfig;


/* Run one trial; the record is appended to outdir/trials.jsonl in every case
 * where that file can be written. Returns the verdict, and the record in *rec. */
mhlVerdict mhlTrialRun(virConnectPtr conn, const mhlRunConfig *cfg, const mhlScenario *s,
		       json_object **rec);
/* The record of a trial that never started: no host was left to take it (@why). */
void mhlTrialNotRun(const mhlRunConfig *cfg, const mhlScenario *s, const char *why);

/*
 * The boot preamble a trial and a soak segment share. memory_backing:
 * hugepages: grow the host's pool by what the guest of @s maps at most (its
 * boot memory and every virtio-mem device, whole), *pool saying what was
 * added (mhlHugePoolRestore gives it back once the guest is gone); 0, or -1
 * + mhlError. Any other backing: 0 and an empty *pool.
 */
int mhlTrialHugePool(const mhlScenario *s, mhlHugePool *pool);

/*
 * The number the scenario's grid: entry that applies names, from the
 * finished record @rec (docs/scenarios.md, "grid"): rec.grid = {label,
 * value, of}, value null where the record lacks it (a trial that ended
 * early); vmstat: the counter's change, guest_after's less guest_before's.
 * Nothing when no entry applies.
 */
void mhlTrialGrid(const mhlScenario *s, json_object *rec);

/* A record's "host": how the host side was read (@g's) and the backing of @s, the pool @pool grew. */
json_object *mhlTrialHostFacts(const mhlGuest *g, const mhlScenario *s, const mhlHugePool *pool);

#endif
