// SPDX-License-Identifier: GPL-2.0
#include "mhl-size.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int mhl_size_parse(const char *s, uint64_t *bytes)
{
	static const char units[] = "KMGT";
	unsigned long long v;
	const char *u;
	char *end;
	int shift = 0;

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
	if (*end) {
		u = strchr(units, toupper((unsigned char)*end));
		if (!u)
			goto inval;
		shift = 10 * (int)(u - units + 1);
		end++;
		if (!strcasecmp(end, "iB") || !strcasecmp(end, "B"))
			end += strlen(end);
		if (*end)
			goto inval;
	}
	if (shift && v > (UINT64_MAX >> shift)) {
		errno = ERANGE;
		return -1;
	}
	*bytes = (uint64_t)v << shift;
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
