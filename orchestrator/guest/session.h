/*
 * session.h - one running guest: boot it from a scenario, watch its console,
 * follow its virtio-mem devices, resize them, stop it. Trials and soaks run
 * their steps on one of these; nothing here judges an outcome.
 */
#ifndef MHL_GUEST_SESSION_H
#define MHL_GUEST_SESSION_H

#include <json-c/json.h>
#include <libvirt/libvirt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "guest/console-stream.h"
#include "guest/guest.h"
#include "host/budget.h"
#include "host/hostmem.h"
#include "scenario/scenario.h"

/* What a guest boots: the domain template filled for a scenario. */
typedef struct {
	const char *name;	/* domain name: memhp-<trial>-<pid>-<n> */
	const char *console;	/* serial log path (absolute) */
	const char *tmpl_path;	/* domain template */
	const char *kernel_image;	/* bzImage */
	const char *initrd;
	const char *accel;	/* "kvm" or "tcg" */
	const char *emulator;
	double agent_deadline;	/* seconds for the guest agent to answer */
	bool timeline;		/* keep the plugged-size timeline (a soak does not: it would grow) */
	bool host_local;	/* QEMU runs on this host: its /proc is ours to read (host/hostmem.h) */
	bool remote;		/* a fleet host (fleet/): its serial console is a pty streamed into @console, the domain autodestroys with our connection */
	uint64_t hugepage_kib;	/* the memory backing's hugepage size, 0: none */
	bool console_exclusive;	/* @console must not exist yet (a trial's: never another's); else truncated */
	uint64_t budget_bytes;	/* QEMU's memory budget (host/budget.h), enforced when QEMU is our child; 0: none */
} mhlGuestConfig;

typedef struct {
	mhlGuestConfig cfg;
	char *name;
	char *console;
	virDomainPtr dom;	/* NULL until booted */
	double t0;		/* monotonic time of domain creation */
	pthread_mutex_t lock;
	pthread_mutex_t hm_lock;	/* hm, host_prev, host_logged, host_changed_t: the steps' and the watcher's samples */
	json_object *timeline;	/* [{t, source, node|alias, size_bytes|requested_bytes}] */
	/* Set by the console watcher and the lifecycle callback, under lock. */
	char *fatal;		/* first panic/Oops line on the console, with file:line */
	char *gone;		/* the domain stopped without us destroying it */
	bool ending;		/* we destroy it now: its stop is expected */
	bool leaving;		/* its QEMU stops on purpose (saved, migrated): mhlGuestLeave .. mhlGuestReattach */
	bool rebooting;		/* a reboot step asked for a reset: mhlGuestRebootExpect */
	int resets;		/* resets seen (libvirt's REBOOT event) */
	bool watch_stop;
	bool watching;
	pthread_t watcher;
	mhlConsoleStream *stream;	/* the console coming into @console (guest/console-stream.c) */
	guint64 console_dropped;	/* bytes past the log's cap (MEMHP_CONSOLE_MAX), dropped */
	mhlConsoleScanner scan;	/* the console so far: the watcher's while it runs, then mhlGuestEnd's */
	/* The host side (host/hostmem.h), from boot on; sampled by the resize waits. */
	mhlHostMem hm;
	bool hm_open;
	mhlBudget budget;	/* QEMU's memory cgroup (cfg.budget_bytes), from boot on */
	mhlHostSample host_prev;	/* the last sample */
	mhlHostSample host_logged;	/* the last sample put on the timeline */
	double host_changed_t;		/* monotonic time of the last sample that differed */
	/* libvirt's DEVICE_REMOVED / DEVICE_REMOVAL_FAILED so far (the last ones), under lock */
	struct {
		char alias[64];
		bool removed;
	} devev[16];
	int ndevev;
} mhlGuest;

mhlGuest *mhlGuestNew(const mhlGuestConfig *cfg);
/* Stop it if it runs (mhlGuestStop) and free it. */
void mhlGuestFree(mhlGuest *g);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(mhlGuest, mhlGuestFree)

/*
 * Create the domain for @s, start the console watcher, wait for the guest
 * agent (*boot_s: seconds it took) and for every virtio-mem device's initial
 * plug (*plug_s: the last device's seconds, -1 if none). -1 + mhlError.
 */
int mhlGuestBoot(mhlGuest *g, virConnectPtr conn, const mhlScenario *s, double *boot_s,
		 double *plug_s);

/*
 * Set node @node's virtio-mem <requested> to @bytes and wait up to @deadline
 * seconds for the plugged size to follow; *reached is where it is at the end.
 * Returns the seconds it took; -1 + mhlError when it did not get there in
 * time (or a signal came); -2 + mhlError when the request or a size query
 * failed (the guest or its monitor is gone).
 */
double mhlGuestResize(mhlGuest *g, int node, uint64_t bytes, double deadline,
		      unsigned long long *reached);

/*
 * Set node @node's virtio-mem <requested> to @bytes and return at once
 * (mhlGuestResize's request, without the wait): 0, or -1 + mhlError quoting
 * libvirt's refusal.
 */
int mhlGuestRequest(mhlGuest *g, int node, uint64_t bytes);

/* Wait until node's plugged size equals @want: seconds, -1 or -2 as above. */
double mhlGuestWaitPlugged(mhlGuest *g, int node, unsigned long long want, double deadline,
			   unsigned long long *reached);

/* Wait until every device of @s is at its request: seconds, or -1 + mhlError. */
double mhlGuestWaitConverged(mhlGuest *g, const mhlScenario *s, double deadline);

/*
 * Sample the host side now (*out, may be NULL): the timeline gets a "host"
 * entry when a backend's resident bytes (or, from libvirt, QEMU's resident
 * set) moved by more than MHL_HOST_JITTER since the last entry, and
 * g->host_changed_t moves on when they moved since the last sample.
 * -1 when the guest has no host side or it could not be read (no error set).
 */
#define MHL_HOST_JITTER (1 << 20)
int mhlGuestHostSample(mhlGuest *g, mhlHostSample *out);

/*
 * A dimm or vmem step attached device @id on node @node, its backend QEMU's
 * mapping at @start (0: not found): mhlHostMemHotAdd under the samples'
 * lock, so that every sample from now on (the steps', the watcher's) reads
 * it and the settle of a later detach or resize follows it. Its index in
 * the samples' hot_bytes[], -1 when the table is full.
 */
int mhlGuestHostAttach(mhlGuest *g, const char *id, int node, bool vmem, uint64_t size, uint64_t start);

/* Sleep @seconds with the console watcher on: -1 + mhlError if the guest goes or a signal comes. */
int mhlGuestSleep(mhlGuest *g, double seconds);

/*
 * A lifecycle step that ends the guest's QEMU on purpose and starts another
 * (save and restore, a managed save and start, a live migration) brackets
 * it with these. mhlGuestLeave: the coming stop (saved, migrated) is
 * expected and the host side is not sampled until the guest is back.
 * mhlGuestReattach: @dom (ours now; on the same connection or, after a
 * migration, another; @remote: its QEMU is a fleet host's) runs the guest,
 * possibly paused. Its events come by name as before (a new connection is
 * registered once by whoever opened it: mhlDomainEventsRegister); the
 * console's copy goes on from the new QEMU, appended to the same log; the
 * host side is read from the new QEMU (@host_local: its /proc is ours); a
 * paused domain is resumed. -1 + mhlError, the guest then stopped (nothing
 * of it is left running unwatched).
 */
void mhlGuestLeave(mhlGuest *g);
int mhlGuestReattach(mhlGuest *g, virDomainPtr dom, const mhlScenario *s, bool host_local,
		     bool remote);
/*
 * The same QEMU through a new connection (a daemon-restart step: the daemon
 * went and came back, QEMU ran on): as mhlGuestReattach, except that a
 * local pty's console copy goes on as it was (the pty is QEMU's, never the
 * daemon's); a streamed console starts again from the new connection.
 * Between mhlGuestLeave and this, the host side is not sampled.
 */
int mhlGuestRehome(mhlGuest *g, virDomainPtr dom, const mhlScenario *s);

/*
 * A reboot step brackets its request with these: while expected, a reset of
 * the guest (libvirt's REBOOT event; the domain's on_reboot is restart when
 * the scenario has a reboot step) only counts in g->resets; any other one
 * marks the guest gone ("rebooted on its own"). mhlGuestResets: the count.
 */
void mhlGuestRebootExpect(mhlGuest *g, bool expect);
/*
 * The last removal event of device @alias: 1 DEVICE_REMOVED, -1
 * DEVICE_REMOVAL_FAILED, 0 none yet (a dimm or vmem detach waits for it).
 */
int mhlGuestDeviceRemoved(mhlGuest *g, const char *alias);
int mhlGuestResets(mhlGuest *g);

/* Whether the domain still runs. */
bool mhlGuestAlive(mhlGuest *g);

/* Destroy the domain (an expected stop), stop the watcher. Idempotent. */
void mhlGuestStop(mhlGuest *g);

/*
 * After mhlGuestStop: the console's kernel reports for the record (a JSON
 * array, mhlConsoleScanFindings: the first MHL_CONSOLE_FINDINGS_MAX and the
 * count of the others). A panic or Oops the watcher had no time to see (the
 * agent noticed first) is set in g->fatal here.
 */
json_object *mhlGuestEnd(mhlGuest *g);

/* Append {t, source, key: who, sizekey: bytes} to the timeline (if kept). */
void mhlGuestTimelineAdd(mhlGuest *g, const char *source, const char *key, json_object *who,
			 const char *sizekey, unsigned long long bytes);
/* Hand the timeline over (the guest keeps an empty one). */
json_object *mhlGuestTimelineTake(mhlGuest *g);

#endif
