/*
 * sections.c - the top-level keys that are not steps: kernel, nodes,
 * devices, memory_backing, online, soak, xfail, grid, host_labels, and the
 * checks of name and cmdline.
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

#define MHL_VMEM_MIN_BLOCK (2ULL << 20)
enum { VM_SIZE, VM_BLOCK, VM_REQUESTED, VM_DYNAMIC };
static const char *const vmemKeys[] = { "size", "block", "requested", "dynamic_memslots", NULL };

/* A node's virtio_mem as read: which of its keys failed (bit per VM_*). */
typedef struct {
	mhlNode *n;
	unsigned bad;
} mhlVmemRead;

static int vmemPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlVmemRead *r = opaque;
	mhlNode *n = r->n;
	int rc;

	switch (key) {
	case VM_SIZE: rc = mhlYSize(y, v, "virtio_mem.size", &n->vmem_size); break;
	case VM_BLOCK: rc = mhlYSize(y, v, "virtio_mem.block", &n->vmem_block); break;
	case VM_DYNAMIC: rc = mhlYBool(y, v, "virtio_mem.dynamic_memslots", &n->vmem_dynamic); break;
	default: rc = mhlYSize(y, v, "virtio_mem.requested", &n->vmem_requested); break;
	}
	if (rc < 0)
		r->bad |= 1u << key;
	return rc;
}

enum { ND_MEMORY, ND_CPUS, ND_VMEM };
static const char *const nodeKeys[] = { "memory", "cpus", "virtio_mem", NULL };

static int nodePair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlNode *n = opaque;
	long l;

	switch (key) {
	case ND_MEMORY:
		if (mhlYSize(y, v, "node memory", &n->memory) < 0)
			return -1;
		if (n->memory < 16 << 20) {
			mhlError("%s:%d:%d: node memory must be at least 16MiB (QEMU refuses an empty NUMA cell)",
				 AT(y, v));
			return -1;
		}
		return 0;
	case ND_CPUS:
		if (mhlYInt(y, v, "cpus", 1, 8, &l) < 0)
			return -1;
		n->cpus = (int)l;
		return 0;
	default: {
		mhlVmemRead r = { .n = n };

		n->vmem_block = 2 << 20;
		/* each key's error kept, then the sizes checked together as far as they were read */
		if (mhlYForPairsEach(y, v, "virtio_mem", vmemKeys, vmemPair, &r, true) < 0)
			return -1;
		n->vmem_broken = true;	/* until the sizes below hold together */
		if (r.bad & (1u << VM_SIZE | 1u << VM_BLOCK)) {
			y->failed_shape++;
			return 0;
		}
		if (r.bad)	/* requested not read (its error kept): size and block are checked alone */
			n->vmem_requested = 0;
		if (!n->vmem_size || !n->vmem_block || n->vmem_block & (n->vmem_block - 1) ||
		    n->vmem_size % n->vmem_block || n->vmem_requested % n->vmem_block ||
		    n->vmem_requested > n->vmem_size) {
			g_autofree char *req = r.bad ? g_strdup("") :
				g_strdup_printf(", requested (%" G_GUINT64_FORMAT ") a multiple of block and at most size",
						n->vmem_requested);

			mhlError("%s:%d:%d: virtio_mem: size (%" G_GUINT64_FORMAT ") must be a non-zero multiple of block (%" G_GUINT64_FORMAT ", a power of two)%s",
				 AT(y, v), n->vmem_size, n->vmem_block, req);
			return -1;
		}
		/* QEMU refuses a block below the host's THP size (2 MiB on x86) */
		if (n->vmem_block < MHL_VMEM_MIN_BLOCK) {
			mhlError("%s:%d:%d: virtio_mem: block %" G_GUINT64_FORMAT " bytes is below the 2 MiB QEMU accepts on x86 (its transparent huge page size)",
				 AT(y, v), n->vmem_block);
			return -1;
		}
		n->vmem_broken = r.bad != 0;
		return 0;
	}
	}
}
/* A path in a scenario is relative to the scenario file's directory. */
static char *scenarioPath(const mhlScenario *s, const char *p)
{
	g_autofree char *dir = g_path_get_dirname(s->path);
	/* a scenario given as dir/own.yaml: its directory from the working one */
	g_autofree char *absdir = g_canonicalize_filename(dir, NULL);

	return g_canonicalize_filename(p, absdir);
}

/*
 * kernel: {bzimage: PATH, config: PATH}, a kernel the user built, with
 * modules: DIR (its lib/modules/RELEASE tree) if it is modular; or
 * {package: NAME[=VERSION]}, a Debian linux-image package, or {deb: PATH},
 * a linux-image .deb file (kernel/package.sh either way); or {version:
 * 6.12, debug: kmemleak}, the lab's kernel built with a debug flavour
 * (kernel/build.sh --flavour, kernel/config/flavours/).
 */
static const char *const prebuiltKeys[] = {
	"bzimage", "config", "package", "modules", "deb", "version", "debug", NULL
};

/* kernel: {version: 6.12|6.1, debug: FLAVOUR} */
static int flavourPair(mhlYaml *y, int key, yaml_node_t *v, mhlScenario *s)
{
	if (mhlYWantKind(y, v, YAML_SCALAR_NODE, prebuiltKeys[key]) < 0)
		return -1;
	if (key == 5) {
		if (mhlYRow(y, v, "kernel: unknown version", mhlKernelForms, NULL) < 0)
			return -1;
		g_free(s->kernel);
		s->kernel = g_strdup(mhlYScalar(y, v));
		return 0;
	}
	if (mhlYRow(y, v, "kernel: unknown debug flavour", mhlKernelFlavours, NULL) < 0)
		return -1;
	g_strlcpy(s->kernel_flavour, mhlYScalar(y, v), sizeof(s->kernel_flavour));
	return 0;
}

/* A Debian package name (linux-image-*) and an optional =VERSION: nothing else reaches apt. */
bool mhlPackageNameOk(const char *p)
{
	const char *eq = strchr(p, '=');
	size_t n = eq ? (size_t)(eq - p) : strlen(p);

	if (n <= strlen("linux-image-") || strncmp(p, "linux-image-", 12) || n > 100 ||
	    strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789.+-") != n)
		return false;
	return !eq || (g_ascii_isdigit(eq[1]) && strlen(eq + 1) <= 64 &&
		       strspn(eq + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.+~:-") ==
		       strlen(eq + 1));
}

static int prebuiltPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlScenario *s = opaque;
	char **dst = key == 0 ? &s->kernel_image : key == 1 ? &s->kernel_config :
		     key == 3 ? &s->kernel_modules : &s->kernel_deb;

	if (key >= 5)
		return flavourPair(y, key, v, s);
	if (key == 2) {
		if (mhlYWantKind(y, v, YAML_SCALAR_NODE, "package") < 0)
			return -1;
		if (!mhlPackageNameOk(mhlYScalar(y, v))) {
			mhlError("%s:%d:%d: kernel: package '%s': expected a Debian linux-image-* package name, optionally =VERSION (apt-cache search linux-image)",
				 AT(y, v), mhlYScalar(y, v));
			return -1;
		}
		g_free(s->kernel_package);
		s->kernel_package = g_strdup(mhlYScalar(y, v));
		return 0;
	}

	if (mhlYWantKind(y, v, YAML_SCALAR_NODE, prebuiltKeys[key]) < 0)
		return -1;
	if (!*mhlYScalar(y, v) || strlen(mhlYScalar(y, v)) >= PATH_MAX) {
		mhlError("%s:%d:%d: %s: expected a path of 1 to %d bytes", AT(y, v), prebuiltKeys[key],
			 PATH_MAX - 1);
		return -1;
	}
	g_free(*dst);
	*dst = scenarioPath(s, mhlYScalar(y, v));
	return 0;
}

/* Whether scalar @v's value came from a matrix axis ("${kernel}"). */
bool mhlYFromAxis(mhlYaml *y, yaml_node_t *v)
{
	return y->expanded && g_hash_table_contains(y->expanded, v);
}

int mhlSecKernel(mhlYaml *y, mhlScenario *s, yaml_node_t *v)
{
	g_free(s->kernel);
	s->kernel = NULL;
	s->kernel_flavour[0] = '\0';
	if (v->type == YAML_MAPPING_NODE) {
		if (mhlYForPairs(y, v, "kernel", prebuiltKeys, prebuiltPair, s) < 0)
			return -1;
		if (s->kernel || s->kernel_flavour[0]) {
			if (!s->kernel || !s->kernel_flavour[0] || s->kernel_package || s->kernel_deb ||
			    s->kernel_image || s->kernel_config || s->kernel_modules) {
				mhlError("%s:%d:%d: kernel: 'version' and 'debug' go together, and with nothing else (kernel: {version: 6.12, debug: kmemleak})",
					 AT(y, v));
				return -1;
			}
			return 0;
		}
		if (!!s->kernel_package + !!s->kernel_deb + !!(s->kernel_image || s->kernel_config ||
							       s->kernel_modules) > 1) {
			mhlError("%s:%d:%d: kernel: one of 'package', 'deb', or 'bzimage' and 'config' (and 'modules')",
				 AT(y, v));
			return -1;
		}
		if (s->kernel_package || s->kernel_deb) {
			s->kernel = g_strdup("package");
			return 0;
		}
		if (!s->kernel_image || !s->kernel_config) {
			mhlError("%s:%d:%d: a prebuilt kernel needs both 'bzimage' and 'config'",
				 AT(y, v));
			return -1;
		}
		s->kernel = g_strdup("prebuilt");
		return 0;
	}
	if (mhlYWantKind(y, v, YAML_SCALAR_NODE, "kernel") < 0)
		return -1;
	if (mhlYRow(y, v, "unknown kernel", mhlKernelForms,
		    ", {package: linux-image-NAME}, or {bzimage: PATH, config: PATH}") < 0)
		return -1;
	s->kernel_from_axis = mhlYFromAxis(y, v);
	s->kernel = g_strdup(mhlYScalar(y, v));
	return 0;
}

/* devices: {iommu: BOOL, edu: BOOL}, extra guest devices for the vfio workloads. */
static const char *const deviceKeys[] = { "iommu", "edu", "balloon", "free_page_reporting", NULL };

static int devicePair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlScenario *s = opaque;

	if (mhlYWantKind(y, v, YAML_SCALAR_NODE, deviceKeys[key]) < 0)
		return -1;
	if (strcmp(mhlYScalar(y, v), "true") && strcmp(mhlYScalar(y, v), "false")) {
		mhlError("%s:%d:%d: devices: %s: expected true or false, not '%s'", AT(y, v),
			 deviceKeys[key], mhlYScalar(y, v));
		return -1;
	}
	if (key == 3)	/* free_page_reporting: the balloon's, on unless false */
		s->balloon_no_reporting = !strcmp(mhlYScalar(y, v), "false");
	else
		*(key == 0 ? &s->iommu : key == 1 ? &s->edu : &s->balloon) = !strcmp(mhlYScalar(y, v), "true");
	return 0;
}

/*
 * name: the trial id's first part and the default run directory
 * results/<name>-<time>: [A-Za-z0-9._-], not starting with '.', so it stays
 * one file name under results/.
 */
int mhlSecNameCheck(mhlYaml *y, yaml_node_t *v)
{
	const char *name = mhlYScalar(y, v);
	size_t len = strlen(name);

	if (len && len <= MHL_MAX_NAME_LEN && name[0] != '.' &&
	    strspn(name, ID_CHARS ".") == len)
		return 0;
	mhlError("%s:%d:%d: name '%s': expected 1 to %d of A-Z, a-z, 0-9, '.', '_' and '-', not starting with '.' (it names the run directory)",
		 AT(y, v), name, MHL_MAX_NAME_LEN);
	return -1;
}

/*
 * cmdline: kernel parameters on one line, at most MHL_MAX_CMDLINE bytes (the
 * x86 kernel takes 2048 in all, ours included); a control character has no
 * place there (nor in the domain XML).
 */
int mhlSecCmdlineCheck(mhlYaml *y, yaml_node_t *v)
{
	const unsigned char *c;

	if (strlen(mhlYScalar(y, v)) > MHL_MAX_CMDLINE) {
		mhlError("%s:%d:%d: cmdline: %zu bytes; at most %d (the guest kernel's command line is 2048 bytes in all)",
			 AT(y, v), strlen(mhlYScalar(y, v)), MHL_MAX_CMDLINE);
		return -1;
	}
	for (c = (const unsigned char *)mhlYScalar(y, v); *c; c++) {
		if (*c < 0x20 || *c == 0x7f) {
			mhlError("%s:%d:%d: cmdline: control character 0x%02x at offset %td (kernel parameters are one line of printable text)",
				 AT(y, v), *c, (const char *)c - mhlYScalar(y, v));
			return -1;
		}
	}
	return 0;
}

/*
 * memory_backing: SOURCE, or {source: SOURCE, pagesize: 2MiB|1GiB, prealloc:
 * BOOL}: how the host backs the guest's memory, virtio-mem's included.
 */
/* its sources: scenario/names.c's mhlMemBackings[] */
static const char *const backingKeys[] = { "source", "pagesize", "prealloc", NULL };

static int backingSource(mhlYaml *y, yaml_node_t *v, mhlScenario *s)
{
	if (mhlYWantKind(y, v, YAML_SCALAR_NODE, "memory_backing source") < 0)
		return -1;
	if (mhlYRow(y, v, "memory_backing: unknown source", mhlMemBackings, NULL) < 0)
		return -1;
	g_strlcpy(s->backing, mhlYScalar(y, v), sizeof(s->backing));
	return 0;
}

static int backingPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlScenario *s = opaque;

	switch (key) {
	case 0:
		return backingSource(y, v, s);
	case 1:
		if (mhlYSize(y, v, "memory_backing.pagesize", &s->hugepage_size) < 0)
			return -1;
		if (s->hugepage_size != 2ULL << 20 && s->hugepage_size != 1ULL << 30) {
			mhlError("%s:%d:%d: memory_backing: pagesize: 2MiB or 1GiB (x86's hugepage sizes), not '%s'",
				 AT(y, v), mhlYScalar(y, v));
			return -1;
		}
		return 0;
	default:
		return mhlYBool(y, v, "memory_backing.prealloc", &s->prealloc);
	}
}

int mhlSecBacking(mhlYaml *y, mhlScenario *s, yaml_node_t *v)
{
	if (v->type == YAML_SCALAR_NODE)
		return backingSource(y, v, s);
	if (mhlYForPairs(y, v, "memory_backing", backingKeys, backingPair, s) < 0)
		return -1;
	if (s->hugepage_size && !mhlMemBackingOf(s->backing)->hugetlb) {
		mhlError("%s:%d:%d: memory_backing: pagesize needs source: hugepages", AT(y, v));
		return -1;
	}
	return 0;
}

/*
 * online: POLICY (a row of scenario/names.c's mhlOnlinePolicies[]), or
 * {policy: auto-movable, ratio: N}: how the guest onlines what virtio-mem
 * plugs. as-shipped leaves the kernel's own default (a Debian kernel leaves
 * hotplugged memory offline).
 */
static const char *const onlineKeys[] = { "policy", "ratio", NULL };

static int onlinePolicy(mhlYaml *y, yaml_node_t *v, mhlScenario *s)
{
	if (mhlYWantKind(y, v, YAML_SCALAR_NODE, "online") < 0)
		return -1;
	if (mhlYRow(y, v, "online: unknown policy", mhlOnlinePolicies, NULL) < 0)
		return -1;
	g_strlcpy(s->online, mhlYScalar(y, v), sizeof(s->online));
	return 0;
}

static int onlinePair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlScenario *s = opaque;
	long l;

	if (key == 0)
		return onlinePolicy(y, v, s);
	if (mhlYInt(y, v, "online.ratio", 1, 10000, &l) < 0)
		return -1;
	s->online_ratio = (int)l;
	return 0;
}

int mhlSecOnline(mhlYaml *y, mhlScenario *s, yaml_node_t *v)
{
	if (v->type == YAML_SCALAR_NODE)
		return onlinePolicy(y, v, s);
	if (mhlYForPairs(y, v, "online", onlineKeys, onlinePair, s) < 0)
		return -1;
	if (s->online_ratio && !mhlOnlinePolicyOf(s->online)->ratio) {
		mhlError("%s:%d:%d: online: ratio needs policy: auto-movable", AT(y, v));
		return -1;
	}
	return 0;
}

/*
 * soak: {leak: io_uring, every: K, budgets: {SERIES: SIZE, ...}, judge_after:
 * SECONDS}: what a
 * `memhp-lab soak` of this guest adds (docs/soak.md); `run` ignores it.
 */
const char *const mhlSoakSeriesNames[] = {
	"slab_unreclaimable_bytes", "slab_reclaimable_bytes", "vmalloc_bytes", "page_tables_bytes",
	"percpu_bytes", "kernel_stack_bytes", "hugetlb_bytes", "mem_free_bytes", "online_gap_bytes",
	"qemu_rss_bytes", "guest_ram_bytes", "tcg_code_bytes", "qemu_own_bytes", "orchestrator_rss_bytes", "run_dir_bytes", NULL
};
static const char *const soakKeys[] = { "leak", "every", "budgets", "judge_after", NULL };

static int soakBudgetPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlScenario *s = opaque;
	g_autofree char *what = g_strdup_printf("soak.budgets.%s", mhlSoakSeriesNames[key]);

	if (mhlYSize(y, v, what, &s->soak_budget[key]) < 0)
		return -1;
	s->soak_budget_set[key] = true;
	return 0;
}

static int soakPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlScenario *s = opaque;
	long l;

	switch (key) {
	case 0:
		if (mhlYWantKind(y, v, YAML_SCALAR_NODE, "soak.leak") < 0)
			return -1;
		if ((l = mhlYRow(y, v, "soak.leak: unknown leak", mhlSoakLeaks, NULL)) < 0)
			return -1;
		g_strlcpy(s->soak_leak, l ? mhlYScalar(y, v) : "", sizeof(s->soak_leak));	/* row 0: none */
		return 0;
	case 1:
		if (mhlYInt(y, v, "soak.every", 1, 100000, &l) < 0)
			return -1;
		s->soak_every = (int)l;
		return 0;
	case 2:
		return mhlYForPairs(y, v, "soak.budgets", mhlSoakSeriesNames, soakBudgetPair, s);
	default:
		return mhlYSeconds(y, v, "soak.judge_after", &s->soak_judge_after);
	}
}

/*
 * xfail: [{kernel: K, policy: P, reason: WHY, match: REGEX}, ...]: the known
 * deviations (mhlDeviation). reason is required; kernel, policy and match
 * narrow where and how the trial is expected to fail.
 */
enum { XF_KERNEL, XF_POLICY, XF_REASON, XF_MATCH };
const char *const mhlXfailKeys[] = { "kernel", "policy", "reason", "match", NULL };

/* One line of printable text, 1 to MHL_MAX_XFAIL_TEXT bytes. */
static int xfailText(mhlYaml *y, yaml_node_t *v, const char *what, char **out)
{
	const char *t;
	const unsigned char *c;

	if (mhlYWantKind(y, v, YAML_SCALAR_NODE, what) < 0)
		return -1;
	t = mhlYScalar(y, v);
	if (!*t || strlen(t) > MHL_MAX_XFAIL_TEXT || !g_utf8_validate(t, -1, NULL)) {
		mhlError("%s:%d:%d: %s must be 1 to %d bytes of UTF-8", AT(y, v), what, MHL_MAX_XFAIL_TEXT);
		return -1;
	}
	for (c = (const unsigned char *)t; *c; c++)
		if (*c < 0x20 || *c == 0x7f) {
			mhlError("%s:%d:%d: %s must be one line without control characters", AT(y, v), what);
			return -1;
		}
	g_free(*out);
	*out = g_strdup(t);
	return 0;
}

static int xfailPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlDeviation *d = opaque;
	g_autoptr(GError) err = NULL;
	g_autoptr(GRegex) re = NULL;

	switch (key) {
	case XF_KERNEL:
		return mhlYName(y, v, "xfail kernel", mhlKernelForms, d->kernel, sizeof(d->kernel));
	case XF_POLICY:
		return mhlYName(y, v, "xfail policy", mhlPinPolicies, d->policy, sizeof(d->policy));
	case XF_REASON:
		return xfailText(y, v, "xfail reason", &d->reason);
	case XF_MATCH:
	default:
		if (xfailText(y, v, "xfail match", &d->match) < 0)
			return -1;
		if (!(re = g_regex_new(d->match, 0, 0, &err))) {
			mhlError("%s:%d:%d: xfail match '%s' is not a regular expression: %s", AT(y, v),
				 d->match, err->message);
			return -1;
		}
		return 0;
	}
}

int mhlSecXfail(mhlYaml *y, mhlScenario *s, yaml_node_t *v)
{
	yaml_node_item_t *it;

	if (mhlYWantKind(y, v, YAML_SEQUENCE_NODE, "xfail") < 0)
		return -1;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *n = yaml_document_get_node(y->doc, *it);
		mhlDeviation *d;

		if (s->nxfail >= MHL_MAX_XFAIL) {
			mhlError("%s:%d:%d: more than %d xfail entries", AT(y, n), MHL_MAX_XFAIL);
			return -1;
		}
		d = &s->xfail[s->nxfail++];
		d->line = (int)n->start_mark.line + 1;
		d->col = (int)n->start_mark.column + 1;
		if (mhlYForPairs(y, n, "an xfail entry", mhlXfailKeys, xfailPair, d) < 0)
			return -1;
		if (!d->reason) {
			mhlError("%s:%d:%d: an xfail entry needs 'reason' (why the trial is expected to fail)",
				 AT(y, n));
			return -1;
		}
	}
	return 0;
}

static bool deviationApplies(const mhlScenario *s, const mhlDeviation *d)
{
	return (!d->kernel[0] || !g_strcmp0(d->kernel, s->kernel)) &&
	       (!d->policy[0] || !g_strcmp0(d->policy, s->pin_policy));
}

const mhlDeviation *mhlScenarioDeviation(const mhlScenario *s, const char *reason)
{
	int i;

	for (i = 0; i < s->nxfail; i++) {
		const mhlDeviation *d = &s->xfail[i];

		if (!deviationApplies(s, d))
			continue;
		if (!reason || !d->match || g_regex_match_simple(d->match, reason, 0, 0))
			return d;
	}
	return NULL;
}

/*
 * grid: {label: TEXT, policy: P, vmstat: NAME | path: PATH | ratio: [PATH, PATH]}
 * or a list of them (mhlGridSpec).
 */
enum { GR_LABEL, GR_POLICY, GR_VMSTAT, GR_PATH, GR_RATIO };
const char *const mhlGridKeys[] = { "label", "policy", "vmstat", "path", "ratio", NULL };

/* A record path: 1 to MHL_MAX_GRID_PATH bytes, components of [A-Za-z0-9_] between dots. */
static int gridPath(mhlYaml *y, yaml_node_t *v, const char *what, char *out)
{
	const char *t, *p;

	if (mhlYWantKind(y, v, YAML_SCALAR_NODE, what) < 0)
		return -1;
	t = mhlYScalar(y, v);
	for (p = t; *p; p++)
		if (!(g_ascii_isalnum(*p) || *p == '_' || (*p == '.' && p > t && p[1] && p[1] != '.')))
			break;
	if (!*t || *p || strlen(t) > MHL_MAX_GRID_PATH) {
		mhlError("%s:%d:%d: %s '%s' is not a record path (1 to %d bytes: names of [A-Za-z0-9_] or array indexes, between dots)",
			 AT(y, v), what, t, MHL_MAX_GRID_PATH);
		return -1;
	}
	g_strlcpy(out, t, MHL_MAX_GRID_PATH + 1);
	return 0;
}

static int gridPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlGridSpec *g = opaque;
	const unsigned char *c;
	yaml_node_t *a, *b;

	switch (key) {
	case GR_LABEL:
		if (mhlYWantKind(y, v, YAML_SCALAR_NODE, "grid label") < 0)
			return -1;
		if (!*mhlYScalar(y, v) || strlen(mhlYScalar(y, v)) > MHL_MAX_GRID_LABEL || !g_utf8_validate(mhlYScalar(y, v), -1, NULL)) {
			mhlError("%s:%d:%d: grid label must be 1 to %d bytes of UTF-8", AT(y, v), MHL_MAX_GRID_LABEL);
			return -1;
		}
		for (c = (const unsigned char *)mhlYScalar(y, v); *c; c++)
			if (*c < 0x20 || *c == 0x7f) {
				mhlError("%s:%d:%d: grid label must be one line without control characters", AT(y, v));
				return -1;
			}
		g_strlcpy(g->label, mhlYScalar(y, v), sizeof(g->label));
		return 0;
	case GR_POLICY:
		return mhlYName(y, v, "grid policy", mhlPinPolicies, g->policy, sizeof(g->policy));
	case GR_VMSTAT:
		if (gridPath(y, v, "grid vmstat", g->a) < 0)
			return -1;
		if (strchr(g->a, '.')) {
			mhlError("%s:%d:%d: grid vmstat '%s' is not a /proc/vmstat name", AT(y, v), g->a);
			return -1;
		}
		g->kind = MHL_GRID_VMSTAT;
		return 0;
	case GR_PATH:
		g->kind = MHL_GRID_PATH;
		return gridPath(y, v, "grid path", g->a);
	case GR_RATIO:
	default:
		if (mhlYWantKind(y, v, YAML_SEQUENCE_NODE, "grid ratio") < 0)
			return -1;
		if (v->data.sequence.items.top - v->data.sequence.items.start != 2) {
			mhlError("%s:%d:%d: grid ratio: two record paths, [DIVIDEND, DIVISOR]", AT(y, v));
			return -1;
		}
		a = yaml_document_get_node(y->doc, v->data.sequence.items.start[0]);
		b = yaml_document_get_node(y->doc, v->data.sequence.items.start[1]);
		g->kind = MHL_GRID_RATIO;
		return gridPath(y, a, "grid ratio", g->a) < 0 || gridPath(y, b, "grid ratio", g->b) < 0 ? -1 : 0;
	}
}

static int gridEntry(mhlYaml *y, mhlScenario *s, yaml_node_t *n)
{
	mhlGridSpec *g;
	yaml_node_pair_t *p;
	int sources = 0;

	if (s->ngrid >= MHL_MAX_GRID) {
		mhlError("%s:%d:%d: more than %d grid entries", AT(y, n), MHL_MAX_GRID);
		return -1;
	}
	g = &s->grid[s->ngrid++];
	if (mhlYForPairs(y, n, "a grid entry", mhlGridKeys, gridPair, g) < 0)
		return -1;
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const char *k = mhlYScalar(y, yaml_document_get_node(y->doc, p->key));

		sources += !strcmp(k, "vmstat") || !strcmp(k, "path") || !strcmp(k, "ratio");
	}
	if (!g->label[0] || sources != 1) {
		mhlError("%s:%d:%d: a grid entry needs a label and one of vmstat, path or ratio", AT(y, n));
		return -1;
	}
	return 0;
}

int mhlSecGrid(mhlYaml *y, mhlScenario *s, yaml_node_t *v)
{
	yaml_node_item_t *it;

	if (v->type == YAML_MAPPING_NODE)
		return gridEntry(y, s, v);
	if (mhlYWantKind(y, v, YAML_SEQUENCE_NODE, "grid") < 0)
		return -1;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *n = yaml_document_get_node(y->doc, *it);

		if (mhlYWantKind(y, n, YAML_MAPPING_NODE, "a grid entry") < 0 || gridEntry(y, s, n) < 0)
			return -1;
	}
	return 0;
}

const mhlGridSpec *mhlScenarioGrid(const mhlScenario *s)
{
	int i;

	for (i = 0; i < s->ngrid; i++)
		if (!s->grid[i].policy[0] || !g_strcmp0(s->grid[i].policy, s->pin_policy))
			return &s->grid[i];
	return NULL;
}

const char *mhlStepLabFlavour(const mhlStep *st)
{
	int m = st->type == MHL_STEP_PIN ? mhlNameIndex(mhl_pin_modes, st->workload) : -1;
	const struct mhl_pin_kconfig *k;

	for (k = m >= 0 ? mhl_pin_modes[m].kconfig : NULL; k && k->opt; k++)
		if (!strcmp(k->opt, MHL_KERNEL_FLAVOUR_RDMA_OPT))
			return MHL_KERNEL_FLAVOUR_RDMA;
	return NULL;
}

const char *mhlScenarioKernelFlavour(const mhlScenario *s)
{
	int i;

	if (mhlNameIndex(mhlKernelForms, s->kernel) < 0 || s->kernel_flavour[0])
		return s->kernel_flavour;
	for (i = 0; i < s->nsteps; i++)
		if (mhlStepLabFlavour(&s->steps[i]))
			return MHL_KERNEL_FLAVOUR_RDMA;
	return "";
}

/* host_labels: [a, b]: a fleet run puts the trial only on a host with every one (docs/fleet.md). */
enum { SN_QEMU, SN_LIBVIRT, SN_REASON };
const char *const mhlStackNeedsKeys[] = { "qemu", "libvirt", "reason", NULL };

/* "MAJOR.MINOR[.MICRO]" as libvirt counts versions (MAJOR*1000000 + MINOR*1000 + MICRO). */
static int stackVersion(mhlYaml *y, yaml_node_t *v, const char *what, unsigned long *out)
{
	const char *t;
	unsigned int a = 0, b = 0, c = 0;
	int n = 0;

	if (mhlYWantKind(y, v, YAML_SCALAR_NODE, what) < 0)
		return -1;
	t = mhlYScalar(y, v);
	if (strspn(t, G_CSET_DIGITS ".") != strlen(t) || (sscanf(t, "%3u.%3u%n.%3u%n", &a, &b, &n, &c, &n) < 2) ||
	    (size_t)n != strlen(t) || a > 999 || b > 999 || c > 999) {
		mhlError("%s:%d:%d: %s '%s' is not a version MAJOR.MINOR[.MICRO] (e.g. \"8.1\")", AT(y, v), what, t);
		return -1;
	}
	*out = a * 1000000UL + b * 1000UL + c;
	return 0;
}

static int stackNeedsPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlScenario *s = opaque;

	switch (key) {
	case SN_QEMU:
		return stackVersion(y, v, "stack_needs qemu", &s->needs_qemu);
	case SN_LIBVIRT:
		return stackVersion(y, v, "stack_needs libvirt", &s->needs_libvirt);
	case SN_REASON:
	default:
		return xfailText(y, v, "stack_needs reason", &s->needs_reason);
	}
}

int mhlSecStackNeeds(mhlYaml *y, mhlScenario *s, yaml_node_t *v)
{
	s->needs_line = (int)v->start_mark.line + 1;
	if (mhlYForPairs(y, v, "stack_needs", mhlStackNeedsKeys, stackNeedsPair, s) < 0)
		return -1;
	if (!s->needs_reason || (!s->needs_qemu && !s->needs_libvirt)) {
		mhlError("%s:%d:%d: stack_needs needs 'reason' and 'qemu' or 'libvirt' (the least version the scenario's subject exists in)",
			 AT(y, v));
		return -1;
	}
	return 0;
}

int mhlSecHostLabels(mhlYaml *y, mhlScenario *s, yaml_node_t *v)
{
	g_autoptr(GPtrArray) l = g_ptr_array_new_with_free_func(g_free);
	yaml_node_item_t *it;

	if (mhlYWantKind(y, v, YAML_SEQUENCE_NODE, "host_labels") < 0)
		return -1;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *n = yaml_document_get_node(y->doc, *it);
		const char *l1;

		if (mhlYWantKind(y, n, YAML_SCALAR_NODE, "a host label") < 0)
			return -1;
		l1 = mhlYScalar(y, n);
		if (!*l1 || strlen(l1) > 64 || strspn(l1, G_CSET_A_2_Z G_CSET_a_2_z G_CSET_DIGITS "._-") != strlen(l1)) {
			mhlError("%s:%d:%d: host_labels: '%s' is not a label (1 to 64 of [A-Za-z0-9._-])", AT(y, n), l1);
			return -1;
		}
		if (l->len >= 16) {
			mhlError("%s:%d:%d: host_labels: more than 16 labels", AT(y, n));
			return -1;
		}
		g_ptr_array_add(l, g_strdup(l1));
	}
	g_ptr_array_add(l, NULL);
	g_strfreev(s->host_labels);
	s->host_labels = (char **)g_ptr_array_free(g_steal_pointer(&l), FALSE);
	return 0;
}

/* Node s->nnodes from mapping @n. */
static int parseNode(mhlYaml *y, mhlScenario *s, yaml_node_t *n)
{
	mhlNode *node = &s->nodes[s->nnodes];

	node->cpus = 1;
	if (mhlYForPairs(y, n, "a node", nodeKeys, nodePair, node) < 0)
		return -1;
	if (!node->memory) {
		mhlError("%s:%d:%d: node %d needs 'memory'", AT(y, n), s->nnodes);
		return -1;
	}
	return 0;
}

/* nodes: [{memory, cpus, virtio_mem}, ...], one NUMA cell each, in order. */
int mhlSecNodes(mhlYaml *y, mhlScenario *s, yaml_node_t *v)
{
	yaml_node_item_t *it;

	if (mhlYWantKind(y, v, YAML_SEQUENCE_NODE, "nodes") < 0)
		return -1;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *n = yaml_document_get_node(y->doc, *it);

		if (s->nnodes >= MHL_MAX_NODES) {
			mhlError("%s:%d:%d: more than %d nodes", AT(y, n), MHL_MAX_NODES);
			return -1;
		}
		/* a node that fails is kept (mhlYErrorKeep) and counted: the next is still node N+1 */
		if (parseNode(y, s, n) < 0)
			mhlYErrorKeep(y);
		s->nnodes++;
	}
	return 0;
}


int mhlSecDevices(mhlYaml *y, mhlScenario *s, yaml_node_t *v)
{
	return mhlYForPairs(y, v, "devices", deviceKeys, devicePair, s);
}

int mhlSecSoak(mhlYaml *y, mhlScenario *s, yaml_node_t *v)
{
	return mhlYForPairs(y, v, "soak", soakKeys, soakPair, s);
}
