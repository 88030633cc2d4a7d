/* agent.h - the qemu-ga command channel: ping, guest-exec, and reply parsing. */
#ifndef MHL_AGENT_H
#define MHL_AGENT_H

#include <json-c/json.h>
#include <libvirt/libvirt.h>
#include <stdbool.h>

typedef struct {
	bool exited;
	int exitcode;		/* valid when exited; -1 when killed by a signal */
	int signal;
	char *out;		/* decoded stdout (NUL-terminated) */
	char *err;		/* decoded stderr */
} mhlExecStatus;

void mhlExecStatusClear(mhlExecStatus *st);

/*
 * Parse replies. Each returns -1 + mhlError naming the command and quoting the
 * reply when it is not what the qemu-ga protocol says.
 */
int mhlAgentParseExecPid(const char *reply, long long *pid);
int mhlAgentParseExecStatus(const char *reply, mhlExecStatus *st);

/* Ping until the agent answers or @deadline seconds pass. Returns seconds waited. */
double mhlAgentWait(virDomainPtr dom, double deadline, const char *console_log);

/*
 * Run argv[0] with arguments in the guest, wait for it to exit (at most
 * @deadline seconds) and return its status and output.
 */
int mhlAgentExec(virDomainPtr dom, const char *const *argv, double deadline,
		 mhlExecStatus *st);

/*
 * Whether an exec since the last call could not be carried out (agent gone or
 * silent, command past its deadline, output not JSON), and clear that. A
 * trial tells such errors (verdict error) from outcomes (verdict fail) by it.
 */
bool mhlAgentFailedReset(void);

/* Run and parse stdout as one JSON object. NULL + mhlError on failure. */
json_object *mhlAgentExecJSON(virDomainPtr dom, const char *const *argv, double deadline,
			      int *exitcode);

#endif
