/*
 * step-exec.c - the exec step: run a program of the scenario's own in the
 * guest through the agent (guest-exec: argv as a list, no shell), with a
 * deadline, and keep its exit status and its output, bounded, in the record.
 * A user's tools and the kernel's selftests run this way inside the NUMA
 * virtio-mem guest; only the guest is touched (docs/security.md).
 */
#include <glib.h>

#include "trial/steps.h"

#include <string.h>

#include "guest/agent.h"
#include "util.h"

/* What the record keeps of each stream; the rest is counted, not kept. */
#define EXEC_STDOUT_MAX 16384
#define EXEC_STDERR_MAX 4096

/*
 * @s (cleaned guest text) under @key, at most @max bytes of it; under @bytes
 * what the program printed (@printed, before cleaning: escape sequences and
 * control characters count), under @flag whether the kept text was cut.
 */
static void execText(json_object *o, const char *key, const char *bytes, const char *flag,
		     const char *s, gsize printed, gsize max)
{
	g_autofree char *c = mhlTextClean(s ? s : "", -1, max, true);
	gsize len = s ? strlen(s) : 0;

	json_object_object_add(o, key, json_object_new_string(c));
	json_object_object_add(o, bytes, json_object_new_int64((int64_t)MAX(printed, len)));
	json_object_object_add(o, flag, json_object_new_boolean(len > max));
}

/*
 * ktap: true: the program is a kselftest; its KTAP (all of it, not only the
 * part stdout keeps) parsed into exec.ktap {planned, pass, fail, skip,
 * bailed_out, results[]}, which the reports nest under the step. A failed
 * result, a bail-out or fewer results than planned fails the step (not
 * with @measure). 0, or -1 + mhlError.
 */
static int execKtap(json_object *ex, const char *out, const char *prog, bool measure)
{
	json_object *k = json_object_new_object(), *results;
	int planned, npass, nfail, nskip;
	bool bailed;

	results = mhlKtapParse(out, &planned, &npass, &nfail, &nskip, &bailed);
	mhlJSONClean(results, false);	/* the descriptions are guest text */
	json_object_object_add(ex, MHL_K_KTAP, k);
	json_object_object_add(k, MHL_K_PLANNED, json_object_new_int(planned));
	json_object_object_add(k, MHL_K_PASS, json_object_new_int(npass));
	json_object_object_add(k, MHL_K_FAIL, json_object_new_int(nfail));
	json_object_object_add(k, MHL_K_SKIP, json_object_new_int(nskip));
	json_object_object_add(k, MHL_K_BAILED_OUT, json_object_new_boolean(bailed));
	json_object_object_add(k, MHL_K_RESULTS, results);
	if (measure || (!nfail && !bailed && planned >= 0 && npass + nfail + nskip == planned))
		return 0;
	if (planned < 0)
		mhlError("exec %s: ktap: no KTAP plan (1..N) in its output", prog);
	else
		mhlError("exec %s: ktap: %d of %d result(s) failed%s (%d seen)", prog, nfail, planned,
			 bailed ? ", bailed out" : "", npass + nfail + nskip);
	return -1;
}

int mhlStepExec(mhlTrial *t, const mhlStep *st, json_object *res)
{
	const char *argv[MHL_MAX_EXEC_ARGS + 1] = { NULL };
	json_object *ex = json_object_new_object(), *args = json_object_new_array();
	mhlExecStatus es = { 0 };
	const char *p = st->argv;
	double t0 = mhlNow();
	int i, rc = 0;

	for (i = 0; i < st->argc; i++, p += strlen(p) + 1) {
		argv[i] = p;
		json_object_array_add(args, json_object_new_string(p));
	}
	json_object_object_add(res, MHL_K_EXEC, ex);
	json_object_object_add(ex, MHL_K_ARGV, args);
	json_object_object_add(ex, MHL_K_DEADLINE_S, json_object_new_double(st->deadline));
	json_object_object_add(ex, MHL_K_EXIT_EXPECTED, json_object_new_int(st->exit_status));
	if (mhlAgentExec(t->g->dom, argv, st->deadline, &es) < 0)
		return -1;	/* not carried out (agent, deadline): the trial errs */
	json_object_object_add(ex, MHL_K_SECONDS, json_object_new_double(mhlNow() - t0));
	json_object_object_add(ex, MHL_K_EXITED, json_object_new_boolean(es.exited));
	json_object_object_add(ex, MHL_K_EXITCODE, json_object_new_int(es.exitcode));
	if (!es.exited || es.exitcode < 0)
		json_object_object_add(ex, MHL_K_SIGNAL, json_object_new_int(es.signal));
	execText(ex, MHL_K_STDOUT, MHL_K_STDOUT_BYTES, MHL_K_STDOUT_TRUNCATED, es.out, es.out_bytes,
		 EXEC_STDOUT_MAX);
	execText(ex, MHL_K_STDERR, MHL_K_STDERR_BYTES, MHL_K_STDERR_TRUNCATED, es.err, es.err_bytes,
		 EXEC_STDERR_MAX);
	if (st->ktap && execKtap(ex, es.out, argv[0], st->measure) < 0)
		rc = -1;
	if (rc == 0 && (!es.exited || es.exitcode != st->exit_status) && !st->measure) {
		g_autofree char *err = mhlTextClean(es.err ? es.err : "", -1, 200, false);

		if (!es.exited || es.exitcode < 0)
			mhlError("exec %s: killed by signal %d (wanted exit %d)%s%s", argv[0], es.signal,
				 st->exit_status, *err ? "; stderr: " : "", err);
		else
			mhlError("exec %s: exit %d, wanted %d%s%s", argv[0], es.exitcode, st->exit_status,
				 *err ? "; stderr: " : "", err);
		rc = -1;
	}
	mhlExecStatusClear(&es);
	return rc;
}
