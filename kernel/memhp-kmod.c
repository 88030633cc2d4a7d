/*
 * kernel/memhp-kmod.c - what kernel/package.sh asks of a package or modules
 * tree it does not trust, answered by C that reads every byte as data
 * (orchestrator/host/kmod.c; issue 30):
 *
 *   memhp-kmod members WHO < ARCHIVE   check a package's filesystem archive
 *                                      (dpkg-deb --fsys-tarfile) before it is extracted
 *   memhp-kmod extract WHO DIR < ARCHIVE  the same archive checked again as it is
 *                                      unpacked into the empty DIR by that one reader
 *                                      (kmod-extract.c), the tree walked after
 *   memhp-kmod order MODDIR CONFIG     the modules the guest loads, each after its
 *                                      dependencies (MODDIR/modules.dep), one path a line
 *   memhp-kmod cat DIR PATH            DIR/PATH to stdout: a regular file, reached
 *                                      without following a link below DIR
 *
 * One "Error: ..." line on stderr and exit 1 on anything refused; exit 2 on
 * a usage error. The paths `order` prints are mhlKmodPathOk's: letters,
 * digits, '.', '_', '+', '-' and '/', no '..', so a shell may hold them.
 */
#include <glib.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "host/kmod.h"
#include "kmod-extract.h"
#include "util.h"

/* modules.dep's size limit: Debian's is about 600 KiB */
#define MODDEP_MAX (64 << 20)

static int fail(void)
{
	fprintf(stderr, "Error: %s\n", mhlErrorLast());
	return 1;
}

/* Read all of @fd (at most @max bytes) into *out; -1 + mhlError naming @what. */
static int readAll(int fd, size_t max, const char *what, GByteArray **out)
{
	g_autoptr(GByteArray) buf = g_byte_array_new();
	guint8 chunk[65536];
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			mhlError("cannot read %s: %s", what, g_strerror(errno));
			return -1;
		}
		if (buf->len + (size_t)n > max) {
			mhlError("%s: over %zu bytes", what, max);
			return -1;
		}
		g_byte_array_append(buf, chunk, (guint)n);
	}
	*out = g_steal_pointer(&buf);
	return 0;
}

static int cmdMembers(const char *who)
{
	g_autoptr(mhlTarCheck) t = mhlTarCheckNew(who);
	guint8 chunk[65536];
	ssize_t n;
	int rc = 0;

	while (rc == 0 && (n = read(STDIN_FILENO, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			mhlError("%s: cannot read the archive: %s", who, g_strerror(errno));
			return fail();
		}
		rc = mhlTarCheckFeed(t, chunk, (size_t)n);
	}
	if (rc < 0 || (rc == 0 && mhlTarCheckFinish(t) < 0))
		return fail();
	/* read what follows the end, so that the writer of the pipe does not die of SIGPIPE */
	while (rc == 1 && read(STDIN_FILENO, chunk, sizeof(chunk)) > 0)
		;
	fprintf(stderr, "%s: %u members, none leaves the package\n", who, mhlTarCheckMembers(t));
	return 0;
}

static int cmdOrder(const char *moddir, const char *config_path)
{
	g_autofree char *what = g_build_filename(moddir, "modules.dep", NULL), *config = NULL;
	g_autoptr(GByteArray) text = NULL;
	g_autoptr(mhlModDep) dep = NULL;
	g_autoptr(GPtrArray) want = NULL, order = NULL;
	int fd;
	guint i;

	if (!(config = mhlFileRead(config_path, NULL)))
		return fail();
	if ((fd = mhlKmodOpenBeneath(moddir, "modules.dep")) < 0)
		return fail();
	if (readAll(fd, MODDEP_MAX, what, &text) < 0) {
		close(fd);
		return fail();
	}
	close(fd);
	want = mhlKmodWantedBy(config);
	if (!(dep = mhlModDepParse((const char *)text->data, text->len, what)) ||
	    !(order = mhlModDepOrder(dep, (const char *const *)want->pdata, want->len, what)))
		return fail();
	for (i = 0; i < order->len; i++)
		printf("%s\n", (const char *)order->pdata[i]);
	return fflush(stdout) == 0 ? 0 : 1;
}

static int cmdCat(const char *dir, const char *rel)
{
	guint8 chunk[65536];
	ssize_t n;
	int fd = mhlKmodOpenBeneath(dir, rel);

	if (fd < 0)
		return fail();
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || fwrite(chunk, 1, (size_t)n, stdout) != (size_t)n) {
			mhlError("%s/%s: %s", dir, rel, n < 0 ? g_strerror(errno) : "cannot write it out");
			close(fd);
			return fail();
		}
	}
	close(fd);
	return fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "members"))
		return cmdMembers(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "order"))
		return cmdOrder(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "cat"))
		return cmdCat(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "extract"))
		return mhlTarExtract(argv[2], STDIN_FILENO, argv[3]) < 0 ? fail() : 0;
	fprintf(stderr, "usage: memhp-kmod members WHO < ARCHIVE | extract WHO DIR < ARCHIVE | order MODDIR CONFIG | cat DIR PATH\n");
	return 2;
}
