/*
 * yaml.c - the scenario loader's YAML reader (scenario/yaml.h): a file's bytes
 * within the loader's limits, its shape checked from libyaml's events before
 * the document is built (nesting, anchors, one document, no control
 * characters), no key twice, and the typed getters every part uses.
 */
#include <glib.h>

#include "scenario/scenario-int.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mhl-size.h"
#include "scenario/names.h"
#include "util.h"

int mhlYOneOf(const char *what, const char *const *names)
{
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(what, names[i]))
			return i;
	return -1;
}


/*
 * A part of the file failed (a top-level key, a node, a step): keep its error
 * (mhlError's, taken out) in the file's list and go on with the next part, so
 * that one pass reports every independent error, as a compiler does
 * (docs/scenarios.md, "Errors"). An error two trials of a matrix share is kept once.
 */
void mhlYErrorKeep(mhlYaml *y)
{
	char *msg;

	y->failed++;
	if (!y->errors || !(msg = mhlErrorSteal()))
		return;
	if (g_hash_table_contains(y->seen, msg)) {
		g_free(msg);
		return;
	}
	g_hash_table_add(y->seen, msg);
	g_ptr_array_add(y->errors, msg);
}

/* Where error @msg of file @path is: "PATH:LINE:COL: ..."; past the end when it names no line. */
static void errorAt(const char *path, const char *msg, int *line, int *col)
{
	size_t n = strlen(path);

	if (strncmp(msg, path, n) || sscanf(msg + n, ":%d:%d:", line, col) != 2)
		*line = *col = INT_MAX;
}

/* File order of two errors of the file (g_ptr_array_sort_with_data: a stable sort). */
static gint errorCmp(gconstpointer a, gconstpointer b, gpointer path)
{
	int la, ca, lb, cb;

	errorAt(path, *(const char *const *)a, &la, &ca);
	errorAt(path, *(const char *const *)b, &lb, &cb);
	if (la != lb)
		return la < lb ? -1 : 1;
	return ca < cb ? -1 : ca > cb;
}

static const char *nodeKindName(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE: return "a scalar";
	case YAML_SEQUENCE_NODE: return "a list";
	case YAML_MAPPING_NODE: return "a mapping";
	default: return "nothing";
	}
}

int mhlYWantKind(mhlYaml *y, yaml_node_t *n, yaml_node_type_t kind, const char *what)
{
	static const char *const names[] = {
		[YAML_SCALAR_NODE] = "a scalar", [YAML_SEQUENCE_NODE] = "a list",
		[YAML_MAPPING_NODE] = "a mapping",
	};

	if (n->type == kind)
		return 0;
	mhlError("%s:%d:%d: %s must be %s, not %s", AT(y, n), what, names[kind], nodeKindName(n));
	return -1;
}

const char *mhlYScalar(mhlYaml *y, yaml_node_t *n)
{
	const char *e = y->expanded ? g_hash_table_lookup(y->expanded, n) : NULL;

	return e ? e : (const char *)n->data.scalar.value;
}

int mhlYSize(mhlYaml *y, yaml_node_t *n, const char *what, uint64_t *out)
{
	if (mhlYWantKind(y, n, YAML_SCALAR_NODE, what) < 0)
		return -1;
	if (mhl_size_parse(mhlYScalar(y, n), out) < 0) {
		mhlError("%s:%d:%d: %s: '%s' is not a size (%s; expected e.g. 256MiB, 1GiB, 0)",
			 AT(y, n), what, mhlYScalar(y, n), errno == ERANGE ? "too large" : "unparsable");
		return -1;
	}
	return 0;
}

int mhlYInt(mhlYaml *y, yaml_node_t *n, const char *what, long min, long max, long *out)
{
	char *end;

	if (mhlYWantKind(y, n, YAML_SCALAR_NODE, what) < 0)
		return -1;
	errno = 0;
	*out = strtol(mhlYScalar(y, n), &end, 10);
	if (errno || end == mhlYScalar(y, n) || *end || *out < min || *out > max) {
		mhlError("%s:%d:%d: %s: '%s' is not an integer in [%ld, %ld]",
			 AT(y, n), what, mhlYScalar(y, n), min, max);
		return -1;
	}
	return 0;
}

int mhlYSeconds(mhlYaml *y, yaml_node_t *n, const char *what, double *out)
{
	char *end;

	if (mhlYWantKind(y, n, YAML_SCALAR_NODE, what) < 0)
		return -1;
	*out = strtod(mhlYScalar(y, n), &end);
	/* nan compares false with everything: finite first, so "nan" is no deadline that never ends. */
	if (end == mhlYScalar(y, n) || *end || !isfinite(*out) || *out <= 0 || *out > 86400) {
		mhlError("%s:%d:%d: %s: '%s' is not a number of seconds in (0, 86400]",
			 AT(y, n), what, mhlYScalar(y, n));
		return -1;
	}
	return 0;
}

int mhlYStr(mhlYaml *y, yaml_node_t *n, const char *what, char *buf, size_t len)
{
	if (mhlYWantKind(y, n, YAML_SCALAR_NODE, what) < 0)
		return -1;
	if (strlen(mhlYScalar(y, n)) >= len || !*mhlYScalar(y, n)) {
		mhlError("%s:%d:%d: %s: '%s' must be 1 to %zu characters", AT(y, n), what,
			 mhlYScalar(y, n), len - 1);
		return -1;
	}
	snprintf(buf, len, "%s", mhlYScalar(y, n));
	return 0;
}


/* One pair of a mapping: its key among @keys, its value read by @fn. */
static int pairRead(mhlYaml *y, yaml_node_pair_t *p, const char *what,
		    const char *const *keys, mhlPairFn fn, void *opaque)
{
	yaml_node_t *k = yaml_document_get_node(y->doc, p->key);
	yaml_node_t *v = yaml_document_get_node(y->doc, p->value);
	g_autofree char *known = NULL;
	int i;

	if (mhlYWantKind(y, k, YAML_SCALAR_NODE, "a key") < 0)
		return -1;
	for (i = 0; keys[i]; i++)
		if (!strcmp(keys[i], mhlYScalar(y, k)))
			break;
	if (!keys[i]) {
		known = g_strjoinv(", ", (char **)keys);
		mhlError("%s:%d:%d: unknown key '%s' in %s (known: %s)", AT(y, k),
			 mhlYScalar(y, k), what, known);
		return -1;
	}
	return fn(y, i, v, opaque);
}

/*
 * Every pair of mapping @map; with @each, a pair that fails is kept
 * (mhlYErrorKeep) and the next one read, else the first stops the walk.
 */
int mhlYForPairsEach(mhlYaml *y, yaml_node_t *map, const char *what,
			const char *const *keys, mhlPairFn fn, void *opaque, bool each)
{
	yaml_node_pair_t *p;

	if (mhlYWantKind(y, map, YAML_MAPPING_NODE, what) < 0)
		return -1;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		if (pairRead(y, p, what, keys, fn, opaque) == 0)
			continue;
		if (!each)
			return -1;
		mhlYErrorKeep(y);
	}
	return 0;
}

int mhlYForPairs(mhlYaml *y, yaml_node_t *map, const char *what,
		    const char *const *keys, mhlPairFn fn, void *opaque)
{
	return mhlYForPairsEach(y, map, what, keys, fn, opaque, false);
}

/* @value (of node @v) names no row of @rows: say so, with every name. */
static int unknownName(mhlYaml *y, yaml_node_t *v, const char *unknown, const char *value, const void *rows,
		       size_t n, size_t stride, const char *more)
{
	g_autofree char *known = mhlNamesJoin(rows, n, stride, ", ");

	mhlError("%s:%d:%d: %s '%s' (known: %s%s)", AT(y, v), unknown, value, known, more ? more : "");
	return -1;
}

int mhlYRowOf(mhlYaml *y, yaml_node_t *v, const char *unknown, const void *rows, size_t n, size_t stride,
	      const char *more)
{
	int i = mhl_name_index_(rows, n, stride, mhlYScalar(y, v));

	return i >= 0 ? i : unknownName(y, v, unknown, mhlYScalar(y, v), rows, n, stride, more);
}

int mhlYNameRow(mhlYaml *y, yaml_node_t *v, const char *what, const void *rows, size_t n, size_t stride,
		char *buf, size_t len)
{
	g_autofree char *unknown = g_strdup_printf("unknown %s", what);

	if (mhlYStr(y, v, what, buf, len) < 0)
		return -1;
	if (mhl_name_index_(rows, n, stride, buf) >= 0)
		return 0;
	return unknownName(y, v, unknown, buf, rows, n, stride, NULL);
}

/* true or false. */
int mhlYBool(mhlYaml *y, yaml_node_t *v, const char *what, bool *out)
{
	if (mhlYWantKind(y, v, YAML_SCALAR_NODE, what) < 0)
		return -1;
	if (strcmp(mhlYScalar(y, v), "true") && strcmp(mhlYScalar(y, v), "false")) {
		mhlError("%s:%d:%d: %s: expected true or false, not '%s'", AT(y, v), what,
			 mhlYScalar(y, v));
		return -1;
	}
	*out = !strcmp(mhlYScalar(y, v), "true");
	return 0;
}

/* An assertion that can only be asked for: true. */
int mhlYTrue(mhlYaml *y, yaml_node_t *v, const char *what, bool *out)
{
	if (mhlYWantKind(y, v, YAML_SCALAR_NODE, what) < 0)
		return -1;
	if (strcmp(mhlYScalar(y, v), "true")) {
		mhlError("%s:%d:%d: %s: only 'true' is meaningful here, not '%s'", AT(y, v), what,
			 mhlYScalar(y, v));
		return -1;
	}
	*out = true;
	return 0;
}

/* The file's bytes, at most MHL_SCENARIO_MAX_BYTES: no further is read (a device or a FIFO neither). */
char *mhlYamlRead(const char *path, size_t *len)
{
	g_autofree char *buf = g_malloc(MHL_SCENARIO_MAX_BYTES + 1);
	FILE *f = fopen(path, "r");
	size_t n;
	int err;

	if (!f) {
		mhlError("cannot open scenario '%s': %s", path, g_strerror(errno));
		return NULL;
	}
	n = fread(buf, 1, MHL_SCENARIO_MAX_BYTES + 1, f);
	err = ferror(f) ? errno : 0;
	fclose(f);
	if (err) {
		mhlError("cannot read scenario '%s': %s", path, g_strerror(err));
		return NULL;
	}
	if (n > MHL_SCENARIO_MAX_BYTES) {
		mhlError("%s: the file is larger than %d KiB, the most a scenario may be", path,
			 MHL_SCENARIO_MAX_BYTES >> 10);
		return NULL;
	}
	*len = n;
	return g_steal_pointer(&buf);
}

/*
 * The first control character of a scalar's @len bytes (libyaml gives valid
 * UTF-8): C0 but tab and newline, DEL, C1 (U+0080-U+009F) and NUL; -1 when
 * none. A double-quoted YAML string writes any of them ("\e]0;title\a",
 * "\x9b", "\0"), and a scenario's text reaches the terminal (check's trial
 * list, run's progress lines) and every report (issue 30, finding 15).
 */
static int scalarControl(const unsigned char *v, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if ((v[i] < 0x20 && v[i] != '\t' && v[i] != '\n') || v[i] == 0x7f)
			return v[i];
		if (v[i] == 0xc2 && i + 1 < len && v[i + 1] >= 0x80 && v[i + 1] <= 0x9f)
			return v[i + 1];
	}
	return -1;
}

/*
 * Before the document is built, from libyaml's events: lists and mappings
 * nested at most MHL_SCENARIO_MAX_DEPTH deep and at most
 * MHL_SCENARIO_MAX_ANCHORS anchors (libyaml's loader takes time in the square
 * of either), one document only (yaml_parser_load reads the first; the
 * rest would be ignored without a word), and no control character in a key
 * or value (scalarControl). A syntax error is left to the loader, which
 * reports it.
 */
static int yamlShapeCheck(const char *path, const char *buf, size_t len)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int depth = 0, anchors = 0, docs = 0, rc = 0;
	bool end = false;

	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	while (!end && !rc && yaml_parser_parse(&parser, &ev)) {
		const yaml_char_t *anchor = NULL;
		int ctl = -1;

		switch (ev.type) {
		case YAML_SEQUENCE_START_EVENT:
			anchor = ev.data.sequence_start.anchor;
			depth++;
			break;
		case YAML_MAPPING_START_EVENT:
			anchor = ev.data.mapping_start.anchor;
			depth++;
			break;
		case YAML_SCALAR_EVENT:
			anchor = ev.data.scalar.anchor;
			ctl = scalarControl(ev.data.scalar.value, ev.data.scalar.length);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_STREAM_END_EVENT:
			end = true;
			break;
		default:
			break;
		}
		if (ev.type == YAML_DOCUMENT_START_EVENT && ++docs > 1) {
			/* the loader would read the first and silently drop the rest */
			mhlError("%s:%d:%d: a second YAML document ('---'); the file must hold one",
				 path, (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1);
			rc = -1;
		} else if (ctl >= 0) {
			mhlError("%s:%d:%d: a value holding the control character U+%04X (an escape such as \\e in a quoted string); no key or value may hold one but tab and newline",
				 path, (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1, ctl);
			rc = -1;
		} else if (depth > MHL_SCENARIO_MAX_DEPTH) {
			mhlError("%s:%d:%d: lists and mappings nest more than %d deep", path,
				 (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1,
				 MHL_SCENARIO_MAX_DEPTH);
			rc = -1;
		} else if (anchor && ++anchors > MHL_SCENARIO_MAX_ANCHORS) {
			mhlError("%s:%d:%d: more than %d anchors (&name)", path,
				 (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1,
				 MHL_SCENARIO_MAX_ANCHORS);
			rc = -1;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return rc;
}

/* No mapping of the document has a key twice (libyaml keeps both, and the last would win). */
static int duplicateKeys(mhlYaml *y)
{
	yaml_node_t *n;

	for (n = y->doc->nodes.start; n < y->doc->nodes.top; n++) {
		g_autoptr(GHashTable) seen = NULL;
		yaml_node_pair_t *p;

		if (n->type != YAML_MAPPING_NODE || n->data.mapping.pairs.top - n->data.mapping.pairs.start < 2)
			continue;
		seen = g_hash_table_new(g_str_hash, g_str_equal);
		for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(y->doc, p->key), *first;

			if (k->type != YAML_SCALAR_NODE)
				continue;	/* mhlYForPairs: a key must be a scalar */
			if ((first = g_hash_table_lookup(seen, k->data.scalar.value))) {
				mhlError("%s:%d:%d: key '%s' given twice in one mapping (first at line %d, column %d)",
					 AT(y, k), (const char *)k->data.scalar.value,
					 (int)first->start_mark.line + 1, (int)first->start_mark.column + 1);
				return -1;
			}
			g_hash_table_insert(seen, k->data.scalar.value, k);
		}
	}
	return 0;
}

int mhlYamlLoad(const char *path, const char *buf, size_t len, yaml_document_t *doc)
{
	yaml_parser_t parser;
	int rc = 0;

	if (yamlShapeCheck(path, buf, len) < 0)
		return -1;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, doc)) {
		mhlError("%s:%zu:%zu: YAML syntax error: %s", path, parser.problem_mark.line + 1,
			 parser.problem_mark.column + 1, parser.problem ? parser.problem : "?");
		rc = -1;
	}
	yaml_parser_delete(&parser);
	if (rc == 0) {
		/* for every file this loader reads (scenarios, hosts files): no key twice */
		mhlYaml y = { .path = path, .doc = doc };

		if ((rc = duplicateKeys(&y)) < 0)
			yaml_document_delete(doc);
	}
	return rc;
}

/*
 * The end of loading a file: with @rc < 0, the error that stopped the loader
 * (if one did) joins the kept ones, all in file order, and the first is
 * mhlError's. An error reported before the load (@before) stays mhlError's,
 * as it would have without the list.
 */
int mhlYamlLoadDone(mhlYaml *y, int rc, char *before)
{
	if (rc < 0) {
		mhlYErrorKeep(y);
		if (!y->errors->len)
			g_ptr_array_add(y->errors, g_strdup_printf("%s: unknown error", y->path));
		g_ptr_array_sort_with_data(y->errors, errorCmp, (gpointer)y->path);
		mhlErrorRestore(g_strdup(y->errors->pdata[0]));
	}
	if (before)
		mhlErrorRestore(before);
	return rc;
}

