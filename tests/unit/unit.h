/*
 * tests/unit/unit.h - what each module's unit tests share with the runner
 * (tests/unit/main.c). A module under test is a list of tables; every row
 * of a table is one KTAP result, so the plan is the sum of the tables'
 * lengths, known before any test runs (tools/testing/selftests/mm/
 * gup_longterm.c's test_cases and ksft_set_plan).
 *
 * Two kinds of rows: {description, function} (unitCase, UNIT_CASES), and a
 * module's own {input, expected} rows with a judge that writes the
 * description from the row (UNIT_TABLE). No guest is booted by any of them.
 */
#ifndef MHL_UNIT_H
#define MHL_UNIT_H

#include <glib.h>
#include <stdbool.h>

/*
 * Judge @row (one element of the table): true when it holds; its description
 * into @desc. The description comes from the row alone and is written first:
 * while unitListing is set (-l, -t) the judge returns right after writing it,
 * checking nothing.
 */
typedef bool (*unitJudge)(const void *row, GString *desc);

/* Set while the runner asks a judge only for its row's description. */
extern bool unitListing;

typedef struct {
	const void *rows;
	size_t nrows;
	size_t size;		/* of one row */
	unitJudge judge;
} unitTable;

#define UNIT_TABLE(rows, judge) { (rows), G_N_ELEMENTS(rows), sizeof((rows)[0]), (judge) }

/* A {description, function} row: @fn makes one check. */
typedef struct {
	const char *desc;
	bool (*fn)(void);
} unitCase;

bool unitCaseJudge(const void *row, GString *desc);
#define UNIT_CASES(cases) UNIT_TABLE(cases, unitCaseJudge)

/*
 * A module under test: its tables in order. @setup (optional) prepares what
 * the rows share; when it fails every row still runs (and fails on its own),
 * so the plan holds. @teardown (optional) runs after the last row. A module
 * whose rows build on each other (@chained: each needs the rows before it,
 * as census's fake files, then a census, then its counts) runs every row
 * before a row that -t selects too; in any other module a row stands alone.
 */
typedef struct {
	const char *name;
	void (*setup)(void);
	void (*teardown)(void);
	const unitTable *tables;
	size_t ntables;
	bool chained;
} unitModule;

#define UNIT_MODULE(name, setup, teardown, tables) \
	{ (name), (setup), (teardown), (tables), G_N_ELEMENTS(tables), false }
#define UNIT_MODULE_CHAINED(name, setup, teardown, tables) \
	{ (name), (setup), (teardown), (tables), G_N_ELEMENTS(tables), true }

/* The modules (one file each under tests/unit/). */
extern const unitModule unitSize, unitCensus, unitAgent, unitGuest, unitDomain, unitUtil, unitRecord,
	unitScenario, unitRun, unitKernel, unitSoak, unitHost, unitHostMem, unitCapacity, unitTrend,
	unitShard, unitReport, unitExpectModule, unitPin;

/*
 * A case's judgement: @cond, or false after a "# failed at FILE:LINE"
 * diagnostic naming the check that did not hold.
 */
#define unitExpect(cond) unitExpectAt(!!(cond), __FILE__, __LINE__)
bool unitExpectAt(bool ok, const char *file, int line);

/* A "# ..." diagnostic line (what a failing check got). */
void unitDiag(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

/* The run's scratch directory, removed at the end. */
extern char *unitTmpdir;
/* Write @content to @name under unitTmpdir; the path, to g_free. */
char *unitWriteTmp(const char *name, const char *content);

#endif
