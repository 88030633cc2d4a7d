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

#include "record/record.h"
#include "scenario/names.h"
#include "spawn.h"
#include "util.h"

/* What a modular kernel may have as modules: the guest's init loads them (host/kmod.h). */
static bool moduleOk(const char *opt)
{
	size_t i;

	for (i = 0; i < mhlKmodNWanted; i++)
		if (!strcmp(opt, mhlKmodWanted[i].opt))
			return true;
	return false;
}

/*
 * What only some steps need (a capability, not a requirement, of a kernel
 * the lab did not build): a pin step what its mode's row in lib/mhl-pin.h
 * says, the bench and selftest steps what gup's says (they pin through
 * gup_test too); and what no step needs but a kernel may lack.
 */
static const struct mhl_pin_kconfig *const benchNeeds = mhl_pin_modes[MHL_PIN_GUP].kconfig;
static const char *const optional[] = { "CMA" };
static const struct mhl_pin_kconfig none[] = { { NULL, 0, NULL } };

/*
 * What a pin's backing needs beyond its mode: transparent huge pages for
 * backing: thp. A PREEMPT_RT kernel has none (RT excludes THP), and nothing
 * else of a trial needs them: virtio-mem, io_uring, RDMA and VFIO pins run
 * without (issue 47).
 */
static const struct mhl_pin_kconfig thpNeeds[] = {
	{ "TRANSPARENT_HUGEPAGE", 0, "backing: thp maps its buffer with MADV_HUGEPAGE" },
	{ NULL, 0, NULL }
};

/* The capabilities step @st needs through its kind and workload, a list ending at a NULL opt. */
static const struct mhl_pin_kconfig *stepNeeds(const mhlStep *st)
{
	int m = mhlNameIndex(mhl_pin_modes, st->workload);

	if (st->type == MHL_STEP_PIN && m >= 0)
		return mhl_pin_modes[m].kconfig;
	if (st->type == MHL_STEP_BENCH || st->type == MHL_STEP_SELFTEST)
		return benchNeeds;
	return none;
}

/* What step @st needs through its backing (a pin's), a list ending at a NULL opt. */
static const struct mhl_pin_kconfig *backingNeeds(const mhlStep *st)
{
	if (st->type == MHL_STEP_PIN && mhlNameIndex(mhl_pin_backings, st->backing) == MHL_PIN_BACKING_THP)
		return thpNeeds;
	return none;
}

/*
 * The value of a required.list line (mhlKconfigValue's), whose A|B names one
 * option under the names of different trees: the first alternative set to
 * y, else the first set to m, else the first's.
 */
static char kconfigAltValue(const char *config, const char *opt)
{
	g_auto(GStrv) alt = g_strsplit(opt, "|", -1);
	char first = 0, v;
	bool module = false;
	char **a;

	for (a = alt; *a; a++) {
		v = mhlKconfigValue(config, *a);
		if (v == 'y')
			return v;
		module |= v == 'm';
		if (a == alt)
			first = v;
	}
	return module ? 'm' : first;
}

static bool isCapability(const char *opt)
{
	const struct mhl_pin_kconfig *k;
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(mhl_pin_modes); i++)
		for (k = mhl_pin_modes[i].kconfig; k->opt; k++)
			if (!strcmp(opt, k->opt))
				return true;
	for (k = thpNeeds; k->opt; k++)
		if (!strcmp(opt, k->opt))
			return true;
	return mhlNameIndex(optional, opt) >= 0;
}

/* Whether an expect step asserts on what a pin did (so it follows a skipped pin). */
static bool expectOnPins(const mhlStep *st)
{
	return st->movable_after_pin != MHL_UNSET || st->ncensus || st->pins_failed != MHL_UNSET ||
	       st->integrity || st->nvmstat;
}

/*
 * Why each step of @s cannot run on the kernel of @config: NULL (it runs),
 * or the reason, prefixed by its code from the fixed vocabulary of
 * docs/record.md ("kernel-lacks: ", "needs-skipped-step: "). A capability a
 * step needs and the kernel lacks (not set, or a module where the guest
 * loads none: a kernel without @modules, or one its init never loads); the
 * series' gup_longterm_* counters a
 * vmstat expect reads (only a kernel with the series has them: its Kconfig
 * symbol GUP_LONGTERM_PIN_IN_PLACE is in the config, set or not); a step
 * that names the id of a skipped pin, and an expect that asserts on pins
 * after one was skipped.
 */
static GPtrArray *kernelSkips(const mhlScenario *s, const char *config, const char *config_path, bool modules)
{
	GPtrArray *skips = g_ptr_array_new_full(s->nsteps, g_free);
	bool series = strstr(config, "CONFIG_GUP_LONGTERM_PIN_IN_PLACE") != NULL;
	g_autoptr(GHashTable) gone = g_hash_table_new(g_str_hash, g_str_equal);
	int i, k, first_gone = 0;

	for (i = 0; i < s->nsteps; i++) {
		const mhlStep *st = &s->steps[i];
		const struct mhl_pin_kconfig *lists[] = { stepNeeds(st), backingNeeds(st) }, *need;
		char *why = NULL;
		size_t l;

		for (l = 0; l < G_N_ELEMENTS(lists); l++) {
			for (need = lists[l]; need->opt && !why; need++) {
				char v = mhlKconfigValue(config, need->opt);

				if (!v || (v == 'm' && (need->builtin || !modules)))
					why = g_strdup_printf("kernel-lacks: CONFIG_%s is %s in %s (%s)", need->opt,
							      v ? "a module the guest does not load" : "not set",
							      config_path, need->why);
			}
		}
		for (k = 0; k < st->nvmstat && !why && !series; k++)
			if (g_str_has_prefix(st->vmstat_key[k], "gup_longterm"))
				why = g_strdup_printf("kernel-lacks: /proc/vmstat %s is a counter of the lab's series, which this kernel (%s) does not carry",
						      st->vmstat_key[k], config_path);
		if (!why && st->id[0] && st->type != MHL_STEP_PIN && g_hash_table_contains(gone, st->id))
			why = g_strdup_printf("needs-skipped-step: pin '%s' (line %d) was skipped", st->id,
					      GPOINTER_TO_INT(g_hash_table_lookup(gone, st->id)));
		if (!why && st->type == MHL_STEP_EXPECT && first_gone && expectOnPins(st))
			why = g_strdup_printf("needs-skipped-step: it asserts on pins, and the pin of line %d was skipped",
					      first_gone);
		if (why && st->type == MHL_STEP_PIN) {
			g_hash_table_insert(gone, (gpointer)st->id, GINT_TO_POINTER(st->line));
			first_gone = first_gone ? first_gone : st->line;
		}
		g_ptr_array_add(skips, why);
	}
	return skips;
}

/*
 * A kernel the lab did not build: every required option built in, or (a
 * Debian package) a module the guest loads; capabilities may be absent.
 * Without @skips, one a step of @s needs is an error; with it, that step is
 * skipped. -1 + mhlError naming what is missing and which step needs it.
 */
static int kernelCapable(const mhlScenario *s, const char *config, const char *config_path,
			 const char *required, const char *reqpath, bool modules, GPtrArray **skips)
{
	g_auto(GStrv) lines = g_strsplit(required, "\n", -1);
	g_autoptr(GString) missing = g_string_new(NULL);
	g_autoptr(GPtrArray) all = NULL;
	char **l;
	int i;

	for (l = lines; *l; l++) {
		g_autofree char *opt = g_strstrip(g_strdup(*l));
		char v;

		if (!*opt || *opt == '#' || isCapability(opt))
			continue;
		v = kconfigAltValue(config, opt);
		if (v == 'y' || (v == 'm' && modules && moduleOk(opt)))
			continue;
		g_string_append_printf(missing, "%sCONFIG_%s%s", missing->len ? " " : "", opt,
				       v == 'm' ? " (a module, but the lab needs it built in)" : "");
	}
	if (missing->len) {
		mhlError("kernel config '%s' lacks option(s) the lab needs%s: %s (list: %s)", config_path,
			 !mhlPinPolicyOf(s->pin_policy)->series ? " under pin_policy baseline" : "", missing->str,
			 reqpath);
		return -1;
	}
	all = kernelSkips(s, config, config_path, modules);
	for (i = 0; !skips && i < s->nsteps; i++) {
		const mhlStep *st = &s->steps[i];

		if (all->pdata[i]) {
			mhlError("%s:%d: step %s%s%s cannot run on this kernel: %s; use another workload on this kernel",
				 s->path, st->line, mhlStepTypeNames[st->type],
				 st->type == MHL_STEP_PIN ? " with workload " : "",
				 st->type == MHL_STEP_PIN ? st->workload : "", strchr(all->pdata[i], ' ') + 1);
			return -1;
		}
	}
	if (skips)
		*skips = g_steal_pointer(&all);
	return 0;
}

/*
 * package.sh's environment: MEMHP_KMOD, the memhp-kmod beside this
 * memhp-lab (build/ of a checkout) or in its prefix's libexec/memhp-lab/
 * (make install), unless the environment names one.
 */
static char **kmodEnv(void)
{
	char **env = g_get_environ();
	g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL), *dir = NULL;
	g_autofree char *beside = NULL, *libexec = NULL;

	if (g_environ_getenv(env, "MEMHP_KMOD") || !exe)
		return env;
	dir = g_path_get_dirname(exe);
	beside = g_build_filename(dir, "memhp-kmod", NULL);
	libexec = g_build_filename(dir, "..", "libexec", "memhp-lab", "memhp-kmod", NULL);
	if (access(beside, X_OK) == 0)
		return g_environ_setenv(env, "MEMHP_KMOD", beside, TRUE);
	if (access(libexec, X_OK) == 0)
		return g_environ_setenv(env, "MEMHP_KMOD", libexec, TRUE);
	return env;
}

/*
 * kernel/package.sh with @a1 [@a2 @a3 @a4] (a package name; --deb PATH;
 * --modules DIR --config FILE): the artifact directory it prints last, or
 * NULL + mhlError. @what names it in messages.
 */
static char *packageFetch(const char *srcdir, const char *what, const char *a1, const char *a2,
			  const char *a3, const char *a4)
{
	/*
	 * One answer per argument list and process: a matrix names the same
	 * package in many trials, and each call asks apt (a second or two).
	 * Kernels are resolved before the worker threads start; the lock is
	 * for safety, not speed.
	 */
	static GMutex lock;
	static GHashTable *seen;
	g_autofree char *script = g_build_filename(srcdir, "kernel", "package.sh", NULL);
	g_autofree char *memo = g_strjoin("\n", script, a1, a2 ? a2 : "", a3 ? a3 : "", a4 ? a4 : "", NULL);
	const char *argv[] = { script, a1, a2, a3, a4, NULL };
	g_auto(GStrv) envp = kmodEnv();
	/* its progress and its errors on our stderr; apt may ask on stdin */
	g_auto(mhlSpawn) c = { .argv = argv, .envp = (const char *const *)envp, .in = MHL_SPAWN_INHERIT,
			       .out = MHL_SPAWN_CAPTURE, .err = MHL_SPAWN_INHERIT };
	const char *hit;
	char *out, *nl;

	g_mutex_lock(&lock);
	if (!seen)
		seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	hit = g_hash_table_lookup(seen, memo);
	g_mutex_unlock(&lock);
	if (hit)
		return g_strdup(hit);

	/* argv, no shell: the name was checked by the scenario loader and goes to apt as one word */
	if (mhlSpawnRun(&c) < 0) {
		mhlError("%s: %s", what, c.why);
		return NULL;
	}
	if (mhlSpawnCheck(&c) < 0) {
		mhlError("%s: %s (its messages are above)", what, c.why);
		return NULL;
	}
	out = g_strchomp(c.out_text);
	nl = strrchr(out, '\n');
	g_mutex_lock(&lock);
	g_hash_table_replace(seen, g_steal_pointer(&memo), g_strdup(nl ? nl + 1 : out));
	g_mutex_unlock(&lock);
	return g_strdup(nl ? nl + 1 : out);
}

/* Whether @config has the whole line CONFIG_@opt=y (not a prefix of a longer name). */
static bool kconfigHasY(const char *config, const char *opt)
{
	g_autofree char *want = g_strdup_printf("CONFIG_%s=y", opt);
	size_t n = strlen(want);
	const char *p;

	for (p = config; (p = strstr(p, want)); p += n)
		if ((p == config || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return true;
	return false;
}

char *mhlKconfigMissing(const char *config, const char *required)
{
	g_auto(GStrv) lines = g_strsplit(required, "\n", -1);
	g_autoptr(GString) missing = g_string_new(NULL);
	char **l;

	for (l = lines; *l; l++) {
		g_autofree char *opt = g_strstrip(g_strdup(*l));
		g_auto(GStrv) alt = NULL;
		char **a;

		if (!*opt || *opt == '#')
			continue;
		/* A|B: one option under the names of different trees (renamed). */
		alt = g_strsplit(opt, "|", -1);
		for (a = alt; *a && !kconfigHasY(config, *a); a++)
			;
		if (!*a)
			g_string_append_printf(missing, "%sCONFIG_%s", missing->len ? " " : "", opt);
	}
	return missing->len ? g_string_free(g_steal_pointer(&missing), FALSE) : NULL;
}

static json_object *prebuiltIdentity(const mhlScenario *s, const char *config)
{
	json_object *id = json_object_new_object();
	g_autofree char *sum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, config, -1);

	json_object_object_add(id, MHL_K_SOURCE_PACKAGE, json_object_new_string("prebuilt"));
	json_object_object_add(id, MHL_K_BZIMAGE, json_object_new_string(s->kernel_image));
	json_object_object_add(id, MHL_K_CONFIG, json_object_new_string(s->kernel_config));
	sum[16] = '\0';
	json_object_object_add(id, MHL_K_CONFIG_SHA256, json_object_new_string(sum));
	return id;
}

/*
 * A prebuilt modular kernel (kernel: {bzimage, config, modules: DIR}): the
 * modules the guest needs, as a cpio kernel/package.sh makes from DIR's
 * modules.dep (cached); their list, release and cpio's directory go into
 * @id. 0, or -1 + mhlError.
 */
static int prebuiltModules(const mhlScenario *s, const char *srcdir, json_object *id)
{
	g_autofree char *what = g_strdup_printf("kernel modules '%s'", s->kernel_modules);
	g_autofree char *mdir = packageFetch(srcdir, what, "--modules", s->kernel_modules, "--config",
					     s->kernel_config);
	g_autofree char *idpath = NULL;
	g_autoptr(json_object) mid = NULL;

	if (!mdir)
		return -1;
	idpath = g_build_filename(mdir, "identity.json", NULL);
	if (!(mid = json_object_from_file(idpath))) {
		mhlError("cannot read '%s': %s", idpath, json_util_get_last_err());
		return -1;
	}
	json_object_object_add(id, MHL_K_RELEASE, json_object_get(json_object_object_get(mid, MHL_K_RELEASE)));
	json_object_object_add(id, MHL_K_MODULES, json_object_get(json_object_object_get(mid, MHL_K_MODULES)));
	json_object_object_add(id, MHL_K_MODULES_FROM, json_object_new_string(s->kernel_modules));
	json_object_object_add(id, MHL_K_MODULES_CPIO_DIR, json_object_new_string(mdir));
	return 0;
}

char *mhlKernelPointer(const char *cache, const char *kver, const char *pointer, char **path)
{
	g_autofree char *ptr = g_strdup_printf("%s/kernel/%s/%s", cache, kver, pointer);
	char *dir = NULL;

	if (g_file_get_contents(ptr, &dir, NULL, NULL))
		g_strstrip(dir);
	if (path)
		*path = g_steal_pointer(&ptr);
	return dir;
}

/*
 * Where @s's kernel is: its artifact directory (*@dir; NULL for a prebuilt
 * bzImage), its image and its config. 0, or -1 + mhlError.
 */
static int kernelLocate(const mhlScenario *s, const char *cache, const char *kernel_dir, const char *srcdir,
			char **dir, char **image, char **config_path)
{
	*dir = NULL;
	if (!kernel_dir && !strcmp(s->kernel, "package")) {
		g_autofree char *what = g_strdup_printf("kernel %s '%s'", s->kernel_deb ? "deb" : "package",
							s->kernel_deb ? s->kernel_deb : s->kernel_package);

		if (!(*dir = s->kernel_deb ? packageFetch(srcdir, what, "--deb", s->kernel_deb, NULL, NULL) :
			     packageFetch(srcdir, what, s->kernel_package, NULL, NULL, NULL)))
			return -1;
	} else if (!kernel_dir && !strcmp(s->kernel, "prebuilt")) {
		*image = g_strdup(s->kernel_image);
		*config_path = g_strdup(s->kernel_config);
		return 0;
	} else if (kernel_dir) {
		*dir = g_strdup(kernel_dir);
	} else {
		const char *fl = mhlScenarioKernelFlavour(s);
		g_autofree char *cur = NULL;

		if (!(*dir = mhlKernelPointer(cache, s->kernel, *fl ? fl : "current", &cur))) {
			if (!strcmp(fl, MHL_KERNEL_FLAVOUR_RDMA))
				mhlError("no kernel %s in its %s flavour built yet (%s missing; the RDMA pins of %s run on it): run 'make kernel' (kernel/build.sh --flavour %s %s)",
					 s->kernel, fl, cur, s->path, fl, s->kernel);
			else if (*fl)
				mhlError("no kernel %s with debug: %s built yet (%s missing): run 'make kernel-%s' (kernel/build.sh --flavour %s %s)",
					 s->kernel, fl, cur, fl, fl, s->kernel);
			else
				mhlError("no kernel %s built yet (%s missing): run 'make kernel KVERS=%s' (kernel/build.sh %s) or pass --kernel-dir",
					 s->kernel, cur, s->kernel, s->kernel);
			return -1;
		}
	}
	*image = g_build_filename(*dir, "bzImage", NULL);
	*config_path = g_build_filename(*dir, "config", NULL);
	return 0;
}

/*
 * A step that needs a flavour of the lab's kernel (mhlStepLabFlavour())
 * cannot run on a build without it (--kernel-dir, or debug: with an RDMA
 * pin): an error naming the step and the option, never a skip. What the
 * lab's kernels lack whatever their flavour (RDMA on-demand paging) the
 * step meets as an errno, as before.
 */
static int labCapable(const mhlScenario *s, const char *config, const char *config_path)
{
	int i;

	for (i = 0; i < s->nsteps; i++) {
		const char *fl = mhlStepLabFlavour(&s->steps[i]);

		if (fl && mhlKconfigValue(config, MHL_KERNEL_FLAVOUR_RDMA_OPT) != 'y') {
			mhlError("%s:%d: step %s with workload %s cannot run on kernel config '%s': CONFIG_%s is not built in; the lab kernel's %s flavour has it (make kernel)",
				 s->path, s->steps[i].line, mhlStepTypeNames[s->steps[i].type], s->steps[i].workload,
				 config_path, MHL_KERNEL_FLAVOUR_RDMA_OPT, fl);
			return -1;
		}
	}
	return 0;
}

/*
 * Whether @config (read from @config_path) has what @s needs: every option
 * of @required (kernel/required.list at @reqpath) for a kernel the lab
 * built, the capabilities of the steps for one it did not (their skips into
 * @skips). 0, or -1 + mhlError.
 */
static int kernelConfigCheck(const mhlScenario *s, const char *kernel_dir, const char *config,
			     const char *config_path, const char *required, const char *reqpath, GPtrArray **skips)
{
	g_autofree char *missing = NULL;

	if (!kernel_dir && !strcmp(s->kernel, "package")) {
		if (!mhlPinPolicyOf(s->pin_policy)->series) {
			mhlError("%s: pin_policy baseline needs the lab's series (its test switch); a Debian kernel package has it not: use pin_policy series",
				 s->path);
			return -1;
		}
		return kernelCapable(s, config, config_path, required, reqpath, true, skips);
	}
	if (!kernel_dir && !strcmp(s->kernel, "prebuilt"))
		return kernelCapable(s, config, config_path, required, reqpath, s->kernel_modules != NULL, skips);
	if ((missing = mhlKconfigMissing(config, required))) {
		mhlError("kernel config '%s' lacks option(s) the lab needs%s: %s (list: %s)",
			 config_path, !mhlPinPolicyOf(s->pin_policy)->series ?
			 " under pin_policy baseline" : "", missing, reqpath);
		return -1;
	}
	return labCapable(s, config, config_path);
}

/* The kernel's identity for the record: @dir's identity.json, or a prebuilt's; NULL + mhlError. */
static json_object *kernelIdentity(const mhlScenario *s, const char *kernel_dir, const char *srcdir,
				   const char *dir, const char *config)
{
	json_object *id;

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
	if (dir && !kernel_dir && !strcmp(s->kernel, "package"))
		json_object_object_add(id, MHL_K_MODULES_CPIO_DIR,
				       json_object_new_string_len(dir, (int)strlen(dir)));
	if (s->kernel_modules && !kernel_dir && !strcmp(s->kernel, "prebuilt") && prebuiltModules(s, srcdir, id) < 0) {
		json_object_put(id);
		return NULL;
	}
	return id;
}

char *mhlKernelResolve(const mhlScenario *s, const char *cache, const char *kernel_dir,
		       const char *srcdir, json_object **identity, GPtrArray **skips)
{
	g_autofree char *dir = NULL, *image = NULL, *config_path = NULL, *config = NULL;
	g_autofree char *reqpath = g_build_filename(srcdir, "kernel", "required.list", NULL);
	g_autofree char *required = NULL;

	*identity = NULL;
	if (skips)
		*skips = NULL;
	if (kernelLocate(s, cache, kernel_dir, srcdir, &dir, &image, &config_path) < 0)
		return NULL;
	if (access(image, R_OK) < 0) {
		mhlError("cannot read kernel image '%s': %s", image, g_strerror(errno));
		return NULL;
	}
	if (!(config = mhlFileRead(config_path, NULL)) || !(required = mhlFileRead(reqpath, NULL)))
		return NULL;
	if (!mhlPinPolicyOf(s->pin_policy)->series) {
		g_autofree char *r = required;

		required = g_strconcat(r, "\nGUP_LONGTERM_PIN_IN_PLACE\n", NULL);
	}
	if (kernelConfigCheck(s, kernel_dir, config, config_path, required, reqpath, skips) < 0 ||
	    !(*identity = kernelIdentity(s, kernel_dir, srcdir, dir, config)))
		return NULL;
	return g_steal_pointer(&image);
}

/* The guest images with modules this process wrote into run directories (mhlInitrdFor). */
static GHashTable *initrdWritten;
G_LOCK_DEFINE_STATIC(initrdWritten);

char *mhlInitrdFor(const mhlScenario *s, json_object *identity, const char *base, const char *outdir)
{
	g_autofree char *imgdir = g_path_get_dirname(base), *image = g_strdup(base);
	g_autofree char *dir = NULL, *mods = NULL, *bytes = NULL, *add = NULL, *name = NULL, *rel = NULL;
	g_autofree char *base_name = NULL;
	mhl_autofd int dfd = -1;
	bool done;
	const char *cpio_dir = identity ? mhlJStr(identity, MHL_K_MODULES_CPIO_DIR, NULL) : NULL;
	bool debian = !strcmp(s->guest, "debian");
	g_autoptr(GError) err = NULL;
	gsize nb = 0, na = 0;

	/* guest: debian, Debian's own userspace (workloads/debian-guest.sh) beside the lab's image */
	if (debian) {
		g_free(image);
		image = g_build_filename(imgdir, "initramfs-debian.cpio.gz", NULL);
		if (access(image, R_OK) < 0) {
			mhlError("%s: guest: debian needs the Debian guest image '%s' (%s): make image-debian",
				 s->path, image, g_strerror(errno));
			return NULL;
		}
	}
	if (!cpio_dir)
		return g_steal_pointer(&image);
	dir = g_strdup(cpio_dir);
	mods = g_build_filename(dir, "modules.cpio.gz", NULL);
	/* the cache directory's name: one per package version, .deb, modules tree or artifact */
	rel = g_strcanon(g_path_get_basename(dir), "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-", '_');
	base_name = g_strdup_printf("initrd-%s%s.cpio", debian ? "debian-" : "", rel);
	name = g_build_filename(outdir, base_name, NULL);
	/*
	 * Reused only when this process wrote it (the trials of one run share
	 * it): a file of that name already in a resumed run directory is data
	 * that anyone could have put there, never a guest image to boot; it is
	 * replaced (a rename below the directory's descriptor: a link there is
	 * replaced, not followed).
	 */
	G_LOCK(initrdWritten);
	if (!initrdWritten)
		initrdWritten = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	done = g_hash_table_contains(initrdWritten, name);
	G_UNLOCK(initrdWritten);
	if (done)
		return g_steal_pointer(&name);
	if (!g_file_get_contents(image, &bytes, &nb, &err) || !g_file_get_contents(mods, &add, &na, &err)) {
		mhlError("cannot read the guest image or the kernel's modules: %s", err->message);
		return NULL;
	}
	bytes = g_realloc(bytes, nb + na);
	memcpy(bytes + nb, add, na);
	if ((dfd = mhlDirOpen(outdir)) < 0) {
		mhlError("cannot write the guest image '%s': %s", name, g_strerror(errno));
		return NULL;
	}
	if (mhlFileWriteAt(dfd, base_name, name, bytes, (gssize)(nb + na)) < 0)
		return NULL;
	G_LOCK(initrdWritten);
	g_hash_table_add(initrdWritten, g_strdup(name));
	G_UNLOCK(initrdWritten);
	return g_steal_pointer(&name);
}
