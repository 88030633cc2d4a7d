/* doctor.h - `memhp-lab doctor`: what this host lacks to run trials. */
#ifndef MHL_DOCTOR_H
#define MHL_DOCTOR_H

/*
 * Print one line per check: libvirt, QEMU, both kernels (against
 * @datadir/kernel/required.list), KVM, the guest image @initrd, the domain
 * template @tmpl, memory. Returns 0 if all passed, 1 otherwise.
 */
int mhlDoctor(const char *initrd, const char *tmpl, const char *datadir, const char *cache);

#endif
