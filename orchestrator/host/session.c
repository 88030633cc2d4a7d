/*
 * session.c - the host side of a run or a soak: libvirt's event loop and log,
 * the embedded driver's private root (or the user's URI), the connection with
 * the guests' event callbacks, and the cleanup of what a killed run left.
 */
#include <glib.h>

#include "host/session.h"

#include <errno.h>
#include <ftw.h>
#include <libvirt/virterror.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "guest/session.h"
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
	pthread_t loop;

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

/* QEMU processes of a dead run, from the pid files under its embedded root. */
static int killPidfile(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	g_autofree char *text = NULL, *cmdpath = NULL, *cmd = NULL;
	long pid;

	(void)sb; (void)ftw;
	if (type != FTW_F || !g_str_has_suffix(path, ".pid") ||
	    !g_file_get_contents(path, &text, NULL, NULL) || (pid = strtol(text, NULL, 10)) <= 1)
		return 0;
	cmdpath = g_strdup_printf("/proc/%ld/cmdline", pid);
	if (g_file_get_contents(cmdpath, &cmd, NULL, NULL) && strstr(cmd, "qemu-system")) {
		fprintf(stderr, "memhp-lab: killing QEMU %ld left by a dead run (%s)\n", pid, path);
		kill((pid_t)pid, SIGKILL);
	}
	return 0;
}

/*
 * An embedded root whose owner died (SIGKILL, a crash) is removed at the next
 * start, with the QEMU processes it left: /tmp/mhl-XXXXXX/owner.pid.
 */
void mhlStaleRootsClean(void)
{
	g_autoptr(GDir) d = g_dir_open("/tmp", 0, NULL);
	const char *e;

	while (d && (e = g_dir_read_name(d))) {
		g_autofree char *root = g_build_filename("/tmp", e, NULL);
		g_autofree char *own = g_build_filename(root, "owner.pid", NULL);
		g_autofree char *text = NULL;
		long pid;

		if (!g_str_has_prefix(e, "mhl-") || !g_file_get_contents(own, &text, NULL, NULL))
			continue;
		pid = strtol(text, NULL, 10);
		if (pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM))
			continue;	/* its run is still going */
		nftw(root, killPidfile, 16, FTW_PHYS);
		fprintf(stderr, "memhp-lab: removing %s, left by run %ld that is gone\n", root, pid);
		mhlRemoveTree(root);
	}
}

/* A private root for qemu:///embed, with the qemu.conf this machine needs. */
char *mhlEmbedRootCreate(void)
{
	static const char conf[] =
		"# memhp-lab: embedded QEMU driver settings (see docs/architecture.md)\n"
		"stdio_handler = \"file\"\n"
		"security_driver = \"none\"\n"
		"cgroup_controllers = [ ]\n"
		"namespaces = [ ]\n"
		"user = \"root\"\n"
		"group = \"root\"\n"
		"# No ownership xattrs on the kernel, initramfs and logs it hands to QEMU.\n"
		"remember_owner = 0\n";
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
	pid = g_strdup_printf("%d\n", (int)getpid());
	if (g_mkdir_with_parents(etc, 0700) < 0 || !g_file_set_contents(path, conf, -1, &err) ||
	    !g_file_set_contents(own, pid, -1, &err)) {
		mhlError("cannot write '%s': %s", err ? path : etc, err ? err->message : g_strerror(errno));
		return NULL;
	}
	return g_steal_pointer(&root);
}

int mhlSessionOpen(mhlSession *ses, const char *uri, const char *outdir)
{
	memset(ses, 0, sizeof(*ses));
	if (mhlLibvirtStart(outdir) < 0)
		return -1;
	if (uri) {
		ses->uri = g_strdup(uri);
	} else {
		mhlStaleRootsClean();	/* the guests of a killed run go here */
		if (!(ses->root = mhlEmbedRootCreate()))
			return -1;
		ses->uri = g_strdup_printf("qemu:///embed?root=%s", ses->root);
	}
	if (!(ses->conn = virConnectOpen(ses->uri))) {
		mhlErrorVirt("cannot connect to libvirt at '%s'", ses->uri);
		mhlSessionClose(ses);
		return -1;
	}
	if (mhlGuestEventsRegister(ses->conn) < 0) {
		mhlSessionClose(ses);
		return -1;
	}
	return 0;
}

void mhlSessionClose(mhlSession *ses)
{
	if (ses->conn)
		virConnectClose(ses->conn);
	ses->conn = NULL;
	if (ses->root)
		mhlRemoveTree(ses->root);
	g_clear_pointer(&ses->root, g_free);
	g_clear_pointer(&ses->uri, g_free);
}
