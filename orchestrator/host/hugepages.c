/*
 * hugepages.c - hugetlbfs mounts and the host's hugepage pool for
 * memory_backing: hugepages (hugepages.h). The pool is shared by everything
 * on the host: a trial adds what its guest needs on top of what is there and
 * takes exactly that back, under a lock, so parallel trials (-j) and the
 * host's own pool are left as they were.
 */
#include <glib.h>

#include "host/hugepages.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define SYSFS_HUGE "/sys/kernel/mm/hugepages"
#define STATE_DIR "/run/memhp-lab/hugepool"

int mhlHugetlbfsMount(const char *root, GString *conf)
{
	g_autoptr(GDir) d = g_dir_open(SYSFS_HUGE, 0, NULL);
	g_autoptr(GString) list = g_string_new(NULL);
	const char *e;
	int n = 0;

	while (d && (e = g_dir_read_name(d))) {
		unsigned long long kib;
		g_autofree char *dir = NULL, *opts = NULL;

		if (sscanf(e, "hugepages-%llukB", &kib) != 1)
			continue;
		dir = g_strdup_printf("%s/%s", root, e);
		opts = g_strdup_printf("pagesize=%lluK", kib);
		if (g_mkdir_with_parents(dir, 0700) < 0 || mount("hugetlbfs", dir, "hugetlbfs", 0, opts) < 0) {
			rmdir(dir);
			continue;
		}
		g_string_append_printf(list, "%s\"%s\"", n ? ", " : "", dir);
		n++;
	}
	if (n)
		g_string_append_printf(conf, "# memory_backing: hugepages (host/hugepages.c)\nhugetlbfs_mount = [ %s ]\n",
				       list->str);
	return n;
}

void mhlHugetlbfsUnmount(const char *root)
{
	g_autoptr(GDir) d = g_dir_open(root, 0, NULL);
	const char *e;

	while (d && (e = g_dir_read_name(d))) {
		g_autofree char *dir = NULL;

		if (!g_str_has_prefix(e, "hugepages-"))
			continue;
		dir = g_build_filename(root, e, NULL);
		umount2(dir, MNT_DETACH);
		rmdir(dir);
	}
}

/* The pool's nr_hugepages file for @kib pages. */
static char *poolPath(uint64_t kib, const char *file)
{
	return g_strdup_printf(SYSFS_HUGE "/hugepages-%" PRIu64 "kB/%s", kib, file);
}

static long poolRead(uint64_t kib, const char *file)
{
	g_autofree char *path = poolPath(kib, file), *text = NULL;

	if (!g_file_get_contents(path, &text, NULL, NULL))
		return -1;
	return strtol(text, NULL, 10);
}

static int poolWrite(uint64_t kib, long nr)
{
	g_autofree char *path = poolPath(kib, "nr_hugepages"), *text = g_strdup_printf("%ld\n", nr);
	g_autoptr(GError) err = NULL;

	/* the kernel allocates what it can and leaves nr_hugepages at that */
	if (!g_file_set_contents_full(path, text, -1, G_FILE_SET_CONTENTS_NONE, 0644, &err)) {
		mhlError("cannot set the host's hugepage pool (%s): %s", path, err->message);
		return -1;
	}
	return 0;
}

/* One pool change at a time on this host: the lock's descriptor, or -1. */
static int poolLock(void)
{
	int fd;

	g_mkdir_with_parents(STATE_DIR, 0700);
	fd = open(STATE_DIR "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		flock(fd, LOCK_EX);
	return fd;
}

static void poolUnlock(int fd)
{
	if (fd >= 0)
		close(fd);	/* drops the flock */
}

/* MemAvailable of the host, in KiB; -1 if unknown. */
static long long memAvailableKib(void)
{
	g_autofree char *text = NULL;
	const char *l;

	if (!g_file_get_contents("/proc/meminfo", &text, NULL, NULL) || !(l = strstr(text, "MemAvailable:")))
		return -1;
	return g_ascii_strtoll(l + 13, NULL, 10);
}

int mhlHugePoolFits(uint64_t kib, long pages, long long avail_kib)
{
	/*
	 * The kernel would take every free page it can for the pool, starving the
	 * host for as long as it takes to give them back: refuse up front what
	 * does not fit, leaving the host MHL_HUGEPOOL_MARGIN_KIB.
	 */
	if ((long double)pages * kib <= (long double)(avail_kib - MHL_HUGEPOOL_MARGIN_KIB))
		return 0;
	mhlError("the guest needs %ld hugepages of %" PRIu64 " kB (%.0f MiB) for memory_backing: hugepages; the host has %lld MiB available (%d MiB kept for itself): make the guest smaller",
		 pages, kib, pages * (kib / 1024.0), avail_kib / 1024, MHL_HUGEPOOL_MARGIN_KIB / 1024);
	return -1;
}

int mhlHugePoolGrow(uint64_t kib, long pages, mhlHugePool *p)
{
	static int seq;
	long long avail = memAvailableKib();
	long nr, got;
	int fd;

	memset(p, 0, sizeof(*p));
	p->kib = kib;
	if ((nr = poolRead(kib, "nr_hugepages")) < 0) {
		mhlError("this host has no %" PRIu64 " kB hugepages (no %s)", kib, SYSFS_HUGE);
		return -1;
	}
	if (avail >= 0 && mhlHugePoolFits(kib, pages, avail) < 0)
		return -1;
	fd = poolLock();
	nr = poolRead(kib, "nr_hugepages");
	if (poolWrite(kib, nr + pages) < 0) {
		poolUnlock(fd);
		return -1;
	}
	got = poolRead(kib, "nr_hugepages") - nr;
	if (got < pages) {
		poolWrite(kib, nr);
		poolUnlock(fd);
		mhlError("the host's %" PRIu64 " kB hugepage pool grew by only %ld of the %ld pages the guest needs (%.1f of %.1f MiB; host memory is short or fragmented: free memory, lower the guest's size, or reserve hugepages at boot)",
			 kib, got, pages, got * (kib / 1024.0), pages * (kib / 1024.0));
		return -1;
	}
	p->added = pages;
	p->state = g_strdup_printf(STATE_DIR "/%d-%d-%" PRIu64, (int)getpid(), g_atomic_int_add(&seq, 1), kib);
	{
		g_autofree char *text = g_strdup_printf("%ld\n", pages);

		if (!g_file_set_contents(p->state, text, -1, NULL))
			g_clear_pointer(&p->state, g_free);
	}
	poolUnlock(fd);
	return 0;
}

/* Take @pages of @kib back from the pool (under the lock). */
static void poolShrink(uint64_t kib, long pages)
{
	long nr = poolRead(kib, "nr_hugepages");

	if (nr >= 0)
		poolWrite(kib, MAX(0, nr - pages));
}

void mhlHugePoolRestore(mhlHugePool *p)
{
	int fd;

	if (!p->added)
		return;
	fd = poolLock();
	poolShrink(p->kib, p->added);
	if (p->state)
		unlink(p->state);
	poolUnlock(fd);
	p->added = 0;
	g_clear_pointer(&p->state, g_free);
}

void mhlHugePoolStaleClean(void)
{
	mhlHugePoolTakeBack(0);
}

void mhlHugePoolTakeBack(pid_t run)
{
	g_autoptr(GDir) d = g_dir_open(STATE_DIR, 0, NULL);
	const char *e;
	int fd;

	if (!d)
		return;
	fd = poolLock();
	while ((e = g_dir_read_name(d))) {
		g_autofree char *path = g_build_filename(STATE_DIR, e, NULL), *text = NULL;
		int pid, n;
		unsigned long long kib;

		if (sscanf(e, "%d-%d-%llu", &pid, &n, &kib) != 3 || pid <= 0 ||
		    (run > 0 ? pid != run : kill(pid, 0) == 0 || errno != ESRCH) ||
		    !g_file_get_contents(path, &text, NULL, NULL))
			continue;
		fprintf(stderr, "memhp-lab: taking back %ld hugepages of %llu kB that run %d (gone) added\n",
			strtol(text, NULL, 10), kib, pid);
		poolShrink(kib, strtol(text, NULL, 10));
		unlink(path);
	}
	poolUnlock(fd);
}
