/*
 * tests/fuzz/agent.c - the guest agent's reply parsers (guest/agent.h):
 * mhlAgentParseExecPid and mhlAgentParseExecStatus on the input as a reply.
 * "Each returns -1 + mhlError ... when it is not what the qemu-ga protocol says."
 */
#include "fuzz/fuzz.h"

#include "guest/agent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzzString(data, size);
	mhlExecStatus st = { 0 };
	long long pid = 0;
	int rc;

	mhlErrorReset();
	rc = mhlAgentParseExecPid(s, &pid);
	fuzzAssert(rc == 0 || rc == -1, "guest-exec: rc %d", rc);
	fuzzAssert((rc < 0) == fuzzErrorTake(), "guest-exec: rc %d and an error %s", rc,
		   rc < 0 ? "missing" : "reported");

	rc = mhlAgentParseExecStatus(s, &st);
	fuzzAssert(rc == 0 || rc == -1, "guest-exec-status: rc %d", rc);
	fuzzAssert((rc < 0) == fuzzErrorTake(), "guest-exec-status: rc %d and an error %s", rc,
		   rc < 0 ? "missing" : "reported");
	if (rc == 0) {
		fuzzAssert(st.out && st.err, "parsed, yet out or err is NULL");
		(void)strlen(st.out);
		(void)strlen(st.err);
	}
	mhlExecStatusClear(&st);
	free(s);
	mhlErrorReset();
	return 0;
}
