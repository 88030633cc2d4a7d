/* tests/unit/agent.c - guest agent replies (orchestrator/guest/agent.h): guest-exec and its status. */
#include <glib.h>

#include <string.h>

#include "guest/agent.h"
#include "unit.h"
#include "util.h"

static bool execPid(void)
{
	long long pid = 0;

	return unitExpect(mhlAgentParseExecPid("{\"return\":{\"pid\":97}}", &pid) == 0 && pid == 97);
}

static bool execError(void)
{
	long long pid = 0;

	return unitExpect(mhlAgentParseExecPid("{\"error\":{\"class\":\"GenericError\"}}", &pid) < 0 &&
			  strstr(mhlErrorLast(), "GenericError"));
}

static bool execGarbage(void)
{
	long long pid = 0;

	return unitExpect(mhlAgentParseExecPid("not json", &pid) < 0);
}

static bool statusExited(void)
{
	mhlExecStatus st = { 0 };
	bool ok = mhlAgentParseExecStatus("{\"return\":{\"exited\":true,\"exitcode\":3,"
					  "\"out-data\":\"aGVsbG8K\",\"err-data\":\"b29wcw==\"}}", &st) == 0 &&
		  st.exited && st.exitcode == 3 && st.out && !strcmp(st.out, "hello\n") &&
		  st.err && !strcmp(st.err, "oops");

	mhlExecStatusClear(&st);
	return unitExpect(ok);
}

/* what the program printed, counted before cleaning (issue 32, item 22) */
static bool statusBytesPrinted(void)
{
	mhlExecStatus st = { 0 };
	/* "\x1b[31mred\x1b[0m\n": 13 bytes printed, "red\n" kept */
	bool ok = mhlAgentParseExecStatus("{\"return\":{\"exited\":true,\"exitcode\":0,"
					  "\"out-data\":\"G1szMW1yZWQbWzBtCg==\"}}", &st) == 0 &&
		  st.out && !strcmp(st.out, "red\n") && st.out_bytes == 13 && st.err_bytes == 0;

	mhlExecStatusClear(&st);
	return unitExpect(ok);
}

static bool statusRunning(void)
{
	mhlExecStatus st = { 0 };
	bool ok = mhlAgentParseExecStatus("{\"return\":{\"exited\":false}}", &st) == 0 && !st.exited;

	mhlExecStatusClear(&st);
	return unitExpect(ok);
}

static bool statusWithoutExited(void)
{
	mhlExecStatus st = { 0 };
	bool ok = mhlAgentParseExecStatus("{\"return\":{\"exitcode\":0}}", &st) < 0;

	mhlExecStatusClear(&st);
	return unitExpect(ok);
}

static const unitCase cases[] = {
	{ "agent: guest-exec reply gives the pid", execPid },
	{ "agent: an error reply is reported, quoted", execError },
	{ "agent: garbage is an error", execGarbage },
	{ "agent: exec-status decodes exit code and base64 output", statusExited },
	{ "agent: exec-status counts the bytes the program printed, before cleaning (13, 'red\\n' kept)", statusBytesPrinted },
	{ "agent: a running process is not exited", statusRunning },
	{ "agent: exec-status without 'exited' is an error", statusWithoutExited },
};

static const unitTable tables[] = { UNIT_CASES(cases) };

const unitModule unitAgent = UNIT_MODULE("agent", NULL, NULL, tables);
