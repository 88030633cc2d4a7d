/*
 * tests/unit/main.c - the unit tests' runner: every module's tables in
 * order, one KTAP result per row, the plan 1..N summed from the tables
 * before the first test runs, then "# Totals" and the exit status from the
 * counters (tests/tap.h). No guest is booted here.
 */
#include <glib.h>
#include <glib/gstdio.h>

#include <stdarg.h>
#include <stdio.h>

#include "tap.h"
#include "unit.h"
#include "util.h"

/* In the order they run: parsers first, then what is built on them. */
static const unitModule *const modules[] = {
	&unitSize, &unitCensus, &unitAgent, &unitGuest, &unitDomain, &unitUtil, &unitRecord,
	&unitScenario, &unitRun, &unitKernel, &unitSoak, &unitHost, &unitHostMem, &unitCapacity,
	&unitTrend, &unitShard,
};

char *unitTmpdir;

char *unitWriteTmp(const char *name, const char *content)
{
	char *path = g_build_filename(unitTmpdir, name, NULL);

	g_file_set_contents(path, content, -1, NULL);
	return path;
}

bool unitExpectAt(bool ok, const char *file, int line)
{
	if (!ok)
		printf("# failed at %s:%d\n", file, line);
	return ok;
}

void unitDiag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

bool unitCaseJudge(const void *row, GString *desc)
{
	const unitCase *c = row;

	g_string_assign(desc, c->desc);
	return c->fn();
}

static size_t modulePlan(const unitModule *m)
{
	size_t t, n = 0;

	for (t = 0; t < m->ntables; t++)
		n += m->tables[t].nrows;
	return n;
}

/* Every row of @m: one result each, with no error left over from the row before. */
static void moduleRun(const unitModule *m)
{
	g_autoptr(GString) desc = g_string_new(NULL);
	size_t t, r;

	if (m->setup)
		m->setup();
	for (t = 0; t < m->ntables; t++) {
		const unitTable *tb = &m->tables[t];

		for (r = 0; r < tb->nrows; r++) {
			bool ok;

			mhlErrorReset();
			g_string_truncate(desc, 0);
			ok = tb->judge((const char *)tb->rows + r * tb->size, desc);
			tapResult(ok, NULL, 0, "%s", desc->str);
		}
	}
	mhlErrorReset();
	if (m->teardown)
		m->teardown();
}

int main(void)
{
	size_t i, plan = 0;

	unitTmpdir = g_dir_make_tmp("mhl-unit-XXXXXX", NULL);
	if (!unitTmpdir) {
		printf("Bail out! cannot create a scratch directory under %s\n", g_get_tmp_dir());
		return 1;
	}
	for (i = 0; i < G_N_ELEMENTS(modules); i++)
		plan += modulePlan(modules[i]);
	tapPlan((int)plan);
	for (i = 0; i < G_N_ELEMENTS(modules); i++)
		moduleRun(modules[i]);
	mhlRemoveTree(unitTmpdir);
	return tapFinish();
}
