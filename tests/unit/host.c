/*
 * tests/unit/host.c - the host side (orchestrator/host/): what the cleanup of
 * a dead run may touch: which QEMU it kills, which embedded roots it
 * removes, which domains of a daemon it destroys (on libvirt's test driver);
 * domain events routed by name; what the QEMU capabilities cache copies
 * between $MEMHP_CACHE and a root.
 */
#include <glib.h>
#include <glib/gstdio.h>

#include <errno.h>
#include <fcntl.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fleet/fleet.h"
#include "host/accel.h"
#include "host/capscache.h"
#include "host/guard.h"
#include "host/session.h"
#include "unit.h"
#include "util.h"

typedef struct {
	const char *cmdline;	/* /proc/PID/cmdline, NULs as spaces */
	const char *tag;	/* "-<pid>-" of the run */
	bool ours;
} guestRow;

static const guestRow guestRows[] = {
	{ "/usr/bin/qemu-system-x86_64 -name guest=memhp-demo-4514-0,debug-threads=on -S", "-4514-", true },
	{ "/usr/bin/qemu-system-x86_64 -name guest=memhp-k9_size_64MiB-ab12cd34-4514-1,debug-threads=on", "-4514-", true },
	{ "/usr/bin/qemu-system-x86_64 -name guest=memhp-demo-4515-0,debug-threads=on", "-4514-", false },
	{ "/usr/bin/qemu-system-x86_64 -name guest=memhp-demo-45140-0,debug-threads=on", "-4514-", false },
	{ "/usr/bin/qemu-system-x86_64 -name guest=other-vm-4514-0", "-4514-", false },
	{ "/usr/bin/qemu-system-x86_64 -name guest=memhp-x-4514-3-99-0,debug-threads=on", "-4514-", false },
	{ "/usr/bin/qemu-system-x86_64 -name guest=memhp-x-4514-3-99-0,debug-threads=on", "-99-", true },
	{ "qemu-system-x86_64 600", "-4514-", false },
	{ "sleep guest=memhp-demo-4514-0", "-4514-", false },
};

static bool guestJudge(const void *row, GString *desc)
{
	const guestRow *r = row;
	bool got;

	g_string_printf(desc, "cleanup of run %s: '%.60s' is %s guest", r->tag, r->cmdline,
			r->ours ? "its" : "not its");
	if (unitListing)
		return true;
	got = mhlQemuIsRunGuest(r->cmdline, r->tag);
	return unitExpect(got == r->ours);
}

/* ---- which embedded roots (/tmp/mhl-*) the cleanup removes ---- */

#define DEAD_PID "999999999"	/* past any pid_max: no process */

typedef enum {
	ROOT_OWNER,		/* 0700, owner.pid holding @owner */
	ROOT_OPEN,		/* 0755, owner.pid of a dead run */
	ROOT_LINK,		/* a link to a root of a dead run */
	ROOT_OWNER_LINK,	/* 0700, owner.pid a link to a file naming a dead run */
	ROOT_NO_OWNER,		/* 0700, no owner.pid */
} rootKind;

static const struct rootRow {
	const char *name, *what;
	rootKind kind;
	const char *owner;	/* ROOT_OWNER: owner.pid; "@self" our pid and start time, "@pid" our pid alone,
				 * "@reused" our pid with another start time */
	bool stale;
} roots[] = {
	{ "mhl-dead", "of a run that is gone", ROOT_OWNER, DEAD_PID " 12345\n", true },
	{ "mhl-self", "of this process (pid and start time)", ROOT_OWNER, "@self", false },
	{ "mhl-old", "of this process (an older root: pid alone)", ROOT_OWNER, "@pid", false },
	{ "mhl-reused", "whose pid runs another process now (start time differs)", ROOT_OWNER, "@reused", true },
	{ "mhl-open", "of mode 0755 (not made by g_mkdtemp)", ROOT_OPEN, NULL, false },
	{ "mhl-link", "that is a link to a dead run's root", ROOT_LINK, NULL, false },
	{ "mhl-ownlink", "whose owner.pid is a link", ROOT_OWNER_LINK, NULL, false },
	{ "mhl-noowner", "without owner.pid", ROOT_NO_OWNER, NULL, false },
	{ "other-dead", "not named mhl-*", ROOT_OWNER, DEAD_PID " 12345\n", false },
};

/* This process's start time, field 22 of /proc/self/stat. */
static unsigned long long selfStartTime(void)
{
	g_autofree char *text = NULL;
	g_auto(GStrv) f = NULL;

	if (!g_file_get_contents("/proc/self/stat", &text, NULL, NULL) || !strrchr(text, ')'))
		return 0;
	f = g_strsplit(strrchr(text, ')') + 2, " ", -1);	/* from field 3 */
	return g_strv_length(f) > 19 ? g_ascii_strtoull(f[19], NULL, 10) : 0;
}

/* @r's directory under a directory of its own in the scratch directory; its path. */
static char *rootMake(const struct rootRow *r)
{
	g_autofree char *base = g_build_filename(unitTmpdir, "roots", r->name, NULL);
	g_autofree char *owner = NULL, *target = NULL;
	char *root = g_build_filename(base, r->name, NULL);
	g_autofree char *own = g_build_filename(root, "owner.pid", NULL);

	g_mkdir_with_parents(base, 0755);
	if (r->kind == ROOT_LINK) {
		target = g_build_filename(base, "mhl-target", NULL);
		g_mkdir(target, 0700);
		owner = g_build_filename(target, "owner.pid", NULL);
		g_file_set_contents(owner, DEAD_PID " 12345\n", -1, NULL);
		if (symlink(target, root) < 0)
			unitDiag("symlink %s: %s", root, g_strerror(errno));
		return root;
	}
	g_mkdir(root, r->kind == ROOT_OPEN ? 0755 : 0700);
	chmod(root, r->kind == ROOT_OPEN ? 0755 : 0700);	/* whatever the umask */
	if (r->kind == ROOT_NO_OWNER)
		return root;
	if (r->kind == ROOT_OWNER_LINK) {
		target = g_build_filename(base, "pidfile", NULL);
		g_file_set_contents(target, DEAD_PID " 12345\n", -1, NULL);
		if (symlink(target, own) < 0)
			unitDiag("symlink %s: %s", own, g_strerror(errno));
		return root;
	}
	if (!g_strcmp0(r->owner, "@self"))
		owner = g_strdup_printf("%d %llu\n", (int)getpid(), selfStartTime());
	else if (!g_strcmp0(r->owner, "@pid"))
		owner = g_strdup_printf("%d\n", (int)getpid());
	else if (!g_strcmp0(r->owner, "@reused"))
		owner = g_strdup_printf("%d %llu\n", (int)getpid(), selfStartTime() + 1);
	else
		owner = g_strdup(r->owner ? r->owner : DEAD_PID " 12345\n");
	g_file_set_contents(own, owner, -1, NULL);
	return root;
}

static bool rootJudge(const void *row, GString *desc)
{
	const struct rootRow *r = row;
	g_autofree char *root = NULL;
	long pid = 0;
	bool got;

	g_string_printf(desc, "cleanup: an embedded root %s is %s", r->what, r->stale ? "removed" : "left alone");
	if (unitListing)
		return true;
	root = rootMake(r);
	got = mhlEmbedRootStale(root, &pid);
	if (got != r->stale)
		unitDiag("%s: %s (owner pid %ld)", root, got ? "stale" : "not stale", pid);
	return unitExpect(got == r->stale && (!got || pid > 0));
}

/* ---- which domains of a daemon the cleanup destroys ---- */

/* libvirt's errors (a destroyed domain looked up) are expected here, not printed. */
static void libvirtQuiet(void *data, virErrorPtr err)
{
	(void)data;
	(void)err;
}

static bool domainCreate(virConnectPtr conn, const char *name)
{
	g_autofree char *xml = g_strdup_printf("<domain type='test'><name>%s</name><memory>1024</memory>"
					       "<os><type>hvm</type></os></domain>", name);
	virDomainPtr dom = virDomainCreateXML(conn, xml, 0);

	if (dom)
		virDomainFree(dom);
	return dom != NULL;
}

/* A domain @name whose metadata says memhp-lab on machine @host created it. */
static bool domainCreateOn(virConnectPtr conn, const char *name, const char *host)
{
	g_autofree char *xml = g_strdup_printf("<domain type='test'><name>%s</name><memory>1024</memory>"
					       "<metadata><memhp:run xmlns:memhp='%s' host='%s'/></metadata>"
					       "<os><type>hvm</type></os></domain>", name, MHL_RUN_METADATA_NS, host);
	virDomainPtr dom = virDomainCreateXML(conn, xml, 0);

	if (dom)
		virDomainFree(dom);
	return dom != NULL;
}

static bool domainActive(virConnectPtr conn, const char *name)
{
	virDomainPtr dom = virDomainLookupByName(conn, name);
	bool active = dom && virDomainIsActive(dom) == 1;

	if (dom)
		virDomainFree(dom);
	return active;
}

/*
 * On libvirt's test driver: memhp-<trial>-<pid>-<n> of a pid that runs no
 * more is destroyed; a live run's, another name's and a name without the
 * run's number are left.
 */
static bool deadRunDomains(void)
{
	g_autofree char *live = g_strdup_printf("memhp-b-%d-0", (int)getpid());
	static const char *const kept[] = { "other-" DEAD_PID "-0", "memhp-c-" DEAD_PID, "memhp-d-x" DEAD_PID "-0",
					    "memhp-e-" DEAD_PID "-", "test" };
	virConnectPtr conn = virConnectOpen("test:///default");
	bool ok = conn != NULL;
	size_t i;
	int gone = -2;

	if (!ok)
		return unitExpect(false);
	virConnSetErrorFunc(conn, NULL, libvirtQuiet);
	/*
	 * A dead run's domain that says another machine created it (a real
	 * peer's, issue 48) is not this machine's to judge; one that says this
	 * machine did is destroyed like one without the metadata (an older run's).
	 */
	ok = domainCreate(conn, "memhp-a-" DEAD_PID "-0") && domainCreateOn(conn, "memhp-k9_size_64MiB-ab-" DEAD_PID "-3", mhlRunHostId()) &&
	     domainCreate(conn, live) && domainCreateOn(conn, "memhp-peer-" DEAD_PID "-0", "0123456789abcdef0123456789abcdef");
	for (i = 0; ok && i + 1 < G_N_ELEMENTS(kept); i++)
		ok = domainCreate(conn, kept[i]);
	if (ok)
		gone = mhlDeadRunDomainsDestroy(conn, true);
	ok = ok && gone == 2 && !domainActive(conn, "memhp-a-" DEAD_PID "-0") &&
	     !domainActive(conn, "memhp-k9_size_64MiB-ab-" DEAD_PID "-3") && domainActive(conn, live);
	for (i = 0; ok && i < G_N_ELEMENTS(kept); i++)
		if (!(ok = domainActive(conn, kept[i])))
			unitDiag("domain %s destroyed", kept[i]);
	if (ok && !(ok = domainActive(conn, "memhp-peer-" DEAD_PID "-0")))
		unitDiag("another machine's domain destroyed");
	if (gone != 2)
		unitDiag("destroyed %d domain(s), want 2", gone);
	virConnectClose(conn);
	return unitExpect(ok);
}

/* ---- domain events routed by domain name (host/session.c) ---- */

typedef struct {
	int stopped;	/* VIR_DOMAIN_EVENT_STOPPED */
	int other;	/* the other lifecycle events */
} eventsSeen;

static void seenLifecycle(void *opaque, int event, int detail)
{
	eventsSeen *s = opaque;

	(void)detail;
	if (event == VIR_DOMAIN_EVENT_STOPPED)
		s->stopped++;
	else
		s->other++;
}

static const mhlDomainEventHandlers seenHandlers = { .lifecycle = seenLifecycle };

static void eventsTick(int timer, void *opaque)
{
	(void)timer; (void)opaque;
}

/* libvirt's event loop on this thread until *@until is @want or 2 s passed (a 10 ms timer wakes it). */
static void eventsRun(const int *until, int want)
{
	double end = mhlNow() + 2;
	int timer = virEventAddTimeout(10, eventsTick, NULL, NULL);

	while (*until != want && mhlNow() < end)
		virEventRunDefaultImpl();
	virEventRemoveTimeout(timer);
}

/* Create domain @name and destroy it: a started and a stopped event. */
static bool domainCycle(virConnectPtr conn, const char *name)
{
	virDomainPtr dom;
	bool ok;

	if (!domainCreate(conn, name) || !(dom = virDomainLookupByName(conn, name)))
		return false;
	ok = virDomainDestroy(dom) == 0;
	virDomainFree(dom);
	return ok;
}

/*
 * On libvirt's test driver: a domain's events reach what watches its name
 * and nothing else; none after its unwatch; an unwatch with another's
 * opaque leaves the watch in place.
 */
static bool domainEvents(void)
{
	eventsSeen a = { 0 }, b = { 0 };
	virConnectPtr conn = NULL;
	bool ok = virEventRegisterDefaultImpl() == 0 && (conn = virConnectOpen("test:///default"));

	if (!ok)
		return unitExpect(false);
	virConnSetErrorFunc(conn, NULL, libvirtQuiet);
	ok = mhlDomainEventsRegister(conn) == 0;
	mhlDomainEventsWatch("mhl-unit-ev-a", conn, &seenHandlers, &a);
	mhlDomainEventsWatch("mhl-unit-ev-b", conn, &seenHandlers, &b);
	ok = ok && domainCycle(conn, "mhl-unit-ev-c") && domainCycle(conn, "mhl-unit-ev-a");
	eventsRun(&a.stopped, 1);
	ok = ok && a.stopped == 1 && a.other >= 1 && b.stopped == 0 && b.other == 0;
	mhlDomainEventsUnwatch("mhl-unit-ev-a", &a);
	mhlDomainEventsUnwatch("mhl-unit-ev-b", &a);	/* not a's: b stays watched */
	ok = ok && domainCycle(conn, "mhl-unit-ev-a") && domainCycle(conn, "mhl-unit-ev-b");
	eventsRun(&b.stopped, 1);
	if (!(ok = ok && a.stopped == 1 && b.stopped == 1))
		unitDiag("a: %d stopped, %d other (want 1, >= 1); b: %d stopped (want 1)", a.stopped, a.other, b.stopped);
	mhlDomainEventsUnwatch("mhl-unit-ev-b", &b);
	virConnectClose(conn);
	return unitExpect(ok);
}

/*
 * Events by connection too: a domain of the watched name on another
 * connection (a migration's peer: its incoming domain of the same name)
 * is not the watched one's, until the watch moves there. Two test drivers
 * of their own (a node file each), as two daemons would be.
 */
static bool domainEventsByConnection(void)
{
	g_autofree char *node = unitWriteTmp("test-node.xml", "<node/>\n");
	g_autofree char *uri = g_strdup_printf("test://%s", node);
	eventsSeen d = { 0 };
	virConnectPtr here = NULL, peer = NULL;
	bool ok = virEventRegisterDefaultImpl() == 0 && (here = virConnectOpen(uri)) && (peer = virConnectOpen(uri));

	if (!ok) {
		if (here)
			virConnectClose(here);
		return unitExpect(false);
	}
	virConnSetErrorFunc(here, NULL, libvirtQuiet);
	virConnSetErrorFunc(peer, NULL, libvirtQuiet);
	ok = mhlDomainEventsRegister(here) == 0 && mhlDomainEventsRegister(peer) == 0;
	mhlDomainEventsWatch("mhl-unit-ev-d", here, &seenHandlers, &d);
	ok = ok && domainCycle(peer, "mhl-unit-ev-d");
	eventsRun(&d.stopped, 1);	/* 2 s: nothing may come */
	ok = ok && d.stopped == 0 && d.other == 0;
	mhlDomainEventsMove("mhl-unit-ev-d", &d, peer);
	ok = ok && domainCycle(peer, "mhl-unit-ev-d");
	eventsRun(&d.stopped, 1);
	if (!(ok = ok && d.stopped == 1))
		unitDiag("d: %d stopped, %d other (want 0 from the peer's domain before the move, 1 stop after)",
			 d.stopped, d.other);
	mhlDomainEventsUnwatch("mhl-unit-ev-d", &d);
	mhlDomainEventsDeregister(peer);
	mhlDomainEventsDeregister(here);
	virConnectClose(peer);
	virConnectClose(here);
	return unitExpect(ok);
}

/* ---- libvirt's QEMU capabilities kept in $MEMHP_CACHE (host/capscache.c) ---- */

#define HEX64 "926803a9278e445ec919c2b6cbd8c1c449c75b26dcb1686b774314180376c725"
#define HEX64B "f11008721aacc79c97e592178e61264d75be551864cd79cc41fe820e31262f27"

static char *fileText(const char *dir, const char *sub, const char *name)
{
	g_autofree char *p = g_build_filename(dir, sub, name, NULL);
	char *t = NULL;

	return g_file_get_contents(p, &t, NULL, NULL) ? t : NULL;
}

/* "none" when @dir holds no temporary file (".NAME.XXXXXX") of a copy, else its name. */
static char *noTemp(const char *dir)
{
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	const char *e;

	while (d && (e = g_dir_read_name(d)))
		if (e[0] == '.')
			return g_strdup(e);
	return g_strdup(d ? "none" : "no directory");
}

/*
 * Seeding copies only regular files named as libvirt names them: a link (to
 * a file of the host's), another name, an empty file are left behind. Saving
 * copies what libvirt wrote or changed back, replacing a stale copy.
 */
static bool capsCacheCopies(void)
{
	g_autofree char *tmp = g_dir_make_tmp("mhl-unit-caps-XXXXXX", NULL);
	g_autofree char *cache = g_build_filename(tmp, "cache", NULL);
	g_autofree char *kept = g_build_filename(cache, "libvirt-qemu-caps", NULL);
	g_autofree char *root = g_build_filename(tmp, "root", NULL);
	g_autofree char *caps = g_build_filename(root, "cache", "qemu", "capabilities", NULL);
	g_autofree char *secret = g_build_filename(tmp, "secret", NULL);
	g_autofree char *link = g_build_filename(kept, HEX64B ".xml", NULL);
	g_autofree char *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL, *saved = NULL;
	g_autofree char *good = g_build_filename(kept, HEX64 ".xml", NULL);
	g_autofree char *other = g_build_filename(kept, "notes.xml", NULL);
	g_autofree char *fresh = g_build_filename(caps, HEX64B ".xml", NULL);
	g_autofree char *changed = g_build_filename(caps, HEX64 ".xml", NULL);
	bool ok;

	if (!tmp || g_mkdir_with_parents(kept, 0700) < 0 || g_mkdir_with_parents(root, 0700) < 0 ||
	    !g_file_set_contents(secret, "root:secret", -1, NULL) || symlink(secret, link) < 0 ||
	    !g_file_set_contents(good, "<qemuCaps/>", -1, NULL) ||
	    !g_file_set_contents(other, "<x/>", -1, NULL))
		return unitExpect(false);
	mhlCapsCacheSeed(root, cache);
	a = fileText(root, "cache/qemu/capabilities", HEX64 ".xml");
	b = fileText(root, "cache/qemu/capabilities", HEX64B ".xml");
	c = fileText(root, "cache/qemu/capabilities", "notes.xml");
	/* libvirt probes again (a new file) and rewrites the stale one */
	unlink(link);
	ok = g_file_set_contents(fresh, "<qemuCaps>b</qemuCaps>", -1, NULL) &&
	     g_file_set_contents(changed, "<qemuCaps>a2</qemuCaps>", -1, NULL);
	mhlCapsCacheSave(root, cache);
	d = fileText(cache, "libvirt-qemu-caps", HEX64B ".xml");
	e = fileText(cache, "libvirt-qemu-caps", HEX64 ".xml");
	saved = noTemp(kept);
	mhlRemoveTree(tmp);
	return unitExpect(a && !strcmp(a, "<qemuCaps/>") && !b && !c && ok &&
			  d && !strcmp(d, "<qemuCaps>b</qemuCaps>") && e && !strcmp(e, "<qemuCaps>a2</qemuCaps>") &&
			  saved && !strcmp(saved, "none"));
}

/*
 * cleanup --volumes on libvirt's test driver: in a pool "memhp-lab", the
 * lab's volumes (a final volume, its mark, a part) go, the marks first; a
 * volume a defined domain boots from stays with its mark; volumes that are
 * not the lab's (another name, hex of the wrong length or case, a part of
 * another shape) stay; a second run finds nothing more to do; a host
 * without the pool is nothing to do.
 */
#define VSUM "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define VSUM2 "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

static bool volExists(virStoragePoolPtr p, const char *name)
{
	virStorageVolPtr v = virStorageVolLookupByName(p, name);

	if (v)
		virStorageVolFree(v);
	return v != NULL;
}

static bool fleetVolumesClean(void)
{
	static const char *const ours[] = { VSUM "-bzImage", VSUM ".ok", VSUM ".part-1700000000-42-0", VSUM2 ".part-1-2-3" };
	static const char *const used[] = { VSUM2 "-initramfs.cpio", VSUM2 ".ok" };
	static const char *const theirs[] = { "disk.img", VSUM, VSUM "x", "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef.ok",
					      VSUM ".part-1-2", VSUM ".part-1-2-3x", VSUM ".okay", "abc.ok" };
	virConnectPtr conn = virConnectOpen("test:///default");
	virStoragePoolPtr p = NULL;
	virDomainPtr dom = NULL;
	g_autofree char *dxml = NULL;
	int gone = -2, again = -2, none = -2, kept = -1, kept2 = -1, kept3 = -1;
	bool ok = conn != NULL;
	size_t i;

	if (!ok)
		return unitExpect(false);
	virConnSetErrorFunc(conn, NULL, libvirtQuiet);
	none = mhlFleetVolumesClean(conn, "test:///default", NULL, &kept3);	/* no pool memhp-lab yet */
	ok = (p = virStoragePoolCreateXML(conn, "<pool type='dir'><name>memhp-lab</name><target><path>/mhl-unit-pool</path></target></pool>", 0)) != NULL;
	for (i = 0; ok && i < G_N_ELEMENTS(ours) + G_N_ELEMENTS(used) + G_N_ELEMENTS(theirs); i++) {
		const char *n = i < G_N_ELEMENTS(ours) ? ours[i] : i < G_N_ELEMENTS(ours) + G_N_ELEMENTS(used) ?
			used[i - G_N_ELEMENTS(ours)] : theirs[i - G_N_ELEMENTS(ours) - G_N_ELEMENTS(used)];
		g_autofree char *xml = g_strdup_printf("<volume><name>%s</name><capacity unit='bytes'>4096</capacity></volume>", n);
		virStorageVolPtr v = virStorageVolCreateXML(p, xml, 0);

		if (!(ok = v != NULL))
			unitDiag("cannot create volume %s: %s", n, virGetLastErrorMessage());
		else
			virStorageVolFree(v);
	}
	dxml = g_strdup_printf("<domain type='test'><name>mhl-unit-vol</name><memory>1024</memory><os><type>hvm</type>"
			       "<kernel>/mhl-unit-pool/%s</kernel></os></domain>", used[0]);
	ok = ok && (dom = virDomainDefineXML(conn, dxml)) != NULL;
	if (ok) {
		gone = mhlFleetVolumesClean(conn, "test:///default", NULL, &kept);
		again = mhlFleetVolumesClean(conn, "test:///default", "memhp-lab", &kept2);
	}
	for (i = 0; ok && i < G_N_ELEMENTS(ours); i++)
		if (volExists(p, ours[i]) && !(ok = false))
			unitDiag("volume %s of the lab left", ours[i]);
	for (i = 0; ok && i < G_N_ELEMENTS(used) + G_N_ELEMENTS(theirs); i++) {
		const char *n = i < G_N_ELEMENTS(used) ? used[i] : theirs[i - G_N_ELEMENTS(used)];

		if (!(ok = volExists(p, n)))
			unitDiag("volume %s deleted", n);
	}
	if (gone != 4 || kept != 2 || again != 0 || kept2 != 2 || none != 0)
		unitDiag("deleted %d (want 4), kept %d (want 2); again %d kept %d (want 0, 2); no pool %d (want 0)", gone, kept,
			 again, kept2, none);
	if (dom) {
		virDomainUndefine(dom);
		virDomainFree(dom);
	}
	if (p) {
		virStoragePoolDestroy(p);
		virStoragePoolFree(p);
	}
	virConnectClose(conn);
	mhlErrorReset();
	return unitExpect(ok && gone == 4 && kept == 2 && again == 0 && kept2 == 2 && none == 0);
}

/* ---- the KVM probe: what its cached answer is keyed on, which ends of QEMU are an answer ---- */

/* How QEMU ended: as waitpid reports an exit with @code, or a death by @sig. */
#define EXITED(code) ((code) << 8)
#define KILLED(sig) (sig)

static const struct exitRow {
	const char *what;
	int status;
	const char *err;	/* QEMU's stderr */
	bool answer;		/* cached as "tcg" */
} exitRows[] = {
	{ "an assertion after a failed MSR write (this project's nested host)", KILLED(SIGABRT),
	  "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x0\nqemu: ../target/i386/kvm/kvm.c:3000: kvm_buf_set_msrs: Assertion `ret == cpu->kvm_msr_buf->nmsrs' failed.\n", true },
	{ "exit 1: KVM refused the CPU model", EXITED(1), "qemu-system-x86_64: -accel kvm: unable to find CPU model 'host'\n", true },
	{ "exit 1: failed to initialize kvm: Cannot allocate memory", EXITED(1),
	  "qemu-system-x86_64: -accel kvm: failed to initialize kvm: Cannot allocate memory\n", false },
	{ "exit 1: cannot set up guest memory: Cannot allocate memory", EXITED(1),
	  "qemu-system-x86_64: cannot set up guest memory 'pc.ram': Cannot allocate memory\n", false },
	{ "exit 1: Device or resource busy", EXITED(1), "qemu-system-x86_64: Could not access KVM kernel module: Device or resource busy\n", false },
	{ "exit 1: Resource temporarily unavailable", EXITED(1), "qemu-system-x86_64: failed to create thread: Resource temporarily unavailable\n", false },
	{ "exit 1: Too many open files", EXITED(1), "qemu-system-x86_64: kvm_init_vcpu: Too many open files\n", false },
	{ "SIGKILL (the OOM killer), no word on stderr", KILLED(SIGKILL), "", false },
	{ "exit 127: QEMU did not start", EXITED(127), "", false },
};

static bool exitJudge(const void *row, GString *desc)
{
	const struct exitRow *r = row;

	g_string_printf(desc, "KVM probe: QEMU ended by %s: %s", r->what,
			r->answer ? "an answer about KVM, cached as tcg" : "no answer about KVM (the host's doing), not cached");
	if (unitListing)
		return true;
	return unitExpect(mhlAccelExitIsAnswer(r->status, r->err) == r->answer);
}

/*
 * The key changes with each thing that decides the answer: QEMU's size or
 * mtime, the guest kernel, the device node (another path, or none); and not
 * without a change.
 */
static bool probeKeyParts(void)
{
	g_autofree char *tmp = g_dir_make_tmp("mhl-unit-accel-XXXXXX", NULL);
	g_autofree char *qemu = g_build_filename(tmp, "qemu", NULL), *kernel = g_build_filename(tmp, "bzImage", NULL);
	g_autofree char *other = g_build_filename(tmp, "bzImage2", NULL), *nodev = g_build_filename(tmp, "kvm", NULL);
	g_autofree char *k0 = NULL, *k1 = NULL, *k2 = NULL, *k3 = NULL, *k4 = NULL, *k5 = NULL, *k6 = NULL;
	struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } }, later[2] = { { 1000000001, 0 }, { 1000000001, 0 } };
	bool ok;

	if (!tmp || !g_file_set_contents(qemu, "qemu-1", -1, NULL) || !g_file_set_contents(kernel, "k", -1, NULL) ||
	    !g_file_set_contents(other, "k", -1, NULL) || utimensat(AT_FDCWD, qemu, old, 0) < 0)
		return unitExpect(false);
	k0 = mhlAccelProbeKey(qemu, kernel, "/dev/null");
	k1 = mhlAccelProbeKey(qemu, kernel, "/dev/null");
	k2 = mhlAccelProbeKey(qemu, other, "/dev/null");
	k3 = mhlAccelProbeKey(qemu, kernel, "/dev/zero");
	k4 = mhlAccelProbeKey(qemu, kernel, nodev);
	ok = utimensat(AT_FDCWD, qemu, later, 0) == 0;
	k5 = mhlAccelProbeKey(qemu, kernel, "/dev/null");	/* QEMU touched: its mtime */
	ok = ok && g_file_set_contents(qemu, "qemu-2.1", -1, NULL) && utimensat(AT_FDCWD, qemu, later, 0) == 0;
	k6 = mhlAccelProbeKey(qemu, kernel, "/dev/null");	/* QEMU replaced: its size */
	mhlRemoveTree(tmp);
	return unitExpect(ok && !strcmp(k0, k1) && strcmp(k0, k2) && strcmp(k0, k3) && strcmp(k0, k4) &&
			  strstr(k0, "; device /dev/null 1:3") && strstr(k4, "; device ") && g_str_has_suffix(k4, "/kvm -") &&
			  strcmp(k0, k5) && strcmp(k5, k6) && !strchr(k0, '\n') && !strchr(k0, '\t'));
}

/* A lookup matches a whole key, never a key that is its prefix; a store replaces the key's line, keeps the newest 32. */
static bool probeCacheLines(void)
{
	const gint64 t = 1800000000;
	g_autoptr(GString) many = g_string_new(NULL);
	g_autofree char *one = mhlAccelCacheStore(NULL, "host A; kernel /k 1", "tcg", t, "exited");
	g_autofree char *two = mhlAccelCacheStore(one, "host A; kernel /k 12", "kvm", t, "booted");
	g_autofree char *again = mhlAccelCacheStore(two, "host A; kernel /k 1", "kvm", t + 1, "booted");
	g_autofree char *full = NULL, *tab = NULL;
	int i;

	for (i = 0; i < 40; i++)
		g_string_append_printf(many, "tcg\tkey %d\n", i);
	full = mhlAccelCacheStore(many->str, "key new", "kvm", t, "booted");
	tab = mhlAccelCacheStore(NULL, "kernel /a\tb\nc", "tcg", t, "exited");
	return unitExpect(!g_strcmp0(mhlAccelCacheLookup(one, "host A; kernel /k 1", t, NULL, NULL), "tcg") &&
			  !mhlAccelCacheLookup(one, "host A; kernel /k", t, NULL, NULL) &&
			  !mhlAccelCacheLookup(one, "host A; kernel /k 12", t, NULL, NULL) &&
			  !g_strcmp0(mhlAccelCacheLookup(two, "host A; kernel /k 12", t, NULL, NULL), "kvm") &&
			  !g_strcmp0(mhlAccelCacheLookup(again, "host A; kernel /k 1", t, NULL, NULL), "kvm") &&
			  !strcmp(again, "kvm\thost A; kernel /k 12\t1800000000\tbooted\nkvm\thost A; kernel /k 1\t1800000001\tbooted\n") &&
			  !mhlAccelCacheLookup("kvmx\tkey\n", "key", t, NULL, NULL) && !mhlAccelCacheLookup(NULL, "key", t, NULL, NULL) &&
			  !mhlAccelCacheLookup(full, "key 8", t, NULL, NULL) &&
			  !g_strcmp0(mhlAccelCacheLookup(full, "key 9", t, NULL, NULL), "tcg") &&
			  !g_strcmp0(mhlAccelCacheLookup(full, "key new", t, NULL, NULL), "kvm") && g_str_has_prefix(full, "tcg\tkey 9\n") &&
			  g_str_has_suffix(full, "tcg\tkey 39\nkvm\tkey new\t1800000000\tbooted\n") &&
			  /* a tab or newline of a path stays inside its line */
			  !strcmp(tab, "tcg\tkernel /a\\tb\\nc\t1800000000\texited\n") &&
			  !g_strcmp0(mhlAccelCacheLookup(tab, "kernel /a\tb\nc", t, NULL, NULL), "tcg") &&
			  !mhlAccelCacheLookup(tab, "kernel /a", t, NULL, NULL));
}

/*
 * A probe that timed out is an answer (tcg) for MHL_ACCEL_TIMEOUT_TTL from its
 * date, then none (probed again); a clear answer holds for good; a date from
 * the future or no number holds nothing; the date and reason come back.
 */
static bool probeCacheTimeout(void)
{
	const gint64 t = 1800000000, ttl = MHL_ACCEL_TIMEOUT_TTL;
	g_autofree char *c = mhlAccelCacheStore(NULL, "k", "tcg", t, MHL_ACCEL_REASON_TIMEOUT);
	g_autofree char *x = mhlAccelCacheStore(NULL, "k", "tcg", t, "exited");
	g_autofree char *reason = NULL;
	gint64 when = 0;
	bool ok = !g_strcmp0(mhlAccelCacheLookup(c, "k", t + ttl - 1, &when, &reason), "tcg") &&
		  when == t && !g_strcmp0(reason, MHL_ACCEL_REASON_TIMEOUT);

	return unitExpect(ok && ttl == 7 * 24 * 3600 && !g_strcmp0(mhlAccelCacheLookup(c, "k", t, NULL, NULL), "tcg") &&
			  !mhlAccelCacheLookup(c, "k", t + ttl, NULL, NULL) && !mhlAccelCacheLookup(c, "k", t - 1, NULL, NULL) &&
			  !g_strcmp0(mhlAccelCacheLookup(x, "k", t + 100 * ttl, NULL, NULL), "tcg") &&
			  !mhlAccelCacheLookup("tcg\tk\tsoon\ttimeout\n", "k", t, NULL, NULL) &&
			  !g_strcmp0(mhlAccelCacheLookup("tcg\tk\n", "k", t, &when, NULL), "tcg") && when == 0);
}

/* No cache, or nothing in it: nothing copied, nothing created, no error. */
static bool capsCacheNone(void)
{
	g_autofree char *tmp = g_dir_make_tmp("mhl-unit-caps-XXXXXX", NULL);
	g_autofree char *root = g_build_filename(tmp, "root", NULL);
	g_autofree char *caps = g_build_filename(root, "cache", NULL);
	g_autofree char *none = g_build_filename(tmp, "none", NULL);
	bool ok;

	if (!tmp || g_mkdir_with_parents(root, 0700) < 0)
		return unitExpect(false);
	mhlErrorReset();
	mhlCapsCacheSeed(root, none);
	mhlCapsCacheSeed(root, NULL);
	mhlCapsCacheSave(root, none);
	ok = !g_file_test(caps, G_FILE_TEST_EXISTS) && !g_file_test(none, G_FILE_TEST_EXISTS) &&
	     !strcmp(mhlErrorLast(), "unknown error");	/* nothing reported */
	mhlRemoveTree(tmp);
	return unitExpect(ok);
}

static const unitCase cases[] = {
	{ "QEMU capabilities cache: seeds a root with the files libvirt named (no link, no other name), saves back what libvirt rewrote", capsCacheCopies },
	{ "QEMU capabilities cache: none kept, nothing copied or created, no error", capsCacheNone },
	{ "cleanup --uri: a daemon's domains of runs that are gone are destroyed, no other, and none another machine created (test:///default)",
	  deadRunDomains },
	{ "domain events: routed by domain name to its watcher only, none after its unwatch, an unwatch by another leaves the watch (test:///default)",
	  domainEvents },
	{ "host: events by connection too: the peer's domain of the watched name is not the watched one's until the watch moves there",
	  domainEventsByConnection },
	{ "cleanup --volumes: the lab's volumes, marks and parts in pool memhp-lab deleted; one a domain boots from kept with its mark; other names untouched; no pool: nothing to do (test:///default)",
	  fleetVolumesClean },
	{ "KVM probe: the cache key changes with QEMU (size, mtime), the guest kernel and the device node (path, major:minor, or none), not without a change",
	  probeKeyParts },
	{ "KVM probe: a cached answer matches its whole key only (not a prefix), a store replaces the key's line and keeps the newest 32, a tab or newline of a path stays in its line",
	  probeCacheLines },
	{ "KVM probe: a timed-out probe's tcg holds 7 days from its date (not before it, not after), a clear answer for good, with its date and reason",
	  probeCacheTimeout },
};

static const unitTable tables[] = {
	UNIT_TABLE(guestRows, guestJudge),
	UNIT_TABLE(roots, rootJudge),
	UNIT_TABLE(exitRows, exitJudge),
	UNIT_CASES(cases),
};

const unitModule unitHost = UNIT_MODULE("host", NULL, NULL, tables);
