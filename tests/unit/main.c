/*
 * tests/unit/main.c - the unit tests' runner: every module's tables in
 * order, one KTAP result per row, the plan 1..N summed from the tables
 * before the first test runs, then "# Totals" and the exit status from the
 * counters (tests/tap.h). No guest is booted here.
 *
 * kselftest_harness.h's habits: -l lists the cases as MODULE/CASE, -t runs
 * some of them (the plan counted from the selection), and --check-counts
 * compares each module's row count with tests/unit/counts, so a row deleted
 * by mistake does not go unnoticed.
 */
#include <glib.h>
#include <glib/gstdio.h>

#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "unit.h"
#include "util.h"

/* In the order they run: parsers first, then what is built on them. */
static const unitModule *const modules[] = {
	&unitSize, &unitCensus, &unitPin, &unitAgent, &unitGuest, &unitDomain, &unitUtil, &unitRecord,
	&unitScenario, &unitRun, &unitKernel, &unitSoak, &unitHost, &unitHostMem, &unitExpectModule, &unitCapacity,
	&unitTrend, &unitShard, &unitReport,
};

enum { EXIT_USAGE = 2 };

char *unitTmpdir;
bool unitListing;

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
	if (unitListing)
		return true;
	return c->fn();
}

static size_t moduleRows(const unitModule *m)
{
	size_t t, n = 0;

	for (t = 0; t < m->ntables; t++)
		n += m->tables[t].nrows;
	return n;
}

static const void *tableRow(const unitTable *tb, size_t r)
{
	return (const char *)tb->rows + r * tb->size;
}

/* Row @r of table @tb's description, the judge asked only for it (unitListing). */
static void rowDescribe(const unitTable *tb, size_t r, GString *desc)
{
	g_string_truncate(desc, 0);
	unitListing = true;
	tb->judge(tableRow(tb, r), desc);
	unitListing = false;
}

/* ---- which rows run (-t) ---- */

/* One -t MODULE[/CASE]: @module its module, @pattern the glob for the descriptions or NULL (all). */
typedef struct {
	const char *arg;
	const unitModule *module;
	char *pattern;	/* "*CASE*": CASE anywhere in the description */
} unitFilter;

static void unitFilterClear(unitFilter *f)
{
	g_free(f->pattern);
}

static GString *moduleNames(void)
{
	GString *s = g_string_new(NULL);
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(modules); i++)
		g_string_append_printf(s, "%s%s", i ? " " : "", modules[i]->name);
	return s;
}

static const unitModule *moduleFind(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(modules); i++)
		if (strlen(modules[i]->name) == len && !strncmp(modules[i]->name, name, len))
			return modules[i];
	return NULL;
}

static bool filterMatches(const unitFilter *f, const unitModule *m, const char *desc)
{
	return f->module == m && (!f->pattern || fnmatch(f->pattern, desc, 0) == 0);
}

/*
 * The selection: one flag per row of every module, in module order; all
 * rows when @filters is empty. Every filter must select a row: else
 * @bad is the filter that selects none.
 */
static bool **selectionMake(GArray *filters, size_t *plan, const unitFilter **bad)
{
	g_autoptr(GString) desc = g_string_new(NULL);
	g_autofree size_t *hits = g_new0(size_t, filters->len ? filters->len : 1);
	bool **sel = g_new0(bool *, G_N_ELEMENTS(modules));
	size_t i, t, r, k, row;

	*plan = 0;
	*bad = NULL;
	for (i = 0; i < G_N_ELEMENTS(modules); i++) {
		const unitModule *m = modules[i];

		sel[i] = g_new0(bool, moduleRows(m) ? moduleRows(m) : 1);
		for (t = 0, row = 0; t < m->ntables; t++) {
			for (r = 0; r < m->tables[t].nrows; r++, row++) {
				if (!filters->len) {
					sel[i][row] = true;
					++*plan;
					continue;
				}
				rowDescribe(&m->tables[t], r, desc);
				for (k = 0; k < filters->len; k++) {
					if (!filterMatches(&g_array_index(filters, unitFilter, k), m, desc->str))
						continue;
					hits[k]++;
					if (!sel[i][row])
						++*plan;
					sel[i][row] = true;
				}
			}
		}
		/* a chained module: every row before the last one selected */
		for (row = moduleRows(m); m->chained && row > 0 && !sel[i][row - 1]; row--)
			;
		for (; m->chained && row > 0; row--) {
			if (!sel[i][row - 1])
				++*plan;
			sel[i][row - 1] = true;
		}
	}
	for (k = 0; k < filters->len && !*bad; k++)
		if (!hits[k])
			*bad = &g_array_index(filters, unitFilter, k);
	return sel;
}

static void selectionFree(bool **sel)
{
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(modules); i++)
		g_free(sel[i]);
	g_free(sel);
}

/* ---- running, listing ---- */

/* The selected rows of @m: one result each, with no error left over from the row before. */
static void moduleRun(const unitModule *m, const bool *sel)
{
	g_autoptr(GString) desc = g_string_new(NULL);
	size_t t, r, row, n = 0;

	for (row = 0; row < moduleRows(m); row++)
		n += sel[row];
	if (!n)
		return;
	if (m->setup)
		m->setup();
	for (t = 0, row = 0; t < m->ntables; t++) {
		const unitTable *tb = &m->tables[t];

		for (r = 0; r < tb->nrows; r++, row++) {
			bool ok;

			if (!sel[row])
				continue;
			mhlErrorReset();
			g_string_truncate(desc, 0);
			ok = tb->judge(tableRow(tb, r), desc);
			tapResult(ok, NULL, 0, "%s", desc->str);
		}
	}
	mhlErrorReset();
	if (m->teardown)
		m->teardown();
}

static void moduleList(const unitModule *m, const bool *sel)
{
	g_autoptr(GString) desc = g_string_new(NULL);
	size_t t, r, row;

	for (t = 0, row = 0; t < m->ntables; t++) {
		for (r = 0; r < m->tables[t].nrows; r++, row++) {
			if (!sel[row])
				continue;
			rowDescribe(&m->tables[t], r, desc);
			printf("%s/%s\n", m->name, desc->str);
		}
	}
}

/* ---- the row counts (--counts, --check-counts) ---- */

static void countsPrint(void)
{
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(modules); i++)
		printf("%s %zu\n", modules[i]->name, moduleRows(modules[i]));
}

/*
 * Compare every module's row count with @path ("MODULE N" per line, in
 * module order): 0 when all agree, 1 naming each that does not, 2 when
 * @path cannot be read or has a line of another shape.
 */
static int countsCheck(const char *path)
{
	g_autofree char *text = NULL;
	g_autoptr(GError) err = NULL;
	g_auto(GStrv) lines = NULL;
	g_autoptr(GString) names = moduleNames(), order = g_string_new(NULL), want = g_string_new(NULL);
	g_autofree long *said = g_new(long, G_N_ELEMENTS(modules));
	size_t i, total = 0;
	int rc = 0;

	if (!g_file_get_contents(path, &text, NULL, &err)) {
		fprintf(stderr, "unit-tests: --check-counts: %s\n", err->message);
		return EXIT_USAGE;
	}
	for (i = 0; i < G_N_ELEMENTS(modules); i++) {
		said[i] = -1;
		g_string_append_printf(want, "%s%s", i ? " " : "", modules[i]->name);
	}
	lines = g_strsplit(text, "\n", -1);
	for (i = 0; lines[i]; i++) {
		g_auto(GStrv) f = g_strsplit_set(g_strstrip(lines[i]), " \t", -1);
		const unitModule *m;
		char *end = NULL;
		long n;
		size_t j;

		if (!*lines[i] || *lines[i] == '#')
			continue;
		errno = 0;
		n = g_strv_length(f) == 2 ? strtol(f[1], &end, 10) : -1;
		if (n < 0 || errno || !end || *end || end == f[1]) {
			fprintf(stderr, "unit-tests: %s:%zu: expected 'MODULE N', not '%s'\n", path, i + 1, lines[i]);
			return EXIT_USAGE;
		}
		if (!(m = moduleFind(f[0], strlen(f[0])))) {
			fprintf(stderr, "unit-tests: %s:%zu: no module '%s' (modules: %s)\n", path, i + 1, f[0],
				names->str);
			rc = 1;
			continue;
		}
		for (j = 0; modules[j] != m; j++)
			;
		if (said[j] >= 0) {
			fprintf(stderr, "unit-tests: %s:%zu: module '%s' a second time\n", path, i + 1, f[0]);
			rc = 1;
			continue;
		}
		said[j] = n;
		g_string_append_printf(order, "%s%s", order->len ? " " : "", f[0]);
	}
	for (i = 0; i < G_N_ELEMENTS(modules); i++) {
		size_t have = moduleRows(modules[i]);

		total += have;
		if (said[i] < 0) {
			fprintf(stderr, "unit-tests: %s: module '%s' (%zu rows) is not in the file: add '%s %zu'\n",
				path, modules[i]->name, have, modules[i]->name, have);
			rc = 1;
		} else if ((size_t)said[i] != have) {
			fprintf(stderr, "unit-tests: %s: module '%s' has %zu rows, the file says %ld: %s "
				"(build/unit-tests --counts > %s)\n", path, modules[i]->name, have, said[i],
				have < (size_t)said[i] ?
				"a lower count means rows were deleted: restore them, or update the file if on purpose" :
				"rows were added: when on purpose, update the file", path);
			rc = 1;
		}
	}
	if (!rc && strcmp(order->str, want->str)) {
		fprintf(stderr, "unit-tests: %s: the modules are not in module order: %s (the order: %s)\n", path,
			order->str, want->str);
		rc = 1;
	}
	if (!rc)
		printf("unit-tests: %s: %zu modules, %zu rows, as counted\n", path, G_N_ELEMENTS(modules), total);
	return rc;
}

static void usage(FILE *f)
{
	g_autoptr(GString) names = moduleNames(), chained = g_string_new(NULL);
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(modules); i++)
		if (modules[i]->chained)
			g_string_append_printf(chained, "%s%s", chained->len ? ", " : "", modules[i]->name);

	fprintf(f,
		"usage: build/unit-tests [-l] [-t MODULE[/CASE]]... | --counts | --check-counts FILE | -h\n"
		"\n"
		"Without options, every case runs: KTAP on stdout (plan, ok/not ok, # Totals).\n"
		"\n"
		"  -l, --list            list the cases (those -t selects), one per line as MODULE/CASE, and exit\n"
		"  -t, --test MODULE[/CASE]\n"
		"                        run only module MODULE's cases, or those of its cases whose description\n"
		"                        matches CASE: a glob (fnmatch(3): * ? [...], \\ quotes) matched anywhere\n"
		"                        in the description, so a plain string is a substring match (case\n"
		"                        sensitive); repeatable (their union, in module order); the KTAP plan\n"
		"                        counts the selection. In a module whose cases build on each other\n"
		"                        (%s), the cases before a selected one run too\n"
		"      --counts          print each module's row count as 'MODULE N' (the format of tests/unit/counts)\n"
		"      --check-counts FILE\n"
		"                        compare each module's row count with FILE; exit 1 naming each that differs\n"
		"  -h, --help            this text\n"
		"\n"
		"Modules, in the order they run: %s\n"
		"Exit status: 0 every case selected passed (or the counts agree), 1 a case failed (or a count\n"
		"differs), 2 usage: an unknown option or module, a -t that selects no case.\n",
		chained->str, names->str);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "list", no_argument, NULL, 'l' },
		{ "test", required_argument, NULL, 't' },
		{ "counts", no_argument, NULL, 'C' },
		{ "check-counts", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	g_autoptr(GArray) filters = g_array_new(FALSE, TRUE, sizeof(unitFilter));
	const char *countsFile = NULL;
	const unitFilter *bad = NULL;
	bool list = false, counts = false;
	bool **sel;
	size_t i, plan;
	int opt;

	g_array_set_clear_func(filters, (GDestroyNotify)unitFilterClear);
	while ((opt = getopt_long(argc, argv, "lt:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'l':
			list = true;
			break;
		case 't': {
			const char *slash = strchr(optarg, '/');
			unitFilter f = { .arg = optarg };

			f.module = moduleFind(optarg, slash ? (size_t)(slash - optarg) : strlen(optarg));
			if (!f.module) {
				g_autoptr(GString) names = moduleNames();

				fprintf(stderr, "unit-tests: -t '%s': no module '%.*s' (modules: %s)\n", optarg,
					(int)(slash ? slash - optarg : (int)strlen(optarg)), optarg, names->str);
				return EXIT_USAGE;
			}
			if (slash)
				f.pattern = g_strdup_printf("*%s*", slash + 1);
			g_array_append_val(filters, f);
			break;
		}
		case 'C':
			counts = true;
			break;
		case 'c':
			countsFile = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "unit-tests: unexpected argument '%s' (a case is chosen with -t MODULE/CASE)\n",
			argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (counts) {
		countsPrint();
		return 0;
	}
	if (countsFile)
		return countsCheck(countsFile);

	sel = selectionMake(filters, &plan, &bad);
	if (bad) {
		g_autoptr(GString) names = moduleNames();

		if (bad->pattern)
			fprintf(stderr, "unit-tests: -t '%s': no case of module '%s' matches '%s' (build/unit-tests -l "
				"lists them; modules: %s)\n", bad->arg, bad->module->name, strchr(bad->arg, '/') + 1,
				names->str);
		else
			fprintf(stderr, "unit-tests: -t '%s': module '%s' has no case (modules: %s)\n", bad->arg,
				bad->module->name, names->str);
		selectionFree(sel);
		return EXIT_USAGE;
	}
	if (list) {
		for (i = 0; i < G_N_ELEMENTS(modules); i++)
			moduleList(modules[i], sel[i]);
		selectionFree(sel);
		return 0;
	}

	unitTmpdir = g_dir_make_tmp("mhl-unit-XXXXXX", NULL);
	if (!unitTmpdir) {
		printf("Bail out! cannot create a scratch directory under %s\n", g_get_tmp_dir());
		selectionFree(sel);
		return 1;
	}
	tapPlan((int)plan);
	for (i = 0; i < G_N_ELEMENTS(modules); i++)
		moduleRun(modules[i], sel[i]);
	selectionFree(sel);
	mhlRemoveTree(unitTmpdir);
	return tapFinish();
}
