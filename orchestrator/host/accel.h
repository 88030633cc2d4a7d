/* accel.h - decide KVM or TCG: KVM only where it really boots our kernel. */
#ifndef MHL_ACCEL_H
#define MHL_ACCEL_H

/* The QEMU binary: the domains' <emulator>, what doctor checks and the KVM probe boots. */
#define MHL_EMULATOR "/usr/bin/qemu-system-x86_64"

/*
 * Returns "kvm" or "tcg" (static strings). MEMHP_ACCEL=kvm|tcg overrides. Else,
 * when /dev/kvm opens, boot @kernel under KVM with no init for at most 20 s and
 * look for the kernel's banner on the serial log; the answer is cached in
 * @cache_dir/accel-probe keyed on the host kernel and the QEMU binary, so the
 * probe runs once per machine. *why explains the answer.
 */
const char *mhlAccelChoose(const char *emulator, const char *kernel, const char *cache_dir,
			   char **why);

#endif
