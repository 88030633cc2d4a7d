#include <glib.h>

#include "util.h"
#include "guest/agent.h"

#include <libvirt/libvirt-qemu.h>
#include <libvirt/virterror.h>
#include <string.h>
#include <unistd.h>

#include "record/record.h"

/*
 * qemu-ga runs in the guest, under the kernel being tested: its replies and
 * the output of what it runs are guest text. What of them reaches a record
 * (a message quoting them, the workload's JSON) goes through mhlTextClean.
 */

/* An excerpt of guest text for a message: one clean line of at most @max bytes. */
static char *quote(const char *s, gsize max)
{
	return mhlTextClean(s, -1, max, false);
}

/* The error just reported may quote the agent (libvirt passes its error text on): clean it. */
static void errorClean(void)
{
	char *e = mhlErrorSteal();

	mhlErrorRestore(e ? mhlTextClean(e, -1, 0, false) : NULL);
	g_free(e);
}

void mhlExecStatusClear(mhlExecStatus *st)
{
	g_clear_pointer(&st->out, g_free);
	g_clear_pointer(&st->err, g_free);
	memset(st, 0, sizeof(*st));
}

static json_object *replyReturn(const char *reply, const char *what)
{
	json_object *root = json_tokener_parse(reply);
	json_object *ret;

	/* "return": null is no reply either (fuzzing found it went by without an error) */
	if (!root || !json_object_object_get_ex(root, "return", &ret) ||
	    !json_object_is_type(ret, json_type_object)) {
		g_autofree char *q = quote(reply, 200);

		mhlError("agent reply to %s is not {\"return\": {...}}: '%s'", what, q);
		json_object_put(root);
		return NULL;
	}
	json_object_get(ret);
	json_object_put(root);
	return ret;
}

int mhlAgentParseExecPid(const char *reply, long long *pid)
{
	json_object *ret = replyReturn(reply, "guest-exec"), *p;
	int rc = -1;

	if (!ret)
		return -1;
	if (json_object_object_get_ex(ret, "pid", &p) && json_object_is_type(p, json_type_int)) {
		*pid = json_object_get_int64(p);
		rc = 0;
	} else {
		g_autofree char *q = quote(reply, 200);

		mhlError("agent reply to guest-exec has no integer 'pid': '%s'", q);
	}
	json_object_put(ret);
	return rc;
}

/* A command's stdout or stderr: guest bytes as text (lines kept, nothing else a record cannot carry). */
/* @key's base64 decoded and cleaned; *@bytes what it decoded to, before cleaning. */
static char *decodeB64(json_object *ret, const char *key, gsize *bytes)
{
	json_object *v;
	gsize len;
	g_autofree guchar *raw = NULL;

	*bytes = 0;
	if (!json_object_object_get_ex(ret, key, &v) || !json_object_is_type(v, json_type_string))
		return g_strdup("");
	raw = g_base64_decode(json_object_get_string(v), &len);
	*bytes = len;
	return mhlTextClean((const char *)raw, (gssize)len, 0, true);
}

int mhlAgentParseExecStatus(const char *reply, mhlExecStatus *st)
{
	json_object *ret = replyReturn(reply, "guest-exec-status"), *v;

	if (!ret)
		return -1;
	memset(st, 0, sizeof(*st));
	if (!json_object_object_get_ex(ret, "exited", &v) ||
	    !json_object_is_type(v, json_type_boolean)) {
		g_autofree char *q = quote(reply, 200);

		mhlError("agent reply to guest-exec-status has no boolean 'exited': '%s'", q);
		json_object_put(ret);
		return -1;
	}
	st->exited = json_object_get_boolean(v);
	st->exitcode = -1;
	if (json_object_object_get_ex(ret, "exitcode", &v))
		st->exitcode = json_object_get_int(v);
	if (json_object_object_get_ex(ret, "signal", &v))
		st->signal = json_object_get_int(v);
	st->out = decodeB64(ret, "out-data", &st->out_bytes);
	st->err = decodeB64(ret, "err-data", &st->err_bytes);
	json_object_put(ret);
	return 0;
}

double mhlAgentWait(virDomainPtr dom, double deadline, const char *console_log)
{
	double t0 = mhlNow();

	while (!mhlInterrupted) {
		char *reply = virDomainQemuAgentCommand(dom, "{\"execute\":\"guest-ping\"}", 2, 0);

		if (reply) {
			free(reply);
			return mhlNow() - t0;
		}
		int active = virDomainIsActive(dom);

		/* A transient domain that stopped is gone: "no domain" means stopped. */
		if (active == 0 || (active < 0 && virGetLastErrorCode() == VIR_ERR_NO_DOMAIN)) {
			mhlError("the guest stopped %.1f s after start, before its agent answered (panic or power-off; console: %s)",
				 mhlNow() - t0, console_log);
			return -1;
		}
		/* a fleet host that went away answers no more: no use waiting out the deadline */
		if (active < 0 && virConnectIsAlive(virDomainGetConnect(dom)) == 0) {
			mhlErrorVirt("the connection to the guest's host closed %.1f s after start, before its agent answered (console: %s)",
				     mhlNow() - t0, console_log);
			errorClean();
			return -1;
		}
		if (mhlNow() - t0 > deadline) {
			mhlErrorVirt("guest agent did not answer guest-ping within %.0f s (console: %s)",
				     deadline, console_log);
			errorClean();
			return -1;
		}
		g_usleep(100 * 1000);
	}
	mhlError("interrupted while waiting for the guest agent");
	return -1;
}

/* Set when a command could not be carried out in the guest (see agent.h). */
static __thread bool agentFailed;

bool mhlAgentFailedReset(void)
{
	bool was = agentFailed;

	agentFailed = false;
	return was;
}

static int agentExec(virDomainPtr dom, const char *const *argv, double deadline,
		     mhlExecStatus *st);

int mhlAgentExec(virDomainPtr dom, const char *const *argv, double deadline,
		 mhlExecStatus *st)
{
	int rc = agentExec(dom, argv, deadline, st);

	if (rc < 0)
		agentFailed = true;
	return rc;
}

static int agentExec(virDomainPtr dom, const char *const *argv, double deadline,
		     mhlExecStatus *st)
{
	g_autoptr(json_object) cmd = json_object_new_object();
	json_object *args = json_object_new_object(), *arr = json_object_new_array();
	g_autofree char *status_cmd = NULL;
	char *reply;
	long long pid;
	double t0 = mhlNow();
	int i, rc, polls = 0;

	json_object_object_add(cmd, "execute", json_object_new_string("guest-exec"));
	json_object_object_add(args, "path", json_object_new_string(argv[0]));
	for (i = 1; argv[i]; i++)
		json_object_array_add(arr, json_object_new_string(argv[i]));
	json_object_object_add(args, "arg", arr);
	json_object_object_add(args, "capture-output", json_object_new_boolean(1));
	json_object_object_add(cmd, "arguments", args);

	reply = virDomainQemuAgentCommand(dom, json_object_to_json_string(cmd), 10, 0);
	if (!reply) {
		mhlErrorVirt("guest-exec of '%s' failed", argv[0]);
		errorClean();
		return -1;
	}
	rc = mhlAgentParseExecPid(reply, &pid);
	free(reply);
	if (rc < 0)
		return -1;
	status_cmd = g_strdup_printf(
		"{\"execute\":\"guest-exec-status\",\"arguments\":{\"pid\":%lld}}", pid);
	for (;;) {
		reply = virDomainQemuAgentCommand(dom, status_cmd, 10, 0);
		if (!reply) {
			mhlErrorVirt("guest-exec-status of '%s' (pid %lld) failed", argv[0], pid);
			errorClean();
			return -1;
		}
		rc = mhlAgentParseExecStatus(reply, st);
		free(reply);
		if (rc < 0)
			return -1;
		if (st->exited)
			return 0;
		mhlExecStatusClear(st);
		if (mhlInterrupted) {
			mhlError("interrupted while '%s' ran in the guest", argv[0]);
			return -1;
		}
		if (mhlNow() - t0 > deadline) {
			mhlError("guest command '%s' (pid %lld) did not exit within %.0f s",
				 argv[0], pid, deadline);
			return -1;
		}
		/*
		 * 10, 20, 30, 40, then every 50 ms: most commands (a cat, a
		 * memhp-pin ctl) end within 100 ms, which a fixed 50 ms poll
		 * saw up to 50 ms late, a dozen times in a soak's cycle.
		 */
		g_usleep(MIN(++polls, 5) * 10 * 1000);
	}
}

json_object *mhlAgentExecJSON(virDomainPtr dom, const char *const *argv, double deadline,
			      int *exitcode)
{
	mhlExecStatus st = { 0 };
	json_object *obj;

	if (mhlAgentExec(dom, argv, deadline, &st) < 0)
		return NULL;
	*exitcode = st.exitcode;
	obj = json_tokener_parse(st.out);
	if (!obj || !json_object_is_type(obj, json_type_object)) {
		g_autofree char *out = quote(st.out, 200), *err = quote(st.err, 200);

		mhlError("'%s %s' (exit %d) did not print one JSON object; stdout '%s', stderr '%s'",
			 argv[0], argv[1] ? argv[1] : "", st.exitcode, out, err);
		json_object_put(obj);
		obj = NULL;
		agentFailed = true;
	} else {
		/* "\u001b" and the like decode to control characters: the strings too */
		mhlJSONClean(obj, false);
	}
	mhlExecStatusClear(&st);
	return obj;
}

static const char *jsonTypeName(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null: return "null";
	case json_type_boolean: return "a boolean";
	case json_type_double: return "a fractional number";
	case json_type_int: return "an integer";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	case json_type_string: return "a string";
	}
	return "of no known type";
}

static bool jsonTypeIs(json_object *v, json_type type)
{
	if (type == json_type_double)
		return json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int);
	return v && json_object_is_type(v, type);
}

/* The value @v at @where (the path's components before @rest) against row @f: -1 + mhlError. */
static int fieldCheck(json_object *v, char **rest, const mhlAgentField *f, GString *where,
		      const char *who)
{
	static const char *const wanted[] = {
		[json_type_null] = "null", [json_type_boolean] = "a boolean", [json_type_double] = "a number",
		[json_type_int] = "an integer", [json_type_object] = "an object", [json_type_array] = "an array",
		[json_type_string] = "a string",
	};
	gsize len = where->len;
	json_object *m;

	if (!*rest) {
		g_autofree char *q = NULL;

		if (jsonTypeIs(v, f->type))
			return 0;
		q = json_object_is_type(v, json_type_string) ? quote(json_object_get_string(v), 64) : NULL;
		mhlError("%s: the workload's \"%s\" is %s%s%s%s, not %s", who, where->str, jsonTypeName(v),
			 q ? " (\"" : "", q ? q : "", q ? "\")" : "", wanted[f->type]);
		return -1;
	}
	if (!v || !json_object_is_type(v, json_type_object))
		return 0;	/* nothing below: the row for this level says whether that is wrong */
	if (!strcmp(*rest, "*")) {
		json_object_object_foreach(v, key, val) {
			g_string_append_printf(where, "%s%s", len ? "." : "", key);
			if (fieldCheck(val, rest + 1, f, where, who) < 0)
				return -1;
			g_string_truncate(where, len);
		}
		return 0;
	}
	g_string_append_printf(where, "%s%s", len ? "." : "", *rest);
	if (!json_object_object_get_ex(v, *rest, &m)) {
		if (!f->required)
			return 0;
		mhlError("%s: the workload's output has no \"%s\" (%s)", who, where->str, wanted[f->type]);
		return -1;
	}
	return fieldCheck(m, rest + 1, f, where, who);
}

int mhlAgentJSONCheck(json_object *out, const mhlAgentField *fields, size_t n, const char *who)
{
	size_t i;

	for (i = 0; i < n; i++) {
		g_auto(GStrv) comps = g_strsplit(fields[i].path, ".", -1);
		g_autoptr(GString) where = g_string_new(NULL);

		if (fieldCheck(out, comps, &fields[i], where, who) < 0) {
			agentFailed = true;
			return -1;
		}
	}
	return 0;
}
