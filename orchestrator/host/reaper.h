/* reaper.h - the embedded driver's QEMU processes reaped the moment they end (reaper.c). */
#ifndef MHL_HOST_REAPER_H
#define MHL_HOST_REAPER_H

/*
 * Before libvirt starts a QEMU under @root (the embedded driver's root):
 * make memhp-lab the child subreaper of what it starts, and reap, from a
 * thread of its own, the processes @root's pid files name as soon as they
 * end. Once per process; a second @root joins the first's thread. 0, or -1
 * + mhlError (then nothing changed: QEMU is reaped by pid 1, as before).
 */
int mhlReaperStart(const char *root);

#endif
