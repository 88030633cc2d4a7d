/* tests/unit/util.c - lib/util.h: templates with @KEY@ placeholders. */
#include <glib.h>

#include <string.h>

#include "unit.h"
#include "util.h"

static const char *const pairs[] = { "A", "1", "BC", "two", NULL };

static bool templateReplaced(void)
{
	g_autofree char *t = mhlTemplateExpand("x@A@y@BC@z", pairs, "t");

	return unitExpect(t && !strcmp(t, "x1ytwoz"));
}

static bool templateUnknown(void)
{
	g_autofree char *t = mhlTemplateExpand("@NOPE@", pairs, "t.xml");

	return unitExpect(!t && strstr(mhlErrorLast(), "unknown placeholder '@NOPE@'"));
}

static const unitCase cases[] = {
	{ "template: placeholders replaced", templateReplaced },
	{ "template: unknown placeholder named", templateUnknown },
};

static const unitTable tables[] = { UNIT_CASES(cases) };

const unitModule unitUtil = UNIT_MODULE("util", NULL, NULL, tables);
