/*
 * capscache.c - libvirt's QEMU capabilities, kept from one run to the next.
 *
 * Every run opens the embedded QEMU driver in a new private root (session.c),
 * so libvirt finds no capabilities cache there and probes each QEMU binary
 * it knows again (qemu-system-x86_64 and qemu-system-i386: 2-5 s on these
 * 2 cores under load, before the first guest can start). A run copies the
 * cache libvirt wrote into $MEMHP_CACHE/libvirt-qemu-caps/ when it closes,
 * and the next seeds its root with it. libvirt checks each cached file
 * itself (the binary's path and ctime, libvirt's version, the host kernel,
 * the microcode, KVM) and probes again where it no longer fits; the new file
 * is then the one saved.
 *
 * Only regular files named as libvirt names them (64 hex digits, ".xml"), of
 * at most 4 MiB, are copied, in either direction, never through a link; a
 * copy is written under a temporary name and renamed, so a reader never sees
 * half a file. A failure here only costs the probe: it is silent.
 */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/capscache.h"

#define CAPS_SUBDIR	"cache/qemu/capabilities"	/* under an embedded root */
#define CACHE_SUBDIR	"libvirt-qemu-caps"		/* under $MEMHP_CACHE */
#define CAPS_MAX	(4 << 20)

static bool capsName(const char *name)
{
	size_t i;

	if (strlen(name) != 64 + 4 || strcmp(name + 64, ".xml"))
		return false;
	for (i = 0; i < 64; i++)
		if (!g_ascii_isxdigit(name[i]))
			return false;
	return true;
}

/* @src's bytes (a regular file, not a link, at most CAPS_MAX), or NULL. */
static char *capsRead(const char *src, gsize *len)
{
	int fd = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	char *buf = NULL;
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size <= CAPS_MAX) {
		buf = g_malloc(st.st_size);
		n = read(fd, buf, st.st_size);
		if (n != st.st_size)
			g_clear_pointer(&buf, g_free);
		*len = st.st_size;
	}
	close(fd);
	return buf;
}

/* @dir/@name := @buf, through a temporary file and a rename; 0 or -1. */
static int capsWrite(const char *dir, const char *name, const char *buf, gsize len)
{
	g_autofree char *tmp = g_strdup_printf("%s/.%s.XXXXXX", dir, name);
	g_autofree char *dst = g_build_filename(dir, name, NULL);
	int fd = g_mkstemp_full(tmp, O_WRONLY | O_CLOEXEC, 0600), rc = -1;

	if (fd < 0)
		return -1;
	if (write(fd, buf, len) == (ssize_t)len && fsync(fd) == 0 && close(fd) == 0) {
		fd = -1;
		rc = rename(tmp, dst);
	}
	if (fd >= 0)
		close(fd);
	if (rc < 0)
		unlink(tmp);
	return rc;
}

/* Copy each capabilities file of @from that @to lacks or holds otherwise. */
static void capsCopy(const char *from, const char *to)
{
	g_autoptr(GDir) d = g_dir_open(from, 0, NULL);
	const char *e;

	while (d && (e = g_dir_read_name(d))) {
		g_autofree char *src = NULL, *dst = NULL, *buf = NULL, *old = NULL;
		gsize len = 0, olen = 0;

		if (!capsName(e))
			continue;
		src = g_build_filename(from, e, NULL);
		dst = g_build_filename(to, e, NULL);
		if (!(buf = capsRead(src, &len)))
			continue;
		if ((old = capsRead(dst, &olen)) && olen == len && !memcmp(old, buf, len))
			continue;
		if (g_mkdir_with_parents(to, 0700) == 0)
			capsWrite(to, e, buf, len);
	}
}

/* Between @root's capabilities directory and @cache_dir's, @to_root saying which way. */
static void capsCopyWay(const char *root, const char *cache_dir, bool to_root)
{
	g_autofree char *caps = NULL, *kept = NULL;

	if (!root || !cache_dir)
		return;
	caps = g_build_filename(root, CAPS_SUBDIR, NULL);
	kept = g_build_filename(cache_dir, CACHE_SUBDIR, NULL);
	capsCopy(to_root ? kept : caps, to_root ? caps : kept);
}

void mhlCapsCacheSeed(const char *root, const char *cache_dir)
{
	capsCopyWay(root, cache_dir, true);
}

void mhlCapsCacheSave(const char *root, const char *cache_dir)
{
	capsCopyWay(root, cache_dir, false);
}
