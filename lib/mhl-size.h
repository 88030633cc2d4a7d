/* SPDX-License-Identifier: GPL-2.0 */
/* mhl-size.h - size strings shared by the orchestrator and the workloads. */
#ifndef MHL_SIZE_H
#define MHL_SIZE_H

#include <stdint.h>

/*
 * Parse "4096", "64k", "256M", "256MiB", "1G", "1GiB", "2T" (binary units; a
 * trailing "B" or "iB" is accepted). Returns 0 and sets *bytes, or -1 with
 * errno EINVAL (unparsable, negative, empty) or ERANGE (overflows 64 bits).
 */
int mhl_size_parse(const char *s, uint64_t *bytes);

/* Format bytes as the largest exact binary unit: "256MiB", "1GiB", "4097B". */
const char *mhl_size_format(uint64_t bytes, char *buf, unsigned int len);

#endif
