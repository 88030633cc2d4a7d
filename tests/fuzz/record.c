/*
 * tests/fuzz/record.c - the record reader (record/record.h): mhlRunLoad on a
 * run directory whose trials.jsonl is the input; every record it keeps read
 * through mhlSummaryRead, the verdict and the dotted-path accessors; and
 * mhlSummaryRead on the input parsed as one JSON value (any shape).
 */
#include "fuzz/fuzz.h"

#include "record/record.h"

static void readRecord(json_object *rec)
{
	static const char *const paths[] = {
		MHL_K_TRIAL, MHL_K_VERDICT, "summary", "summary.reached_bytes", "summary.pinned_bytes",
		"steps", "console_findings", "a..b", ".", "",
	};
	mhlSummary sum;
	json_object *j;
	size_t i;

	mhlSummaryRead(rec, &sum);
	j = mhlSummaryToJSON(&sum);
	(void)json_object_to_json_string(j);
	json_object_put(j);
	fuzzAssert(mhlVerdictOf(rec) <= MHL_VERDICT_LAST, "verdict %d", mhlVerdictOf(rec));
	for (i = 0; i < G_N_ELEMENTS(paths); i++) {
		(void)mhlJ(rec, paths[i]);
		(void)mhlJStr(rec, paths[i], NULL);
		(void)mhlJInt(rec, paths[i], -1);
		(void)mhlJDbl(rec, paths[i], -1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mhlRun *run;
	json_object *o;
	char *s;
	guint i;

	fuzzWriteFile("trials.jsonl", data, size);
	mhlErrorReset();
	run = mhlRunLoad(fuzzScratch());
	/* "NULL + mhlError when ... the file holds no lines at all." */
	fuzzAssert(run || fuzzErrorTake(), "NULL without an mhlError");
	fuzzAssert(!run || size > 0, "an empty trials.jsonl loaded");
	for (i = 0; run && i < run->trials->len; i++) {
		json_object *rec = run->trials->pdata[i];

		fuzzAssert(mhlJStr(rec, MHL_K_TRIAL, NULL), "record %u has no string trial", i);
		fuzzAssert(mhlVerdictOf(rec) < MHL_VERDICT_LAST, "record %u has no verdict", i);
		readRecord(rec);
	}
	if (run) {
		fuzzAssert(run->lines->len == run->trials->len, "%u lines for %u trials",
			   run->lines->len, run->trials->len);
		for (i = 0; i < run->bad->len; i++)
			fuzzAssert(((mhlRunBad *)run->bad->pdata[i])->why, "bad line %u without a why", i);
		mhlRunFree(run);
	}

	s = fuzzString(data, size);
	o = json_tokener_parse(s);
	if (o) {
		readRecord(o);
		json_object_put(o);
	} else {
		mhlSummary sum;

		mhlSummaryRead(NULL, &sum);	/* "rec may be NULL" */
	}
	free(s);
	mhlErrorReset();
	return 0;
}
