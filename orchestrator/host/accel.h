/* accel.h - decide KVM or TCG: KVM only where it really boots our kernel. */
#ifndef MHL_ACCEL_H
#define MHL_ACCEL_H

#include <stdbool.h>

/* The QEMU binary: the domains' <emulator>, what doctor checks and the KVM probe boots. */
#define MHL_EMULATOR "/usr/bin/qemu-system-x86_64"

/*
 * Returns "kvm" or "tcg" (static strings). MEMHP_ACCEL=kvm|tcg overrides. Else,
 * when /dev/kvm (MEMHP_KVM_DEVICE: another node, for tests) opens, boot
 * @kernel under KVM with no init for at most 20 s and look for the kernel's
 * banner on the serial log. A clear answer (the banner, or QEMU exiting
 * without it for a reason of KVM's: mhlAccelExitIsAnswer) is cached in
 * @cache_dir/accel-probe under the key of what decided it: the host kernel
 * (release and build), the QEMU binary and the guest kernel (each path, size,
 * mtime) and the device node (path, major:minor); a probe that timed out or
 * that QEMU left for want of a resource (a loaded host), or was interrupted,
 * is not cached. *why explains the answer.
 */
const char *mhlAccelChoose(const char *emulator, const char *kernel, const char *cache_dir,
			   char **why);

/* The probe cache's key for this host kernel, @emulator, @kernel and the KVM node @dev (exposed for the unit tests). */
char *mhlAccelProbeKey(const char *emulator, const char *kernel, const char *dev);
/*
 * Whether QEMU's end (@status from waitpid, its stderr @qemu_stderr) says
 * something about KVM: false when it ended for want of a resource (no
 * memory, a busy device, EAGAIN, too many files: a loaded host), was
 * SIGKILLed (the OOM killer) or never started (exit 127).
 */
bool mhlAccelExitIsAnswer(int status, const char *qemu_stderr);
/* The cached "kvm"/"tcg" for @key in the cache's @text ("ACCEL\tKEY" lines), or NULL. */
const char *mhlAccelCacheLookup(const char *text, const char *key);
/* The cache's new text: @key's line replaced by @accel, at most 32 lines (the newest). */
char *mhlAccelCacheStore(const char *text, const char *key, const char *accel);

#endif
