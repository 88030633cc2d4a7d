// SPDX-License-Identifier: GPL-2.0
#include "mhl-size.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * The multiplier a suffix stands for, as libvirt's virScaleInteger (what
 * virsh reads a scaled integer with) has it, or 0 for no suffix it knows.
 * Case does not matter: "", "b", "byte", "bytes": 1; a unit letter alone or
 * with "iB" ("k", "M", "GiB"): a power of 1024; a unit letter with "B"
 * ("KB", "MB", "GB"): a power of 1000.
 */
static uint64_t size_scale(const char *suffix)
{
	static const char units[] = "kmgtpe";
	const char *u;
	uint64_t base, scale = 1;
	long i;

	if (!*suffix || !strcasecmp(suffix, "b") || !strcasecmp(suffix, "byte") ||
	    !strcasecmp(suffix, "bytes"))
		return 1;
	u = strchr(units, tolower((unsigned char)*suffix));
	if (!u)
		return 0;
	if (!suffix[1] || !strcasecmp(suffix + 1, "iB"))
		base = 1024;
	else if (!strcasecmp(suffix + 1, "B"))
		base = 1000;
	else
		return 0;
	for (i = 0; i <= u - units; i++)
		scale *= base;	/* at most 1024^6 = 2^60 */
	return scale;
}

int mhl_size_parse(const char *s, uint64_t *bytes)
{
	unsigned long long v;
	uint64_t scale;
	char *end;

	if (!s)
		goto inval;
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		goto inval;	/* also rejects "-1" and "" */
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -1;
	scale = size_scale(end);
	if (!scale)
		goto inval;
	if (v > UINT64_MAX / scale) {
		errno = ERANGE;
		return -1;
	}
	*bytes = (uint64_t)v * scale;
	return 0;
inval:
	errno = EINVAL;
	return -1;
}

const char *mhl_size_format(uint64_t bytes, char *buf, unsigned int len)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int i = 0;

	while (i < 4 && bytes && !(bytes & 1023)) {
		bytes >>= 10;
		i++;
	}
	snprintf(buf, len, "%llu%s", (unsigned long long)bytes, names[i]);
	return buf;
}
