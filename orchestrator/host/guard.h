/* guard.h - no guest outlives memhp-lab, even after kill -9 (guard.c). */
#ifndef MHL_HOST_GUARD_H
#define MHL_HOST_GUARD_H

#include <stdbool.h>

/*
 * Before libvirt starts (no threads yet): fork the guard of this run and put
 * memhp-lab into a cgroup of its own. When memhp-lab ends, however it ends,
 * the guard kills every process left in that cgroup (or, without cgroup v2,
 * the QEMU processes of this run's guests named by pid files under @root)
 * and removes @root. Returns how it guards ("cgroup PATH" or "the embedded
 * root's pid files"), or NULL + mhlError.
 */
char *mhlGuardStart(const char *root);

/* Cgroups of runs that are gone (their guard killed too, or the machine rebooted): emptied and removed. */
void mhlGuardStaleClean(void);

/*
 * Kill the QEMU processes of run @run_pid's guests that pid files (regular,
 * ours) under @root name: only those whose command line names one of its
 * guests. @say: a line on stderr for each.
 */
void mhlRootKillGuests(const char *root, long run_pid, bool say);

/* Whether a QEMU command line (NULs as spaces) runs a guest of the run whose tag is "-<pid>-". */
bool mhlQemuIsRunGuest(const char *cmdline, const char *tag);

#endif
