/*
 * scenario.c - load a scenario file with libyaml's document API, so every
 * node keeps its line and column for messages: the top-level keys, each
 * handed to its part (scenario-int.h), one trial per combination of the
 * matrix, trial ids and log names. What a guest needs of its host: fit.c.
 */
#include <glib.h>

#include "scenario/scenario-int.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mhl-size.h"
#include "util.h"

enum { TOP_NAME, TOP_KERNEL, TOP_CMDLINE, TOP_POLICY, TOP_NODES, TOP_STEPS, TOP_MATRIX,
       TOP_DEVICES, TOP_BACKING, TOP_ONLINE, TOP_SOAK, TOP_XFAIL, TOP_GUEST, TOP_HOST_LABELS,
       TOP_GRID, TOP_STACK, TOP_STACK_NEEDS };
static const char *const topKeys[] = { "name", "kernel", "cmdline", "pin_policy", "nodes",
				       "steps", "matrix", "devices", "memory_backing", "online",
				       "soak", "xfail", "guest", "host_labels", "grid", "stack", "stack_needs", NULL };
/* guest:, pin_policy: and kernel: VERSION name rows of scenario/names.c */

static int topPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlScenario *s = opaque;
	char **dst;

	switch (key) {
	case TOP_MATRIX:
		return 0;	/* expanded before the trials are parsed (mhlMatrixParse) */
	case TOP_KERNEL:
		return mhlSecKernel(y, s, v);
	case TOP_DEVICES:
		return mhlSecDevices(y, s, v);
	case TOP_BACKING:
		return mhlSecBacking(y, s, v);
	case TOP_ONLINE:
		return mhlSecOnline(y, s, v);
	case TOP_SOAK:
		return mhlSecSoak(y, s, v);
	case TOP_XFAIL:
		return mhlSecXfail(y, s, v);
	case TOP_HOST_LABELS:
		return mhlSecHostLabels(y, s, v);
	case TOP_GRID:
		return mhlSecGrid(y, s, v);
	case TOP_GUEST:
		if (mhlYWantKind(y, v, YAML_SCALAR_NODE, "guest") < 0)
			return -1;
		if (mhlYRow(y, v, "guest: unknown userspace", mhlGuestNames, NULL) < 0)
			return -1;
		g_strlcpy(s->guest, mhlYScalar(y, v), sizeof(s->guest));
		return 0;
	case TOP_STACK_NEEDS:
		return mhlSecStackNeeds(y, s, v);
	case TOP_STACK:
		if (mhlYWantKind(y, v, YAML_SCALAR_NODE, "stack") < 0 ||
		    mhlYRow(y, v, "stack: unknown hypervisor stack", mhlStacks, NULL) < 0)
			return -1;
		g_strlcpy(s->stack, mhlYScalar(y, v), sizeof(s->stack));
		s->stack_from_axis = mhlYFromAxis(y, v);
		return 0;
	case TOP_NAME:
	case TOP_CMDLINE:
	case TOP_POLICY:
		if (mhlYWantKind(y, v, YAML_SCALAR_NODE, topKeys[key]) < 0)
			return -1;
		if (key == TOP_POLICY && mhlYRow(y, v, "unknown pin_policy", mhlPinPolicies, NULL) < 0)
			return -1;
		if (key == TOP_POLICY)
			s->pin_policy_from_axis = mhlYFromAxis(y, v);
		if (key == TOP_NAME && mhlSecNameCheck(y, v) < 0)
			return -1;
		if (key == TOP_CMDLINE && mhlSecCmdlineCheck(y, v) < 0)
			return -1;
		dst = key == TOP_NAME ? &s->name : key == TOP_CMDLINE ? &s->cmdline : &s->pin_policy;
		g_free(*dst);
		*dst = g_strdup(mhlYScalar(y, v));
		return 0;
	case TOP_NODES:
		return mhlSecNodes(y, s, v);
	case TOP_STEPS:
	default:
		return mhlStepsParse(y, s, v);
	}
}

bool mhlExpectApplies(const mhlScenario *s, const mhlStep *st)
{
	return (!st->policy[0] || !strcmp(st->policy, s->pin_policy)) &&
	       (!st->kernel[0] || !strcmp(st->kernel, s->kernel));
}

/* Forget every way the scenario named its kernel, before --kernel names another. */
static void scenarioKernelClear(mhlScenario *s)
{
	g_clear_pointer(&s->kernel_image, g_free);
	g_clear_pointer(&s->kernel_config, g_free);
	g_clear_pointer(&s->kernel_modules, g_free);
	g_clear_pointer(&s->kernel_deb, g_free);
	g_clear_pointer(&s->kernel_package, g_free);
	g_clear_pointer(&s->kernel, g_free);
	s->kernel_flavour[0] = '\0';
}

/*
 * --kernel deb:FILE, a linux-image .deb a team built (as kernel: {deb:});
 * --kernel build:DIR, a kernel a team built: DIR/bzImage and DIR/config (the
 * lab's artifact layout) or a build tree's DIR/arch/x86/boot/bzImage and
 * DIR/.config (as kernel: {bzimage:, config:}). Paths made absolute; what
 * they hold is checked where any kernel's is (host/kernel.c).
 */
static int scenarioKernelFile(mhlScenario *s, const char *kernel)
{
	bool deb = g_str_has_prefix(kernel, "deb:");
	const char *path = strchr(kernel, ':') + 1;
	g_autofree char *abs = NULL;

	if (!*path || strlen(path) >= PATH_MAX) {
		mhlError("--kernel '%s': expected %s", kernel, deb ? "deb:FILE (a linux-image .deb)" :
			 "build:DIR (DIR/bzImage and DIR/config, or a build tree's arch/x86/boot/bzImage and .config)");
		return -1;
	}
	abs = g_canonicalize_filename(path, NULL);
	scenarioKernelClear(s);
	if (deb) {
		s->kernel_deb = g_steal_pointer(&abs);
		s->kernel = g_strdup("package");
		return 0;
	}
	s->kernel_image = g_build_filename(abs, "bzImage", NULL);
	s->kernel_config = g_build_filename(abs, "config", NULL);
	if (!g_file_test(s->kernel_image, G_FILE_TEST_EXISTS)) {
		g_free(s->kernel_image);
		g_free(s->kernel_config);
		s->kernel_image = g_build_filename(abs, "arch", "x86", "boot", "bzImage", NULL);
		s->kernel_config = g_build_filename(abs, ".config", NULL);
	}
	s->kernel = g_strdup("prebuilt");
	return 0;
}

/* Override the scenario's kernel or pin_policy (memhp-lab run --kernel, --pin-policy). */
int mhlScenarioOverride(mhlScenario *s, const char *kernel, const char *policy)
{
	if (kernel && (g_str_has_prefix(kernel, "deb:") || g_str_has_prefix(kernel, "build:")))
		return scenarioKernelFile(s, kernel) < 0 || mhlScenarioOverride(s, NULL, policy) < 0 ? -1 : 0;
	if (kernel && g_str_has_prefix(kernel, "package:")) {
		/* --kernel package:NAME[=VERSION]: a Debian kernel package, as kernel: {package:} */
		if (!mhlPackageNameOk(kernel + 8)) {
			mhlError("--kernel '%s': expected package:linux-image-NAME[=VERSION] (apt-cache search linux-image)",
				 kernel);
			return -1;
		}
		scenarioKernelClear(s);
		s->kernel_package = g_strdup(kernel + 8);
		s->kernel = g_strdup("package");
	} else if (kernel) {
		if (mhlNameIndex(mhlKernelForms, kernel) < 0) {
			g_autofree char *known = mhlNamesKnown(mhlKernelForms);

			mhlError("unknown kernel '%s' (known: %s, package:linux-image-NAME[=VERSION], deb:FILE, build:DIR)", kernel, known);
			return -1;
		}
		g_free(s->kernel);
		s->kernel = g_strdup(kernel);
	}
	if (policy) {
		if (mhlNameIndex(mhlPinPolicies, policy) < 0) {
			g_autofree char *known = mhlNamesKnown(mhlPinPolicies);

			mhlError("unknown pin policy '%s' (known: %s)", policy, known);
			return -1;
		}
		g_free(s->pin_policy);
		s->pin_policy = g_strdup(policy);
	}
	return 0;
}

/* topPair, counting a top-level section that failed whole as a failure of the file's shape. */
static int topPairShape(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	int rc = topPair(y, key, v, opaque);

	if (rc < 0 && (key == TOP_NODES || key == TOP_STEPS || key == TOP_DEVICES || key == TOP_BACKING ||
		       key == TOP_KERNEL || key == TOP_MATRIX))
		y->failed_shape++;
	return rc;
}

/* Parse one trial of the document under the parameters in @bind. */
static mhlScenario *trialParse(mhlYaml *y, yaml_node_t *root, const mhlMatrix *m,
			       GHashTable *bind)
{
	g_autoptr(mhlScenario) s = g_new0(mhlScenario, 1);
	g_autoptr(GHashTable) expanded = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	g_autoptr(GString) id = g_string_new(NULL);
	int a;

	s->path = g_strdup(y->path);
	y->expanded = expanded;
	y->failed = 0;
	y->matrix = m->naxes ? m : NULL;
	y->bind = bind;
	/*
	 * Each top-level key read, its error kept and the next one read. The
	 * cross-step checks run once the file's shape was read (no section
	 * failed whole, no device without its size or block: failed_shape),
	 * after errors in leaves too (issue 52 item 7: one pass names every
	 * independent mistake); they pass by what follows from an error already
	 * kept (mhlStepsValidate), and matrixTrials keeps theirs beside it.
	 */
	y->failed_shape = 0;
	if (mhlMatrixExpand(y, bind) < 0 ||
	    mhlYForPairsEach(y, root, "the scenario", topKeys, topPairShape, s, true) < 0 ||
	    y->failed_shape || mhlStepsValidate(s) < 0 || y->failed) {
		y->expanded = NULL;
		y->matrix = NULL;
		y->bind = NULL;
		return NULL;
	}
	y->expanded = NULL;
	y->matrix = NULL;
	y->bind = NULL;
	if (!s->name)
		s->name = g_path_get_basename(y->path);
	s->scenario_name = g_strdup(s->name);
	for (a = 0; a < m->naxes; a++) {
		s->param_key[a] = g_strdup(m->axis[a]);
		s->param_val[a] = g_strdup(g_hash_table_lookup(bind, m->axis[a]));
		g_string_append_printf(id, "%s%s=%s", a ? "," : ":", m->axis[a], s->param_val[a]);
	}
	s->nparams = m->naxes;
	if (id->len) {
		g_autofree char *base = s->name;

		s->name = g_strconcat(base, id->str, NULL);
	}
	if (!s->kernel)
		s->kernel = g_strdup(mhlKernelForms[0]);
	if (!s->pin_policy)
		s->pin_policy = g_strdup(mhlPinPolicies[MHL_POLICY_SERIES].name);
	if (!s->cmdline)
		s->cmdline = g_strdup("");
	if (!s->backing[0])
		g_strlcpy(s->backing, mhlMemBackings[MHL_MEM_ANONYMOUS].name, sizeof(s->backing));
	if (!s->online[0])
		g_strlcpy(s->online, mhlOnlinePolicies[MHL_ONLINE_MOVABLE].name, sizeof(s->online));
	if (!s->guest[0])
		g_strlcpy(s->guest, mhlGuestNames[0], sizeof(s->guest));
	if (!s->stack[0])
		g_strlcpy(s->stack, mhlStacks[MHL_STACK_DEBIAN].name, sizeof(s->stack));
	if (!s->soak_every)
		s->soak_every = MHL_SOAK_EVERY_DEFAULT;
	if (!s->soak_judge_after)
		s->soak_judge_after = MHL_SOAK_JUDGE_AFTER_DEFAULT;
	if (mhlMemBackingOf(s->backing)->hugetlb && !s->hugepage_size)
		s->hugepage_size = 2ULL << 20;
	return g_steal_pointer(&s);
}

/* Every combination of the matrix (one, without a matrix) not excluded, parsed, into @out. */
static int matrixTrials(mhlYaml *y, yaml_node_t *root, const mhlMatrix *m, GPtrArray *out)
{
	int idx[MHL_MAX_AXES] = { 0 }, a, n = 0, bad = 0;

	for (;;) {
		if (!mhlMatrixExcluded(m, idx)) {
			g_autoptr(GHashTable) bind = g_hash_table_new(g_str_hash, g_str_equal);
			mhlScenario *s;

			if (n >= MHL_MAX_TRIALS) {
				mhlError("%s: the matrix has more than %d trials", y->path, MHL_MAX_TRIALS);
				return -1;
			}
			for (a = 0; a < m->naxes; a++)
				g_hash_table_insert(bind, (char *)m->axis[a], (char *)mhlMatrixValue(y, m, a, idx[a]));
			/* a trial refused: its errors kept, the next trial's read too (a value of another axis) */
			if ((s = trialParse(y, root, m, m->naxes ? bind : NULL))) {
				g_ptr_array_add(out, s);
			} else {
				mhlYErrorKeep(y);
				bad++;
			}
			n++;
		}
		/* The odometer: the last axis turns fastest. */
		for (a = m->naxes - 1; a >= 0; a--) {
			if (++idx[a] < m->nvalues[a])
				break;
			idx[a] = 0;
		}
		if (a < 0)
			break;
	}
	if (!n) {
		mhlError("%s: the matrix's exclude rules leave no trial", y->path);
		return -1;
	}
	return bad ? -1 : n;
}

int mhlScenarioLoadAllErrors(const char *path, GPtrArray *out, GPtrArray *errors)
{
	g_autoptr(GPtrArray) templated = g_ptr_array_new();
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
	g_autofree mhlMatrix *m = g_new0(mhlMatrix, 1);
	g_autofree char *buf = NULL;
	char *before = mhlErrorSteal();
	yaml_document_t doc;
	yaml_node_t *root;
	mhlYaml y = { .path = path, .doc = &doc, .templated = templated, .errors = errors, .seen = seen };
	size_t len;
	int rc = -1;

	g_ptr_array_set_size(errors, 0);
	if (!(buf = mhlYamlRead(path, &len)) || mhlYamlLoad(path, buf, len, &doc) < 0)
		return mhlYamlLoadDone(&y, -1, before);
	root = yaml_document_get_root_node(&doc);
	if (!root)
		mhlError("%s: the scenario is empty", path);
	else if (mhlMatrixTemplated(&y) == 0 && mhlMatrixParse(&y, root, m) == 0)
		rc = matrixTrials(&y, root, m, out);
	yaml_document_delete(&doc);
	if (rc > 0 && mhlTrialLogNamesUnique(out) < 0)
		rc = -1;
	return mhlYamlLoadDone(&y, rc, before);
}

int mhlScenarioLoadAll(const char *path, GPtrArray *out)
{
	g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func(g_free);
	int n = mhlScenarioLoadAllErrors(path, out, errors);

	/* one message for run and soak: the first error, and that check lists the others */
	if (n < 0 && errors->len > 1 && !strcmp(mhlErrorLast(), errors->pdata[0]))
		mhlErrorRestore(g_strdup_printf("%s (and %u more error(s) in the file: memhp-lab check %s lists every one)",
						(const char *)errors->pdata[0], errors->len - 1, path));
	return n;
}

char *mhlTrialIdFileName(const char *id)
{
	g_autofree char *safe = g_strndup(id, 96);
	g_autofree char *sum = NULL;

	g_strcanon(safe, G_CSET_A_2_Z G_CSET_a_2_z G_CSET_DIGITS "._-", '_');
	if (!strcmp(safe, id))
		return g_steal_pointer(&safe);
	sum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, id, -1);
	return g_strdup_printf("%s-%.8s", safe, sum);
}

/*
 * A plain id that reads like a name this function makes: "-" and 8 hex
 * digits at its end (a hashed id's form), or ".attempt" anywhere (a fleet
 * retry's log). Such an id is hashed too, so no id's log is another's.
 */
static bool trialIdReserved(const char *id)
{
	size_t n = strlen(id), i;

	if (strstr(id, ".attempt"))
		return true;
	if (n < 9 || id[n - 9] != '-')
		return false;
	for (i = n - 8; i < n; i++)
		if (!g_ascii_isxdigit(id[i]))
			return false;
	return true;
}

char *mhlTrialLogName(const char *id, int attempt)
{
	g_autofree char *safe = mhlTrialIdFileName(id);

	if (!strcmp(safe, id) && trialIdReserved(id)) {
		g_autofree char *sum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, id, -1);

		g_free(safe);
		safe = g_strdup_printf("%.96s-%.8s", id, sum);
	}
	return g_strdup_printf("%s%s.console.log", safe, attempt > 1 ? ".attempt2" : "");
}

int mhlTrialLogNamesUnique(GPtrArray *trials)
{
	g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	guint i;
	int a;

	for (i = 0; i < trials->len; i++) {
		const mhlScenario *s = trials->pdata[i];

		for (a = 1; a <= 2; a++) {
			char *log = mhlTrialLogName(s->name, a);
			const mhlScenario *first = g_hash_table_lookup(seen, log);

			if (first && first != s) {
				mhlError("%s: trial '%s' and trial '%s'%s%s would share the console log '%s'; give one of them another name",
					 s->path, s->name, first->name, strcmp(first->path, s->path) ? " of " : "",
					 strcmp(first->path, s->path) ? first->path : "", log);
				g_free(log);
				return -1;
			}
			g_hash_table_insert(seen, log, (gpointer)s);
		}
	}
	return 0;
}

mhlScenario *mhlScenarioLoad(const char *path)
{
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
	int n = mhlScenarioLoadAll(path, all);

	if (n < 0)
		return NULL;
	if (n > 1) {
		mhlError("%s: the matrix makes %d trials; this needs one", path, n);
		return NULL;
	}
	return g_ptr_array_steal_index(all, 0);
}

void mhlScenarioFree(mhlScenario *s)
{
	int i;

	if (!s)
		return;
	g_free(s->path);
	g_free(s->name);
	g_free(s->scenario_name);
	for (i = 0; i < s->nparams; i++) {
		g_free(s->param_key[i]);
		g_free(s->param_val[i]);
	}
	g_free(s->kernel);
	g_free(s->kernel_image);
	g_free(s->kernel_config);
	g_free(s->kernel_package);
	g_free(s->kernel_modules);
	g_strfreev(s->host_labels);
	g_free(s->needs_reason);
	g_free(s->kernel_deb);
	g_free(s->pin_policy);
	g_free(s->cmdline);
	for (i = 0; i < s->nxfail; i++) {
		g_free(s->xfail[i].reason);
		g_free(s->xfail[i].match);
	}
	g_free(s);
}

