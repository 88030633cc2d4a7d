/*
 * tests/fuzz/hosts.c - the fleet's hosts (fleet/fleet.h): the input as a
 * hosts file (--hosts FILE) and as --host URIs (one per line), through
 * mhlFleetHostsParse. Seeds: tests/fuzz/corpus/hosts/.
 *
 * The contracts: -1 exactly when an error was reported; every host of an
 * accepted file has a URI that --host accepts alone too (one rule for the
 * URI, whichever way it came), slots in [0, 64], a pool that is a storage
 * pool name or none, labels that are strings; no URI twice.
 */
#include "fuzz/fuzz.h"

#include "fleet/fleet.h"

static void hostsCheck(GPtrArray *hosts)
{
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
	guint i;
	int k;

	for (i = 0; i < hosts->len; i++) {
		mhlFleetHost *h = hosts->pdata[i];
		g_autoptr(GPtrArray) alone = g_ptr_array_new_with_free_func((GDestroyNotify)mhlFleetHostFree);

		fuzzAssert(h->uri && *h->uri, "host %u without a URI", i);
		fuzzAssert(g_hash_table_add(seen, h->uri), "'%s' twice", h->uri);
		fuzzAssert(h->max_slots >= 0 && h->max_slots <= 64, "slots %d", h->max_slots);
		fuzzAssert(!h->pool || mhlFleetPoolNameValid(h->pool), "pool '%s'", h->pool);
		for (k = 0; h->labels && h->labels[k]; k++)
			fuzzAssert(k < 4096, "labels never end");
		fuzzAssert(!strchr(h->uri, '\n') && mhlFleetHostsParse(h->uri, NULL, alone) == 0,
			   "'%s' accepted in a file, refused by --host: %s", h->uri, mhlErrorLast());
	}
}

/* One way in (@uris as --host, or @file as --hosts): the error contract, then the hosts'. */
static void hostsParse(const char *way, const char *uris, const char *file)
{
	GPtrArray *hosts = g_ptr_array_new_with_free_func((GDestroyNotify)mhlFleetHostFree);
	int rc;

	mhlErrorReset();
	rc = mhlFleetHostsParse(uris, file, hosts);
	fuzzAssert(rc == 0 || rc == -1, "%s: returned %d", way, rc);
	fuzzAssert((rc < 0) == fuzzErrorTake(), "%s: %d and %s error", way, rc, rc < 0 ? "no" : "an");
	if (rc == 0)
		hostsCheck(hosts);
	g_ptr_array_unref(hosts);
	mhlErrorReset();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzzString(data, size);

	hostsParse("file", NULL, fuzzWriteFile("hosts.yaml", data, size));
	hostsParse("--host", text, NULL);
	free(text);
	return 0;
}
