/*
 * tests/fuzz/console.c - the console scanner (guest/guest.h, guest/console.c): mhlConsoleScan
 * on the input as a serial log; every finding has a line in the log, a kind
 * and the text.
 */
#include "fuzz/fuzz.h"

#include "guest/guest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzzString(data, size);
	json_object *arr = mhlConsoleScan(s);
	size_t i, lines = 1;

	for (i = 0; s[i]; i++)
		lines += s[i] == '\n';
	fuzzAssert(json_object_is_type(arr, json_type_array), "not an array");
	for (i = 0; i < json_object_array_length(arr); i++) {
		json_object *f = json_object_array_get_idx(arr, i), *v;

		fuzzAssert(json_object_object_get_ex(f, "line", &v) && json_object_get_int(v) >= 1 &&
			   (size_t)json_object_get_int(v) <= lines, "finding %zu: line out of the log", i);
		fuzzAssert(json_object_object_get_ex(f, "kind", &v) && json_object_get_string(v),
			   "finding %zu: no kind", i);
		fuzzAssert(json_object_object_get_ex(f, "text", &v) && json_object_get_string(v),
			   "finding %zu: no text", i);
	}
	(void)json_object_to_json_string(arr);
	json_object_put(arr);
	free(s);
	mhlErrorReset();
	return 0;
}
