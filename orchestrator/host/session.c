/*
 * session.c - the host side of a run or a soak: libvirt's event loop and log,
 * the embedded driver's private root (or the user's URI), the connection, the
 * domain events routed by domain name, and the cleanup of what a killed run left.
 */
#include <glib.h>

#include "host/budget.h"
#include "host/session.h"

#include <errno.h>
#include <fcntl.h>
#include <libvirt/virterror.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "host/capscache.h"
#include "host/guard.h"
#include "host/hugepages.h"
#include "host/reaper.h"
#include "util.h"

static void *eventLoop(void *opaque)
{
	(void)opaque;
	for (;;)
		if (virEventRunDefaultImpl() < 0)
			fprintf(stderr, "memhp-lab: warning: event loop: %s\n", virGetLastErrorMessage());
	return NULL;
}

static void libvirtQuiet(void *opaque, virErrorPtr e)
{
	(void)opaque; (void)e;	/* errors are reported by us, with context */
}

int mhlLibvirtStart(const char *outdir)
{
	g_autofree char *out = g_strdup_printf("3:file:%s/libvirt.log", outdir);
	mhl_autofd int fd = mhlOpenIn(outdir, "libvirt.log", O_WRONLY | O_APPEND | O_CREAT, 0644);
	pthread_t loop;

	/*
	 * libvirt opens its log by name, following links: the file is made (or
	 * found) here first, below the run directory's descriptor, and refused
	 * if it is a link, not a regular file or hard-linked; the directory is
	 * ours alone (mhlRunDirTrusted), so nothing replaces it before libvirt
	 * opens it.
	 */
	if (fd < 0) {
		mhlError("cannot open libvirt's log '%s/libvirt.log': %s", outdir,
			 mhlOpenWhy(errno));
		return -1;
	}
	/* libvirt's own log (embedded driver included) goes to the run directory. */
	g_setenv("LIBVIRT_LOG_OUTPUTS", out, FALSE);
	virSetErrorFunc(NULL, libvirtQuiet);
	if (virInitialize() < 0 || virEventRegisterDefaultImpl() < 0) {
		mhlErrorVirt("cannot initialize libvirt's event loop");
		return -1;
	}
	pthread_create(&loop, NULL, eventLoop, NULL);
	pthread_detach(loop);
	return 0;
}

/* Field 22 of /proc/PID/stat: when the process started (clock ticks since boot); 0 if gone. */
static unsigned long long procStartTime(long pid)
{
	g_autofree char *path = g_strdup_printf("/proc/%ld/stat", pid), *text = NULL;
	const char *p;
	unsigned long long t = 0;
	int i;

	if (!g_file_get_contents(path, &text, NULL, NULL) || !(p = strrchr(text, ')')))
		return 0;
	for (i = 0; i < 20 && p; i++)	/* fields 3..22 follow the ")" of field 2 */
		p = strchr(p + 1, ' ');
	if (p)
		t = g_ascii_strtoull(p + 1, NULL, 10);
	return t;
}

/* The owner of a root: "PID STARTTIME" (older roots: "PID"). Whether that process still runs. */
static bool ownerAlive(const char *text, long *pid)
{
	char *end;
	unsigned long long start;

	*pid = strtol(text, &end, 10);
	if (*pid <= 0)
		return false;
	start = g_ascii_strtoull(end, NULL, 10);
	if (start)
		return procStartTime(*pid) == start;	/* the same process, not a reused pid */
	return kill((pid_t)*pid, 0) == 0 || errno == EPERM;
}

/*
 * Whether /tmp/@name is a root this user's memhp-lab made: a directory (not
 * a link) owned by us with mode 0700 (g_mkdtemp's), holding a regular
 * owner.pid owned by us. Anything else in /tmp is left alone.
 */
static bool rootOurs(const char *root, const char *own)
{
	struct stat st;

	return lstat(root, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       (st.st_mode & 07777) == 0700 && lstat(own, &st) == 0 && S_ISREG(st.st_mode) &&
	       st.st_uid == geteuid();
}

bool mhlEmbedRootStale(const char *root, long *pid)
{
	g_autofree char *name = g_path_get_basename(root);
	g_autofree char *own = g_build_filename(root, "owner.pid", NULL);
	g_autofree char *text = NULL;

	*pid = -1;
	return g_str_has_prefix(name, "mhl-") && rootOurs(root, own) &&
	       g_file_get_contents(own, &text, NULL, NULL) && !ownerAlive(text, pid);
}

/*
 * An embedded root whose owner died (SIGKILL, a crash) is removed at the next
 * start, with the QEMU processes of its guests it left (the run's guard
 * normally has done both): /tmp/mhl-XXXXXX/owner.pid.
 */
void mhlStaleRootsClean(void)
{
	g_autoptr(GDir) d = g_dir_open("/tmp", 0, NULL);
	const char *e;

	mhlGuardStaleClean();
	mhlHugePoolStaleClean();
	while (d && (e = g_dir_read_name(d))) {
		g_autofree char *root = g_build_filename("/tmp", e, NULL);
		long pid;

		if (!mhlEmbedRootStale(root, &pid))
			continue;
		mhlRootKillGuests(root, pid, true);
		fprintf(stderr, "memhp-lab: removing %s, left by run %ld that is gone\n", root, pid);
		mhlHugetlbfsUnmount(root);
		mhlRemoveTree(root);
	}
}

/*
 * A private root for qemu:///embed, with the qemu.conf this machine needs
 * (and hugetlbfs mounts of its own, for memory_backing: hugepages).
 */
char *mhlEmbedRootCreate(void)
{
	static const char base[] =
		"# memhp-lab: embedded QEMU driver settings (see docs/architecture.md)\n"
		"stdio_handler = \"file\"\n"
		"security_driver = \"none\"\n"
		"cgroup_controllers = [ ]\n"
		"namespaces = [ ]\n"
		"user = \"root\"\n"
		"group = \"root\"\n"
		"# No ownership xattrs on the kernel, initramfs and logs it hands to QEMU.\n"
		"remember_owner = 0\n";
	g_autoptr(GString) conf = g_string_new(base);
	g_autofree char *root = g_strdup("/tmp/mhl-XXXXXX");
	g_autofree char *etc = NULL, *path = NULL, *own = NULL, *pid = NULL;
	g_autoptr(GError) err = NULL;

	if (!g_mkdtemp(root)) {
		mhlError("cannot create the embedded driver root under /tmp: %s", g_strerror(errno));
		return NULL;
	}
	etc = g_build_filename(root, "etc", NULL);
	path = g_build_filename(etc, "qemu.conf", NULL);
	own = g_build_filename(root, "owner.pid", NULL);
	pid = g_strdup_printf("%d %llu\n", (int)getpid(), procStartTime(getpid()));
	/* the owner first: a root with mounts is never without one (mhlStaleRootsClean) */
	if (g_mkdir_with_parents(etc, 0700) < 0 || !g_file_set_contents(own, pid, -1, &err)) {
		mhlError("cannot write '%s': %s", err ? own : etc, err ? err->message : g_strerror(errno));
		return NULL;
	}
	mhlHugetlbfsMount(root, conf);
	if (!g_file_set_contents(path, conf->str, -1, &err)) {
		mhlError("cannot write '%s': %s", path, err->message);
		mhlHugetlbfsUnmount(root);
		return NULL;
	}
	return g_steal_pointer(&root);
}

/* "memhp-<trial>-<pid>-<n>": the pid of the run that named the domain, or -1. */
static long domainRunPid(const char *name)
{
	const char *last = strrchr(name, '-'), *p;
	char *end;
	long pid;

	if (!g_str_has_prefix(name, "memhp-") || !last || last == name)
		return -1;
	for (p = last - 1; p > name && *p != '-'; p--)
		;
	if (*p != '-' || !g_ascii_isdigit(p[1]) || !g_ascii_isdigit(last[1]))
		return -1;
	pid = strtol(p + 1, &end, 10);
	return end == last && pid > 0 ? pid : -1;
}

/*
 * The machine that created @dom (its metadata's memhp:run host, as
 * MHL_RUN_METADATA_NS names it), or NULL when it has none (a domain of an
 * older memhp-lab, or no lab domain at all).
 */
static char *domainRunHost(virDomainPtr dom)
{
	g_autofree char *xml = virDomainGetMetadata(dom, VIR_DOMAIN_METADATA_ELEMENT, MHL_RUN_METADATA_NS, 0);
	xmlDocPtr doc;
	xmlNodePtr root;
	xmlChar *host;
	char *out = NULL;

	virResetLastError();
	if (!xml || !(doc = xmlReadMemory(xml, (int)strlen(xml), "metadata.xml", NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
								      XML_PARSE_NOWARNING)))
		return NULL;
	if ((root = xmlDocGetRootElement(doc)) && (host = xmlGetProp(root, (const xmlChar *)"host"))) {
		out = g_strdup((const char *)host);
		xmlFree(host);
	}
	xmlFreeDoc(doc);
	return out;
}

/*
 * Whether this machine may judge @dom's run by its pid: the domain says it
 * was created here, or (a domain of an older memhp-lab, without the
 * metadata) @uri is a daemon of this machine. A peer's or a fleet host's
 * domain another machine's memhp-lab created is never this machine's to
 * judge: its pid means nothing here (issue 48).
 */
static bool runHostOurs(virDomainPtr dom, const char *uri)
{
	g_autofree char *host = domainRunHost(dom);

	return host ? !strcmp(host, mhlRunHostId()) : mhlUriLocal(uri);
}

int mhlDeadRunDomainsDestroy(virConnectPtr conn, bool quiet)
{
	g_autofree char *uri = virConnectGetURI(conn);
	virDomainPtr *doms = NULL;
	int i, n = virConnectListAllDomains(conn, &doms, 0), gone = 0;

	if (n < 0) {
		mhlErrorVirt("cannot list the domains of '%s'", uri ? uri : "?");
		return -1;
	}
	for (i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);
		long pid = domainRunPid(name);

		if (pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH && runHostOurs(doms[i], uri)) {
			if (!quiet)
				fprintf(stderr, "memhp-lab: destroying domain '%s', left by run %ld that is gone\n",
					name, pid);
			/* persistent: a managedsave step (trial/step-save.c) was cut short */
			if ((virDomainIsActive(doms[i]) != 1 || virDomainDestroy(doms[i]) == 0) &&
			    (virDomainIsPersistent(doms[i]) != 1 ||
			     virDomainUndefineFlags(doms[i], VIR_DOMAIN_UNDEFINE_MANAGED_SAVE) == 0))
				gone++;
		}
		virDomainFree(doms[i]);
	}
	free(doms);
	return gone;
}

bool mhlUriLocal(const char *uri)
{
	const char *p = uri ? strstr(uri, "://") : NULL;

	return p && p[3] == '/';
}

/* The embedded driver's root, guarded; or the user's URI. */
static int sessionTarget(mhlSession *ses, const char *uri)
{
	if (uri) {
		ses->uri = g_strdup(uri);
		mhlHugePoolStaleClean();	/* what a killed run on a daemon added to the pool */
		return 0;
	}
	mhlStaleRootsClean();	/* what a run the guard could not finish left */
	mhlBudgetSweep();	/* the memory cgroups of runs killed (kill -9) before they removed them */
	if (!(ses->root = mhlEmbedRootCreate()) || !(ses->guard = mhlGuardStart(ses->root)))
		return -1;
	if (mhlReaperStart(ses->root) < 0) {	/* pid 1 reaps QEMU then, as late as it does */
		fprintf(stderr, "memhp-lab: warning: %s\n", mhlErrorLast());
		mhlErrorReset();
	}
	ses->uri = g_strdup_printf("qemu:///embed?root=%s", ses->root);
	return 0;
}

int mhlConnIsQemu(virConnectPtr conn, const char *uri)
{
	const char *type = virConnectGetType(conn);

	/* a guest agent, QMP and virtio-mem: only the QEMU driver has them (test:/// would poll the agent for 120 s) */
	if (!type || g_ascii_strcasecmp(type, "QEMU")) {
		mhlErrorReset();	/* virConnectGetType's own, if any: this says more */
		mhlError("libvirt at '%s' is the %s driver: memhp-lab runs QEMU guests (qemu:///system, qemu+ssh://HOST/system, or no URI: the embedded QEMU driver)",
			 uri, type ? type : "unknown");
		return -1;
	}
	return 0;
}

/*
 * The routing table of domain events (session.h): domain name -> who
 * watches it. The callbacks look their domain up and call its handler under
 * the lock, so an unwatched domain's handler never runs after the unwatch.
 */
typedef struct {
	const mhlDomainEventHandlers *h;
	void *opaque;
	virConnectPtr conn;	/* the connection its events come from (compared, not held) */
} eventWatch;

static pthread_mutex_t watchesLock = PTHREAD_MUTEX_INITIALIZER;
static GHashTable *watches;	/* domain name -> eventWatch * */

void mhlDomainEventsWatch(const char *name, virConnectPtr conn, const mhlDomainEventHandlers *h, void *opaque)
{
	eventWatch *w = g_new0(eventWatch, 1);

	w->h = h;
	w->opaque = opaque;
	w->conn = conn;
	pthread_mutex_lock(&watchesLock);
	if (!watches)
		watches = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	g_hash_table_replace(watches, g_strdup(name), w);
	pthread_mutex_unlock(&watchesLock);
}

void mhlDomainEventsMove(const char *name, void *opaque, virConnectPtr conn)
{
	eventWatch *w;

	pthread_mutex_lock(&watchesLock);
	if (watches && (w = g_hash_table_lookup(watches, name)) && w->opaque == opaque)
		w->conn = conn;
	pthread_mutex_unlock(&watchesLock);
}

/* Who watches @dom on @conn, under watchesLock; NULL: nobody (or its domain of that name elsewhere). */
static eventWatch *watchOf(virConnectPtr conn, virDomainPtr dom)
{
	eventWatch *w = watches ? g_hash_table_lookup(watches, virDomainGetName(dom)) : NULL;

	return w && w->conn == conn ? w : NULL;
}

void mhlDomainEventsUnwatch(const char *name, void *opaque)
{
	eventWatch *w;

	pthread_mutex_lock(&watchesLock);
	if (watches && (w = g_hash_table_lookup(watches, name)) && w->opaque == opaque)
		g_hash_table_remove(watches, name);
	pthread_mutex_unlock(&watchesLock);
}

static void onLifecycle(virConnectPtr conn, virDomainPtr dom, int event, int detail,
			void *opaque)
{
	eventWatch *w;

	(void)opaque;
	pthread_mutex_lock(&watchesLock);
	if ((w = watchOf(conn, dom)) && w->h->lifecycle)
		w->h->lifecycle(w->opaque, event, detail);
	pthread_mutex_unlock(&watchesLock);
}

static void onSizeChange(virConnectPtr conn, virDomainPtr dom, const char *alias,
			 unsigned long long size_kib, void *opaque)
{
	eventWatch *w;

	(void)opaque;
	pthread_mutex_lock(&watchesLock);
	if ((w = watchOf(conn, dom)) && w->h->size_change)
		w->h->size_change(w->opaque, alias, size_kib);
	pthread_mutex_unlock(&watchesLock);
}

static void onReboot(virConnectPtr conn, virDomainPtr dom, void *opaque)
{
	eventWatch *w;

	(void)opaque;
	pthread_mutex_lock(&watchesLock);
	if ((w = watchOf(conn, dom)) && w->h->reboot)
		w->h->reboot(w->opaque);
	pthread_mutex_unlock(&watchesLock);
}

/* DEVICE_REMOVED and DEVICE_REMOVAL_FAILED (a dimm or vmem detach): the device's alias. */
static void onDeviceRemoved(virConnectPtr conn, virDomainPtr dom, const char *alias, void *opaque)
{
	eventWatch *w;

	(void)opaque;
	pthread_mutex_lock(&watchesLock);
	if ((w = watchOf(conn, dom)) && w->h->device_removed)
		w->h->device_removed(w->opaque, alias, true);
	pthread_mutex_unlock(&watchesLock);
}

static void onDeviceRemovalFailed(virConnectPtr conn, virDomainPtr dom, const char *alias, void *opaque)
{
	eventWatch *w;

	(void)opaque;
	pthread_mutex_lock(&watchesLock);
	if ((w = watchOf(conn, dom)) && w->h->device_removed)
		w->h->device_removed(w->opaque, alias, false);
	pthread_mutex_unlock(&watchesLock);
}

#define EVENT_IDS 5	/* the events mhlDomainEventsRegister registers */

/* The callback ids of each registered connection (mhlDomainEventsDeregister), under watchesLock. */
typedef struct {
	virConnectPtr conn;
	int ids[EVENT_IDS];
} eventRegs;
static GArray *registered;

static void regsAdd(virConnectPtr conn, const int ids[EVENT_IDS])
{
	eventRegs r = { .conn = conn };

	memcpy(r.ids, ids, sizeof(r.ids));

	pthread_mutex_lock(&watchesLock);
	if (!registered)
		registered = g_array_new(false, false, sizeof(eventRegs));
	g_array_append_val(registered, r);
	pthread_mutex_unlock(&watchesLock);
}

int mhlDomainEventsRegister(virConnectPtr conn)
{
	int ids[EVENT_IDS];

	if ((ids[0] = virConnectDomainEventRegisterAny(conn, NULL, VIR_DOMAIN_EVENT_ID_MEMORY_DEVICE_SIZE_CHANGE,
						       VIR_DOMAIN_EVENT_CALLBACK(onSizeChange), NULL, NULL)) < 0) {
		mhlErrorVirt("cannot register for MEMORY_DEVICE_SIZE_CHANGE events");
		return -1;
	}
	if ((ids[1] = virConnectDomainEventRegisterAny(conn, NULL, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
						       VIR_DOMAIN_EVENT_CALLBACK(onLifecycle), NULL, NULL)) < 0) {
		mhlErrorVirt("cannot register for lifecycle events");
		return -1;
	}
	if ((ids[2] = virConnectDomainEventRegisterAny(conn, NULL, VIR_DOMAIN_EVENT_ID_REBOOT,
						       VIR_DOMAIN_EVENT_CALLBACK(onReboot), NULL, NULL)) < 0) {
		mhlErrorVirt("cannot register for reboot events");
		return -1;
	}
	if ((ids[3] = virConnectDomainEventRegisterAny(conn, NULL, VIR_DOMAIN_EVENT_ID_DEVICE_REMOVED,
						       VIR_DOMAIN_EVENT_CALLBACK(onDeviceRemoved), NULL, NULL)) < 0) {
		mhlErrorVirt("cannot register for DEVICE_REMOVED events");
		return -1;
	}
	if ((ids[4] = virConnectDomainEventRegisterAny(conn, NULL, VIR_DOMAIN_EVENT_ID_DEVICE_REMOVAL_FAILED,
						       VIR_DOMAIN_EVENT_CALLBACK(onDeviceRemovalFailed), NULL, NULL)) < 0) {
		mhlErrorVirt("cannot register for DEVICE_REMOVAL_FAILED events");
		return -1;
	}
	regsAdd(conn, ids);
	return 0;
}

void mhlDomainEventsDeregister(virConnectPtr conn)
{
	eventRegs r = { 0 };
	guint i;
	int k;

	pthread_mutex_lock(&watchesLock);
	for (i = 0; registered && i < registered->len; i++) {
		if (g_array_index(registered, eventRegs, i).conn == conn) {
			r = g_array_index(registered, eventRegs, i);
			g_array_remove_index_fast(registered, i);
			break;
		}
	}
	pthread_mutex_unlock(&watchesLock);
	/* outside the lock: a handler running now holds it. On a dead connection the daemon's side fails, ours goes. */
	for (k = 0; r.conn && k < EVENT_IDS; k++)
		virConnectDomainEventDeregisterAny(conn, r.ids[k]);
}

/* The connection to ses->uri, checked and its events registered; closed on failure. -1 + mhlError. */
static int sessionConnect(mhlSession *ses, bool daemon)
{
	if (!(ses->conn = virConnectOpen(ses->uri))) {
		mhlErrorVirt("cannot connect to libvirt at '%s'", ses->uri);
		mhlSessionClose(ses);
		return -1;
	}
	if (mhlConnIsQemu(ses->conn, ses->uri) < 0) {
		mhlSessionClose(ses);
		return -1;
	}
	if (daemon && mhlUriLocal(ses->uri) && mhlDeadRunDomainsDestroy(ses->conn, false) < 0)
		mhlErrorReset();	/* a daemon that does not list is no reason not to run */
	if (mhlDomainEventsRegister(ses->conn) < 0) {
		mhlSessionClose(ses);
		return -1;
	}
	return 0;
}

int mhlSessionOpen(mhlSession *ses, const char *uri, const char *outdir, const char *cache)
{
	memset(ses, 0, sizeof(*ses));
	/* The guard forks: before libvirt starts its threads. */
	if (sessionTarget(ses, uri) < 0 || mhlLibvirtStart(outdir) < 0) {
		mhlSessionClose(ses);
		return -1;
	}
	if (ses->root && cache) {
		ses->cache = g_strdup(cache);
		mhlCapsCacheSeed(ses->root, cache);
	}
	return sessionConnect(ses, uri != NULL);
}

int mhlSessionOpenStack(mhlSession *ses, const mhlStackSpec *st, const char *outdir)
{
	memset(ses, 0, sizeof(*ses));
	mhlStaleRootsClean();	/* what a run the guard could not finish left */
	/* the guard first (it forks), then the daemon: in the run's cgroup, which the guard kills */
	if (!(ses->root = mhlEmbedRootCreate()) || !(ses->guard = mhlGuardStart(ses->root)) ||
	    mhlLibvirtStart(outdir) < 0) {
		mhlSessionClose(ses);
		return -1;
	}
	ses->stack = g_new0(mhlStackDaemon, 1);
	if (mhlStackDaemonStart(ses->stack, st->name, st->srcdir, st->root, ses->root, outdir, st->show) < 0) {
		mhlSessionClose(ses);
		return -1;
	}
	ses->uri = g_strdup(ses->stack->uri);
	return sessionConnect(ses, false);
}

void mhlSessionClose(mhlSession *ses)
{
	if (ses->conn)
		virConnectClose(ses->conn);
	ses->conn = NULL;
	if (ses->stack) {
		mhlStackDaemonStop(ses->stack);
		g_clear_pointer(&ses->stack, g_free);
	}
	if (ses->root) {
		mhlCapsCacheSave(ses->root, ses->cache);
		mhlHugetlbfsUnmount(ses->root);
		mhlRemoveTree(ses->root);
	}
	g_clear_pointer(&ses->root, g_free);
	g_clear_pointer(&ses->uri, g_free);
	g_clear_pointer(&ses->guard, g_free);
	g_clear_pointer(&ses->cache, g_free);
}
