/*
 * summary.c - the verdict's names and the record's summary, written and read
 * by one table: a field added here is written by the trial engine and read by
 * `run`, the soak and the reports without another spelling of its key.
 */
#include <glib.h>

#include "record/record.h"

#include <stddef.h>
#include <string.h>

const char *const mhlVerdictNames[MHL_VERDICT_LAST] = {
	[MHL_VERDICT_PASS] = "pass",
	[MHL_VERDICT_FAIL] = "fail",
	[MHL_VERDICT_ERROR] = "error",
	[MHL_VERDICT_SKIP] = "skip",
	[MHL_VERDICT_XFAIL] = "xfail",
	[MHL_VERDICT_XPASS] = "xpass",
	[MHL_VERDICT_INTERRUPTED] = "interrupted",
	[MHL_VERDICT_LOST] = "lost",
};

const char *const mhlSkipCodes[] = {
	"other-pin-policy", "other-kernel", "kernel-lacks", "needs-skipped-step", NULL
};

bool mhlVerdictOk(mhlVerdict v)
{
	return v == MHL_VERDICT_PASS || v == MHL_VERDICT_SKIP || v == MHL_VERDICT_XFAIL;
}

mhlVerdict mhlVerdictOf(json_object *rec)
{
	const char *v = mhlJStr(rec, MHL_K_VERDICT, "");
	int i;

	for (i = 0; i < MHL_VERDICT_LAST; i++)
		if (!strcmp(v, mhlVerdictNames[i]))
			return i;
	return MHL_VERDICT_LAST;
}

typedef enum { SF_DOUBLE, SF_INT, SF_BOOL } mhlSummaryType;

static const struct {
	const char *key;
	mhlSummaryType type;
	size_t offset;
} summaryFields[] = {
#define F(name, key, type) { key, type, offsetof(mhlSummary, name) }
	F(boot_to_agent_s, MHL_K_BOOT_TO_AGENT_S, SF_DOUBLE),
	F(initial_plug_s, MHL_K_INITIAL_PLUG_S, SF_DOUBLE),
	F(pinned_bytes, MHL_K_PINNED_BYTES, SF_INT),
	F(pinned_pages_movable_before, MHL_K_PINNED_PAGES_MOVABLE_BEFORE, SF_INT),
	F(pinned_pages_movable_after, MHL_K_PINNED_PAGES_MOVABLE_AFTER, SF_INT),
	F(requested_bytes, MHL_K_REQUESTED_BYTES, SF_INT),
	F(reached_bytes, MHL_K_REACHED_BYTES, SF_INT),
	F(seconds_to_converge, MHL_K_SECONDS_TO_CONVERGE, SF_DOUBLE),
	F(pattern_ok_after_resize, MHL_K_PATTERN_OK_AFTER_RESIZE, SF_BOOL),
	F(pattern_ok_at_release, MHL_K_PATTERN_OK_AT_RELEASE, SF_BOOL),
	F(cycles, MHL_K_CYCLES, SF_INT),
	F(segments, MHL_K_SEGMENTS, SF_INT),
	F(findings, MHL_K_FINDINGS, SF_INT),
	F(soak_seconds, MHL_K_SOAK_SECONDS, SF_DOUBLE),
	F(cycles_per_hour, MHL_K_CYCLES_PER_HOUR, SF_DOUBLE),
	F(pins_failed, MHL_K_PINS_FAILED, SF_INT),
	F(host_shrinks, MHL_K_HOST_SHRINKS, SF_INT),
	F(host_before_bytes, MHL_K_HOST_BEFORE_BYTES, SF_INT),
	F(host_after_bytes, MHL_K_HOST_AFTER_BYTES, SF_INT),
	F(host_reclaimed_bytes, MHL_K_HOST_RECLAIMED_BYTES, SF_INT),
	F(host_reclaimable_bytes, MHL_K_HOST_RECLAIMABLE_BYTES, SF_INT),
	F(host_reclaimed_of_reclaimable, MHL_K_HOST_RECLAIMED_OF_RECLAIMABLE, SF_DOUBLE),
	F(host_settle_s, MHL_K_HOST_SETTLE_S, SF_DOUBLE),
	F(plug_to_online_s, MHL_K_PLUG_TO_ONLINE_S, SF_DOUBLE),
#undef F
};

void mhlSummaryInit(mhlSummary *sum)
{
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(summaryFields); i++) {
		void *p = (char *)sum + summaryFields[i].offset;

		switch (summaryFields[i].type) {
		case SF_DOUBLE: *(double *)p = -1; break;
		case SF_INT: *(gint64 *)p = -1; break;
		case SF_BOOL: *(mhlTri *)p = MHL_TRI_UNSET; break;
		}
	}
}

json_object *mhlSummaryToJSON(const mhlSummary *sum)
{
	json_object *o = json_object_new_object();
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(summaryFields); i++) {
		const void *p = (const char *)sum + summaryFields[i].offset;
		const char *key = summaryFields[i].key;

		switch (summaryFields[i].type) {
		case SF_DOUBLE:
			if (*(const double *)p >= 0)
				json_object_object_add(o, key, json_object_new_double(*(const double *)p));
			break;
		case SF_INT:
			if (*(const gint64 *)p >= 0)
				json_object_object_add(o, key, json_object_new_int64(*(const gint64 *)p));
			break;
		case SF_BOOL:
			if (*(const mhlTri *)p != MHL_TRI_UNSET)
				json_object_object_add(o, key, json_object_new_boolean(*(const mhlTri *)p));
			break;
		}
	}
	return o;
}

void mhlSummaryRead(json_object *rec, mhlSummary *sum)
{
	json_object *s = mhlJ(rec, MHL_K_SUMMARY), *v;
	size_t i;

	mhlSummaryInit(sum);
	for (i = 0; s && i < G_N_ELEMENTS(summaryFields); i++) {
		void *p = (char *)sum + summaryFields[i].offset;

		if (!json_object_is_type(s, json_type_object) ||
		    !json_object_object_get_ex(s, summaryFields[i].key, &v) || !v)
			continue;
		switch (summaryFields[i].type) {
		case SF_DOUBLE:
			if (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))
				*(double *)p = json_object_get_double(v);
			break;
		case SF_INT:
			if (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))
				*(gint64 *)p = json_object_get_int64(v);
			break;
		case SF_BOOL:
			if (json_object_is_type(v, json_type_boolean))
				*(mhlTri *)p = json_object_get_boolean(v) ? MHL_TRI_TRUE : MHL_TRI_FALSE;
			break;
		}
	}
}

bool mhlSummaryCheck(json_object *summary, const char **key, const char **want)
{
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(summaryFields); i++) {
		json_object *v;
		bool ok;

		if (!json_object_object_get_ex(summary, summaryFields[i].key, &v) || !v)
			continue;	/* absent or null: unset */
		ok = summaryFields[i].type == SF_BOOL ? json_object_is_type(v, json_type_boolean) :
		     json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double);
		if (!ok) {
			*key = summaryFields[i].key;
			*want = summaryFields[i].type == SF_BOOL ? "a boolean" : "a number";
			return false;
		}
	}
	return true;
}
