/*
 * tests/fuzz/size.c - size strings (lib/mhl-size.h): mhl_size_parse on the
 * input; what parses formats back to the same bytes; the input's first 8
 * bytes as a count of bytes format and parse back; formatting into a buffer
 * of every short length stays inside it.
 *
 * Every size formats to a string that parses back as is: "<N>B" ("0B",
 * "4097B") for one that is no whole KiB (a "B" alone is bytes, as in
 * virsh), else the largest binary unit ("256MiB").
 */
#include "fuzz/fuzz.h"

#include <errno.h>

#include "mhl-size.h"

static void roundTrip(uint64_t bytes)
{
	char buf[32], small[32];
	uint64_t back = 0;
	unsigned int len;

	mhl_size_format(bytes, buf, sizeof(buf));
	fuzzAssert(mhl_size_parse(buf, &back) == 0 && back == bytes,
		   "%llu formats as '%s', which parses to %llu (errno %d)",
		   (unsigned long long)bytes, buf, (unsigned long long)back, errno);
	for (len = 1; len < sizeof(small); len++) {
		char *b = malloc(len);	/* exactly len bytes: ASan sees a write past it */

		if (!b)
			abort();
		mhl_size_format(bytes, b, len);
		snprintf(small, len, "%s", buf);
		fuzzAssert(!strcmp(b, small), "len %u: '%s', not '%s'", len, b, small);
		free(b);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzzString(data, size);
	uint64_t bytes = 0, raw;
	int rc;

	errno = 0;
	rc = mhl_size_parse(s, &bytes);
	/* "Returns 0 and sets *bytes, or -1 with errno EINVAL or ERANGE." */
	fuzzAssert(rc == 0 || (rc == -1 && (errno == EINVAL || errno == ERANGE)),
		   "'%s': rc %d errno %d", s, rc, errno);
	if (rc == 0)
		roundTrip(bytes);
	if (size >= sizeof(raw)) {
		memcpy(&raw, data, sizeof(raw));
		roundTrip(raw);
	}
	free(s);
	return 0;
}
