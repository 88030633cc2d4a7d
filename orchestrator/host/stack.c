/*
 * stack.c - a hypervisor stack the lab builds: its root (stacks/build.sh)
 * and its libvirtd for one run (stacks/host.sh), as docs/stacks.md says.
 *
 * The daemon runs as a child of the PID 1 of a PID namespace of its own, in
 * a mount namespace of its own, chrooted into an overlay of the root:
 *
 *	memhp-lab ── unshare -m -p --fork --kill-child ── bash stacks/host.sh (PID 1) ── libvirtd ── QEMU...
 *
 * No process of it may outlive memhp-lab. unshare is started with
 * PR_SET_PDEATHSIG (SIGKILL when memhp-lab ends) and --kill-child (its
 * child, the namespace's PID 1, gets SIGKILL when unshare ends), and when a
 * namespace's PID 1 ends the kernel kills every process in it. unshare is
 * also in the run's cgroup (host/guard.c moved memhp-lab there first), which
 * the guard kills after a kill -9 even if one link of that chain failed.
 */
#include <glib.h>

#include "host/stack.h"

#include <string.h>
#include <sys/stat.h>

#include "util.h"

char *mhlStackRoot(const char *name, const char *srcdir)
{
	g_autofree char *script = g_build_filename(srcdir, "stacks", "build.sh", NULL);
	const char *argv[] = { script, name, NULL };
	/* its progress and errors on our stderr; the root's path the last line of its stdout */
	g_auto(mhlSpawn) c = { .argv = argv, .out = MHL_SPAWN_CAPTURE, .err = MHL_SPAWN_INHERIT };
	char *out, *nl;

	if (mhlSpawnRun(&c) < 0) {
		mhlError("cannot build the %s stack: %s", name, c.why);
		return NULL;
	}
	if (mhlSpawnCheck(&c) < 0) {
		mhlError("cannot build the %s stack: %s (its messages are above)", name, c.why);
		return NULL;
	}
	out = g_strchomp(c.out_text);
	nl = strrchr(out, '\n');
	out = nl ? nl + 1 : out;
	if (!g_path_is_absolute(out)) {
		mhlError("the %s stack's build printed '%s', not the path of its root", name, out);
		return NULL;
	}
	return g_strdup(out);
}

/* Wait for @sock while the namespace lives: 0, or -1 + mhlError. */
static int stackWait(mhlStackDaemon *d, const char *name, const char *sock)
{
	double until = mhlNow() + 60;
	struct stat st;

	while (stat(sock, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		if (mhlSpawnPoll(&d->ns)) {
			g_autofree char *how = mhlSpawnStatusWords(d->ns.status);

			mhlError("the %s stack's libvirtd did not start: stacks/host.sh %s (its output: %s; the daemon's log: %s)",
				 name, how, d->out, d->log);
			return -1;
		}
		if (mhlNow() > until) {
			mhlError("the %s stack's libvirtd made no socket '%s' within 60 s (its log: %s; stacks/host.sh's output: %s)",
				 name, sock, d->log, d->out);
			return -1;
		}
		g_usleep(50 * 1000);
	}
	return 0;
}

int mhlStackDaemonStart(mhlStackDaemon *d, const char *name, const char *srcdir, const char *root,
			const char *dir, const char *outdir, const char *const *show)
{
	g_autofree char *sock = g_build_filename(dir, "sock", "libvirt-sock", NULL);
	g_autofree char *logname = g_strdup_printf("libvirtd-%s.log", name);
	g_autofree char *outname = g_strdup_printf("stack-%s.log", name);
	g_autofree char *script = g_build_filename(srcdir, "stacks", "host.sh", NULL);
	g_autoptr(GStrvBuilder) b = g_strv_builder_new();
	size_t k;

	memset(d, 0, sizeof(*d));
	d->log = g_build_filename(outdir, logname, NULL);
	d->out = g_build_filename(outdir, outname, NULL);
	/* argv, no shell: every path goes to stacks/host.sh as one word */
	g_strv_builder_add_many(b, "unshare", "-m", "-p", "--fork", "--kill-child", "--mount-proc",
				"--propagation", "private", "bash", NULL);
	g_strv_builder_add_many(b, script, root, dir, d->log, NULL);
	for (k = 0; show && show[k]; k++)
		g_strv_builder_add(b, show[k]);
	d->argv = g_strv_builder_end(b);
	d->ns = (mhlSpawn){ .argv = (const char *const *)d->argv, .err = MHL_SPAWN_FILE, .err_file = d->out,
			    .die_with_parent = true };
	if (mhlSpawnStart(&d->ns) < 0) {
		mhlError("cannot start the %s stack's libvirtd: %s", name, d->ns.why);
		mhlStackDaemonStop(d);
		return -1;
	}
	if (stackWait(d, name, sock) < 0) {
		mhlStackDaemonStop(d);
		return -1;
	}
	d->uri = g_strdup_printf("qemu+unix:///system?socket=%s", sock);
	return 0;
}

void mhlStackDaemonStop(mhlStackDaemon *d)
{
	mhlSpawnClear(&d->ns);	/* SIGKILL to unshare, waited for: --kill-child takes the namespace */
	g_clear_pointer(&d->argv, g_strfreev);
	g_clear_pointer(&d->uri, g_free);
	g_clear_pointer(&d->log, g_free);
	g_clear_pointer(&d->out, g_free);
}
