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

/* The /proc files and host identity a reader compares across runs. */
void mhlSysinfoSave(const char *outdir, const char *when)
{
	static const char *const files[] = { "/proc/meminfo", "/proc/cpuinfo", "/proc/cmdline", "/proc/loadavg",
					     "/proc/vmstat", "/proc/buddyinfo", "/proc/sys/kernel/osrelease",
					     "/proc/version" };
	g_autofree char *dir = g_build_filename(outdir, "sysinfo", when, NULL);
	g_autofree char *idpath = g_build_filename(dir, "host_identity.json", NULL);
	g_autoptr(json_object) id = mhlHostIdentityLocal();
	size_t i;

	if (g_mkdir_with_parents(dir, 0755) < 0) {
		fprintf(stderr, "memhp-lab: warning: cannot create '%s': %s\n", dir, g_strerror(errno));
		return;
	}
	for (i = 0; i < G_N_ELEMENTS(files); i++) {
		g_autofree char *text = NULL, *name = g_path_get_basename(files[i]);
		g_autofree char *to = g_build_filename(dir, name, NULL);
		gsize len;

		if (g_file_get_contents(files[i], &text, &len, NULL))
			g_file_set_contents(to, text, (gssize)len, NULL);
	}
	g_file_set_contents(idpath, json_object_to_json_string_ext(id, JSON_C_TO_STRING_PRETTY), -1, NULL);
}
