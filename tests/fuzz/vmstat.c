/*
 * tests/fuzz/vmstat.c - /proc/vmstat text (guest/guest.h): mhlParseVmstat on
 * the input; the result is an object of integers.
 */
#include "fuzz/fuzz.h"

#include "guest/guest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzzString(data, size);
	json_object *o = mhlParseVmstat(s);

	fuzzAssert(json_object_is_type(o, json_type_object), "not an object");
	json_object_object_foreach(o, k, v) {
		fuzzAssert(*k && json_object_is_type(v, json_type_int), "'%s' is not a named integer", k);
	}
	(void)json_object_to_json_string(o);
	json_object_put(o);
	free(s);
	mhlErrorReset();
	return 0;
}
