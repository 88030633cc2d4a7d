/* agent.h - the qemu-ga command channel: ping, guest-exec, and reply parsing. */
#ifndef MHL_AGENT_H
#define MHL_AGENT_H

#include <json-c/json.h>
#include <libvirt/libvirt.h>
#include <stdbool.h>

#include "mhl-pin-keys.h"

typedef struct {
	bool exited;
	int exitcode;		/* valid when exited; -1 when killed by a signal */
	int signal;
	char *out;		/* decoded stdout, cleaned guest text (NUL-terminated) */
	char *err;		/* decoded stderr, cleaned */
	gsize out_bytes;	/* what the program printed to stdout, in bytes, before cleaning */
	gsize err_bytes;	/* the same of stderr */
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

/*
 * Run and parse stdout as one JSON object, its strings made valid UTF-8
 * without control characters (mhlJSONClean). NULL + mhlError on failure.
 */
json_object *mhlAgentExecJSON(virDomainPtr dom, const char *const *argv, double deadline,
			      int *exitcode);

/*
 * A field of a workload's JSON and the type its reader takes it for. The
 * guest may print anything: json-c reads the string "false" as true and a
 * null as 0, so every field a step reads is checked first.
 */
typedef struct {
	const char *path;	/* dotted; a "*" component: every member of the object there */
	json_type type;		/* json_type_int: an integer; json_type_double: any number */
	bool required;
} mhlAgentField;

/* The rows every census (memhp-pin's page counts by kind, zone and node) at @c must match. */
#define MHL_AGENT_CENSUS(c) \
	{ c, json_type_object, false }, { c "." MHL_PIN_K_PAGES, json_type_int, false }, \
	{ c "." MHL_PIN_K_NOT_PRESENT, json_type_int, false }, { c "." MHL_PIN_K_UNKNOWN, json_type_int, false }, \
	{ c "." MHL_PIN_K_ZERO, json_type_int, false }, { c "." MHL_PIN_K_THP, json_type_int, false }, \
	{ c "." MHL_PIN_K_CMA, json_type_int, false }, { c "." MHL_PIN_K_BY_ZONE, json_type_object, false }, \
	{ c "." MHL_PIN_K_BY_ZONE ".*", json_type_int, false }, { c "." MHL_PIN_K_BY_NODE, json_type_object, false }, \
	{ c "." MHL_PIN_K_BY_NODE ".*", json_type_object, false }, { c "." MHL_PIN_K_BY_NODE ".*.*", json_type_int, false }

/*
 * Check @out against @fields (a field absent is fine unless required; null is
 * a wrong type): -1 + mhlError naming @who and the field ("pin 'pin0': the
 * workload's \"ok\" is a string (\"false\"), not a boolean"), and the command
 * counts as not carried out (mhlAgentFailedReset), like output that is not JSON.
 */
int mhlAgentJSONCheck(json_object *out, const mhlAgentField *fields, size_t n, const char *who);

#endif
