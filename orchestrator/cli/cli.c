/*
 * cli.c - where memhp-lab finds its data: the prefix it was installed to
 * (`make install`: <prefix>/bin/memhp-lab, <prefix>/share/memhp-lab/) or
 * the checkout it was built in (build/memhp-lab, or a build of it under a
 * folder of build/: build/asan/memhp-lab).
 */
#include <glib.h>

#include "cli/cli.h"

#include <stdbool.h>

/* Whether @dir holds a checkout's (or an install's) domain template. */
static bool hasTemplate(const char *dir)
{
	g_autofree char *t = g_build_filename(dir, "domains", "numa-virtio-mem.xml", NULL);

	return g_file_test(t, G_FILE_TEST_IS_REGULAR);
}

mhlCliPaths *mhlCliPathsNew(const char *bindir)
{
	g_autofree char *exe = bindir ? NULL : g_file_read_link("/proc/self/exe", NULL);
	g_autofree char *share = NULL;
	mhlCliPaths *p = g_new0(mhlCliPaths, 1);
	const char *cache = g_getenv("MEMHP_CACHE");

	p->bindir = bindir ? g_strdup(bindir) : exe ? g_path_get_dirname(exe) : g_strdup(".");
	share = g_build_filename(p->bindir, "..", "share", "memhp-lab", NULL);
	if (g_file_test(share, G_FILE_TEST_IS_DIR)) {
		p->datadir = g_canonicalize_filename(share, NULL);
		p->initrd = g_build_filename(p->datadir, "initramfs.cpio", NULL);
	} else {
		g_autofree char *up = g_build_filename(p->bindir, "..", NULL);
		g_autofree char *up2 = g_build_filename(p->bindir, "..", "..", NULL);

		if (!hasTemplate(up) && hasTemplate(up2)) {	/* build/asan/memhp-lab: build/'s image */
			p->datadir = g_steal_pointer(&up2);
			p->initrd = g_build_filename(up, "initramfs.cpio", NULL);
		} else {
			p->datadir = g_steal_pointer(&up);
			p->initrd = g_build_filename(p->bindir, "initramfs.cpio", NULL);
		}
	}
	p->tmpl = g_build_filename(p->datadir, "domains", "numa-virtio-mem.xml", NULL);
	p->cache = cache ? g_strdup(cache) : g_build_filename(g_get_home_dir(), ".cache", "memhp-lab", NULL);
	return p;
}

void mhlCliPathsFree(mhlCliPaths *p)
{
	if (!p)
		return;
	g_free(p->bindir);
	g_free(p->datadir);
	g_free(p->initrd);
	g_free(p->tmpl);
	g_free(p->cache);
	g_free(p);
}
