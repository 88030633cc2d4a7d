/*
 * budget.c - a guest's memory budget enforced on its QEMU (budget.h; issue
 * 48, item 5). The kernel's cgroup files are trusted (sysfs); every name
 * written below them is a domain name of ours.
 */
#include <glib.h>

#include "host/budget.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/record.h"
#include "util.h"

#define CG_ROOT "/sys/fs/cgroup"
#define CG_V2_BASE CG_ROOT "/memhp-lab"	/* v2: ours, beside the host's slices */

/* @value into @dir/@file; -1 with *@why naming both and errno's text. */
static int cgWrite(const char *dir, const char *file, const char *value, char **why)
{
	g_autofree char *path = g_build_filename(dir, file, NULL);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = -1;

	if (fd >= 0) {
		n = write(fd, value, strlen(value));
		if (close(fd) < 0)
			n = -1;
	}
	if (n < 0) {
		g_free(*why);
		*why = g_strdup_printf("cannot write '%s' to %s: %s", value, path, g_strerror(errno));
		return -1;
	}
	return 0;
}

/* @dir/@file's text (at most 64 KiB), NULL when it cannot be read. */
static char *cgRead(const char *dir, const char *file)
{
	g_autofree char *path = g_build_filename(dir, file, NULL);
	char *text = NULL;
	gsize len = 0;

	if (!g_file_get_contents(path, &text, &len, NULL) || len > 65536) {
		g_free(text);
		return NULL;
	}
	return text;
}

/* The number after "@key " on a line of @dir/@file (memory.events, memory.oom_control); -1: none. */
static int64_t cgKey(const char *dir, const char *file, const char *key)
{
	g_autofree char *text = cgRead(dir, file);
	g_auto(GStrv) lines = text ? g_strsplit(text, "\n", -1) : NULL;
	size_t n = strlen(key);

	for (char **l = lines; l && *l; l++)
		if (!strncmp(*l, key, n) && (*l)[n] == ' ')
			return g_ascii_strtoll(*l + n + 1, NULL, 10);
	return -1;
}

/* Our own memory cgroup of v1 ("N:memory:/PATH" in /proc/self/cgroup), under CG_ROOT/memory; NULL: none. */
static char *v1Base(void)
{
	g_autofree char *text = NULL;
	g_auto(GStrv) lines = NULL;

	if (!g_file_get_contents("/proc/self/cgroup", &text, NULL, NULL))
		return NULL;
	lines = g_strsplit(text, "\n", -1);
	for (char **l = lines; *l; l++) {
		g_auto(GStrv) f = g_strsplit(*l, ":", 3);
		g_auto(GStrv) ctl = NULL;

		if (g_strv_length(f) != 3)
			continue;
		ctl = g_strsplit(f[1], ",", -1);
		if (g_strv_contains((const char *const *)ctl, "memory"))
			return g_build_filename(CG_ROOT, "memory", f[2], NULL);
	}
	return NULL;
}

/* v2: CG_V2_BASE with the memory controller for its children. */
static int v2Base(char **why)
{
	g_autofree char *root_ctl = cgRead(CG_ROOT, "cgroup.subtree_control");

	if (!root_ctl || !strstr(root_ctl, "memory")) {
		if (cgWrite(CG_ROOT, "cgroup.subtree_control", "+memory", why) < 0)
			return -1;
	}
	if (mkdir(CG_V2_BASE, 0755) < 0 && errno != EEXIST) {
		*why = g_strdup_printf("cannot create %s: %s", CG_V2_BASE, g_strerror(errno));
		return -1;
	}
	return cgWrite(CG_V2_BASE, "cgroup.subtree_control", "+memory", why);
}

/* The directory the guests' cgroups go under, its version in *@version; NULL with *@why. */
static char *budgetBase(int *version, char **why)
{
	g_autofree char *v1 = NULL;

	if (g_file_test(CG_ROOT "/cgroup.controllers", G_FILE_TEST_EXISTS)) {
		*version = 2;
		return v2Base(why) < 0 ? NULL : g_strdup(CG_V2_BASE);
	}
	*version = 1;
	if (!(v1 = v1Base()) || !g_file_test(v1, G_FILE_TEST_IS_DIR)) {
		*why = g_strdup("no memory cgroup: neither a unified cgroup v2 hierarchy at " CG_ROOT
				" nor a v1 memory controller this process is in");
		return NULL;
	}
	return g_steal_pointer(&v1);
}

/* The limits of v@version into @dir: memory and memory + swap alike, so an overrun is killed, not swapped out. */
static int budgetLimit(const char *dir, int version, uint64_t limit, char **why)
{
	g_autofree char *swap = g_build_filename(dir, version == 2 ? "memory.swap.max" : "memory.memsw.limit_in_bytes", NULL);
	char v[32];

	g_snprintf(v, sizeof(v), "%" G_GUINT64_FORMAT, limit);
	if (version == 2)
		return cgWrite(dir, "memory.max", v, why) < 0 ||
		       (access(swap, F_OK) == 0 && cgWrite(dir, "memory.swap.max", "0", why) < 0) ? -1 : 0;
	if (cgWrite(dir, "memory.limit_in_bytes", v, why) < 0 ||
	    (access(swap, F_OK) == 0 && cgWrite(dir, "memory.memsw.limit_in_bytes", v, why) < 0))
		return -1;
	/*
	 * The pages QEMU touched before it came in charged here too, where the
	 * kernel still moves charges (deprecated, refused with EINVAL on newer
	 * ones: then only what it touches from now on counts, as in v2).
	 */
	if (cgWrite(dir, "memory.move_charge_at_immigrate", "3", why) < 0)
		g_clear_pointer(why, g_free);
	return 0;
}

int mhlBudgetOpen(mhlBudget *b, const char *name, uint64_t limit)
{
	g_autofree char *base = NULL, *dir = NULL;
	int version = 0;

	memset(b, 0, sizeof(*b));
	b->limit = limit;
	if (!(base = budgetBase(&version, &b->why)))
		return -1;
	dir = g_build_filename(base, name, NULL);
	if (mkdir(dir, 0755) < 0) {
		b->why = g_strdup_printf("cannot create the memory cgroup %s: %s", dir, g_strerror(errno));
		return -1;
	}
	if (budgetLimit(dir, version, limit, &b->why) < 0) {
		rmdir(dir);
		return -1;
	}
	b->dir = g_steal_pointer(&dir);
	b->version = version;
	return 0;
}

int mhlBudgetEnter(mhlBudget *b, pid_t pid)
{
	char v[32];

	if (!b->dir)
		return -1;
	g_snprintf(v, sizeof(v), "%d", (int)pid);
	if (cgWrite(b->dir, "cgroup.procs", v, &b->why) < 0) {
		rmdir(b->dir);
		g_clear_pointer(&b->dir, g_free);
		return -1;
	}
	return 0;
}

bool mhlBudgetKilled(const mhlBudget *b)
{
	return b->dir && cgKey(b->dir, b->version == 2 ? "memory.events" : "memory.oom_control", "oom_kill") > 0;
}

int64_t mhlBudgetPeak(const mhlBudget *b)
{
	g_autofree char *text = b->dir ? cgRead(b->dir, b->version == 2 ? "memory.peak" : "memory.max_usage_in_bytes") : NULL;

	return text ? g_ascii_strtoll(text, NULL, 10) : -1;
}

json_object *mhlBudgetJSON(const mhlBudget *b)
{
	json_object *o = json_object_new_object();
	int64_t peak = mhlBudgetPeak(b), kills;

	json_object_object_add(o, MHL_K_ENFORCED, json_object_new_boolean(b->dir != NULL));
	json_object_object_add(o, MHL_K_LIMIT_BYTES, json_object_new_int64((int64_t)b->limit));
	if (!b->dir) {
		json_object_object_add(o, MHL_K_WHY, json_object_new_string(b->why ? b->why : "not asked"));
		return o;
	}
	json_object_object_add(o, MHL_K_CGROUP, json_object_new_string(b->version == 2 ? "v2" : "v1"));
	json_object_object_add(o, MHL_K_PATH, json_object_new_string(b->dir));
	if (peak >= 0)
		json_object_object_add(o, MHL_K_PEAK_BYTES, json_object_new_int64(peak));
	kills = cgKey(b->dir, b->version == 2 ? "memory.events" : "memory.oom_control", "oom_kill");
	if (kills >= 0)
		json_object_object_add(o, MHL_K_OOM_KILLS, json_object_new_int64(kills));
	return o;
}

void mhlBudgetClose(mhlBudget *b)
{
	if (b->dir && rmdir(b->dir) < 0 && errno != ENOENT)
		fprintf(stderr, "memhp-lab: warning: cannot remove the memory cgroup %s: %s (memhp-lab cleanup or the next run removes it)\n",
			b->dir, g_strerror(errno));
	g_free(b->dir);
	g_free(b->why);
	memset(b, 0, sizeof(*b));
}

/* The pid in a guest's cgroup name memhp-<trial>-<pid>-<n>; 0: not one. */
static pid_t namePid(const char *name)
{
	const char *last = strrchr(name, '-'), *prev;
	gint64 pid;

	if (!g_str_has_prefix(name, "memhp-") || !last || last == name)
		return 0;
	for (prev = last - 1; prev > name && *prev != '-'; prev--)
		;
	pid = g_ascii_strtoll(prev + 1, NULL, 10);
	return pid > 0 && pid < G_MAXINT ? (pid_t)pid : 0;
}

int mhlBudgetSweep(void)
{
	g_autofree char *why = NULL;
	int version = 0, n = 0;
	g_autofree char *base = budgetBase(&version, &why);
	g_autoptr(GDir) d = base ? g_dir_open(base, 0, NULL) : NULL;
	const char *e;

	while (d && (e = g_dir_read_name(d))) {
		pid_t pid = namePid(e);
		g_autofree char *dir = NULL;

		if (!pid || (kill(pid, 0) == 0 || errno != ESRCH))
			continue;
		dir = g_build_filename(base, e, NULL);
		n += rmdir(dir) == 0;
	}
	return n;
}
