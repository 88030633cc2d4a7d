/*
 * tests/fuzz/qmp.c - QMP's query-memory-devices reply (guest/guest.h):
 * mhlParseMemoryDevices on the input for every node; -1 comes with an mhlError.
 */
#include "fuzz/fuzz.h"

#include "guest/guest.h"
#include "scenario/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzzString(data, size);
	int node, rc;

	for (node = -1; node <= MHL_MAX_NODES; node++) {
		unsigned long long sz = 0, req = 0;

		mhlErrorReset();
		rc = mhlParseMemoryDevices(s, node, &sz, &req);
		fuzzAssert(rc == 0 || rc == -1, "node %d: rc %d", node, rc);
		fuzzAssert((rc < 0) == fuzzErrorTake(), "node %d: rc %d and an error %s", node, rc,
			   rc < 0 ? "missing" : "reported");
	}
	free(s);
	mhlErrorReset();
	return 0;
}
