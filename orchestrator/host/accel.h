/* accel.h - decide KVM or TCG: KVM only where it really boots our kernel. */
#ifndef MHL_ACCEL_H
#define MHL_ACCEL_H

#include <glib.h>
#include <stdbool.h>

/* The QEMU binary: the domains' <emulator>, what doctor checks and the KVM probe boots. */
#define MHL_EMULATOR "/usr/bin/qemu-system-x86_64"

/* A probe that saw neither a boot nor QEMU's exit: its cache line's reason, and how long it holds (7 days). */
#define MHL_ACCEL_REASON_TIMEOUT "timeout"
#define MHL_ACCEL_TIMEOUT_TTL (7 * 24 * 3600)

/*
 * Returns "kvm" or "tcg" (static strings). MEMHP_ACCEL=kvm|tcg overrides. Else,
 * when /dev/kvm (MEMHP_KVM_DEVICE: another node, for tests) opens, boot
 * @kernel under KVM (with @emulator, or MEMHP_KVM_PROBE_EMULATOR: a stand-in,
 * for tests) with no init for at most 20 s and look for the kernel's banner
 * on the serial log. The answer is cached in @cache_dir/accel-probe under the
 * key of what decided it: the host kernel (release and build), the QEMU
 * binary and the guest kernel (each path, size, mtime) and the device node
 * (path, major:minor), with its date and reason: a boot or QEMU exiting
 * without one for a reason of KVM's (mhlAccelExitIsAnswer) for good; no
 * answer within 20 s (a /dev/kvm that hangs QEMU) for MHL_ACCEL_TIMEOUT_TTL.
 * A probe QEMU left for want of a resource (a loaded host), or that was
 * interrupted, is not cached. The probe's one progress line goes to stderr
 * unless @quiet. *why explains the answer.
 */
const char *mhlAccelChoose(const char *emulator, const char *kernel, const char *cache_dir,
			   bool quiet, char **why);

/* The KVM device node the probe opens: MEMHP_KVM_DEVICE, or /dev/kvm. */
const char *mhlAccelDevice(void);

/* The probe cache's key for this host kernel, @emulator, @kernel and the KVM node @dev (exposed for the unit tests). */
char *mhlAccelProbeKey(const char *emulator, const char *kernel, const char *dev);
/*
 * Whether QEMU's end (@status from waitpid, its stderr @qemu_stderr) says
 * something about KVM: false when it ended for want of a resource (no
 * memory, a busy device, EAGAIN, too many files: a loaded host), was
 * SIGKILLed (the OOM killer) or never started (exit 127).
 */
bool mhlAccelExitIsAnswer(int status, const char *qemu_stderr);
/*
 * The cached "kvm"/"tcg" for @key in the cache's @text (lines
 * "ACCEL\tKEY\tWHEN\tREASON", KEY g_strescape'd; "ACCEL\tKEY" of older
 * caches), or NULL: none, or a timeout's line older than
 * MHL_ACCEL_TIMEOUT_TTL at @now (or dated after it). *@when and *@reason
 * (g_free; "" for an old line) when not NULL.
 */
const char *mhlAccelCacheLookup(const char *text, const char *key, gint64 now, gint64 *when, char **reason);
/* The cache's new text: @key's line replaced by @accel, @when, @reason, at most 32 lines (the newest). */
char *mhlAccelCacheStore(const char *text, const char *key, const char *accel, gint64 when, const char *reason);

#endif
