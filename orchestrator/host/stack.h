/*
 * stack.h - a hypervisor stack the lab builds (docs/stacks.md): its root
 * made once by stacks/build.sh, its libvirtd started for one run by
 * stacks/host.sh in PID and mount namespaces of its own, reached over a
 * unix socket, and gone when the run ends, however it ends.
 */
#ifndef MHL_HOST_STACK_H
#define MHL_HOST_STACK_H

#include "spawn.h"

typedef struct {
	mhlSpawn ns;		/* unshare ... stacks/host.sh: the namespaces' PID 1 is its child */
	GStrv argv;		/* its argv, which ns points into */
	char *uri;		/* qemu+unix:///system?socket=DIR/sock/libvirt-sock */
	char *log;		/* the daemon's log, in the run directory */
	char *out;		/* stacks/host.sh's output, beside it */
} mhlStackDaemon;

/*
 * The root of stack @name ($MEMHP_CACHE/stacks/NAME/root-KEY), built first
 * when it is missing: stacks/build.sh under @srcdir, its progress and the
 * time the last build took on our stderr. NULL + mhlError.
 */
char *mhlStackRoot(const char *name, const char *srcdir);

/*
 * Start the libvirtd of @root: stacks/host.sh under @srcdir, in namespaces
 * of its own, its private directory @dir (an embedded root: the run's guard
 * removes it), every path of @show (NULL-terminated: the guest's kernels
 * and images, the run directory @outdir) seen there at the same path; its
 * log @outdir/libvirtd-@name.log, what stacks/host.sh says in
 * @outdir/stack-@name.log. It dies with memhp-lab: its unshare gets
 * SIGKILL when we end (PR_SET_PDEATHSIG), and takes the namespace with it;
 * the run's cgroup, which it is in, is killed by the guard after a kill -9.
 * Waits until the daemon's socket is there (at most 60 s). 0, or -1 +
 * mhlError (what it printed is in the log).
 */
int mhlStackDaemonStart(mhlStackDaemon *d, const char *name, const char *srcdir, const char *root,
			const char *dir, const char *outdir, const char *const *show);

/* The namespace killed (the daemon and its QEMU with it), and waited for. */
void mhlStackDaemonStop(mhlStackDaemon *d);

#endif
