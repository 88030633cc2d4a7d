/* scenario.h - scenario files (YAML): the guest and the ordered steps. */
#ifndef MHL_SCENARIO_H
#define MHL_SCENARIO_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <yaml.h>

#define MHL_MAX_NODES 4
#define MHL_MAX_STEPS 64
#define MHL_MAX_AXES 8
#define MHL_MAX_VMSTAT 8
#define MHL_MAX_CENSUS 8
#define MHL_STEP_KEYS 64	/* the keys of all step kinds together (steps.c's stepKeys[]) */
#define MHL_MAX_TRIALS 1024

/*
 * What a scenario file may ask of the loader, checked before the work it
 * would cost: the file's size, how deep lists and mappings nest, anchors
 * (libyaml looks each one up linearly), the matrix's combinations before its
 * excludes and its exclude rules, ${axis} substitutions, a matrix value's
 * length and a scalar's after substitution.
 */
#define MHL_SCENARIO_MAX_BYTES (1 << 20)
#define MHL_SCENARIO_MAX_DEPTH 32
#define MHL_SCENARIO_MAX_ANCHORS 256
#define MHL_MAX_COMBINATIONS 100000
#define MHL_MAX_EXCLUDES 256
#define MHL_MAX_SUBSTITUTIONS 1024
#define MHL_MAX_VALUE_LEN 256
#define MHL_MAX_EXPANDED_LEN 4096
#define MHL_MAX_NAME_LEN 64	/* name: [A-Za-z0-9._-], not starting with '.' */
#define MHL_MAX_CMDLINE 1024	/* cmdline: printable, on one line */
#define MHL_MAX_EXEC_ARGS 32	/* exec: argv entries, argv[0] included */
#define MHL_MAX_EXEC_BYTES 1024	/* exec: argv's bytes, a NUL after each */

typedef enum {
	MHL_STEP_PIN,		/* start a pinning workload, keep its holder */
	MHL_STEP_RESIZE,	/* change <requested> of a node's virtio-mem */
	MHL_STEP_CHECK,		/* census + pattern check of a held buffer */
	MHL_STEP_RELEASE,	/* release the pins of a workload */
	MHL_STEP_SNAPSHOT,	/* collect guest counters */
	MHL_STEP_EXPECT,	/* assertions on the outcome so far */
	MHL_STEP_BENCH,		/* gup_test's long-term pin benchmark (pin, time, unpin) */
	MHL_STEP_SYSRQ,		/* write a key to /proc/sysrq-trigger (c: crash the guest) */
	MHL_STEP_WAIT,		/* sleep, or until a condition, with the console watcher on */
	MHL_STEP_IO,		/* exercise a held buffer through its pinning path, check the data */
	MHL_STEP_SELFTEST,	/* run one of the kselftests the guest image carries, by name */
	MHL_STEP_EXEC,		/* run a program in the guest: argv, no shell, a deadline */
	MHL_STEP_REBOOT,	/* reboot the guest (host: virDomainReboot, guest: from inside), replug */
	MHL_STEP_SUSPEND,	/* pause the guest S seconds (a resize asked meanwhile), resume, converge */
	MHL_STEP_MIGRATE,	/* live-migrate the guest to a peer libvirt daemon (--peer NAME=URI); the trial goes on there */
	MHL_STEP_SAVE,		/* virDomainSave to a file in the run directory, restore, resume */
	MHL_STEP_MANAGEDSAVE,	/* defined for the step: managed save, start, undefined again */
	MHL_STEP_DAEMON_RESTART,	/* the run's libvirt daemon restarted under the guest (run --daemon-restart), reconnected */
	MHL_STEP_HUGEPAGES,	/* the guest's huge page pool on a node set to count pages of size (nr_hugepages) */
	MHL_STEP_BALLOON,	/* virtio-balloon: the guest's memory to a target (virDomainSetMemoryFlags) */
	MHL_STEP_DIMM,		/* attach or detach a <memory model='dimm'> (ACPI memory hotplug), by id */
	MHL_STEP_VMEM,		/* attach or detach a <memory model='virtio-mem'> on a running guest, by id */
	MHL_STEP_LAST
} mhlStepType;

extern const char *const mhlStepTypeNames[MHL_STEP_LAST];
/* selftest: {name: N}: the kselftests in the guest image's /bin/ksft/ (step-selftest.c). */
extern const char *const mhlSelftestNames[];

typedef struct {
	mhlStepType type;
	int line;		/* scenario line, for messages */
	int col;		/* and column (of the step's kind) */
	struct {
		int line, col;	/* where the step gives this key (line 0: it does not) */
	} key_at[MHL_STEP_KEYS];	/* by steps.c's stepKeys[] index */
	char id[32];		/* workload id: pin, check, release; [A-Za-z0-9_-], 1 to 31 */
	char workload[16];	/* pin: a mode of lib/mhl-pin.h (default: gup) */
	char backing[16];	/* pin: a backing of lib/mhl-pin.h (default: anon) */
	char touch[8];		/* pin: pages faulted "before" the pin (default), by the "pin",
				 * or only "read" before it (never written; a read-only pin) */
	char split[16];		/* pin, thp: "mprotect" or "munmap" splits each PMD first ("" = no) */
	uint64_t scatter;	/* pin: one 4 KiB page kept and pinned per block of this size (0 = no) */
	char fails_with[16];	/* pin: fail with this errno (ENOMEM) or holder signal (SIGKILL) */
	char fails_with_policy[16]; /* ... only under this pin_policy ("" = any); else succeed */
	uint64_t size;		/* pin: bytes */
	int node;		/* pin, resize */
	uint64_t requested;	/* resize: bytes */
	double deadline;	/* resize: seconds; save, managedsave: each of save, restore, agent; migrate: the migration */
	int repeat;		/* bench: repetitions */
	bool fresh;		/* bench: a new buffer for every repetition */
	bool measure;		/* pin, resize: record the outcome, a failed pin or a short
				 * unplug included, without failing the step (capacity sweeps) */
	char key;		/* sysrq */
	char name[40];		/* selftest: one of mhlSelftestNames */
	char argv[MHL_MAX_EXEC_BYTES];	/* exec: the program's path and arguments, each NUL-ended */
	int argc;		/* exec: entries in argv */
	int exit_status;	/* exec: the exit status that passes (0) */
	bool ktap;		/* exec: stdout is KTAP (a kselftest): parsed, each result recorded */
	double seconds;		/* wait: how long, or the deadline of until */
	int until;		/* wait: MHL_UNTIL_* */
	int pins_failed;	/* expect: pin steps that failed so far, or MHL_UNSET */
	bool integrity;		/* expect: every check/io/release so far found its data intact */
	bool console_clean;	/* expect: no kernel report on the console so far */
	double host_reclaimed;	/* expect: the last shrink's host side gave back at least this
				 * fraction of what it could (">=90%": 0.9), or MHL_UNSET */
	/* expect: */
	char policy[16];	/* applies only under this pin_policy ("" = any) */
	char kernel[16];	/* applies only on this kernel ("" = any) */
	int unplug;		/* MHL_UNPLUG_*: the last resize reached its request or not */
	long long movable_after_pin; /* the last pin's pages left in ZONE_MOVABLE, or MHL_ALL */
	int nvmstat;		/* /proc/vmstat changes since the trial's start */
	char vmstat_key[MHL_MAX_VMSTAT][48];
	long long vmstat_val[MHL_MAX_VMSTAT];
	bool vmstat_atleast[MHL_MAX_VMSTAT];	/* ">=N" rather than exactly N */
	int ncensus;		/* census_before/census_after: the last pin's page counts */
	char census_key[MHL_MAX_CENSUS][16];	/* a zone (Movable, ...) or zero, thp, cma, ... */
	long long census_val[MHL_MAX_CENSUS];	/* N, or MHL_ALL: every page of the pin */
	bool census_atleast[MHL_MAX_CENSUS];
	bool census_after[MHL_MAX_CENSUS];	/* census_after (else census_before) */
	int how;		/* reboot: MHL_REBOOT_* (default host) */
	bool resize;		/* suspend: requested (on node) is asked while paused */
	char to[40];		/* migrate: the peer's name (run --peer NAME=URI says where it is) */
	bool resize_during;	/* migrate: requested (of node's device) is asked while the migration runs */
	long long count;	/* hugepages: the node's pool of huge pages of size (st->size: 2 MiB or 1 GiB) asked for */
	int hugepages;		/* expect: MHL_UNPLUG_*: the last hugepages step's pool reached its count or not */
	uint64_t target;	/* balloon: the guest's memory as the balloon leaves it, bytes */
	bool other_trial;	/* only: the matrix values it names are not this trial's: dropped */
	bool broken;		/* its own error was reported: the cross-step checks pass it by */
	int action;		/* dimm, vmem: MHL_ACTION_* (attach or detach) */
	uint64_t block;		/* vmem: the device's block size (default 2 MiB) */
	int dimm;		/* expect: MHL_DIMM_*: the last dimm detach removed it or not */
} mhlStep;

enum { MHL_UNPLUG_ANY, MHL_UNPLUG_REACHED, MHL_UNPLUG_SHORT };
enum { MHL_UNTIL_NONE, MHL_UNTIL_CONVERGED };	/* wait until: every device at its request */
enum { MHL_REBOOT_HOST, MHL_REBOOT_GUEST };	/* reboot how: virDomainReboot, or from inside */
#define MHL_HUGEPAGE_2M (G_GUINT64_CONSTANT(2) << 20)	/* hugepages: size: the x86-64 huge page sizes */
#define MHL_HUGEPAGE_1G (G_GUINT64_CONSTANT(1) << 30)
enum { MHL_ACTION_ATTACH, MHL_ACTION_DETACH };	/* dimm, vmem action */
enum { MHL_DIMM_ANY, MHL_DIMM_REMOVED, MHL_DIMM_STUCK };	/* expect dimm: the last dimm detach */
#define MHL_ALL (-2)		/* movable_after_pin, census_*: every pinned page */
#define MHL_UNSET (-1)

typedef struct {
	uint64_t memory;	/* boot memory of the cell */
	int cpus;
	uint64_t vmem_size;	/* 0: no virtio-mem device on this node */
	uint64_t vmem_block;
	uint64_t vmem_requested;
	bool vmem_dynamic;	/* virtio_mem: {dynamic_memslots: true}: libvirt's <target dynamicMemslots='yes'> (libvirt >= 10.1, QEMU >= 8.2) */
	bool vmem_broken;	/* its virtio_mem was refused (its error reported): the cross-step checks pass its steps by */
} mhlNode;

/*
 * The series a soak fits and judges against a budget per 24 h (docs/soak.md,
 * "Trends"), in soak/series.c's order; soak: {budgets: {NAME: SIZE}} names
 * them. NULL-terminated.
 */
#define MHL_SOAK_SERIES_MAX 16
extern const char *const mhlSoakSeriesNames[];
#define MHL_SOAK_EVERY_DEFAULT 25
#define MHL_SOAK_JUDGE_AFTER_DEFAULT 600

/*
 * xfail: [{kernel, policy, reason, match}]: a known deviation
 * (docs/scenarios.md). On that kernel and pin_policy (empty: any) the trial
 * is expected to fail, with a reason that matches @match: such a failure is
 * `xfail`, a pass `xpass` (the declaration is out of date), any other
 * failure stays `fail`.
 */
#define MHL_MAX_XFAIL 8
#define MHL_MAX_XFAIL_TEXT 512
typedef struct {
	int line, col;		/* of the entry, for messages */
	char kernel[16];	/* a kernel form (scenario/names.h), or "" */
	char policy[16];	/* a pin policy (scenario/names.h), or "" */
	char *reason;		/* why: one line, 1 to MHL_MAX_XFAIL_TEXT bytes */
	char *match;		/* a GRegex (PCRE) the failure's reason must match; NULL: any failure */
} mhlDeviation;

/*
 * grid: the number a matrix grid's cell shows for the trial (docs/scenarios.md,
 * "grid"): one entry, or a list whose first entry for the trial's pin_policy
 * applies. {label, vmstat: NAME}: the change of /proc/vmstat NAME over the
 * trial; {label, path: A.B.0.C}: a number of the record; {label, ratio:
 * [PATH, PATH]}: the first over the second.
 */
#define MHL_MAX_GRID 4
#define MHL_MAX_GRID_LABEL 40
#define MHL_MAX_GRID_PATH 128
typedef enum { MHL_GRID_VMSTAT, MHL_GRID_PATH, MHL_GRID_RATIO } mhlGridKind;
typedef struct {
	char policy[16];			/* a pin policy (scenario/names.h), or "": any */
	char label[MHL_MAX_GRID_LABEL + 1];	/* what the number is: "migrated", "x slower" */
	mhlGridKind kind;
	char a[MHL_MAX_GRID_PATH + 1];		/* the vmstat name, or the (first) path */
	char b[MHL_MAX_GRID_PATH + 1];		/* ratio: the path divided by */
} mhlGridSpec;

typedef struct {
	char *path;
	char *name;		/* the trial id: name, or name:axis=value,... in a matrix */
	char *scenario_name;	/* the scenario's own name */
	int nparams;		/* matrix parameters of this trial, in axis order */
	char *param_key[MHL_MAX_AXES];
	char *param_val[MHL_MAX_AXES];
	char *kernel;		/* a kernel form (scenario/names.h), "prebuilt", or "package" */
	char *kernel_image;	/* prebuilt: bzImage path (absolute) */
	char *kernel_config;	/* prebuilt: its .config (absolute) */
	char *kernel_package;	/* package: a Debian linux-image-* name[=version] (kernel/package.sh) */
	char *kernel_deb;	/* package: or a linux-image .deb file (absolute) instead of a name */
	char *kernel_modules;	/* prebuilt: its lib/modules/RELEASE tree (absolute), or NULL */
	char kernel_flavour[16];	/* 6.12/6.1: "" or a debug flavour (kernel: {debug: kmemleak}); mhlScenarioKernelFlavour() */
	char *pin_policy;	/* "series" (default) or "baseline" */
	bool kernel_from_axis;		/* kernel: "${axis}": a matrix axis chose it (its trial id says so) */
	bool pin_policy_from_axis;	/* pin_policy: "${axis}" */
	char *cmdline;		/* extra guest kernel parameters */
	bool iommu;		/* devices: an intel vIOMMU (and intel_iommu=on) */
	bool edu;		/* devices: QEMU's edu PCI device (DMA engine) */
	bool balloon;		/* devices: a virtio balloon (else <memballoon model='none'/>) */
	bool balloon_no_reporting;	/* devices: {free_page_reporting: false}: the balloon's off */
	/* online: how the guest onlines plugged memory (its kernel command line) */
	char online[16];	/* movable (default), kernel, auto-movable, as-shipped */
	char guest[8];		/* the guest's userspace: "lab" (default: the lab's initramfs) or "debian" */
	char stack[16];		/* the hypervisor stack: a row of mhlStacks ("debian" by default), or "uri" with run --uri */
	bool stack_from_axis;	/* stack: "${axis}" */
	int online_ratio;	/* auto-movable: memory_hotplug.auto_movable_ratio, 0: the kernel's */
	/* memory_backing: how the host backs the guest's memory (libvirt's <memoryBacking>) */
	char backing[16];	/* a row of scenario/names.h's mhlMemBackings (default: anonymous) */
	uint64_t hugepage_size;	/* hugepages: 2 MiB (default) or 1 GiB */
	bool prealloc;		/* allocate it all up front (<allocation mode='immediate'/>) */
	/* soak: what a `memhp-lab soak` of this guest adds (docs/soak.md); `run` ignores it */
	char soak_leak[16];	/* "" or "io_uring": one more kernel object kept alive per cycle */
	int soak_every;		/* drop the caches and read slabinfo every K cycles (default 25) */
	double soak_judge_after;	/* seconds of a guest's soak before its trends are judged (600) */
	uint64_t soak_budget[MHL_SOAK_SERIES_MAX];	/* bytes per 24 h, by mhlSoakSeriesNames index */
	bool soak_budget_set[MHL_SOAK_SERIES_MAX];	/* else the series' default (soak/series.c) */
	char **host_labels;	/* host_labels: a fleet host must have all of these (NULL-terminated), or NULL */
	/*
	 * stack_needs: {qemu, libvirt, reason}: the least QEMU and libvirt the
	 * scenario's subject exists in (MAJOR*1000000 + MINOR*1000 + MICRO, as
	 * libvirt counts; 0: any); a stack with less skips the trial before it
	 * boots, naming both (docs/stacks.md). Line for the message.
	 */
	unsigned long needs_qemu, needs_libvirt;
	char *needs_reason;
	int needs_line;
	int nxfail;		/* xfail: the known deviations, in file order */
	mhlDeviation xfail[MHL_MAX_XFAIL];
	int ngrid;		/* grid: the cell's number, in file order */
	mhlGridSpec grid[MHL_MAX_GRID];
	int nnodes;
	mhlNode nodes[MHL_MAX_NODES];
	int nsteps;
	mhlStep steps[MHL_MAX_STEPS];
} mhlScenario;

/* A step of kind @type with every default (node 1, gup, anon, ...), as a scenario line would start it. */
void mhlStepInit(mhlStep *st, mhlStepType type, int line);

/* Whether expect step @st applies under the scenario's pin_policy. */
bool mhlExpectApplies(const mhlScenario *s, const mhlStep *st);

/*
 * The known deviation of @s (its kernel and pin_policy, after any override)
 * that a failure with @reason is: the first that applies and whose match
 * matches; with @reason NULL the first that applies at all (a pass then is
 * an xpass). NULL: none.
 */
const mhlDeviation *mhlScenarioDeviation(const mhlScenario *s, const char *reason);
/* The grid entry that applies to @s's pin_policy (the first), or NULL. */
const mhlGridSpec *mhlScenarioGrid(const mhlScenario *s);
/* MHL_KERNEL_FLAVOUR_RDMA where step @st needs the lab kernel's rdma flavour, else NULL. */
const char *mhlStepLabFlavour(const mhlStep *st);
/*
 * The flavour of the lab's kernel @s runs on (after any override): the
 * debug: one it names, else MHL_KERNEL_FLAVOUR_RDMA where a step needs it,
 * else "" (the default kernel; also for every kernel not the lab's).
 */
const char *mhlScenarioKernelFlavour(const mhlScenario *s);

/*
 * @buf (@len bytes of @path) as one YAML document into *@doc (the caller
 * yaml_document_delete()s it): its nesting and anchors bounded first (the
 * loader's time grows with their square), a syntax error as
 * "PATH:LINE:COL: YAML syntax error: ...", a key given twice in one mapping
 * (libyaml keeps both; a reader would take one) at its line and column.
 * 0, or -1 + mhlError.
 */
int mhlYamlLoad(const char *path, const char *buf, size_t len, yaml_document_t *doc);

/* --kernel / --pin-policy from the command line; -1 + mhlError if unknown. */
int mhlScenarioOverride(mhlScenario *s, const char *kernel, const char *policy);

/* QEMU's own memory next to the guest's (TCG translation cache, devices). */
#define MHL_QEMU_OVERHEAD	(256ULL << 20)
/* What a guest uses of a node's plugged memory beyond what its steps touch (the kernel's own). */
#define MHL_GUEST_SLACK		(128ULL << 20)

/*
 * What a guest of a scenario can make resident on its host, item by item
 * (scenario/fit.c; issue 36, item 5). Plugging alone makes nothing
 * resident (a 16 GiB plug here left the backend at 2 MiB): of each node's
 * hotplug memory only what the steps touch counts, unless the backing or
 * a step can make all of it resident.
 */
typedef struct {
	uint64_t boot;			/* every node's boot memory, all of it */
	uint64_t dev[MHL_MAX_NODES];	/* each node's virtio-mem at boot + what vmem/dimm steps attach (0: none) */
	uint64_t touch[MHL_MAX_NODES];	/* what the steps ask on that node: pin and bench sizes, hugepages count x size */
	uint64_t counted[MHL_MAX_NODES];	/* of dev: all of it (whole) or touch + MHL_GUEST_SLACK, at most dev */
	char whole[128];		/* why every device counts in full ("": it does not) */
	uint64_t qemu;			/* MHL_QEMU_OVERHEAD */
	uint64_t total;			/* boot + counted + qemu, saturated at UINT64_MAX */
} mhlGuestFit;

/*
 * The fit of a guest of @s into *@f: with @whole every device in full (a
 * soak's schedule plugs, touches and pins anywhere in them over its
 * cycles); else what a trial's steps can make resident, and all of each
 * device when it is preallocated, on host huge pages, or when an exec or
 * selftest step runs a program that may touch anything.
 */
void mhlScenarioGuestFit(const mhlScenario *s, bool whole, mhlGuestFit *f);
/*
 * @f item by item, for a refusal (g_free it): "boot memory 9216 MiB + node
 * 1's hotplug memory 8320 of 65536 MiB (its steps touch 8192 MiB + 128 MiB
 * for the guest's own use) + 256 MiB for QEMU".
 */
char *mhlGuestFitText(const mhlGuestFit *f);
/* mhlScenarioGuestFit's total: what run fits against the host's MemAvailable and check warns of. */
uint64_t mhlScenarioGuestBytes(const mhlScenario *s, bool whole);

/*
 * Parse and validate, one scenario per trial of the file's matrix (one if it
 * has none), appended to @out. Returns the count, or -1 + mhlError naming
 * file:line:column of the file's first error (and, after it, how many more
 * there are: check lists them).
 */
int mhlScenarioLoadAll(const char *path, GPtrArray *out);
/*
 * The same, and every independent error of the file into @errors (emptied
 * first; g_free'd strings): a top-level key, a node, a step, a trial of the
 * matrix that fails is kept and the next one read, as a compiler reports
 * every error of a file in one pass. Each "FILE:LINE:COLUMN: message" once,
 * in file order (one naming no line last). An error that leaves nothing to
 * read further (the file unreadable, YAML syntax, a document that is no
 * mapping, the matrix) stops the loader, alone. The cross-step checks (a
 * workload started before its check, an expectation that can hold) run
 * only when every part was read. -1 leaves the first error as mhlError's.
 */
int mhlScenarioLoadAllErrors(const char *path, GPtrArray *out, GPtrArray *errors);
/* The steps @path plans for trial @trial, for a report (mhlPlannedStepsFn, record/planned.h; planned.c). */
GPtrArray *mhlScenarioPlannedSteps(const char *path, const char *trial);

/*
 * The form of trial id @id that names files and domains: [A-Za-z0-9._-], other
 * bytes '_'; when that changed the id, "-" and 8 hex digits of the exact id's
 * SHA-256 follow, so ids that differ only where '_' went ("a:b", "a b") never
 * share a console log.
 */
char *mhlTrialIdFileName(const char *id);

/*
 * The console log's file name of trial @id's attempt @attempt (1, or 2 for a
 * fleet retry): "NAME.console.log" or "NAME.attempt2.console.log", NAME
 * mhlTrialIdFileName(@id), hashed as well when @id itself reads like a name
 * this makes (ends in "-" and 8 hex digits, or holds ".attempt"): two ids
 * never get one name unless 8 hex digits of their hashes meet, which
 * mhlTrialLogNamesUnique refuses.
 */
char *mhlTrialLogName(const char *id, int attempt);
/*
 * -1 + mhlError naming both trials and the file when two of @trials
 * (mhlScenario *) would write one console log; 0 otherwise.
 */
int mhlTrialLogNamesUnique(GPtrArray *trials);

/* The same for a file that makes exactly one trial. */
mhlScenario *mhlScenarioLoad(const char *path);
void mhlScenarioFree(mhlScenario *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(mhlScenario, mhlScenarioFree)

#endif
