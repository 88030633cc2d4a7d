/*
 * tests/fuzz/hosts.c - the fleet's hosts (fleet/fleet.h): the input as a
 * hosts file (--hosts FILE) and as --host URIs (one per line), through
 * mhlFleetHostsParse. Seeds: tests/fuzz/corpus/hosts/.
 *
 * The contracts: -1 exactly when an error was reported; every host of an
 * accepted file has a URI that --host accepts alone too (one rule for the
 * URI, whichever way it came), slots in [0, 64], a pool that is a storage
 * pool name or none, labels that are strings; no URI twice; no accepted URI
 * is an embedded driver (issue 30, finding 11), reaches another transport
 * than the QEMU driver's, or carries a query parameter but socket=
 * (finding 6), judged here apart from hostUriOk. Regression inputs:
 * tests/fuzz/crashes/hosts/, each finding's reproducer as a hosts file.
 */
#include "fuzz/fuzz.h"

#include "fleet/fleet.h"

/* What the URI allow-list must never let through, judged with GUri alone. */
static void uriCheck(const char *uri)
{
	g_autoptr(GUri) u = g_uri_parse(uri, G_URI_FLAGS_ENCODED_QUERY, NULL);
	const char *q;

	fuzzAssert(u != NULL, "'%s' accepted, and GUri does not parse it", uri);
	fuzzAssert(!g_ascii_strncasecmp(g_uri_get_scheme(u), "qemu", 4) &&
		   (!g_uri_get_scheme(u)[4] || g_uri_get_scheme(u)[4] == '+') &&
		   g_ascii_strcasecmp(g_uri_get_scheme(u), "qemu+ext"), "'%s': transport accepted", uri);
	fuzzAssert(g_ascii_strcasecmp(g_uri_get_path(u), "/embed"), "'%s': an embedded driver accepted as a fleet host", uri);
	/* each parameter, split at '&' and ';' and its name percent-decoded as libvirt does, is socket= */
	if ((q = g_uri_get_query(u))) {
		g_auto(GStrv) params = g_strsplit_set(q, "&;", -1);
		int i;

		for (i = 0; params[i]; i++) {
			char *eq = strchr(params[i], '=');
			g_autofree char *name = NULL;

			if (!*params[i])
				continue;
			if (eq)
				*eq = '\0';
			name = g_uri_unescape_string(params[i], NULL);
			fuzzAssert(name && !g_ascii_strcasecmp(name, "socket"), "'%s': query parameter '%s' accepted", uri, params[i]);
		}
	}
}

static void hostsCheck(GPtrArray *hosts)
{
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
	guint i;
	int k;

	for (i = 0; i < hosts->len; i++) {
		mhlFleetHost *h = hosts->pdata[i];
		g_autoptr(GPtrArray) alone = g_ptr_array_new_with_free_func((GDestroyNotify)mhlFleetHostFree);

		fuzzAssert(h->uri && *h->uri, "host %u without a URI", i);
		uriCheck(h->uri);
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
