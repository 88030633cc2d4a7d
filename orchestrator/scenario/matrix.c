/*
 * matrix.c - matrix: {AXIS: [VALUE, ...], exclude: [...]}: the axes, the
 * exclude rules, and ${axis} substituted into every scalar of a trial.
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
#include "util.h"

/* One axis: a list of distinct scalars of at most MHL_MAX_VALUE_LEN bytes (they make the trial ids). */
static int matrixAxis(mhlYaml *y, const char *name, yaml_node_t *av, mhlMatrix *m)
{
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
	yaml_node_item_t *it;

	if (m->naxes >= MHL_MAX_AXES) {
		mhlError("%s:%d:%d: more than %d matrix axes", AT(y, av), MHL_MAX_AXES);
		return -1;
	}
	if (mhlYWantKind(y, av, YAML_SEQUENCE_NODE, "a matrix axis") < 0)
		return -1;
	if (av->data.sequence.items.top == av->data.sequence.items.start) {
		mhlError("%s:%d:%d: matrix axis '%s' has no values", AT(y, av), name);
		return -1;
	}
	for (it = av->data.sequence.items.start; it < av->data.sequence.items.top; it++) {
		yaml_node_t *v = yaml_document_get_node(y->doc, *it), *first;

		if (mhlYWantKind(y, v, YAML_SCALAR_NODE, "a matrix value") < 0)
			return -1;
		if (strlen(mhlYScalar(y, v)) > MHL_MAX_VALUE_LEN) {
			mhlError("%s:%d:%d: matrix axis '%s': a value of %zu bytes; at most %d (values make the trial ids)",
				 AT(y, v), name, strlen(mhlYScalar(y, v)), MHL_MAX_VALUE_LEN);
			return -1;
		}
		if ((first = g_hash_table_lookup(seen, mhlYScalar(y, v)))) {
			mhlError("%s:%d:%d: matrix axis '%s': value '%s' twice (first at line %d, column %d): the two trials would have one id",
				 AT(y, v), name, mhlYScalar(y, v), (int)first->start_mark.line + 1,
				 (int)first->start_mark.column + 1);
			return -1;
		}
		g_hash_table_insert(seen, (char *)mhlYScalar(y, v), v);
	}
	m->axis[m->naxes] = name;
	m->values[m->naxes] = av;
	m->nvalues[m->naxes++] = (int)(av->data.sequence.items.top - av->data.sequence.items.start);
	return 0;
}

/* The combinations before the excludes: refused past MHL_MAX_COMBINATIONS, before any is walked. */
static int matrixSize(mhlYaml *y, yaml_node_t *k, const mhlMatrix *m)
{
	g_autoptr(GString) sizes = g_string_new(NULL);
	double product = 1;
	int a;

	for (a = 0; a < m->naxes; a++) {
		product *= m->nvalues[a];
		g_string_append_printf(sizes, "%s%d", a ? " x " : "", m->nvalues[a]);
	}
	if (product <= MHL_MAX_COMBINATIONS)
		return 0;
	mhlError("%s:%d:%d: the matrix has %s = %.0f combinations before its excludes; at most %d (and %d trials)",
		 AT(y, k), sizes->str, product, MHL_MAX_COMBINATIONS, MHL_MAX_TRIALS);
	return -1;
}

/* Each exclude rule as value indices per axis (RULE_ANY where it names none). */
static int matrixExcludes(mhlYaml *y, yaml_node_t *exclude, mhlMatrix *m)
{
	yaml_node_item_t *it;
	yaml_node_pair_t *q;

	if (exclude->data.sequence.items.top - exclude->data.sequence.items.start > MHL_MAX_EXCLUDES) {
		mhlError("%s:%d:%d: more than %d exclude rules", AT(y, exclude), MHL_MAX_EXCLUDES);
		return -1;
	}
	for (it = exclude->data.sequence.items.start; it < exclude->data.sequence.items.top; it++) {
		yaml_node_t *rule = yaml_document_get_node(y->doc, *it);
		int *r = m->rule[m->nrules++], a, i;

		if (mhlYWantKind(y, rule, YAML_MAPPING_NODE, "an exclude rule") < 0)
			return -1;
		for (a = 0; a < MHL_MAX_AXES; a++)
			r[a] = RULE_ANY;
		for (q = rule->data.mapping.pairs.start; q < rule->data.mapping.pairs.top; q++) {
			yaml_node_t *k = yaml_document_get_node(y->doc, q->key);
			yaml_node_t *v = yaml_document_get_node(y->doc, q->value);

			for (a = 0; a < m->naxes; a++)
				if (k->type == YAML_SCALAR_NODE && !strcmp(mhlYScalar(y, k), m->axis[a]))
					break;
			if (a == m->naxes) {
				mhlError("%s:%d:%d: exclude names '%s', which is not a matrix axis",
					 AT(y, k), k->type == YAML_SCALAR_NODE ? mhlYScalar(y, k) : "?");
				return -1;
			}
			/* A value the axis does not have: the rule matches no combination. */
			r[a] = RULE_NEVER;
			for (i = 0; v->type == YAML_SCALAR_NODE && i < m->nvalues[a]; i++) {
				yaml_node_item_t *vi = m->values[a]->data.sequence.items.start + i;

				if (!strcmp(mhlYScalar(y, yaml_document_get_node(y->doc, *vi)), mhlYScalar(y, v)))
					r[a] = i;
			}
		}
	}
	return 0;
}

int mhlMatrixParse(mhlYaml *y, yaml_node_t *root, mhlMatrix *m)
{
	yaml_node_pair_t *p, *q;

	memset(m, 0, sizeof(*m));
	if (root->type != YAML_MAPPING_NODE)
		return 0;	/* mhlYForPairs says what is wrong with it */
	for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(y->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(y->doc, p->value);
		yaml_node_t *exclude = NULL;

		if (k->type != YAML_SCALAR_NODE || strcmp(mhlYScalar(y, k), "matrix"))
			continue;
		if (mhlYWantKind(y, v, YAML_MAPPING_NODE, "matrix") < 0)
			return -1;
		for (q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++) {
			yaml_node_t *ak = yaml_document_get_node(y->doc, q->key);
			yaml_node_t *av = yaml_document_get_node(y->doc, q->value);
			const char *name;

			if (mhlYWantKind(y, ak, YAML_SCALAR_NODE, "a matrix axis") < 0)
				return -1;
			name = mhlYScalar(y, ak);
			if (!strcmp(name, "exclude")) {
				if (mhlYWantKind(y, av, YAML_SEQUENCE_NODE, "matrix.exclude") < 0)
					return -1;
				exclude = av;
				continue;
			}
			if (!g_regex_match_simple("^[a-z_][a-z0-9_]*$", name, 0, 0)) {
				mhlError("%s:%d:%d: matrix axis '%s': expected a name of [a-z0-9_]",
					 AT(y, ak), name);
				return -1;
			}
			if (matrixAxis(y, name, av, m) < 0)
				return -1;
		}
		if (matrixSize(y, k, m) < 0 || (exclude && matrixExcludes(y, exclude, m) < 0))
			return -1;
	}
	return 0;
}

const char *mhlMatrixValue(mhlYaml *y, const mhlMatrix *m, int a, int idx)
{
	yaml_node_item_t *it = m->values[a]->data.sequence.items.start + idx;

	return mhlYScalar(y, yaml_document_get_node(y->doc, *it));
}

/* Whether an exclude rule matches the combination @idx (a value index per axis) in full. */
bool mhlMatrixExcluded(const mhlMatrix *m, const int *idx)
{
	int r, a;

	for (r = 0; r < m->nrules; r++) {
		for (a = 0; a < m->naxes; a++)
			if (m->rule[r][a] != RULE_ANY && m->rule[r][a] != idx[a])
				break;
		if (a == m->naxes)
			return true;
	}
	return false;
}

/* The scalars holding "${", once per file: at most MHL_MAX_SUBSTITUTIONS substitutions in all. */
int mhlMatrixTemplated(mhlYaml *y)
{
	yaml_node_t *n;
	int subs = 0;

	for (n = y->doc->nodes.start; n < y->doc->nodes.top; n++) {
		const char *v = (const char *)n->data.scalar.value, *e;

		if (n->type != YAML_SCALAR_NODE || !strstr(v, "${"))
			continue;
		for (e = v; (e = strstr(e, "${")); e += 2)
			subs++;
		if (subs > MHL_MAX_SUBSTITUTIONS) {
			mhlError("%s:%d:%d: more than %d ${axis} substitutions in the file", AT(y, n),
				 MHL_MAX_SUBSTITUTIONS);
			return -1;
		}
		g_ptr_array_add(y->templated, n);
	}
	return 0;
}

/* Replace ${axis} in every scalar of the document; an unknown axis is an error. */
int mhlMatrixExpand(mhlYaml *y, GHashTable *bind)
{
	guint i;

	for (i = 0; i < y->templated->len; i++) {
		yaml_node_t *n = y->templated->pdata[i];
		const char *v = (const char *)n->data.scalar.value, *p, *e;
		g_autoptr(GString) out = g_string_new(NULL);

		for (p = v; (e = strstr(p, "${")); p = strchr(e, '}') + 1) {
			g_autofree char *axis = NULL;
			const char *val, *close = strchr(e, '}');

			if (!close) {
				mhlError("%s:%d:%d: '%s': '${' without '}'", AT(y, n), v);
				return -1;
			}
			axis = g_strndup(e + 2, close - e - 2);
			if (!(val = bind ? g_hash_table_lookup(bind, axis) : NULL)) {
				mhlError("%s:%d:%d: '${%s}' is not a matrix axis%s", AT(y, n), axis,
					 bind ? "" : " (the scenario has no matrix)");
				return -1;
			}
			g_string_append_len(out, p, e - p);
			g_string_append(out, val);
			if (out->len > MHL_MAX_EXPANDED_LEN)
				break;
		}
		g_string_append(out, p);
		if (out->len > MHL_MAX_EXPANDED_LEN) {
			mhlError("%s:%d:%d: more than %d bytes after substituting the matrix values",
				 AT(y, n), MHL_MAX_EXPANDED_LEN);
			return -1;
		}
		g_hash_table_insert(y->expanded, n, g_string_free(g_steal_pointer(&out), FALSE));
	}
	return 0;
}

