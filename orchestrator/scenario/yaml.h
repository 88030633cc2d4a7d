/*
 * scenario/yaml.h - the YAML reader the scenario's parts share (yaml.c):
 * nodes with their line and column, scalars with ${axis} substituted, typed
 * getters whose errors say PATH:LINE:COL, mapping walks against a key list,
 * and the list of a file's errors (one pass reports every independent one).
 * Internal to scenario/; other folders load files through scenario.h.
 */
#ifndef MHL_SCENARIO_YAML_H
#define MHL_SCENARIO_YAML_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <yaml.h>

#include "mhl-names.h"

struct mhlMatrix;

typedef struct {
	const char *path;
	yaml_document_t *doc;
	GPtrArray *templated;	/* the scalar nodes holding "${", found once per file */
	/* The trial's matrix parameters: ${axis} in a scalar becomes its value. */
	GHashTable *expanded;	/* yaml_node_t * -> the scalar with ${axis} replaced */
	/* The file's errors so far, each once (NULL: the loader stops at the first; mhlYErrorKeep). */
	GPtrArray *errors;
	GHashTable *seen;	/* their text: the trials of a matrix repeat an error */
	int failed;		/* errors kept while parsing the trial at hand */
	/*
	 * Of those, the ones the cross-step checks cannot see past: a part
	 * whose shape is unknown (a top-level section that failed whole, a
	 * virtio_mem size or block not read). Errors in leaves only (a policy,
	 * a size, a flag) leave the checks of the rest meaningful.
	 */
	int failed_shape;
	/* The trial at hand's matrix (its axes and values) and its value per axis: a step's only:. NULL: no matrix. */
	const struct mhlMatrix *matrix;
	GHashTable *bind;	/* axis -> value */
} mhlYaml;

#define AT(y, n) (y)->path, (int)(n)->start_mark.line + 1, (int)(n)->start_mark.column + 1
/* Walk a mapping: for each pair, look the key up in keys[]; unknown keys fail. */
typedef int (*mhlPairFn)(mhlYaml *y, int key, yaml_node_t *val, void *opaque);

/* The index of @what in the NULL-terminated @names, or -1. */
int mhlYOneOf(const char *what, const char *const *names);
/* Keep the error just reported in the file's list and go on (mhlYaml.errors). */
void mhlYErrorKeep(mhlYaml *y);
/* 0 if @n is of @kind, else -1 + "PATH:L:C: WHAT must be a list, not a scalar". */
int mhlYWantKind(mhlYaml *y, yaml_node_t *n, yaml_node_type_t kind, const char *what);
/* A scalar's text, with the trial's ${axis} values substituted. */
const char *mhlYScalar(mhlYaml *y, yaml_node_t *n);
/* The typed getters: 0, or -1 + mhlError naming @what at the node's line and column. */
int mhlYSize(mhlYaml *y, yaml_node_t *n, const char *what, uint64_t *out);
int mhlYInt(mhlYaml *y, yaml_node_t *n, const char *what, long min, long max, long *out);
int mhlYSeconds(mhlYaml *y, yaml_node_t *n, const char *what, double *out);
int mhlYStr(mhlYaml *y, yaml_node_t *n, const char *what, char *buf, size_t len);
/*
 * A string that must name a row of the name table @rows (an array: a
 * `const char *const[]` or rows whose first member is the name; scenario/names.h),
 * copied into @buf; the error lists the table's names.
 */
/*
 * The index of the row of name table @rows that scalar @v names, or -1 +
 * "PATH:L:C: @unknown 'VALUE' (known: a, b, c@more)" (@more: NULL, or what
 * else the key takes, ", {package: ...}").
 */
#define mhlYRow(y, v, unknown, rows, more) mhlYRowOf((y), (v), (unknown), MHL_ROWS(rows), (more))
int mhlYRowOf(mhlYaml *y, yaml_node_t *v, const char *unknown, const void *rows, size_t n, size_t stride,
	      const char *more);
#define mhlYName(y, v, what, rows, buf, len) mhlYNameRow((y), (v), (what), MHL_ROWS(rows), (buf), (len))
int mhlYNameRow(mhlYaml *y, yaml_node_t *v, const char *what, const void *rows, size_t n, size_t stride,
		char *buf, size_t len);
int mhlYBool(mhlYaml *y, yaml_node_t *v, const char *what, bool *out);
/* An assertion that can only be asked for: true. */
int mhlYTrue(mhlYaml *y, yaml_node_t *v, const char *what, bool *out);
/* Every pair of mapping @map, its key one of @keys, read by @fn; the first error stops. */
int mhlYForPairs(mhlYaml *y, yaml_node_t *map, const char *what,
		 const char *const *keys, mhlPairFn fn, void *opaque);
/* The same; with @each, a pair that fails is kept (mhlYErrorKeep) and the next read. */
int mhlYForPairsEach(mhlYaml *y, yaml_node_t *map, const char *what,
		     const char *const *keys, mhlPairFn fn, void *opaque, bool each);
/* Whether scalar @v took its value from a matrix axis (it holds "${"). */
bool mhlYFromAxis(mhlYaml *y, yaml_node_t *v);
/* The bytes of scenario @path, at most MHL_SCENARIO_MAX_BYTES; NULL + mhlError. */
char *mhlYamlRead(const char *path, size_t *len);
/* The end of loading a file: its errors in file order, the first mhlError's; returns @rc. */
int mhlYamlLoadDone(mhlYaml *y, int rc, char *before);

#endif
