/*
 * tests/fuzz/kmem.c - the guest's kernel-memory views a soak follows
 * (guest/guest.h): mhlParseMeminfo, mhlParseSlabinfo and mhlParseKmemleak
 * on the input. Every figure is a bounded non-negative number, slabinfo's
 * rows are [active <= num, num, objsize, slab bytes] under names with no
 * markup, kmemleak's sites add up to no more than its objects.
 */
#include "fuzz/fuzz.h"

#include "guest/guest.h"

static void checkMeminfo(json_object *mi)
{
	fuzzAssert(json_object_is_type(mi, json_type_object), "meminfo: not an object");
	json_object_object_foreach(mi, key, v) {
		fuzzAssert(json_object_is_type(v, json_type_int), "meminfo %s: not an integer", key);
		fuzzAssert(json_object_get_int64(v) >= 0, "meminfo %s: negative", key);
	}
}

static void checkSlabinfo(json_object *si)
{
	int n = 0;

	if (!si) {
		fuzzAssert(mhlErrorLast() != NULL, "slabinfo: NULL without an error");
		return;
	}
	json_object_object_foreach(si, name, row) {
		const char *c;

		fuzzAssert(json_object_array_length(row) == 4, "slabinfo %s: not 4 numbers", name);
		fuzzAssert(json_object_get_int64(json_object_array_get_idx(row, 0)) <=
			   json_object_get_int64(json_object_array_get_idx(row, 1)), "slabinfo %s: active > num", name);
		for (c = name; *c; c++)
			fuzzAssert(g_ascii_isgraph(*c) && !strchr("\"\\<>&'", *c), "slabinfo: name '%s'", name);
		n++;
	}
	fuzzAssert(n <= MHL_SLABINFO_MAX, "slabinfo: %d caches", n);
}

static void checkKmemleak(json_object *km)
{
	json_object *sites = json_object_object_get(km, "sites");
	gint64 objects = json_object_get_int64(json_object_object_get(km, "objects")), sum = 0;
	size_t i;

	fuzzAssert(objects >= 0 && json_object_get_int64(json_object_object_get(km, "bytes")) >= 0,
		   "kmemleak: negative tally");
	fuzzAssert(json_object_array_length(sites) <= MHL_KMEMLEAK_SITES_SHOWN, "kmemleak: too many sites");
	for (i = 0; i < json_object_array_length(sites); i++) {
		json_object *r = json_object_array_get_idx(sites, i);
		const char *site = json_object_get_string(json_object_object_get(r, "site")), *c;

		fuzzAssert(site && *site && strlen(site) <= 63, "kmemleak: site %zu", i);
		for (c = site; *c; c++)
			fuzzAssert(g_ascii_isalnum(*c) || strchr("_.$?", *c), "kmemleak: site '%s'", site);
		sum += json_object_get_int64(json_object_object_get(r, "objects"));
	}
	fuzzAssert(sum <= objects, "kmemleak: sites hold %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT, sum, objects);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzzString(data, size);
	json_object *mi = mhlParseMeminfo(s), *si = mhlParseSlabinfo(s), *km = mhlParseKmemleak(s);

	checkMeminfo(mi);
	checkSlabinfo(si);
	checkKmemleak(km);
	(void)json_object_to_json_string(mi);
	(void)json_object_to_json_string(si);
	(void)json_object_to_json_string(km);
	json_object_put(mi);
	json_object_put(si);
	json_object_put(km);
	free(s);
	mhlErrorReset();
	return 0;
}
