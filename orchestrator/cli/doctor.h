/* doctor.h - `memhp-lab doctor`: what this host lacks to run trials. */
#ifndef MHL_DOCTOR_H
#define MHL_DOCTOR_H

/* Print one line per check; returns 0 if all passed, 1 otherwise. */
int mhlDoctor(const char *bindir, const char *srcdir, const char *cache);

#endif
