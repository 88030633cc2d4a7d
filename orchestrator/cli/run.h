/* run.h - `memhp-lab run`: the trials of one or more scenarios, up to N at a time. */
#ifndef MHL_RUN_H
#define MHL_RUN_H

#include <glib.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "trial/trial.h"

typedef struct {
	const char *uri;	/* NULL: the embedded driver in a private root */
	const char *hosts;	/* --host URI...: a fleet run (newline-separated), or NULL */
	const char *hosts_file;	/* --hosts FILE, or NULL */
	const char *peers;	/* --peer NAME=URI...: where migrate steps go (newline-separated), or NULL */
	const char *daemon_restart;	/* --daemon-restart ARGV: what restarts --uri's daemon (daemon-restart steps), or NULL */
	const char *kernel;	/* --kernel, --pin-policy: override every scenario */
	const char *pin_policy;
	const char *stack;	/* --stack: a row of mhlStacks, overriding every scenario's stack: */
	const char *kernel_dir;	/* --kernel-dir: one artifact for every trial */
	const char *initrd, *tmpl, *outdir, *only;
	const char *resume;	/* --resume RUN_DIR: the trials of its run.json without a final record */
	bool append;		/* --append: -o DIR may hold another run's records (added to them) */
	int shard_k, shard_n;	/* --shard K/N (cli/shard.h); 0: the whole run */
	json_object *shard_trials;	/* with --shard: every trial id of the whole run (run.json) */
	double agent_deadline;
	int jobs;		/* 0: from host cores and memory */
	bool quiet, json;
	bool keep;		/* --keep: hold the one trial's guest after its steps until Ctrl-C */
	const char *bindir, *srcdir, *cache;
} mhlRunOptions;

/* Guests that fit: -j N checked against MemAvailable; 0 and why when none. */
typedef struct {
	uint64_t need_bytes;	/* the largest guest of the run, QEMU's overhead included */
	uint64_t avail_bytes;	/* MemAvailable */
	int cores;
} mhlHostFit;

/* How many guests of @need_bytes fit in @avail_bytes and @cores (at least 1 if any fits). */
int mhlJobsDefault(const mhlHostFit *h);

/* MemAvailable of /proc/meminfo in bytes, 0 when it has none: what run fits guests against (mhlScenarioGuestBytes). */
uint64_t mhlMemAvailable(void);

/* run-fleet.c: --host/--hosts parsed and checked against the trials (mhlJob *). -1 + mhlError. */
int mhlRunFleetHosts(const mhlRunOptions *o, GPtrArray *jobs, GPtrArray *hosts);
/*
 * Connect to the hosts, give each its slots for guests of @need_bytes, run
 * the trials over them (trial/queue-fleet.c) with @cfg. -1 + mhlError when
 * no host can take a guest.
 */
int mhlRunFleet(const mhlRunOptions *o, mhlRunConfig *cfg, GPtrArray *jobs, GPtrArray *hosts,
		const char *outdir, uint64_t need_bytes);

/*
 * run-peer.c: --peer NAME=URI parsed into @peers (mhlPeer *, freed with
 * mhlPeerFree) and every migrate step of @jobs checked to name one of them,
 * with its file:line. Then, once libvirt runs, each peer connected. -1 + mhlError.
 */
int mhlRunPeers(const mhlRunOptions *o, GPtrArray *jobs, GPtrArray *peers);
int mhlRunPeersConnect(GPtrArray *peers);
void mhlPeerFree(mhlPeer *p);

/*
 * run-daemon.c: --daemon-restart's ARGV (g_shell_parse_argv: words and
 * quotes, no shell) into *argv when given, and every daemon-restart step of
 * @jobs checked before anything boots (with its file:line): the option
 * given, a daemon URI (@uri; not the embedded driver, not a fleet), @n (the
 * trials at once) 1. -1 + mhlError.
 */
int mhlRunDaemonRestart(const mhlRunOptions *o, GPtrArray *jobs, int n, char ***argv);

/* Run everything; returns the exit status (0 all passed, 1 some did not, 2 usage/setup). */
int mhlRunTrials(const mhlRunOptions *o, char **scenarios, int nscenarios);

/*
 * results.c: a run directory as a results tree. mhlJobId: a new job id (40
 * hex digits, run.json's job_id). mhlResultsLatest: DIR/../latest -> DIR's
 * name, replaced atomically. mhlSysinfoSave: the host's /proc files and
 * identity into DIR/sysinfo/@when/ ("pre" before the trials, "post" after).
 */
char *mhlJobId(void);
void mhlResultsLatest(const char *outdir);
void mhlSysinfoSave(const char *outdir, const char *when);

#endif
