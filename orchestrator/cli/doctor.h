/* doctor.h - `memhp-lab doctor`: what this host lacks to run trials. */
#ifndef MHL_DOCTOR_H
#define MHL_DOCTOR_H

#include <stdbool.h>

typedef struct {
	const char *initrd, *tmpl, *datadir, *cache;
	const char *kernels;	/* --kernel: newline-separated versions that must pass, or NULL: all known */
	const char *uri;	/* -c/--connect (or LIBVIRT_DEFAULT_URI): a daemon to check too, or NULL */
	bool json;
} mhlDoctorOptions;

/*
 * Print one line per check: libvirt (embedded, and @uri's daemon), QEMU,
 * the kernels (against @datadir/kernel/required.list), KVM, the guest image
 * @initrd, the domain template @tmpl, memory; with @json one object instead
 * (docs/schemas/doctor.schema.json). Returns 0 if none failed (warnings
 * allowed), 1 otherwise.
 */
int mhlDoctor(const mhlDoctorOptions *o);

#endif
