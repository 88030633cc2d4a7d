// SPDX-License-Identifier: GPL-2.0
/*
 * kmem.c - memhp-pin kmem: hold unmovable kernel memory until released,
 * the load of a plug-ratio sweep (scenarios/capacity/plug-ratio.yaml).
 *
 * --size is the bytes of kernel memory to aim for, in two parts:
 *   page tables: a sparse read-only anonymous mapping (THP off) read once
 *     per 2 MiB; each read maps the shared zero page and costs one PTE page
 *     (4 KiB of page tables per 2 MiB, no user page). Half of --size.
 *   slab: empty files with long names in a tmpfs of its own mounted at
 *     /run/memhp/ID.kmem (an inode, a dentry and an external name each: slab
 *     that tmpfs never reclaims), 1000 to a directory, until the Slab and
 *     PageTables of /proc/meminfo together have grown by --size.
 * Nothing is pinned ("pinned": false, like hold). The holder keeps one page
 * of its buffer (its pattern and census run on that page; the rest is
 * unmapped: this mode's memory is the kernel's). The first error (ENOMEM,
 * ENOSPC, ...) ends the load, which then holds what it reached and says so
 * in "kmem":{...}; the OOM killer ending the holder is the pin's SIGKILL.
 * release and SIGTERM unmap the mapping and detach the tmpfs (which frees
 * every inode at once, no unlink per file).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "holder.h"
#include "mhl-pin-keys.h"

#define KMEM_PTE_SPAN	(2ULL << 20)	/* one PTE page maps 2 MiB */
#define KMEM_PAGE	4096ULL
#define KMEM_PER_DIR	1000
#define KMEM_CHECK_EVERY 256		/* files between two reads of /proc/meminfo */
#define KMEM_MAX_SEC	40.0		/* the load stops here whatever it reached */
#define KMEM_NAME_PAD	160		/* > DNAME_INLINE_LEN: an external name each */

static struct {
	char mnt[96];
	bool mounted;
	char *map;
	uint64_t map_len;
	uint64_t target;
	long long slab0, pt0;		/* /proc/meminfo at the start, bytes */
	long long slab, pt;		/* the growth when the load stopped */
	uint64_t pte_touched;		/* 2 MiB spans read */
	uint64_t files, dirs;
	int first_errno;
	const char *first_error_at;
	double seconds;
	bool stopped_by_time;
} km;

/* Slab and PageTables of /proc/meminfo in bytes; -1 if unread. */
static void meminfo(long long *slab, long long *pt)
{
	char buf[8192], *p;
	ssize_t n;
	int fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);

	*slab = *pt = -1;
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if ((p = strstr(buf, "\nSlab:")))
		*slab = strtoll(p + 6, NULL, 10) * 1024;
	if ((p = strstr(buf, "\nPageTables:")))
		*pt = strtoll(p + 12, NULL, 10) * 1024;
}

static void kmem_grown(void)
{
	long long s, p;

	meminfo(&s, &p);
	km.slab = s - km.slab0;
	km.pt = p - km.pt0;
}

static void kmem_error(const char *at)
{
	if (!km.first_errno) {
		km.first_errno = errno ? errno : EIO;
		km.first_error_at = at;
	}
}

/* Page tables: one read per 2 MiB of a sparse mapping, @bytes of PTE pages. */
static void kmem_page_tables(uint64_t bytes)
{
	uint64_t spans = bytes / KMEM_PAGE, i;
	volatile char sink;

	if (!spans)
		return;
	km.map_len = spans * KMEM_PTE_SPAN;
	km.map = mmap(NULL, km.map_len, PROT_READ,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (km.map == MAP_FAILED) {
		km.map = NULL;
		kmem_error("mmap (page tables)");
		return;
	}
	/* A huge zero page would map 2 MiB without a PTE page. */
	if (madvise(km.map, km.map_len, MADV_NOHUGEPAGE) < 0) {
		kmem_error("madvise MADV_NOHUGEPAGE");
		return;
	}
	for (i = 0; i < spans; i++) {
		/* MADV_POPULATE_READ says ENOMEM where a plain read would fault into the OOM killer. */
		if (madvise(km.map + i * KMEM_PTE_SPAN, KMEM_PAGE, MADV_POPULATE_READ) < 0) {
			if (errno == EINVAL) {	/* a kernel without it: a plain read */
				sink = km.map[i * KMEM_PTE_SPAN];
				(void)sink;
			} else {
				kmem_error("MADV_POPULATE_READ (page tables)");
				return;
			}
		}
		km.pte_touched++;
	}
}

/* Slab: empty files in the tmpfs until Slab + PageTables have grown by the target. */
static void kmem_files(double t0)
{
	char dir[160], path[400], pad[KMEM_NAME_PAD + 1];
	int fd;

	memset(pad, 'k', KMEM_NAME_PAD);
	pad[KMEM_NAME_PAD] = '\0';
	for (;;) {
		if (km.files % KMEM_CHECK_EVERY == 0) {
			kmem_grown();
			if (km.slab + km.pt >= (long long)km.target)
				return;
			if ((now_us() - t0) / 1e6 > KMEM_MAX_SEC) {
				km.stopped_by_time = true;
				return;
			}
		}
		if (km.files % KMEM_PER_DIR == 0) {
			snprintf(dir, sizeof(dir), "%s/d%" PRIu64, km.mnt, km.dirs);
			if (mkdir(dir, 0700) < 0) {
				kmem_error("mkdir (tmpfs)");
				return;
			}
			km.dirs++;
		}
		snprintf(path, sizeof(path), "%s/%s-%" PRIu64, dir, pad, km.files);
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
		if (fd < 0) {
			kmem_error("create a file (tmpfs)");
			return;
		}
		close(fd);
		km.files++;
	}
}

static int kmem_pin(struct holder *h)
{
	double t0 = now_us();

	h->pins = false;
	if (h->backing != MHL_PIN_BACKING_ANON) {
		h->fail_what = "kmem takes --backing anon only";
		errno = EINVAL;
		return -1;
	}
	km.target = h->size;
	/* The holder's buffer: one page stays for its pattern and census. */
	if (h->size > KMEM_PAGE) {
		munmap(h->buf + KMEM_PAGE, h->size - KMEM_PAGE);
		h->size = KMEM_PAGE;
	}
	meminfo(&km.slab0, &km.pt0);
	h->fail_what = "mount a tmpfs at " RUN_DIR "/ID.kmem";
	snprintf(km.mnt, sizeof(km.mnt), RUN_DIR "/%s.kmem", h->id);
	if ((mkdir(km.mnt, 0700) < 0 && errno != EEXIST) ||
	    mount("memhp-kmem", km.mnt, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "size=1m,nr_inodes=0,mode=0700") < 0)
		return -1;
	km.mounted = true;
	kmem_page_tables(km.target / 2 / KMEM_PAGE * KMEM_PAGE);
	if (!km.first_errno)
		kmem_files(t0);
	kmem_grown();
	km.seconds = (now_us() - t0) / 1e6;
	fprintf(stderr, "memhp-pin %s: kmem slab +%lld, page tables +%lld bytes, %" PRIu64 " files in %.1f s\n",
		h->id, km.slab, km.pt, km.files, km.seconds);
	return 0;
}

static void kmem_json(struct holder *h, FILE *f)
{
	(void)h;
	fprintf(f, "," MHL_PIN_KEY(MHL_PIN_K_KMEM) "{\"target_bytes\":%" PRIu64 ",\"slab_bytes\":%lld,\"pagetable_bytes\":%lld"
		"," MHL_PIN_KEY(MHL_PIN_K_KERNEL_BYTES) "%lld,\"reached\":%s,\"files\":%" PRIu64 ",\"dirs\":%" PRIu64
		",\"pte_spans\":%" PRIu64 ",\"mapped_bytes\":%" PRIu64 ",\"seconds\":%.2f"
		",\"stopped_by_time\":%s,\"mount\":\"%s\"," MHL_PIN_KEY(MHL_PIN_K_FIRST_ERROR),
		km.target, km.slab, km.pt, km.slab + km.pt,
		km.slab + km.pt >= (long long)km.target ? "true" : "false", km.files, km.dirs,
		km.pte_touched, km.map_len, km.seconds, km.stopped_by_time ? "true" : "false", km.mnt);
	if (km.first_errno)
		fprintf(f, "{\"errno\":%d," MHL_PIN_KEY(MHL_PIN_K_ERRNO_NAME) "\"%s\"," MHL_PIN_KEY(MHL_PIN_K_AT) "\"%s\"}}", km.first_errno,
			strerrorname_np(km.first_errno) ? strerrorname_np(km.first_errno) : "?",
			km.first_error_at);
	else
		fputs("null}", f);
}

/* check/release: what is held now (the growth since the start, which the files keep). */
static int kmem_io(struct holder *h, FILE *f)
{
	long long s, p;
	struct stat sb;
	bool there = !km.mounted || stat(km.mnt, &sb) == 0;

	(void)h;
	meminfo(&s, &p);
	fprintf(f, ",\"io\":{\"slab_bytes\":%lld,\"pagetable_bytes\":%lld,\"files\":%" PRIu64
		",\"mounted\":%s,\"ok\":%s}", s - km.slab0, p - km.pt0, km.files,
		there ? "true" : "false", there ? "true" : "false");
	return there ? 0 : 1;
}

static int kmem_unpin(struct holder *h)
{
	(void)h;
	if (km.map) {
		munmap(km.map, km.map_len);
		km.map = NULL;
	}
	if (km.mounted) {
		/* Detaching the last mount frees every inode and dentry at once. */
		if (umount2(km.mnt, MNT_DETACH) < 0)
			return -1;
		rmdir(km.mnt);
		km.mounted = false;
	}
	return 0;
}

const struct pin_mode kmem_mode = {
	.name = "kmem",
	.guest_only = true,
	.pin = kmem_pin,
	.io = kmem_io,
	.json = kmem_json,
	.unpin = kmem_unpin,
};
