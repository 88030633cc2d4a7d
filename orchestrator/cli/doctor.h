/* doctor.h - `memhp-lab doctor`: what this host lacks to run trials. */
#ifndef MHL_DOCTOR_H
#define MHL_DOCTOR_H

#include <stdbool.h>

/*
 * Print one line per check: libvirt, QEMU, both kernels (against
 * @datadir/kernel/required.list), KVM, the guest image @initrd, the domain
 * template @tmpl, memory; with @json one object instead
 * (docs/schemas/doctor.schema.json). Returns 0 if all passed, 1 otherwise.
 */
int mhlDoctor(const char *initrd, const char *tmpl, const char *datadir, const char *cache, bool json);

#endif
