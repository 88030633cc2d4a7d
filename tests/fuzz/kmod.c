/*
 * tests/fuzz/kmod.c - a kernel's modules and packages as data (host/kmod.h),
 * what kernel/package.sh reads through memhp-kmod: the input as a
 * modules.dep (mhlModDepParse, then the load order of every module the
 * guest may want) and as a package's archive (mhlTarCheckFeed), whole and
 * in pieces of the size its first byte gives.
 *
 * The contracts: NULL or -1 exactly when an error was reported; every path
 * of a load order passes mhlKmodPathOk (a shell may hold it), none twice;
 * an archive's verdict and member count do not depend on how it arrives.
 */
#include "fuzz/fuzz.h"

#include "host/kmod.h"

static const char *const wanted[] = { "virtio_pci", "virtio_console", "virtio_mem", "vfio", "vfio_iommu_type1",
				       "vfio-pci", "x" };

static void modDep(const char *s, size_t size)
{
	mhlModDep *d = mhlModDepParse(s, size, "modules.dep");
	size_t k;
	guint i;

	fuzzAssert((d == NULL) == fuzzErrorTake(), "parse: %s, but an error %s", d ? "ok" : "NULL", d ? "too" : "none");
	if (!d)
		return;
	for (k = 1; k <= G_N_ELEMENTS(wanted); k++) {
		GPtrArray *order = mhlModDepOrder(d, wanted, k, "modules.dep");
		GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);

		fuzzAssert((order == NULL) == fuzzErrorTake(), "order of %zu: %s and the error", k, order ? "ok" : "NULL");
		for (i = 0; order && i < order->len; i++) {
			const char *p = order->pdata[i], *why = NULL;

			fuzzAssert(mhlKmodPathOk(p, &why), "'%s' in the order: %s", p, why);
			fuzzAssert(g_hash_table_add(seen, (gpointer)p), "'%s' twice in the order", p);
		}
		g_hash_table_unref(seen);
		if (order)
			g_ptr_array_unref(order);
	}
	mhlModDepFree(d);
}

/* The archive fed in pieces of @piece bytes: 1 refused, 0 accepted; *members counted. */
static int tar(const uint8_t *data, size_t size, size_t piece, unsigned int *members)
{
	mhlTarCheck *t = mhlTarCheckNew("fuzz");
	size_t off = 0;
	int rc = 0;

	while (rc == 0 && off < size) {
		size_t n = MIN(piece, size - off);

		rc = mhlTarCheckFeed(t, data + off, n);
		off += n;
	}
	if (rc == 0)
		rc = mhlTarCheckFinish(t);
	fuzzAssert((rc < 0) == fuzzErrorTake(), "tar in pieces of %zu: rc %d and the error", piece, rc);
	*members = mhlTarCheckMembers(t);
	mhlTarCheckFree(t);
	return rc < 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzzString(data, size);
	unsigned int m1 = 0, m2 = 0;
	int whole, pieces;

	modDep(s, strlen(s));
	whole = tar(data, size, size ? size : 1, &m1);
	pieces = tar(data, size, size ? (size_t)data[0] % 613 + 1 : 1, &m2);
	fuzzAssert(whole == pieces && m1 == m2, "whole: %s, %u members; in pieces: %s, %u members",
		   whole ? "refused" : "accepted", m1, pieces ? "refused" : "accepted", m2);
	free(s);
	mhlErrorReset();
	return 0;
}
