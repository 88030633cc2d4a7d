#include <glib.h>

#include "util.h"
#include "guest/guest.h"

#include <fcntl.h>
#include <libvirt/libvirt-qemu.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "guest/agent.h"
#include "record/record.h"

int mhlParseMemoryDevices(const char *reply, int node, unsigned long long *size,
			  unsigned long long *requested)
{
	g_autoptr(json_object) root = json_tokener_parse(reply);
	json_object *ret;
	size_t i;

	if (!root || !json_object_object_get_ex(root, "return", &ret) ||
	    !json_object_is_type(ret, json_type_array)) {
		mhlError("QMP query-memory-devices reply is not {\"return\": [...]}: '%.200s'", reply);
		return -1;
	}
	for (i = 0; i < json_object_array_length(ret); i++) {
		json_object *dev = json_object_array_get_idx(ret, i), *type, *data, *v;

		/* a type that is not a string (null: found by fuzzing) is not virtio-mem */
		if (!json_object_object_get_ex(dev, "type", &type) || !json_object_is_type(type, json_type_string) ||
		    strcmp(json_object_get_string(type), "virtio-mem") ||
		    !json_object_object_get_ex(dev, "data", &data) ||
		    !json_object_object_get_ex(data, "node", &v) || json_object_get_int(v) != node)
			continue;
		if (!json_object_object_get_ex(data, "size", &v)) {
			mhlError("QMP virtio-mem device on node %d has no 'size': '%.200s'", node, reply);
			return -1;
		}
		*size = (unsigned long long)json_object_get_int64(v);
		*requested = json_object_object_get_ex(data, "requested-size", &v) ?
			(unsigned long long)json_object_get_int64(v) : 0;
		return 0;
	}
	mhlError("QMP query-memory-devices lists no virtio-mem device on node %d", node);
	return -1;
}

int mhlGuestVirtioMemSize(virDomainPtr dom, int node, unsigned long long *size,
			  unsigned long long *requested)
{
	char *reply = NULL;
	int rc;

	if (virDomainQemuMonitorCommand(dom, "{\"execute\":\"query-memory-devices\"}", &reply, 0) < 0) {
		mhlErrorVirt("QMP query-memory-devices failed");
		return -1;
	}
	rc = mhlParseMemoryDevices(reply, node, size, requested);
	free(reply);
	return rc;
}

json_object *mhlParseVmstat(const char *text)
{
	json_object *obj = json_object_new_object();
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	int i;

	for (i = 0; lines[i]; i++) {
		char name[128];
		long long v;

		if (sscanf(lines[i], "%127s %lld", name, &v) == 2)
			json_object_object_add(obj, name, json_object_new_int64(v));
	}
	return obj;
}

json_object *mhlParseZoneinfo(const char *text)
{
	json_object *arr = json_object_new_array(), *cur = NULL;
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	int i;

	for (i = 0; lines[i]; i++) {
		char zone[32];
		long long v;
		int node;

		if (sscanf(lines[i], "Node %d, zone %31s", &node, zone) == 2) {
			cur = json_object_new_object();
			json_object_object_add(cur, "node", json_object_new_int(node));
			json_object_object_add(cur, "zone", json_object_new_string(zone));
			json_object_array_add(arr, cur);
		} else if (cur && sscanf(lines[i], " pages free %lld", &v) == 1) {
			json_object_object_add(cur, "free", json_object_new_int64(v));
		} else if (cur && sscanf(lines[i], " present %lld", &v) == 1) {
			json_object_object_add(cur, "present", json_object_new_int64(v));
		} else if (cur && sscanf(lines[i], " managed %lld", &v) == 1) {
			json_object_object_add(cur, "managed", json_object_new_int64(v));
		} else if (cur && sscanf(lines[i], " spanned %lld", &v) == 1) {
			json_object_object_add(cur, "spanned", json_object_new_int64(v));
		}
	}
	return arr;
}

json_object *mhlParseMemoryBlocks(const char *text)
{
	json_object *obj = json_object_new_object(), *zones = json_object_new_object();
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	int i, blocks = 0, online = 0, offline = 0;

	for (i = 0; lines[i]; i++) {
		char name[32], state[32], zone[32];
		json_object *n;
		int f = sscanf(lines[i], "%31s %31s %31s", name, state, zone);

		if (f < 2)
			continue;
		blocks++;
		if (!strcmp(state, "online")) {
			online++;
			if (f == 3) {
				int c = json_object_object_get_ex(zones, zone, &n) ? json_object_get_int(n) : 0;

				json_object_object_add(zones, zone, json_object_new_int(c + 1));
			}
		} else {
			offline++;
		}
	}
	json_object_object_add(obj, "blocks", json_object_new_int(blocks));
	json_object_object_add(obj, "online", json_object_new_int(online));
	json_object_object_add(obj, "offline", json_object_new_int(offline));
	json_object_object_add(obj, "online_by_zone", zones);
	return obj;
}

static char *guestOutput(virDomainPtr dom, const char *const *argv)
{
	mhlExecStatus st = { 0 };
	char *out;

	if (mhlAgentExec(dom, argv, 30, &st) < 0)
		return NULL;
	out = g_steal_pointer(&st.out);
	mhlExecStatusClear(&st);
	return out;
}

int mhlParseMemOnline(const char *text, guint64 *memtotal, int *online)
{
	unsigned long long kib;
	int n, used = 0;

	if (!text || sscanf(text, "memtotal %llu\nonline %d\n%n", &kib, &n, &used) != 2 || !used ||
	    text[used] || kib > G_MAXUINT64 / 1024 || n < 0) {
		mhlError("the guest's MemTotal/online blocks reply is not 'memtotal KIB' and 'online N': '%.80s'",
			 text ? text : "");
		return -1;
	}
	*memtotal = (guint64)kib * 1024;
	*online = n;
	return 0;
}

int mhlGuestMemOnline(virDomainPtr dom, guint64 *memtotal, int *online)
{
	static const char *const argv[] = {
		"/bin/sh", "-c",
		"sed -n 's/^MemTotal: *\\([0-9]*\\) kB$/memtotal \\1/p' /proc/meminfo; "
		"echo online $(cat /sys/devices/system/memory/memory*/state | grep -c '^online$')", NULL
	};
	g_autofree char *out = guestOutput(dom, argv);

	return out ? mhlParseMemOnline(out, memtotal, online) : -1;
}

json_object *mhlGuestSnapshot(virDomainPtr dom)
{
	/* stat_refresh folds the per-CPU counter deltas first, so that counters
	 * that must balance (nr_foll_pin_acquired/released) can be compared exactly. */
	static const char *const vmstat[] = {
		"/bin/sh", "-c", "echo 1 > /proc/sys/vm/stat_refresh; cat /proc/vmstat", NULL
	};
	static const char *const zoneinfo[] = { "/bin/cat", "/proc/zoneinfo", NULL };
	static const char *const blocks[] = {
		"/bin/sh", "-c",
		"cd /sys/devices/system/memory && for b in memory*; do "
		"echo $b $(cat $b/state) $(cat $b/valid_zones); done", NULL
	};
	g_autofree char *v = NULL, *z = NULL, *b = NULL;
	json_object *obj;

	if (!(v = guestOutput(dom, vmstat)) || !(z = guestOutput(dom, zoneinfo)) ||
	    !(b = guestOutput(dom, blocks)))
		return NULL;
	obj = json_object_new_object();
	json_object_object_add(obj, "vmstat", mhlParseVmstat(v));
	json_object_object_add(obj, "zoneinfo", mhlParseZoneinfo(z));
	json_object_object_add(obj, "memory_blocks", mhlParseMemoryBlocks(b));
	return obj;
}

static const struct {
	const char *needle, *kind;
} consolePatterns[] = {
	{ "WARNING:", "warning" },
	{ "BUG:", "bug" },
	{ "Oops", "oops" },
	{ "Kernel panic", "panic" },
	{ "general protection fault", "gpf" },
	{ "blocked for more than", "hung_task" },
	{ "rcu_sched self-detected stall", "rcu_stall" },
	{ "rcu: INFO: rcu_preempt", "rcu_stall" },
	{ "detected stalls on CPUs", "rcu_stall" },
};

bool mhlConsoleKindFatal(const char *kind)
{
	return !strcmp(kind, "panic") || !strcmp(kind, "oops");
}

void mhlConsoleScannerInit(mhlConsoleScanner *sc, size_t max)
{
	memset(sc, 0, sizeof(*sc));
	sc->max = max;
	sc->findings = json_object_new_array();
	sc->partial = g_string_sized_new(256);
}

void mhlConsoleScannerClear(mhlConsoleScanner *sc)
{
	json_object_put(sc->findings);
	json_object_put(sc->fatal);
	if (sc->partial)
		g_string_free(sc->partial, TRUE);
	memset(sc, 0, sizeof(*sc));
}

/* One whole line of the log (without its newline): a finding if it is a kernel report. */
static void consoleLine(mhlConsoleScanner *sc, const char *raw, size_t len)
{
	g_autofree char *clean = NULL, *text = NULL;
	json_object *f;
	const char *l;
	double ts;
	char close;
	size_t j;

	sc->line++;
	if (!memchr(raw, '[', len))
		return;	/* no stamp: not a kernel line (cleaning adds no '[') */
	/* "[    1.234567] ..." after any escape codes: "\e[0m[ 1.2] WARNING:" is one */
	clean = mhlTextClean(raw, (gssize)len, 0, false);
	if (!(l = strchr(clean, '[')) || sscanf(l, "[ %lf%c", &ts, &close) != 2 || close != ']')
		return;
	for (j = 0; j < G_N_ELEMENTS(consolePatterns) && !strstr(l, consolePatterns[j].needle); j++)
		;
	if (j == G_N_ELEMENTS(consolePatterns))
		return;
	text = mhlTextClean(g_strchomp((char *)l), -1, MHL_CONSOLE_TEXT_MAX, false);
	f = json_object_new_object();
	json_object_object_add(f, MHL_K_LINE, json_object_new_int(sc->line));
	json_object_object_add(f, MHL_K_KIND, json_object_new_string(consolePatterns[j].kind));
	json_object_object_add(f, MHL_K_TEXT, json_object_new_string(text));
	sc->count++;
	if (!sc->fatal && mhlConsoleKindFatal(consolePatterns[j].kind))
		sc->fatal = json_object_get(f);
	if (json_object_array_length(sc->findings) < sc->max)
		json_object_array_add(sc->findings, f);
	else
		json_object_put(f);
}

void mhlConsoleScanFeed(mhlConsoleScanner *sc, const char *text, size_t len, bool final)
{
	const char *p = text, *end = text + len;

	sc->offset += len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		size_t room = MHL_CONSOLE_LINE_MAX - sc->partial->len;

		/* a line longer than MHL_CONSOLE_LINE_MAX is scanned by its start */
		g_string_append_len(sc->partial, p, (gssize)MIN((size_t)(e - p), room));
		if (!nl)
			break;
		consoleLine(sc, sc->partial->str, sc->partial->len);
		g_string_truncate(sc->partial, 0);
		p = nl + 1;
	}
	if (final && sc->partial->len) {
		consoleLine(sc, sc->partial->str, sc->partial->len);
		g_string_truncate(sc->partial, 0);
	}
}

int mhlConsoleScanFile(mhlConsoleScanner *sc, const char *path, bool final)
{
	enum { CHUNK = 1 << 20 };
	g_autofree char *buf = NULL;
	ssize_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	buf = g_malloc(CHUNK);
	while ((n = pread(fd, buf, CHUNK, (off_t)sc->offset)) > 0)
		mhlConsoleScanFeed(sc, buf, (size_t)n, false);
	close(fd);
	if (final)
		mhlConsoleScanFeed(sc, "", 0, true);
	return n < 0 ? -1 : 0;
}

json_object *mhlConsoleScanFindings(const mhlConsoleScanner *sc)
{
	json_object *arr = json_object_new_array(), *more;
	size_t i, kept = json_object_array_length(sc->findings);
	gint64 left;
	bool fatalKept = false;

	for (i = 0; i < kept; i++) {
		json_object *f = json_object_array_get_idx(sc->findings, i);

		fatalKept |= f == sc->fatal;
		json_object_array_add(arr, json_object_get(f));
	}
	if (sc->fatal && !fatalKept)
		json_object_array_add(arr, json_object_get(sc->fatal));
	left = sc->count - (gint64)json_object_array_length(arr);
	if (left > 0) {
		g_autofree char *text = g_strdup_printf(
			"%" G_GINT64_FORMAT " more kernel report(s) not kept here (%" G_GINT64_FORMAT
			" in all, the first %zu kept): see the console log", left, sc->count, kept);

		more = json_object_new_object();
		json_object_object_add(more, MHL_K_KIND, json_object_new_string(MHL_KIND_OMITTED));
		json_object_object_add(more, MHL_K_COUNT, json_object_new_int64(left));
		json_object_object_add(more, MHL_K_TEXT, json_object_new_string(text));
		json_object_array_add(arr, more);
	}
	return arr;
}

json_object *mhlConsoleScan(const char *text)
{
	mhlConsoleScanner sc;
	json_object *all;

	mhlConsoleScannerInit(&sc, G_MAXSIZE);
	mhlConsoleScanFeed(&sc, text, strlen(text), true);
	all = json_object_get(sc.findings);
	mhlConsoleScannerClear(&sc);
	return all;
}
