/*
 * names.h - the scenario's closed sets of names, one table each with the
 * properties of every name (systemd's string tables, lsmem's column
 * descriptors): what a memory backing asks of libvirt and of the host, what
 * an online policy puts on the guest's command line, the kernel forms, the
 * pin policies, and the small lists of the scenario's keys (until, unplug,
 * soak.leak, kernel debug flavour, guest). memhp-pin's own sets (the pin
 * modes, the buffer's backing, touch, split) are lib/mhl-pin.h, shared with
 * the workload. Every "known: a, b, c" and every list in usage and docs is
 * made from these rows (mhlNamesKnown); the other folders ask a row for a
 * property instead of comparing a name.
 */
#ifndef MHL_SCENARIO_NAMES_H
#define MHL_SCENARIO_NAMES_H

#include <glib.h>
#include <stdbool.h>

#include "mhl-names.h"
#include "mhl-pin.h"

/* How QEMU's mapping of a backend shows in /proc/PID/smaps (guest/hostmem.c). */
typedef enum {
	MHL_SMAPS_NO_PATH,	/* anonymous memory: no path; found by size and order */
	MHL_SMAPS_PREFIX,	/* a path starting with smaps_prefix, naming no backend ("/memfd:"): by size and order */
	MHL_SMAPS_FILE,		/* a file named after its backend (QEMU's or libvirt's name) */
} mhlSmapsKind;

/* memory_backing: source (libvirt's <memoryBacking>; docs/scenarios.md). */
typedef struct {
	const char *name;
	const char *xml;	/* its lines inside <memoryBacking> (guest/domain.c); "" none */
	bool hugetlb;		/* on host hugepages: <hugepages> of pagesize, the host's pool (host/hugepages.c),
				 * and every byte of the guest resident from the start */
	bool fleet;		/* a fleet host (--host) can give it: it needs no path set up on this machine */
	mhlSmapsKind smaps;	/* how its mapping is found in QEMU's smaps */
	const char *smaps_prefix;	/* MHL_SMAPS_PREFIX: the path's start */
} mhlMemBacking;

typedef enum { MHL_MEM_ANONYMOUS, MHL_MEM_MEMFD, MHL_MEM_FILE, MHL_MEM_HUGEPAGES, MHL_MEM_LAST } mhlMemBackingId;
extern const mhlMemBacking mhlMemBackings[MHL_MEM_LAST];
/* The row of backing @name; the default (anonymous) for "" or a name no row has. */
const mhlMemBacking *mhlMemBackingOf(const char *name);
/* "anonymous or memfd": the backings a fleet host can give, for a refusal (g_free it). */
char *mhlMemBackingsFleet(void);

/* online: how the guest onlines what virtio-mem plugs (its kernel command line). */
typedef struct {
	const char *name;
	const char *cmdline;	/* kernel parameters, each after a space; "" none */
	bool ratio;		/* takes online: {ratio: N} (memory_hotplug.auto_movable_ratio) */
	double online_wait;	/* s after plugged for the guest to online it (trial/step-resize.c) */
} mhlOnlinePolicy;

typedef enum { MHL_ONLINE_MOVABLE, MHL_ONLINE_KERNEL, MHL_ONLINE_AUTO_MOVABLE, MHL_ONLINE_AS_SHIPPED,
	       MHL_ONLINE_LAST } mhlOnlinePolicyId;
extern const mhlOnlinePolicy mhlOnlinePolicies[MHL_ONLINE_LAST];
/* The row of policy @name; the default (movable) for "" or a name no row has. */
const mhlOnlinePolicy *mhlOnlinePolicyOf(const char *name);

/* pin_policy: whether the guest kernel runs the series' pin-in-place rule. */
typedef struct {
	const char *name;
	bool series;		/* the series' rule: no pinned page stays in ZONE_MOVABLE (trial/step-pin.c) */
	const char *cmdline;	/* kernel parameters for it, each after a space; "" none */
} mhlPinPolicy;

typedef enum { MHL_POLICY_SERIES, MHL_POLICY_BASELINE, MHL_POLICY_LAST } mhlPinPolicyId;
extern const mhlPinPolicy mhlPinPolicies[MHL_POLICY_LAST];
/* The row of policy @name; the default (series) for NULL or a name no row has. */
const mhlPinPolicy *mhlPinPolicyOf(const char *name);

/*
 * stack: the hypervisor stack (QEMU and libvirt) a trial runs on
 * (docs/stacks.md). debian: the host's own, through the embedded driver (or
 * --uri); a stack the lab builds: a root of its own in
 * $MEMHP_CACHE/stacks/NAME (stacks/build.sh), its libvirtd started by the
 * run in namespaces of its own (stacks/host.sh, host/stack.c). A run with
 * --uri records the stack "uri" (MHL_STACK_URI): a team's own daemon.
 */
typedef struct {
	const char *name;
	bool built;		/* the lab builds its root (stacks/build.sh NAME) and starts its daemon */
	const char *what;	/* for messages and docs: what QEMU and libvirt it is */
} mhlStack;

typedef enum { MHL_STACK_DEBIAN, MHL_STACK_BACKPORTS, MHL_STACK_LAST } mhlStackId;
extern const mhlStack mhlStacks[MHL_STACK_LAST];
/* The row of stack @name; the default (debian) for NULL or a name no row has. */
const mhlStack *mhlStackOf(const char *name);
/* What a run against --uri records as its stack: the daemon's, whatever it is. */
#define MHL_STACK_URI "uri"

/* kernel: the lab's kernels by version (kernel/build.sh), in the order lists name them. */
extern const char *const mhlKernelForms[3];
/*
 * Key tables a parser owns beside its enum (NULL-terminated): what a
 * census_before/census_after may count (steps.c), an xfail entry's and a
 * grid entry's keys (sections.c, in the order of their XF_* and GR_*
 * enums). tests/doc-tables.py reads them against docs/scenarios.md;
 * tests/unit/scenario.c writes the lists a refusal must give out by hand,
 * so that a name dropped from a table is seen.
 */
extern const char *const mhlCensusKeys[];
extern const char *const mhlXfailKeys[];
extern const char *const mhlStackNeedsKeys[];
extern const char *const mhlGridKeys[];
/* kernel: {debug: FLAVOUR}: kernel/config/flavours/. */
extern const char *const mhlKernelFlavours[1];
/*
 * The flavour of the lab's kernel a trial takes without naming it when a
 * step needs RDMA (kernel/config/flavours/rdma.config: IPv4, the RDMA core
 * and soft-RoCE, 14 % of a build that only RDMA pins use).
 */
#define MHL_KERNEL_FLAVOUR_RDMA "rdma"
/* The option that makes a step need it (a pin mode's kconfig row, lib/mhl-pin.h), and a build have it. */
#define MHL_KERNEL_FLAVOUR_RDMA_OPT "RDMA_RXE"
/* guest: the guest's userspace: the lab's initramfs, or Debian's own (workloads/debian-guest.sh). */
extern const char *const mhlGuestNames[2];
/* soak: {leak: L}: "none", or what one more kernel object per cycle is (memhp-pin leak). */
extern const char *const mhlSoakLeaks[3];
/* wait: {until: U}, by MHL_UNTIL_*; expect: {unplug: U}, by MHL_UNPLUG_*. */
extern const char *const mhlUntilNames[2];
extern const char *const mhlUnplugNames[3];
/* reboot: {how: H}, by MHL_REBOOT_*. */
extern const char *const mhlRebootHows[2];
/* dimm, vmem: {action: A}, by MHL_ACTION_*; expect: {dimm: D}, by MHL_DIMM_*. */
extern const char *const mhlActionNames[2];
extern const char *const mhlDimmOutcomes[3];

/* The names of table @rows (an array), "a, b, c" (newly allocated), for "known: ..." and usage. */
#define mhlNamesKnown(rows) mhlNamesJoin(MHL_ROWS(rows), ", ")
char *mhlNamesJoin(const void *rows, size_t n, size_t stride, const char *sep);
/* The index of @name in table @rows (an array), or -1. */
#define mhlNameIndex(rows, name) mhl_name_index(rows, name)

#endif
