/*
 * hostmem.c - QEMU's memory as the host sees it (hostmem.h): /proc/PID/smaps
 * and status where QEMU runs here, libvirt's memory stats where it does not.
 */
#include <glib.h>

#include "host/hostmem.h"

#include <pwd.h>
#include <sys/stat.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/record.h"
#include "scenario/names.h"
#include "util.h"

/* "START-END PERMS OFFSET DEV INODE [PATH]": 0 and the entry, or -1. */
static int smapsHeader(const char *line, gsize len, mhlSmapsEntry *e)
{
	g_autofree char *l = g_strndup(line, len);
	char perms[8] = "";
	unsigned long long start, end;
	int off = 0;
	const char *p;

	if (sscanf(l, "%llx-%llx %7s %*s %*s %*s %n", &start, &end, perms, &off) < 3 || !off ||
	    end < start || strlen(perms) != 4)
		return -1;
	memset(e, 0, sizeof(*e));
	e->start = start;
	e->end = end;
	e->writable = perms[1] == 'w';
	e->executable = perms[2] == 'x';
	e->shared = perms[3] == 's';
	for (p = l + off; *p == ' '; p++)
		;
	g_strlcpy(e->path, p, sizeof(e->path));
	return 0;
}

/* "Key:   N kB": N when @line starts with @key. */
static bool smapsField(const char *line, gsize len, const char *key, uint64_t *kib)
{
	gsize k = strlen(key);
	g_autofree char *l = NULL;

	if (len <= k || strncmp(line, key, k) || line[k] != ':')
		return false;
	l = g_strndup(line + k + 1, len - k - 1);
	*kib = g_ascii_strtoull(l, NULL, 10);
	return true;
}

GArray *mhlSmapsParse(const char *text, gsize len)
{
	GArray *maps = g_array_new(FALSE, TRUE, sizeof(mhlSmapsEntry));
	const char *p = text, *end = text + len;
	mhlSmapsEntry *cur = NULL;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		gsize n = nl ? (gsize)(nl - p) : (gsize)(end - p);
		uint64_t v;

		gsize hex = 0;

		while (hex < n && g_ascii_isxdigit(p[hex]))
			hex++;
		/* "Anonymous:", "FilePmdMapped:" start with hex digits too: a header has '-' after them */
		if (hex && hex < n && p[hex] == '-') {
			mhlSmapsEntry e;

			if (smapsHeader(p, n, &e) < 0)
				break;
			g_array_append_val(maps, e);
			cur = &g_array_index(maps, mhlSmapsEntry, maps->len - 1);
		} else if (cur && smapsField(p, n, "Rss", &v)) {
			cur->rss_kib = v;
		} else if (cur && (smapsField(p, n, "Private_Hugetlb", &v) ||
				   smapsField(p, n, "Shared_Hugetlb", &v))) {
			cur->hugetlb_kib += v;
		}
		p += n + 1;
	}
	return maps;
}

/* Whether mapping @e can be a memory backend of @size bytes. */
static bool backendLike(const mhlSmapsEntry *e, uint64_t size)
{
	return e->writable && !e->executable && e->end - e->start == size;
}

/*
 * A mapping that names no backend, as a memory backing's row says its
 * mappings show (scenario/names.h): no path (anonymous memory) or a path of
 * its prefix (a memfd). Any backing's: a guest's backends all share one.
 */
static bool unnamed(const mhlSmapsEntry *e)
{
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(mhlMemBackings); i++) {
		const mhlMemBacking *mb = &mhlMemBackings[i];

		if ((mb->smaps == MHL_SMAPS_NO_PATH && !e->path[0]) ||
		    (mb->smaps == MHL_SMAPS_PREFIX && g_str_has_prefix(e->path, mb->smaps_prefix)))
			return true;
	}
	return false;
}

/*
 * Whether @e's file is backend @b's: QEMU's own name for a file in a
 * directory (qemu_back_mem.ID.XXXXXX, hugetlbfs), or libvirt's mem-path
 * (memory_backing_dir/DOMAIN/ID; a virtio-mem device's file is named by its
 * alias, the ID without "mem").
 */
static bool namesBackend(const mhlSmapsEntry *e, const mhlBackend *b)
{
	g_autofree char *tag = g_strdup_printf("qemu_back_mem.%s.", b->id);
	g_autofree char *path = g_strdup(e->path);
	const char *base;
	char *del = strstr(path, " (deleted)");

	if (strstr(e->path, tag))
		return true;
	if (del)
		*del = '\0';
	base = strrchr(path, '/');
	return base && (!strcmp(base + 1, b->id) ||
			(b->device && g_str_has_prefix(b->id, "mem") && !strcmp(base + 1, b->id + 3)));
}

int mhlBackendsMatch(const mhlBackend *b, int nb, GArray *maps, int *which)
{
	int i, j, found = 0;

	for (i = 0; i < nb; i++)
		which[i] = -1;
	/* a backend's own file */
	for (i = 0; i < nb; i++) {
		for (j = 0; j < (int)maps->len; j++) {
			const mhlSmapsEntry *e = &g_array_index(maps, mhlSmapsEntry, j);

			if (backendLike(e, b[i].size) && !unnamed(e) && namesBackend(e, &b[i])) {
				which[i] = j;
				found++;
				break;
			}
		}
	}
	/* the rest by size, in creation order = descending addresses */
	for (i = 0; i < nb; i++) {
		g_autoptr(GArray) cand = g_array_new(FALSE, FALSE, sizeof(int));
		int k, nsame = 0, rank = 0;

		if (which[i] >= 0)
			continue;
		for (k = 0; k < nb; k++) {
			if (b[k].size != b[i].size || (which[k] >= 0 && k != i))
				continue;
			if (k < i)
				rank++;
			nsame++;
		}
		for (j = 0; j < (int)maps->len; j++) {
			const mhlSmapsEntry *e = &g_array_index(maps, mhlSmapsEntry, j);
			bool taken = false;

			for (k = 0; k < nb; k++)
				taken |= which[k] == j;
			if (!taken && backendLike(e, b[i].size) && unnamed(e))
				g_array_append_val(cand, j);
		}
		if ((int)cand->len != nsame)
			continue;
		/* maps are in ascending address order: the highest is the last */
		which[i] = g_array_index(cand, int, cand->len - 1 - rank);
		found++;
	}
	return found;
}

/*
 * Whether process @pid may be a QEMU of libvirt's: its executable a
 * qemu-system-* binary, and run by root, by us, or by the user libvirt's
 * system daemon runs QEMU as (Debian: libvirt-qemu). Anyone can start a
 * process with "-name guest=NAME" on its command line (issue 48): measured
 * in its place, it made "the host got back 0 MiB".
 */
static bool qemuProcessOk(pid_t pid)
{
	g_autofree char *dir = g_strdup_printf("/proc/%d", (int)pid);
	g_autofree char *exe_link = g_strdup_printf("/proc/%d/exe", (int)pid);
	g_autofree char *exe = g_file_read_link(exe_link, NULL);
	g_autofree char *base = exe ? g_path_get_basename(exe) : NULL;
	const struct passwd *qemu_user = getpwnam("libvirt-qemu");
	struct stat st;

	if (!base || !g_str_has_prefix(base, "qemu-system-") || stat(dir, &st) < 0)
		return false;
	return st.st_uid == 0 || st.st_uid == geteuid() || (qemu_user && st.st_uid == qemu_user->pw_uid);
}

pid_t mhlQemuPidFind(const char *name)
{
	g_autofree char *want = g_strdup_printf("guest=%s,", name);
	g_autofree char *want_end = g_strdup_printf("guest=%s", name);
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t found = 0;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		g_autofree char *path = NULL, *argv = NULL;
		gsize len = 0, i;
		bool name_next = false;

		if (!g_ascii_isdigit(de->d_name[0]))
			continue;
		path = g_strdup_printf("/proc/%s/cmdline", de->d_name);
		if (!g_file_get_contents(path, &argv, &len, NULL))
			continue;
		/* argv: NUL-separated; "-name" then "guest=NAME,debug-threads=on" */
		for (i = 0; i < len; i += strlen(argv + i) + 1) {
			const char *a = argv + i;

			if (name_next && (g_str_has_prefix(a, want) || !strcmp(a, want_end))) {
				if (qemuProcessOk((pid_t)atoi(de->d_name))) {
					found = (pid_t)atoi(de->d_name);
					n++;
				}
				break;
			}
			name_next = !strcmp(a, "-name");
		}
	}
	closedir(d);
	return n == 1 ? found : 0;	/* two QEMUs of one name: neither is known to be ours */
}

/* The backends of @s as libvirt creates them: each cell's boot memory, then each virtio-mem device. */
static int backendsOf(const mhlScenario *s, mhlBackend *b)
{
	int i, n = 0, dev = 0;

	for (i = 0; i < s->nnodes; i++) {
		g_snprintf(b[n].id, sizeof(b[n].id), "ram-node%d", i);
		b[n].size = s->nodes[i].memory;
		b[n].node = i;
		b[n++].device = false;
	}
	for (i = 0; i < s->nnodes; i++) {
		if (!s->nodes[i].vmem_size)
			continue;
		g_snprintf(b[n].id, sizeof(b[n].id), "memvirtiomem%d", dev++);
		b[n].size = s->nodes[i].vmem_size;
		b[n].node = i;
		b[n++].device = true;
	}
	return n;
}

void mhlHostMemOpen(mhlHostMem *hm, virDomainPtr dom, const char *name, bool local,
		    const mhlScenario *s, uint64_t hugepage_kib)
{
	memset(hm, 0, sizeof(*hm));
	hm->dom = dom;
	hm->hugepage_kib = hugepage_kib;
	hm->nb = backendsOf(s, hm->b);
	hm->source = "libvirt";
	if (!local)
		hm->why = g_strdup("QEMU runs where the libvirt URI points, not necessarily on this host");
	else if (!(hm->pid = mhlQemuPidFind(name)))
		hm->why = g_strdup_printf("no process on this host has '-name guest=%s' in its command line", name);
	else
		hm->source = "proc";
}

void mhlHostMemClear(mhlHostMem *hm)
{
	g_clear_pointer(&hm->why, g_free);
}

/* "VmRSS:  N kB" of /proc/PID/status, in bytes; -1 if unreadable. */
static int64_t procRss(pid_t pid)
{
	g_autofree char *path = g_strdup_printf("/proc/%d/status", (int)pid), *text = NULL;
	const char *l;

	if (!g_file_get_contents(path, &text, NULL, NULL) || !(l = strstr(text, "\nVmRSS:")))
		return -1;
	return (int64_t)g_ascii_strtoull(l + 7, NULL, 10) * 1024;
}

/* Free pages of the host's pool of @kib pages; -1 if there is none. */
static int64_t poolFree(uint64_t kib)
{
	g_autofree char *path = g_strdup_printf("/sys/kernel/mm/hugepages/hugepages-%" PRIu64 "kB/free_hugepages", kib);
	g_autofree char *text = NULL;

	if (!kib || !g_file_get_contents(path, &text, NULL, NULL))
		return -1;
	return (int64_t)g_ascii_strtoll(text, NULL, 10);
}

/* Hot-added device @h's backend (entry @i) into @out (its Rss also into guest_ram); gone once unmapped. */
static void hotSample(mhlHostSample *out, GArray *maps, mhlHotBackend *h, int i)
{
	const mhlSmapsEntry *e = NULL;
	guint k;

	if (!h->start) {	/* its mapping was never found: what the guest's RAM is, is not known */
		out->guest_ram = -1;
		return;
	}
	for (k = 0; k < maps->len && !e; k++)
		if (g_array_index(maps, mhlSmapsEntry, k).start == h->start)
			e = &g_array_index(maps, mhlSmapsEntry, k);
	/* as mhlSmapsRssAt: hugetlb included, 0 once unmapped (QEMU freed the backend) */
	out->hot_bytes[i] = e ? (int64_t)(e->rss_kib + e->hugetlb_kib) * 1024 : 0;
	if (e && out->guest_ram >= 0)
		out->guest_ram += (int64_t)e->rss_kib * 1024;
	h->gone = !e;
}

int mhlHostMemSample(mhlHostMem *hm, mhlHostSample *out)
{
	int i;

	out->t = mhlNow();
	out->qemu_rss = out->qemu_hugetlb = out->guest_ram = out->tcg_code = out->tcg_code_size = -1;
	for (i = 0; i < MHL_MAX_NODES; i++)
		out->node_bytes[i] = -1;
	for (i = 0; i < MHL_HOT_MAX; i++)
		out->hot_bytes[i] = -1;
	out->pool_free = poolFree(hm->hugepage_kib);
	if (!strcmp(hm->source, "proc")) {
		g_autofree char *path = g_strdup_printf("/proc/%d/smaps", (int)hm->pid), *text = NULL;
		g_autoptr(GArray) maps = NULL;
		int which[G_N_ELEMENTS(hm->b)];
		gsize len = 0;
		uint64_t huge = 0;

		if ((out->qemu_rss = procRss(hm->pid)) < 0 || !g_file_get_contents(path, &text, &len, NULL)) {
			mhlError("cannot read the memory of QEMU (pid %d, /proc/%d): the process is gone",
				 (int)hm->pid, (int)hm->pid);
			return -1;
		}
		maps = mhlSmapsParse(text, len);
		out->tcg_code = out->tcg_code_size = 0;
		for (i = 0; i < (int)maps->len; i++) {
			const mhlSmapsEntry *e = &g_array_index(maps, mhlSmapsEntry, i);

			huge += e->hugetlb_kib;
			if (e->executable && e->writable && !e->path[0]) {	/* TCG's code buffer */
				out->tcg_code += (int64_t)e->rss_kib * 1024;
				out->tcg_code_size += (int64_t)(e->end - e->start);
			}
		}
		out->qemu_hugetlb = (int64_t)huge * 1024;
		out->guest_ram = mhlBackendsMatch(hm->b, hm->nb, maps, which) == hm->nb ? 0 : -1;
		for (i = 0; i < hm->nb; i++) {
			const mhlSmapsEntry *e;

			if (which[i] < 0)
				continue;
			e = &g_array_index(maps, mhlSmapsEntry, which[i]);
			if (out->guest_ram >= 0)
				out->guest_ram += (int64_t)e->rss_kib * 1024;
			if (hm->b[i].device)
				out->node_bytes[hm->b[i].node] = (int64_t)(e->rss_kib + e->hugetlb_kib) * 1024;
		}
		for (i = 0; i < hm->nhot; i++)
			hotSample(out, maps, &hm->hot[i], i);
		return 0;
	}
	{
		virDomainMemoryStatStruct st[VIR_DOMAIN_MEMORY_STAT_NR];
		int n = virDomainMemoryStats(hm->dom, st, VIR_DOMAIN_MEMORY_STAT_NR, 0);

		if (n < 0) {
			mhlErrorVirt("cannot read the memory statistics of the domain");
			return -1;
		}
		for (i = 0; i < n; i++)
			if (st[i].tag == VIR_DOMAIN_MEMORY_STAT_RSS)
				out->qemu_rss = (int64_t)st[i].val * 1024;
	}
	return 0;
}

json_object *mhlHostSampleJSON(const mhlHostSample *hs, const mhlHostMem *hm)
{
	json_object *o = json_object_new_object(), *nodes = json_object_new_object(), *hot = NULL;
	int i;

	if (hs->qemu_rss >= 0)
		json_object_object_add(o, MHL_K_QEMU_RSS_BYTES, json_object_new_int64(hs->qemu_rss));
	if (hs->qemu_hugetlb > 0)
		json_object_object_add(o, MHL_K_QEMU_HUGETLB_BYTES, json_object_new_int64(hs->qemu_hugetlb));
	for (i = 0; i < MHL_MAX_NODES; i++) {
		char k[16];

		if (hs->node_bytes[i] < 0)
			continue;
		g_snprintf(k, sizeof(k), "%d", i);
		json_object_object_add(nodes, k, json_object_new_int64(hs->node_bytes[i]));
	}
	json_object_object_add(o, MHL_K_BACKEND_BYTES, nodes);
	for (i = 0; hm && i < hm->nhot; i++) {
		if (hs->hot_bytes[i] < 0)
			continue;
		if (!hot) {
			hot = json_object_new_object();
			json_object_object_add(o, MHL_K_HOT_BACKEND_BYTES, hot);
		}
		json_object_object_add(hot, hm->hot[i].id, json_object_new_int64(hs->hot_bytes[i]));
	}
	if (hs->pool_free >= 0)
		json_object_object_add(o, MHL_K_POOL_FREE_PAGES, json_object_new_int64(hs->pool_free));
	return o;
}

GArray *mhlHostMemMaps(const mhlHostMem *hm)
{
	g_autofree char *path = NULL, *text = NULL;
	gsize len;

	if (!hm->pid || strcmp(hm->source, "proc"))
		return NULL;
	path = g_strdup_printf("/proc/%d/smaps", (int)hm->pid);
	if (!g_file_get_contents(path, &text, &len, NULL))
		return NULL;
	return mhlSmapsParse(text, len);
}

int mhlSmapsNewMapping(GArray *before, GArray *after, uint64_t size)
{
	int found = -1;
	guint i, j;

	for (i = 0; before && after && i < after->len; i++) {
		const mhlSmapsEntry *a = &g_array_index(after, mhlSmapsEntry, i);
		bool old = false;

		if (!a->writable || a->executable || a->end - a->start != size)
			continue;
		for (j = 0; j < before->len && !old; j++)
			old = g_array_index(before, mhlSmapsEntry, j).start == a->start;
		if (old)
			continue;
		if (found >= 0)
			return -1;	/* two new mappings of that size: which is whose is not known */
		found = (int)i;
	}
	return found;
}

int64_t mhlSmapsRssAt(GArray *maps, uint64_t start)
{
	guint i;

	for (i = 0; maps && i < maps->len; i++) {
		const mhlSmapsEntry *m = &g_array_index(maps, mhlSmapsEntry, i);

		if (m->start == start)
			return (int64_t)(m->rss_kib + m->hugetlb_kib) * 1024;
	}
	return 0;	/* unmapped: QEMU freed the backend */
}

int mhlHostMemHotFind(const mhlHostMem *hm, const char *id)
{
	int i;

	for (i = 0; i < hm->nhot; i++)
		if (!strcmp(hm->hot[i].id, id))
			return i;
	return -1;
}

int mhlHostMemHotOfNode(const mhlHostMem *hm, int node)
{
	int i;

	for (i = hm->nhot - 1; i >= 0; i--)	/* the latest attach of the node's */
		if (hm->hot[i].vmem && hm->hot[i].node == node)
			return i;
	return -1;
}

int mhlHostMemHotFindAgain(mhlHostMem *hm)
{
	g_autoptr(GArray) maps = mhlHostMemMaps(hm);
	mhlBackend b[G_N_ELEMENTS(hm->b) + MHL_HOT_MAX];
	int which[G_N_ELEMENTS(b)], slot[MHL_HOT_MAX], nb = hm->nb, i, found = 0;

	if (!maps)
		return 0;
	memcpy(b, hm->b, sizeof(hm->b[0]) * (size_t)hm->nb);
	for (i = 0; i < hm->nhot; i++) {
		slot[i] = -1;
		if (hm->hot[i].gone || !hm->hot[i].size)
			continue;
		slot[i] = nb;
		memset(&b[nb], 0, sizeof(b[nb]));
		g_strlcpy(b[nb].id, hm->hot[i].id, sizeof(b[nb].id));
		b[nb].size = hm->hot[i].size;
		b[nb].node = hm->hot[i].node;
		b[nb++].device = true;
	}
	mhlBackendsMatch(b, nb, maps, which);
	for (i = 0; i < hm->nhot; i++) {
		hm->hot[i].start = slot[i] >= 0 && which[slot[i]] >= 0 ?
			g_array_index(maps, mhlSmapsEntry, which[slot[i]]).start : 0;
		found += hm->hot[i].start != 0;
	}
	return found;
}

int mhlHostMemHotAdd(mhlHostMem *hm, const char *id, int node, bool vmem, uint64_t size, uint64_t start)
{
	int k = mhlHostMemHotFind(hm, id);

	if (k < 0) {
		if (hm->nhot == MHL_HOT_MAX)
			return -1;
		k = hm->nhot++;
		g_strlcpy(hm->hot[k].id, id, sizeof(hm->hot[k].id));
	}
	hm->hot[k].node = node;
	hm->hot[k].vmem = vmem;
	hm->hot[k].size = size;
	hm->hot[k].start = start;
	hm->hot[k].gone = false;
	return k;
}

int64_t mhlHostSampleHotBytes(const mhlHostSample *hs, int k, const char **by)
{
	bool own = k >= 0 && k < MHL_HOT_MAX && hs->hot_bytes[k] >= 0;

	*by = own ? "backend" : "qemu_rss";
	return own ? hs->hot_bytes[k] : hs->qemu_rss;
}
