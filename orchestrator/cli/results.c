/*
 * results.c - a run directory as a results tree (issue 32, item 18, after
 * avocado's): a job id in run.json, `latest` beside the run directories
 * memhp-lab names itself (results/latest -> <name>-<time>), and the host's
 * state before and after the run in RUN_DIR/sysinfo/{pre,post}/.
 */
#include <glib.h>

#include "cli/run.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "host/identity.h"
#include "util.h"

char *mhlJobId(void)
{
	g_autofree char *seed = g_strdup_printf("%" G_GINT64_FORMAT "-%d-%u-%u", g_get_real_time(), (int)getpid(),
						g_random_int(), g_random_int());

	/* 40 hex digits, as avocado's job ids: unique, not a secret */
	return g_compute_checksum_for_string(G_CHECKSUM_SHA1, seed, -1);
}

void mhlResultsLatest(const char *outdir)
{
	g_autofree char *parent = g_path_get_dirname(outdir), *base = g_path_get_basename(outdir);
	g_autofree char *link = g_build_filename(parent, "latest", NULL);
	g_autofree char *tmp = g_strdup_printf("%s.%d", link, (int)getpid());

	/* a link of our own next to it, renamed over the old one: never a half-made latest */
	unlink(tmp);
	if (symlink(base, tmp) < 0 || rename(tmp, link) < 0) {
		fprintf(stderr, "memhp-lab: warning: cannot point '%s' at '%s': %s\n", link, base, g_strerror(errno));
		unlink(tmp);
	}
}

/* A file of sysinfo/ that cannot be written is a warning, never the run's error. */
static void sysinfoWrite(int fd, const char *name, const char *path, const char *text, gssize len)
{
	char *saved = mhlErrorSteal();

	if (mhlFileWriteAt(fd, name, path, text, len) < 0)
		fprintf(stderr, "memhp-lab: warning: %s\n", mhlErrorLast());
	mhlErrorRestore(saved);
}

/*
 * The /proc files and host identity a reader compares across runs, into
 * RUN_DIR/sysinfo/WHEN/: made below the run directory's descriptor, every
 * directory on the way and every file opened without following a link (a
 * resumed run directory's sysinfo/ is data), each file replaced by a rename.
 */
void mhlSysinfoSave(const char *outdir, const char *when)
{
	static const char *const files[] = { "/proc/meminfo", "/proc/cpuinfo", "/proc/cmdline", "/proc/loadavg",
					     "/proc/vmstat", "/proc/buddyinfo", "/proc/sys/kernel/osrelease",
					     "/proc/version" };
	g_autofree char *rel = g_build_filename("sysinfo", when, NULL), *dir = g_build_filename(outdir, rel, NULL);
	g_autoptr(json_object) id = mhlHostIdentityLocal();
	mhl_autofd int runfd = mhlDirOpen(outdir), fd = -1;
	size_t i;

	if (runfd < 0 || (fd = mhlDirOpenAt(runfd, rel, true)) < 0) {
		fprintf(stderr, "memhp-lab: warning: cannot create '%s': %s\n", dir,
			errno == ELOOP || errno == ENOTDIR ? "a symbolic link or not a directory (never followed in a run directory)" :
			g_strerror(errno));
		return;
	}
	for (i = 0; i < G_N_ELEMENTS(files); i++) {
		g_autofree char *text = NULL, *name = g_path_get_basename(files[i]);
		g_autofree char *to = g_build_filename(dir, name, NULL);
		gsize len;

		if (g_file_get_contents(files[i], &text, &len, NULL))
			sysinfoWrite(fd, name, to, text, (gssize)len);
	}
	{
		g_autofree char *to = g_build_filename(dir, "host_identity.json", NULL);

		sysinfoWrite(fd, "host_identity.json", to, json_object_to_json_string_ext(id, JSON_C_TO_STRING_PRETTY), -1);
	}
}
