/*
 * kmemleak.c - the guest kernel's leak detector (a kernel built with
 * kernel: {debug: kmemleak}, kernel/config/flavours/kmemleak.config): its
 * scans triggered through the agent and its report in
 * /sys/kernel/debug/kmemleak parsed into what a soak records.
 *
 * A report entry, as both trees print it (mm/kmemleak.c, print_unreferenced):
 *
 *   unreferenced object 0xffff888004b3c000 (size 8192):
 *     comm "memhp-pin", pid 231, jiffies 4294901234
 *     hex dump (first 32 bytes):
 *       00 00 00 00 ...
 *     backtrace (crc 5f0e1b2a):          ("backtrace:" on 6.1)
 *       kmemleak_alloc+0x24/0x30
 *       __kmalloc_cache_noprof+0x10b/0x1e0
 *       kmemleak_test_init+0x2f/0x310 [kmemleak_test]
 *
 * (6.1 puts the address first, "[<ffffffff8123abcd>] name+0x1/0x2", when
 * kptr_restrict lets it; 6.12 prints the symbol alone.)
 *
 * The site of an object is its first frame that is not an allocator: where
 * the kernel asked for the memory that nothing points to any more.
 */
#include <glib.h>

#include <stdio.h>
#include <string.h>

#include "util.h"
#include "guest/agent.h"
#include "guest/guest.h"
#include "record/record.h"

#define KMEMLEAK_FILE "/sys/kernel/debug/kmemleak"

/* Frames of the allocators themselves: never the site. */
static const char *const allocPrefixes[] = {
	"kmalloc", "__kmalloc", "kmem_cache_alloc", "__kmem_cache_alloc", "kzalloc", "kcalloc",
	"krealloc", "__krealloc", "kvmalloc", "__kvmalloc", "kvzalloc", "kmemdup", "kstrdup",
	"kmemleak_alloc", "kmemleak_vmalloc", "slab_post_alloc_hook", "slab_alloc", "__slab_alloc", "___slab_alloc",
	"alloc_pages", "__alloc_pages", "alloc_slab", "new_slab", "allocate_slab",
	"__vmalloc", "vmalloc", "vzalloc", "__get_vm_area", "__alloc_percpu", "pcpu_alloc",
	"kmalloc_trace", "kmalloc_node", "__kmalloc_node", "kmalloc_large", "__kmalloc_large",
	"mempool_alloc", "create_object", NULL
};

static bool allocatorFrame(const char *fn)
{
	int i;

	for (i = 0; allocPrefixes[i]; i++)
		if (g_str_has_prefix(fn, allocPrefixes[i]))
			return true;
	return false;
}

/* "    [<ffffffff81234567>] name+0x1/0x2" or "    name+0x1/0x2 [mod]" -> "name" (<= 63 bytes), or NULL. */
static char *frameName(const char *line)
{
	const char *p = line + strspn(line, " \t");
	size_t n, i;
	char *name;

	if (g_str_has_prefix(p, "[<")) {
		if (!(p = strstr(p, "] ")))
			return NULL;
		p += 2;
	}
	n = strcspn(p, "+ \t\r\n");
	if (!p[n] || p[n] != '+')	/* a frame is name+offset/size */
		return NULL;
	if (!n)
		return NULL;
	name = g_strndup(p, MIN(n, (size_t)63));
	for (i = 0; name[i]; i++)	/* guest text: nothing a report or a shell could read as markup */
		if (!g_ascii_isalnum(name[i]) && !strchr("_.$", name[i]))
			name[i] = '?';
	return name;
}

typedef struct {
	gint64 objects, bytes;
} siteTally;

/* Close the entry being read: its site (or "?") tallied. */
static void entryEnd(GHashTable *sites, char **site, gint64 size)
{
	siteTally *t;

	if (!*site)
		*site = g_strdup("?");
	if (!(t = g_hash_table_lookup(sites, *site)) && g_hash_table_size(sites) < MHL_KMEMLEAK_SITES_MAX) {
		t = g_new0(siteTally, 1);
		g_hash_table_insert(sites, g_strdup(*site), t);
	}
	if (t) {
		t->objects++;
		t->bytes += size;
	}
	g_clear_pointer(site, g_free);
}

static gint sitesByBytes(gconstpointer a, gconstpointer b, gpointer sites)
{
	const siteTally *x = g_hash_table_lookup(sites, *(char *const *)a);
	const siteTally *y = g_hash_table_lookup(sites, *(char *const *)b);

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static json_object *sitesJSON(GHashTable *sites)
{
	g_autofree gpointer *keys = g_hash_table_get_keys_as_array(sites, NULL);
	guint n = g_hash_table_size(sites), i;
	json_object *arr = json_object_new_array();

	g_qsort_with_data(keys, n, sizeof(*keys), sitesByBytes, sites);
	for (i = 0; i < n && i < MHL_KMEMLEAK_SITES_SHOWN; i++) {
		const siteTally *t = g_hash_table_lookup(sites, keys[i]);
		json_object *row = json_object_new_object();

		json_object_object_add(row, MHL_K_SITE, json_object_new_string(keys[i]));
		json_object_object_add(row, MHL_K_OBJECTS, json_object_new_int64(t->objects));
		json_object_object_add(row, MHL_K_BYTES, json_object_new_int64(t->bytes));
		json_object_array_add(arr, row);
	}
	return arr;
}

json_object *mhlParseKmemleak(const char *text)
{
	g_autoptr(GHashTable) sites = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	g_auto(GStrv) lines = g_strsplit(text ? text : "", "\n", MHL_KMEMLEAK_LINES_MAX);
	g_autofree char *site = NULL;
	json_object *obj = json_object_new_object();
	gint64 objects = 0, bytes = 0, size = 0;
	bool in_entry = false, in_trace = false;
	int i;

	for (i = 0; lines[i]; i++) {
		unsigned long long sz;
		const char *l = lines[i], *t = l + strspn(l, " \t");

		if (sscanf(l, "unreferenced object 0x%*x (size %llu):", &sz) == 1) {
			if (in_entry)
				entryEnd(sites, &site, size);
			in_entry = true;
			in_trace = false;
			size = sz > (1ULL << 40) ? 0 : (gint64)sz;
			objects++;
			bytes += size;
		} else if (in_entry && g_str_has_prefix(t, "backtrace")) {
			in_trace = true;
		} else if (in_trace && !site) {
			g_autofree char *fn = frameName(l);

			if (fn && !allocatorFrame(fn))
				site = g_steal_pointer(&fn);
		}
	}
	if (in_entry)
		entryEnd(sites, &site, size);
	json_object_object_add(obj, MHL_K_OBJECTS, json_object_new_int64(objects));
	json_object_object_add(obj, MHL_K_BYTES, json_object_new_int64(bytes));
	json_object_object_add(obj, MHL_K_SITES, sitesJSON(sites));
	return obj;
}

/* Run @script in the guest's shell (a kmemleak command needs debugfs); its stdout. */
static char *kmemleakExec(virDomainPtr dom, const char *script, const char *what)
{
	const char *const argv[] = { "/bin/sh", "-c", script, NULL };
	mhlExecStatus st = { 0 };
	char *out = NULL;

	if (mhlAgentExec(dom, argv, MHL_KMEMLEAK_SCAN_DEADLINE, &st) < 0)
		return NULL;
	if (!st.exited || st.exitcode != 0)
		mhlError("kmemleak %s in the guest failed (exit %d): %.*s", what, st.exitcode,
			 mhlTextCutLen(st.err && *st.err ? st.err : "no message", 200),
			 st.err && *st.err ? st.err : "no message");
	else
		out = g_steal_pointer(&st.out);
	mhlExecStatusClear(&st);
	return out;
}

int mhlGuestKmemleakBaseline(virDomainPtr dom)
{
	/* What boot left behind is not the soak's: scan, then forget every suspect so far. */
	g_autofree char *out = kmemleakExec(dom,
		"mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug; "
		"echo scan > " KMEMLEAK_FILE " && echo clear > " KMEMLEAK_FILE, "scan and clear");

	return out ? 0 : -1;
}

char *mhlGuestKmemleakReport(virDomainPtr dom)
{
	/*
	 * kmemleak reports no object younger than 5 s (MSECS_MIN_AGE,
	 * mm/kmemleak.c), and a soak's last cycles are younger than that when
	 * it ends (4 cycles take 9 s): wait that out first, or their leaks go
	 * unreported. Then two scans: a suspect is reported only once its
	 * checksum held still across one.
	 */
	return kmemleakExec(dom,
		"sleep 5 && echo scan > " KMEMLEAK_FILE " && sleep 1 && echo scan > " KMEMLEAK_FILE " && "
		"head -c 4194304 " KMEMLEAK_FILE, "scan and report");
}
