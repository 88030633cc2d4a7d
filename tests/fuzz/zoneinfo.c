/*
 * tests/fuzz/zoneinfo.c - the guest's zone and memory-block views
 * (guest/guest.h): mhlParseZoneinfo and mhlParseMemoryBlocks on the input;
 * blocks = online + offline, and the zones count at most the online ones.
 */
#include "fuzz/fuzz.h"

#include "guest/guest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzzString(data, size);
	json_object *zi = mhlParseZoneinfo(s), *mb = mhlParseMemoryBlocks(s), *v;
	int blocks, online, offline, zoned = 0;
	size_t i;

	fuzzAssert(json_object_is_type(zi, json_type_array), "zoneinfo: not an array");
	for (i = 0; i < json_object_array_length(zi); i++) {
		json_object *z = json_object_array_get_idx(zi, i);

		fuzzAssert(json_object_object_get_ex(z, "node", &v) && json_object_is_type(v, json_type_int),
			   "zone %zu: no node", i);
		fuzzAssert(json_object_object_get_ex(z, "zone", &v) && json_object_is_type(v, json_type_string),
			   "zone %zu: no zone name", i);
	}
	fuzzAssert(json_object_is_type(mb, json_type_object), "memory blocks: not an object");
	blocks = json_object_get_int(json_object_object_get(mb, "blocks"));
	online = json_object_get_int(json_object_object_get(mb, "online"));
	offline = json_object_get_int(json_object_object_get(mb, "offline"));
	fuzzAssert(blocks == online + offline && online >= 0 && offline >= 0,
		   "blocks %d, online %d, offline %d", blocks, online, offline);
	json_object_object_foreach(json_object_object_get(mb, "online_by_zone"), k, n) {
		fuzzAssert(json_object_get_int(n) >= 1, "zone '%s': %d", k, json_object_get_int(n));
		zoned += json_object_get_int(n);
	}
	fuzzAssert(zoned <= online, "%d by zone of %d online", zoned, online);
	(void)json_object_to_json_string(zi);
	(void)json_object_to_json_string(mb);
	json_object_put(zi);
	json_object_put(mb);
	free(s);
	mhlErrorReset();
	return 0;
}
