/* SPDX-License-Identifier: GPL-2.0 */
/* mhl-size.h - size strings shared by the orchestrator and the workloads. */
#ifndef MHL_SIZE_H
#define MHL_SIZE_H

#include <stdint.h>

/*
 * Parse a size as virsh reads one (libvirt's virScaleInteger): a decimal
 * count and an optional suffix, case-insensitive. "4096", "4096B", "4096bytes":
 * bytes; "64k", "256M", "256MiB", "1G", "1GiB", "2T" (a unit letter k, M, G,
 * T, P, E alone or with "iB"): powers of 1024; "2KB", "1000MB", "2GB" (the
 * letter with "B"): powers of 1000. Returns 0 and sets *bytes, or -1 with
 * errno EINVAL (unparsable, negative, empty, an unknown suffix) or ERANGE
 * (overflows 64 bits).
 */
int mhl_size_parse(const char *s, uint64_t *bytes);

/* Format bytes as the largest exact binary unit: "256MiB", "1GiB", "4097B". */
const char *mhl_size_format(uint64_t bytes, char *buf, unsigned int len);

#endif
