/*
 * kernel.c - resolve the guest kernel of a scenario and check its config
 * before anything boots, so that a kernel that cannot run the trial is
 * refused with the list of what it lacks instead of failing mid-trial.
 */
#include <glib.h>

#include "host/kernel.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

char *mhlKconfigMissing(const char *config, const char *required)
{
	g_auto(GStrv) lines = g_strsplit(required, "\n", -1);
	g_autoptr(GString) missing = g_string_new(NULL);
	char **l;

	for (l = lines; *l; l++) {
		g_autofree char *opt = g_strstrip(g_strdup(*l));
		g_autofree char *want = NULL;
		const char *p;
		size_t n;

		if (!*opt || *opt == '#')
			continue;
		want = g_strdup_printf("CONFIG_%s=y", opt);
		n = strlen(want);
		/* A whole line of the config, not a prefix of a longer name. */
		for (p = config; (p = strstr(p, want)); p += n)
			if ((p == config || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
				break;
		if (!p)
			g_string_append_printf(missing, "%sCONFIG_%s", missing->len ? " " : "", opt);
	}
	return missing->len ? g_string_free(g_steal_pointer(&missing), FALSE) : NULL;
}

static json_object *prebuiltIdentity(const mhlScenario *s, const char *config)
{
	json_object *id = json_object_new_object();
	g_autofree char *sum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, config, -1);

	json_object_object_add(id, "source_package", json_object_new_string("prebuilt"));
	json_object_object_add(id, "bzimage", json_object_new_string(s->kernel_image));
	json_object_object_add(id, "config", json_object_new_string(s->kernel_config));
	sum[16] = '\0';
	json_object_object_add(id, "config_sha256", json_object_new_string(sum));
	return id;
}

char *mhlKernelResolve(const mhlScenario *s, const char *cache, const char *kernel_dir,
		       const char *srcdir, json_object **identity)
{
	g_autofree char *dir = NULL, *image = NULL, *config_path = NULL, *config = NULL;
	g_autofree char *reqpath = g_build_filename(srcdir, "kernel", "required.list", NULL);
	g_autofree char *required = NULL, *missing = NULL;
	json_object *id = NULL;

	*identity = NULL;
	if (!kernel_dir && !strcmp(s->kernel, "prebuilt")) {
		image = g_strdup(s->kernel_image);
		config_path = g_strdup(s->kernel_config);
	} else {
		if (kernel_dir) {
			dir = g_strdup(kernel_dir);
		} else {
			g_autofree char *cur = g_strdup_printf("%s/kernel/%s/current", cache, s->kernel);

			if (!g_file_get_contents(cur, &dir, NULL, NULL)) {
				mhlError("no kernel %s built yet (%s missing): run 'make kernel' or pass --kernel-dir",
					 s->kernel, cur);
				return NULL;
			}
			g_strstrip(dir);
		}
		image = g_build_filename(dir, "bzImage", NULL);
		config_path = g_build_filename(dir, "config", NULL);
	}
	if (access(image, R_OK) < 0) {
		mhlError("cannot read kernel image '%s': %s", image, g_strerror(errno));
		return NULL;
	}
	if (!(config = mhlFileRead(config_path, NULL)) || !(required = mhlFileRead(reqpath, NULL)))
		return NULL;
	if (!strcmp(s->pin_policy, "baseline")) {
		g_autofree char *r = required;

		required = g_strconcat(r, "\nGUP_LONGTERM_PIN_IN_PLACE\n", NULL);
	}
	if ((missing = mhlKconfigMissing(config, required))) {
		mhlError("kernel config '%s' lacks option(s) the lab needs%s: %s (list: %s)",
			 config_path, !strcmp(s->pin_policy, "baseline") ?
			 " under pin_policy baseline" : "", missing, reqpath);
		return NULL;
	}
	if (dir) {
		g_autofree char *idpath = g_build_filename(dir, "identity.json", NULL);

		if (!(id = json_object_from_file(idpath))) {
			mhlError("cannot read kernel identity '%s': %s", idpath,
				 json_util_get_last_err());
			return NULL;
		}
	} else {
		id = prebuiltIdentity(s, config);
	}
	*identity = id;
	return g_steal_pointer(&image);
}
