/*
 * json.c - the dotted-path accessors every reader of a record uses (load.c's
 * shape check, summary.c, the reports, soak and fleet): typed, with a
 * default for a value of another type. Below load.c and summary.c, which
 * both use them and no longer reach into each other for them.
 */
#include <glib.h>

#include "record/record.h"

#include <stdlib.h>
#include <string.h>

json_object *mhlJ(json_object *o, const char *path)
{
	g_auto(GStrv) keys = g_strsplit(path, ".", -1);
	size_t i;

	for (i = 0; o && keys[i]; i++) {
		if (json_object_is_type(o, json_type_array) && keys[i][0] &&
		    strspn(keys[i], "0123456789") == strlen(keys[i]) && strlen(keys[i]) <= 6) {
			size_t idx = strtoul(keys[i], NULL, 10);

			if (idx >= json_object_array_length(o))
				return NULL;
			o = json_object_array_get_idx(o, idx);
			continue;
		}
		if (!json_object_is_type(o, json_type_object) ||
		    !json_object_object_get_ex(o, keys[i], &o))
			return NULL;
	}
	return o;
}

const char *mhlJStr(json_object *o, const char *path, const char *dflt)
{
	json_object *v = mhlJ(o, path);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : dflt;
}

gint64 mhlJInt(json_object *o, const char *path, gint64 dflt)
{
	json_object *v = mhlJ(o, path);

	return v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)) ?
		json_object_get_int64(v) : dflt;
}

double mhlJDbl(json_object *o, const char *path, double dflt)
{
	json_object *v = mhlJ(o, path);

	return v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)) ?
		json_object_get_double(v) : dflt;
}

bool mhlJBool(json_object *o, const char *path, bool dflt)
{
	json_object *v = mhlJ(o, path);

	return v && json_object_is_type(v, json_type_boolean) ? json_object_get_boolean(v) : dflt;
}

json_object *mhlJArr(json_object *o, const char *path)
{
	json_object *v = mhlJ(o, path);

	return v && json_object_is_type(v, json_type_array) ? v : NULL;
}

json_object *mhlJObj(json_object *o, const char *path)
{
	json_object *v = mhlJ(o, path);

	return v && json_object_is_type(v, json_type_object) ? v : NULL;
}

size_t mhlJLen(json_object *o, const char *path)
{
	json_object *v = mhlJArr(o, path);

	return v ? json_object_array_length(v) : 0;
}

json_object *mhlJIdx(json_object *arr, size_t i)
{
	if (!arr || !json_object_is_type(arr, json_type_array) || i >= json_object_array_length(arr))
		return NULL;
	return json_object_array_get_idx(arr, i);
}
