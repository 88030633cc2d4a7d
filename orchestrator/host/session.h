/*
 * session.h - libvirt on the host: event loop, embedded root or URI,
 * connection, and the domain events routed by domain name.
 */
#ifndef MHL_HOST_SESSION_H
#define MHL_HOST_SESSION_H

#include <libvirt/libvirt.h>
#include <stdbool.h>

#include "host/stack.h"

typedef struct {
	virConnectPtr conn;
	char *uri;		/* the user's, or qemu:///embed?root=ROOT */
	char *root;		/* the embedded driver's private root, removed at close; or NULL */
	char *guard;		/* how the embedded guests are kept from outliving us (host/guard.c) */
	char *cache;		/* $MEMHP_CACHE: libvirt's QEMU capabilities kept there (capscache.c), or NULL */
	mhlStackDaemon *stack;	/* a stack's libvirtd this session started (host/stack.c), or NULL */
} mhlSession;

/* A stack the lab builds, for mhlSessionOpenStack: its name, its root (mhlStackRoot), where stacks/ is. */
typedef struct {
	const char *name;
	const char *root;
	const char *srcdir;
	const char *const *show;	/* what its daemon must see at the same paths (NULL-terminated): kernels, images */
} mhlStackSpec;

/*
 * Before the first connection: libvirt's log into @outdir/libvirt.log, its
 * errors to us, the default event loop on its own thread. -1 + mhlError.
 */
int mhlLibvirtStart(const char *outdir);
/* Remove embedded roots (and their QEMU processes) whose owner process is gone. */
void mhlStaleRootsClean(void);
/*
 * Whether @root is an embedded root a run of ours left and may be removed:
 * named mhl-*, a directory (not a link) of ours with mode 0700 holding a
 * regular owner.pid of ours, whose process ("PID STARTTIME", or an older
 * root's "PID") runs no more. *pid: the owner's, or -1.
 */
bool mhlEmbedRootStale(const char *root, long *pid);
/* A private root for qemu:///embed with our qemu.conf and owner.pid; NULL + mhlError. */
char *mhlEmbedRootCreate(void);

/*
 * Whether @uri's daemon (and so its QEMU) runs on this host: no host part
 * (qemu:///system, qemu:///embed?root=...). Pids in domain names and QEMU's
 * /proc are then ours to read.
 */
bool mhlUriLocal(const char *uri);

/*
 * Start libvirt (mhlLibvirtStart), connect to @uri or, if NULL, to the
 * embedded driver in a new private root (after cleaning what dead runs left;
 * seeded with the QEMU capabilities kept in @cache, which may be NULL),
 * and register the domain events (mhlDomainEventsRegister). -1 + mhlError,
 * nothing left open.
 */
int mhlSessionOpen(mhlSession *ses, const char *uri, const char *outdir, const char *cache);
/*
 * As mhlSessionOpen, to the libvirtd of stack @st started for this session
 * in namespaces of its own (mhlStackDaemonStart, its private directory an
 * embedded root, guarded as the embedded driver's: no process of it
 * outlives memhp-lab). mhlSessionClose stops it. -1 + mhlError.
 */
int mhlSessionOpenStack(mhlSession *ses, const mhlStackSpec *st, const char *outdir);
/* 0 when @conn is libvirt's QEMU driver; else -1 + mhlError naming @uri's driver. */
int mhlConnIsQemu(virConnectPtr conn, const char *uri);
/*
 * A daemon's domains named by runs that are gone (memhp-<trial>-<pid>-<n>
 * whose pid runs no more here): destroy them, and undefine one left defined
 * (a managedsave step cut short) with its managed save image; one line each
 * on stderr unless @quiet. Returns how many, or -1 + mhlError.
 */
int mhlDeadRunDomainsDestroy(virConnectPtr conn, bool quiet);

/*
 * Domain events by connection and domain name. libvirt takes one callback
 * per event and connection, so mhlDomainEventsRegister registers them once
 * per connection (mhlSessionOpen, fleet/connect.c) and each event goes to
 * what watches its domain's name on the connection it came from (a guest/
 * session, from just before its domain is created until it stops). A
 * migration's peer holds a domain of the same name: its events (an aborted
 * incoming migration's STOPPED_FAILED) are not the guest's until the guest
 * moves there (mhlDomainEventsMove). A handler runs on libvirt's event loop
 * thread with the table's lock held: once mhlDomainEventsUnwatch returns,
 * none runs for it.
 */
typedef struct {
	/* VIR_DOMAIN_EVENT_ID_LIFECYCLE: the VIR_DOMAIN_EVENT_* and its detail */
	void (*lifecycle)(void *opaque, int event, int detail);
	/* VIR_DOMAIN_EVENT_ID_MEMORY_DEVICE_SIZE_CHANGE: device @alias is at @size_kib */
	void (*size_change)(void *opaque, const char *alias, unsigned long long size_kib);
	/* VIR_DOMAIN_EVENT_ID_REBOOT: the guest was reset (its QEMU goes on) */
	void (*reboot)(void *opaque);
	/* VIR_DOMAIN_EVENT_ID_DEVICE_REMOVED (@removed) or DEVICE_REMOVAL_FAILED: device @alias */
	void (*device_removed)(void *opaque, const char *alias, bool removed);
} mhlDomainEventHandlers;

/* Once per connection, before any domain: lifecycle, size-change, reboot and device removal events. -1 + mhlError. */
int mhlDomainEventsRegister(virConnectPtr conn);
/*
 * Undo mhlDomainEventsRegister for @conn (one whose daemon went away and was
 * reconnected: its callbacks would keep it alive); no error when there is none.
 */
void mhlDomainEventsDeregister(virConnectPtr conn);
/* Route domain @name's events on @conn to @h with @opaque (@h must outlive the watch). */
void mhlDomainEventsWatch(const char *name, virConnectPtr conn, const mhlDomainEventHandlers *h, void *opaque);
/* @opaque's domain @name runs on @conn from now on (a migration, a restore through a new connection). */
void mhlDomainEventsMove(const char *name, void *opaque, virConnectPtr conn);
/* Stop routing @name's events to @opaque (a later watch of the name by another stays). */
void mhlDomainEventsUnwatch(const char *name, void *opaque);

/* Close the connection (its embedded guests die with it), stop a stack's daemon, and remove the root. */
void mhlSessionClose(mhlSession *ses);

#endif
