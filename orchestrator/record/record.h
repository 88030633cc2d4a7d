/*
 * record.h - the trial record: its schema, the verdict, writing and reading.
 *
 * DIR/trials.jsonl holds one JSON object per line (docs/record.md). This
 * header is the only place the record's key names are spelled: the trial
 * engine and the soak write through them, `run`'s summary, the soak's resume
 * and every renderer in reports/ read through them. The summary, which all
 * of those read, is typed: mhlSummary, written and read by one table
 * (record/summary.c), like QEMU's QAPI schema generates both sides from one
 * description.
 */
#ifndef MHL_RECORD_H
#define MHL_RECORD_H

#include <glib.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

/* memhp-pin's keys (MHL_PIN_K_*), spelled once for the workload and the host */
#include "mhl-pin-keys.h"

/* ---- key names ---- */

/* A dotted path for mhlJ(): MHL_PATH(MHL_K_SUMMARY, MHL_K_REACHED_BYTES). */
#define MHL_PATH(a, b)			a "." b
#define MHL_PATH3(a, b, c)		a "." b "." c
#define MHL_PATH4(a, b, c, d)		a "." b "." c "." d

/* The record's top level. */
#define MHL_K_TRIAL			"trial"		/* trial id */
#define MHL_K_SCENARIO			"scenario"	/* scenario file */
#define MHL_K_SCENARIO_NAME		"scenario_name"
#define MHL_K_STARTED			"started"	/* ISO 8601, UTC */
#define MHL_K_HARNESS_VERSION		"harness_version"	/* memhp-lab's git describe */
#define MHL_K_PARAMETERS		"parameters"	/* matrix axis -> value */
#define MHL_K_KERNEL			"kernel"	/* identity.json */
#define MHL_K_PIN_POLICY		"pin_policy"
#define MHL_K_PIN_IN_PLACE_SWITCH	"pin_in_place_switch"
#define MHL_K_DOMAIN			"domain"
#define MHL_K_CONSOLE_LOG		"console_log"
#define MHL_K_HOST			"host"		/* how the host's memory was read; a resize's host side */
#define MHL_K_GUEST_BEFORE		"guest_before"
#define MHL_K_GUEST_AFTER		"guest_after"
#define MHL_K_STEPS			"steps"
#define MHL_K_TIMELINE			"timeline"
#define MHL_K_CONSOLE_FINDINGS		"console_findings"
#define MHL_K_CONSOLE_TRUNCATED		"console_truncated"	/* the guest wrote past the log's cap (MEMHP_CONSOLE_MAX) */
#define MHL_K_SUMMARY			"summary"
#define MHL_K_SECONDS			"seconds"
#define MHL_K_VERDICT			"verdict"
#define MHL_K_GUEST_USERSPACE		"guest_userspace"	/* lab or debian (scenario guest:) */
#define MHL_K_STACK			"stack"		/* {name, qemu, libvirt}: the hypervisor stack (docs/stacks.md); host_identity's: its name */
#define MHL_K_REASON			"reason"
#define MHL_K_KERNEL_OPTION		"kernel_option"	/* soak.json: soak --kernel's value, applied again on --resume */
#define MHL_K_STACK_RUN			"stack"		/* soak.json: the stack the soak runs on (--stack or the scenario's), again on --resume */
#define MHL_K_ERROR_SOURCE		"error_source"	/* an error's cause: MHL_ERROR_SOURCE_GUEST or _LAB */
#define MHL_ERROR_SOURCE_GUEST		"guest"		/* the guest kernel crashed, hung or never brought its agent up; the guest went away */
#define MHL_ERROR_SOURCE_LAB		"lab"		/* libvirt, QEMU, the host or memhp-lab could not carry the trial out */
#define MHL_K_REQUEUED			"requeued"	/* a fleet trial whose host went away: it ran once more elsewhere */
#define MHL_K_NOT_RUN			"not_run"	/* a fleet trial no host was left to take: never started */
#define MHL_K_GRID			"grid"		/* the scenario's grid: number: {label, value, of} */
#define MHL_K_LABEL			"label"
#define MHL_K_VALUE			"value"
#define MHL_K_OF			"of"
#define MHL_K_HOST_IDENTITY		"host_identity"	/* the host the trial ran on: versions, CPU, memory (host/identity.h) */
#define MHL_K_KEPT_S			"kept_s"	/* --keep: how long the guest was held after the steps */

/* domain */
#define MHL_K_URI			"uri"
#define MHL_K_ACCEL			"accel"
#define MHL_K_ACCEL_REASON		"accel_reason"
#define MHL_K_NODES			"nodes"
/* domain.nodes[] */
#define MHL_K_MEMORY_BYTES		"memory_bytes"
#define MHL_K_VIRTIO_MEM_SIZE_BYTES	"virtio_mem_size_bytes"
#define MHL_K_VIRTIO_MEM_REQUESTED_BYTES "virtio_mem_requested_bytes"
#define MHL_K_CPUS			"cpus"		/* a node's; a host's (host_identity) */
#define MHL_K_VIRTIO_MEM_BLOCK_BYTES	"virtio_mem_block_bytes"

/* kernel (identity.json, written by kernel/build.sh) */
#define MHL_K_SOURCE_PACKAGE		"source_package"
#define MHL_K_SOURCE_VERSION		"source_version"
#define MHL_K_SERIES_HASH		"series_hash"
#define MHL_K_KERNEL_RELEASE		"kernel_release"
#define MHL_K_COMPILER			"compiler"
#define MHL_K_CONFIG_KEY		"config_key"
#define MHL_K_BUILD_SECONDS		"build_seconds"
#define MHL_K_PATCHES			"patches"	/* how many */
#define MHL_K_PATCH_FILES		"patch_files"
#define MHL_K_BZIMAGE			"bzimage"	/* kernel: prebuilt: the image given */
#define MHL_K_CONFIG			"config"	/* ... its config */
#define MHL_K_CONFIG_SHA256		"config_sha256"
#define MHL_K_RELEASE			"release"	/* the modules' identity.json: their uname -r */
#define MHL_K_MODULES			"modules"
#define MHL_K_MODULES_FROM		"modules_from"	/* kernel_modules: the directory given */
#define MHL_K_MODULES_CPIO_DIR		"modules_cpio_dir"
/* host_identity (host/identity.c): the host; its memory_bytes and cpus are the keys above */
#define MHL_K_KERNEL_BUILD		"kernel_build"	/* uname -v; its "kernel" is uname -r */
#define MHL_K_MACHINE			"machine"
#define MHL_K_HOSTNAME			"hostname"
#define MHL_K_CPU_MODEL			"cpu_model"
#define MHL_K_LIBVIRT			"libvirt"
#define MHL_K_LIBVIRT_BUILT_WITH	"libvirt_built_with"
#define MHL_K_QEMU			"qemu"

/* parameters: the matrix axes a capacity sweep is read by (reports/capacity.c) */
#define MHL_K_AXIS_PLUGGED		"plugged"
#define MHL_K_AXIS_PINNED		"pinned"

/* guest_before, guest_after */
#define MHL_K_VMSTAT			"vmstat"
#define MHL_K_OOM_KILL			"oom_kill"	/* a counter of vmstat */
#define MHL_K_ZONEINFO			"zoneinfo"	/* [{node, zone, free, present, managed, spanned}] */
#define MHL_K_ZONE			"zone"
#define MHL_K_FREE			"free"		/* pages free */
#define MHL_K_PRESENT			"present"
#define MHL_K_MANAGED			"managed"
#define MHL_K_SPANNED			"spanned"
#define MHL_K_MEMORY_BLOCKS		"memory_blocks"	/* {blocks, online, offline, online_by_zone} */
#define MHL_K_BLOCKS			"blocks"
#define MHL_K_OFFLINE			"offline"
#define MHL_K_ONLINE_BY_ZONE		"online_by_zone"	/* zone -> online blocks */
#define MHL_K_GUEST			"guest"		/* a snapshot step's: {vmstat, zoneinfo, memory_blocks} */
/* the guest's kernel memory (a soak's checkpoint): {meminfo, block_bytes, online_blocks, slabinfo} */
#define MHL_K_MEMINFO			"meminfo"
#define MHL_K_BLOCK_BYTES		"block_bytes"
#define MHL_K_ONLINE_BLOCKS		"online_blocks"
#define MHL_K_MEM_FREE_BYTES		"mem_free_bytes"	/* meminfo: MemFree */
#define MHL_K_MEM_AVAILABLE_BYTES	"mem_available_bytes"	/* MemAvailable */
#define MHL_K_SLAB_RECLAIMABLE_BYTES	"slab_reclaimable_bytes"	/* SReclaimable */
#define MHL_K_SLAB_UNRECLAIMABLE_BYTES	"slab_unreclaimable_bytes"	/* SUnreclaim */
#define MHL_K_VMALLOC_BYTES		"vmalloc_bytes"	/* VmallocUsed */
#define MHL_K_PAGE_TABLES_BYTES		"page_tables_bytes"	/* PageTables */
#define MHL_K_PERCPU_BYTES		"percpu_bytes"	/* Percpu */
#define MHL_K_KERNEL_STACK_BYTES	"kernel_stack_bytes"	/* KernelStack */
#define MHL_K_HUGETLB_BYTES		"hugetlb_bytes"	/* Hugetlb */
#define MHL_K_HUGEPAGES_TOTAL		"hugepages_total"	/* HugePages_Total: pages */

/* A step's result (steps[]), and the keys a resize shares with the summary. */
#define MHL_K_STEP			"step"		/* its kind: pin, resize, ... */
#define MHL_K_LINE			"line"
#define MHL_K_ID			"id"
#define MHL_K_T				"t"
#define MHL_K_OK			"ok"
#define MHL_K_ERROR			"error"
#define MHL_K_NOTE			"note"
#define MHL_K_WORKLOAD			"workload"	/* memhp-pin's JSON: its keys are MHL_PIN_K_* */
#define MHL_K_REQUESTED_BYTES		"requested_bytes"
#define MHL_K_REACHED_BYTES		"reached_bytes"
#define MHL_K_CONVERGED			"converged"
#define MHL_K_DEADLINE_S		"deadline_s"
#define MHL_K_ABORTED			"aborted"	/* migrate: the deadline came first and the job was aborted */
#define MHL_K_SECONDS_TO_CONVERGE	"seconds_to_converge"
#define MHL_K_MEMSLOTS			"memslots"	/* a resize of a device with dynamic memslots: QEMU's memslots mapped after it (HMP info mtree) */
#define MHL_K_PINNED_IN_DEVICE_BYTES	"pinned_in_device_bytes"	/* a resize: what the held pins keep in the device, at least */
#define MHL_K_PATTERN_OK		MHL_PIN_K_PATTERN_OK	/* in memhp-pin's JSON */
#define MHL_K_PATTERN_OK_AFTER_RESIZE	"pattern_ok_after_resize"
#define MHL_K_PATTERN_OK_AT_RELEASE	"pattern_ok_at_release"
#define MHL_K_CHECKS			"checks"
#define MHL_K_SKIPPED			"skipped"	/* why the step did not run */
#define MHL_K_SKIP			"skip"		/* a step's, a workload's, a KTAP result's skip */
#define MHL_K_SKIP_CODE			"skip_code"	/* its code: mhlSkipCodes */
#define MHL_K_WHAT			"what"		/* checks[]: {what, expected, actual, ok} */
#define MHL_K_EXPECTED			"expected"
#define MHL_K_ACTUAL			"actual"
#define MHL_K_CRASHED			"crashed"	/* a sysrq c step: the guest crashed, as asked */
#define MHL_K_CONVERGED_AFTER_S		"converged_after_s"	/* a wait until: converged */
#define MHL_K_FAILED_AS_EXPECTED	"failed_as_expected"	/* a pin that must fail did */
#define MHL_K_MEASURED			"measured"	/* a pin step that only measures */

/* exec and selftest steps: exec: {argv, ktap: {...}}, selftest: {name, ...}, the KTAP they parsed */
#define MHL_K_EXEC			"exec"
#define MHL_K_ARGV			"argv"
#define MHL_K_KTAP			"ktap"
#define MHL_K_SELFTEST			"selftest"
#define MHL_K_NAME			"name"		/* a selftest's, a slab cache's */
#define MHL_K_PLANNED			"planned"
#define MHL_K_PASS			"pass"
#define MHL_K_FAIL			"fail"
#define MHL_K_RESULTS			"results"	/* [{n, description, ok, skip, skip_reason}] */
#define MHL_K_N				"n"
#define MHL_K_DESCRIPTION		"description"
#define MHL_K_SKIP_REASON		"skip_reason"
#define MHL_K_BAILED_OUT		"bailed_out"	/* the KTAP said "Bail out!" */
#define MHL_K_EXIT_EXPECTED		"exit_expected"
#define MHL_K_EXITED			"exited"
#define MHL_K_EXITCODE			"exitcode"
#define MHL_K_SIGNAL			"signal"	/* exec: what killed it */
#define MHL_K_STDOUT			"stdout"
#define MHL_K_STDERR			"stderr"
#define MHL_K_STDOUT_BYTES		"stdout_bytes"	/* what it printed, before cleaning */
#define MHL_K_STDOUT_TRUNCATED		"stdout_truncated"	/* the kept text was cut */
#define MHL_K_STDERR_BYTES		"stderr_bytes"
#define MHL_K_STDERR_TRUNCATED		"stderr_truncated"
#define MHL_K_COMMAND			"command"	/* a selftest's command line */
#define MHL_K_OUTPUT			"output"

/* summary (mhlSummary; the resize keys above too) */
#define MHL_K_BOOT_TO_AGENT_S		"boot_to_agent_s"
#define MHL_K_INITIAL_PLUG_S		"initial_plug_s"
#define MHL_K_PINNED_BYTES		"pinned_bytes"
#define MHL_K_PINNED_PAGES_MOVABLE_BEFORE "pinned_pages_movable_before"
#define MHL_K_PINNED_PAGES_MOVABLE_AFTER "pinned_pages_movable_after"
#define MHL_K_PINS_FAILED		"pins_failed"
#define MHL_K_CYCLES			"cycles"
#define MHL_K_SEGMENTS			"segments"
#define MHL_K_SOAK_SECONDS		"soak_seconds"
#define MHL_K_CYCLES_PER_HOUR		"cycles_per_hour"

/* host (top level): the source of the host-side figures, the backing */
#define MHL_K_WHY			"why"		/* why not "proc" */
#define MHL_K_BACKING			"memory_backing"
#define MHL_K_HUGEPAGE_BYTES		"hugepage_bytes"
#define MHL_K_PREALLOC			"prealloc"
#define MHL_K_POOL_ADDED_PAGES		"pool_added_pages"

/* host samples (a resize's host.before/after, timeline entries of source "host") */
#define MHL_K_QEMU_RSS_BYTES		"qemu_rss_bytes"
#define MHL_K_QEMU_HUGETLB_BYTES	"qemu_hugetlb_bytes"
#define MHL_K_BACKEND_BYTES		"backend_bytes"	/* node -> resident bytes of its virtio-mem backend */
#define MHL_K_HOT_BACKEND_BYTES		"hot_backend_bytes"	/* step id -> resident bytes of a hot-added device's backend */
#define MHL_K_POOL_FREE_PAGES		"pool_free_pages"

/* a resize's host side (steps[].host) */
#define MHL_K_BEFORE			"before"
#define MHL_K_AFTER			"after"
#define MHL_K_PLUGGED_BEFORE_BYTES	"plugged_before_bytes"
#define MHL_K_UNPLUGGED_BYTES		"unplugged_bytes"
#define MHL_K_RECLAIMED_BYTES		"reclaimed_bytes"
#define MHL_K_RECLAIMABLE_BYTES		"reclaimable_bytes"
#define MHL_K_RECLAIMED_OF_UNPLUGGED	"reclaimed_of_unplugged"
#define MHL_K_RECLAIMED_OF_RECLAIMABLE	"reclaimed_of_reclaimable"
#define MHL_K_SETTLE_S			"settle_s"
#define MHL_K_POOL_RETURNED_PAGES	"pool_returned_pages"
#define MHL_K_MEASURED_BY		"measured_by"	/* "backend" or "qemu_rss" */

/* a grow's plug path (steps[].plug) */
#define MHL_K_PLUG			"plug"
#define MHL_K_PLUGGED_BYTES		"plugged_bytes"
#define MHL_K_SECONDS_TO_PLUGGED	"seconds_to_plugged"
#define MHL_K_SECONDS_TO_ONLINE		"seconds_to_online"
#define MHL_K_MEMTOTAL_BEFORE_BYTES	"memtotal_before_bytes"
#define MHL_K_MEMTOTAL_AFTER_BYTES	"memtotal_after_bytes"
#define MHL_K_ONLINE_BLOCKS_BEFORE	"online_blocks_before"
#define MHL_K_ONLINE_BLOCKS_AFTER	"online_blocks_after"
#define MHL_K_ONLINE			"online"
#define MHL_K_POLL_S			"poll_s"
#define MHL_K_PLUG_TO_ONLINE_S		"plug_to_online_s"	/* summary: the last grow's */

/*
 * summary: the host side of the trial's shrinking resizes, all of them
 * (docs/record.md): what came back in total, of what had to.
 */
#define MHL_K_HOST_SHRINKS		"host_shrinks"			/* how many were measured */
#define MHL_K_HOST_BEFORE_BYTES		"host_before_bytes"		/* the first one's figure before */
#define MHL_K_HOST_AFTER_BYTES		"host_after_bytes"		/* the last one's after */
#define MHL_K_HOST_RECLAIMED_BYTES	"host_reclaimed_bytes"		/* the sum of what each gave back */
#define MHL_K_HOST_RECLAIMABLE_BYTES	"host_reclaimable_bytes"	/* the sum of what had to come back */
#define MHL_K_HOST_RECLAIMED_OF_RECLAIMABLE "host_reclaimed_of_reclaimable"	/* the first sum over the second */
#define MHL_K_HOST_SETTLE_S		"host_settle_s"			/* the longest */

/* timeline[] */
#define MHL_K_SOURCE			"source"	/* request, event, qmp */
#define MHL_K_NODE			"node"
#define MHL_K_ALIAS			"alias"
#define MHL_K_SIZE_BYTES		"size_bytes"

/* console_findings[] (and soak findings) */
#define MHL_K_KIND			"kind"
#define MHL_K_TEXT			"text"
#define MHL_K_COUNT			"count"		/* of the last one, kind "omitted": findings not kept */
#define MHL_KIND_OMITTED		"omitted"

/* A soak's checkpoints.jsonl (docs/soak.md) */
#define MHL_K_CYCLE			"cycle"
#define MHL_K_SEGMENT			"segment"
#define MHL_K_SCHEDULE			"schedule"
#define MHL_K_OUTCOME			"outcome"
#define MHL_K_COUNTERS			"counters"
#define MHL_K_FINDINGS			"findings"
#define MHL_K_ELAPSED_S			"elapsed_s"
#define MHL_K_DROPPED			"dropped"	/* the caches were dropped before the counters */
#define MHL_K_SLABINFO			"slabinfo"	/* {cache: [active_objs, num_objs, bytes]} */
#define MHL_K_SERIES			"series"	/* a trend finding's, a trend row's */
#define MHL_K_CACHES			"caches"	/* a trend finding's grown slab caches */
#define MHL_K_SEED			"seed"		/* soak.json, a fleet soak's segments.jsonl and summary.json */
#define MHL_K_DURATION_S		"duration_s"	/* soak.json (a number), the record's parameters (text) */
#define MHL_K_PIN_BYTES			"pin_bytes"	/* schedule: the cycle's pin */
#define MHL_K_FULL_BYTES		"full_bytes"	/* schedule: the size a replug goes back to */
#define MHL_K_PIN_OK			"pin_ok"	/* outcome: the cycle's pin held */
#define MHL_K_REPLUGGED_BYTES		"replugged_bytes"	/* outcome: where the replug got */
#define MHL_K_LEAK_HELD			"leak_held"	/* outcome: soak.leak's objects kept alive */
/* counters: the guest's after each cycle (plugged_bytes, qemu_rss_bytes, slab_bytes, zoneinfo's free,
 * online_blocks, block_bytes and the meminfo series above too) */
#define MHL_K_NR_FOLL_PIN_ACQUIRED	"nr_foll_pin_acquired"	/* also a counter of vmstat */
#define MHL_K_NR_FOLL_PIN_RELEASED	"nr_foll_pin_released"	/* also a counter of vmstat */
#define MHL_K_NR_SLAB_RECLAIMABLE	"nr_slab_reclaimable"	/* a counter of vmstat */
#define MHL_K_NR_SLAB_UNRECLAIMABLE	"nr_slab_unreclaimable"	/* a counter of vmstat */
#define MHL_K_PINS_OUTSTANDING		"pins_outstanding"	/* acquired - released */
#define MHL_K_FREE_BYTES		"free_bytes"
#define MHL_K_ORCHESTRATOR_RSS_KIB	"orchestrator_rss_kib"
#define MHL_K_ONLINE_GAP_BYTES		"online_gap_bytes"	/* online blocks beyond boot + plugged memory */
#define MHL_K_RUN_DIR_BYTES		"run_dir_bytes"
/* budget: the guest's memory budget on its QEMU (host/budget.c) */
#define MHL_K_BUDGET			"budget"
#define MHL_K_ENFORCED			"enforced"
#define MHL_K_LIMIT_BYTES		"limit_bytes"
#define MHL_K_CGROUP			"cgroup"		/* v1 or v2 */
#define MHL_K_PATH			"path"		/* its directory, removed after the trial */
#define MHL_K_PEAK_BYTES		"peak_bytes"
#define MHL_K_OOM_KILLS			"oom_kills"
#define MHL_K_GUEST_RAM_BYTES		"guest_ram_bytes"	/* the guest's RAM in QEMU's RSS: every backend's Rss */
#define MHL_K_TCG_CODE_BYTES		"tcg_code_bytes"	/* TCG's code buffer in QEMU's RSS */
#define MHL_K_QEMU_OWN_BYTES		"qemu_own_bytes"	/* qemu_rss_bytes - guest_ram_bytes - tcg_code_bytes */
/* soak.trend_events[]: a trend raised at a judgement and withdrawn at a later one */
#define MHL_K_TREND_EVENTS		"trend_events"
#define MHL_K_RAISED_CYCLE		"raised_cycle"
#define MHL_K_RAISED_T			"raised_t"
#define MHL_K_WITHDRAWN_CYCLE		"withdrawn_cycle"
#define MHL_K_WITHDRAWN_T		"withdrawn_t"
/* a fleet soak's soak.json, segments.jsonl and summary.json (soak/fleet-soak.c) */
#define MHL_K_SEEDS			"seeds"
#define MHL_K_HOSTS			"hosts"
#define MHL_K_HOSTS_FILE		"hosts_file"
#define MHL_K_FIRST_CYCLE		"first_cycle"	/* a segment's (its host is MHL_K_HOST, its end MHL_K_END) */
#define MHL_K_LAST_CYCLE		"last_cycle"
#define MHL_K_DIR			"dir"		/* a seed's run directory */
/* ... and the soak's record: soak: {trends: [...], slab_growth: [...], end: {...}, findings: [...]} */
#define MHL_K_SOAK			"soak"
#define MHL_K_TRENDS			"trends"
#define MHL_K_SLAB_GROWTH		"slab_growth"
#define MHL_K_END			"end"
/* soak.trends[] (soak/series.c) */
#define MHL_K_POINTS			"points"
#define MHL_K_BASIS			"basis"
#define MHL_K_FIT			"fit"		/* "theil_sen" or least squares */
#define MHL_K_PER_CYCLE			"per_cycle"	/* {slope, intercept, lo, hi} */
#define MHL_K_PER_HOUR			"per_hour"
#define MHL_K_SLOPE			"slope"
#define MHL_K_INTERCEPT			"intercept"
#define MHL_K_LO			"lo"
#define MHL_K_HI			"hi"
#define MHL_K_SIGNIFICANT		"significant"
#define MHL_K_PROJECTION_24H		"projection_24h"
#define MHL_K_BUDGET_24H		"budget_24h"
#define MHL_K_OVER_BUDGET		"over_budget"
#define MHL_K_FINDING			"finding"
#define MHL_K_CEILING			"ceiling"	/* a series' ceiling, where it has one */
#define MHL_K_JUDGED			"judged"
/* soak.slab_growth[] between two cycles, and the kmemleak tally (soak.kmemleak) */
#define MHL_K_SLAB_FIRST_CYCLE		"slab_first_cycle"
#define MHL_K_SLAB_LAST_CYCLE		"slab_last_cycle"
#define MHL_K_OBJECTS			"objects"
#define MHL_K_OBJSIZE			"objsize"
#define MHL_K_BYTES			"bytes"
#define MHL_K_SLAB_BYTES		"slab_bytes"
#define MHL_K_OBJECTS_FIRST		"objects_first"
#define MHL_K_OBJECTS_LAST		"objects_last"
#define MHL_K_KMEMLEAK			"kmemleak"
#define MHL_K_SITES			"sites"
#define MHL_K_SITE			"site"
#define MHL_K_REPORT			"report"

/*
 * ---- lifecycle steps (issue 34): save, managedsave, suspend, reboot, migrate, daemon-restart ----
 * A lifecycle step's result holds MHL_K_LIFECYCLE: {event (the step's kind),
 * ok, seconds (the whole step), refused (libvirt's or QEMU's message when it
 * refused the operation: ok is then false, and a scenario's xfail may say it
 * must), plugged_before and plugged_after ([{node, size_bytes,
 * requested_bytes}] for each virtio-mem device), down_s (the guest not
 * running), agent_s (until its agent answered again), and the kind's own
 * figures below}. reports/ shows them in every format (docs/lifecycle.md).
 */
#define MHL_K_LIFECYCLE			"lifecycle"
#define MHL_K_EVENT			"event"
#define MHL_K_REFUSED			"refused"
#define MHL_K_PLUGGED_BEFORE		"plugged_before"
#define MHL_K_PLUGGED_AFTER		"plugged_after"
#define MHL_K_DOWN_S			"down_s"
#define MHL_K_AGENT_S			"agent_s"
/* save, managedsave: the image against the plugged memory */
#define MHL_K_IMAGE_BYTES		"image_bytes"
#define MHL_K_SAVE_S			"save_s"
#define MHL_K_RESTORE_S			"restore_s"
#define MHL_K_IMAGE_PATH		"image_path"	/* the image file (save: in the run directory; kept if the restore failed) */
#define MHL_K_GUEST_MEMORY_BYTES	"guest_memory_bytes"	/* boot memory + plugged at the save */
#define MHL_K_CONSOLE_BYTES_AT_SAVE	"console_bytes_at_save"	/* the console log's size when the old QEMU had gone: what follows is the new one's */
/* reboot: host (virDomainReboot) or guest (from inside); the devices plugged back */
#define MHL_K_HOW			"how"
#define MHL_K_REPLUG_S			"replug_s"
#define MHL_K_METHOD			"method"	/* how it was asked: agent (virDomainReboot's GUEST_AGENT), reboot -f */
#define MHL_K_PINS_LOST			"pins_lost"	/* the ids whose holders the reboot ended */
#define MHL_K_RESET_S			"reset_s"	/* from the request to the guest's reset (libvirt's REBOOT event) */
/* suspend: a resize asked while paused ({requested_bytes, accepted, refused}), then converged */
#define MHL_K_RESIZE_WHILE_PAUSED	"resize_while_paused"
#define MHL_K_ACCEPTED			"accepted"
#define MHL_K_PLUGGED_PAUSED		"plugged_paused"	/* the devices at the end of the pause, as plugged_before */
/* migrate: the destination and libvirt's job statistics (virDomainGetJobStats, completed) */
#define MHL_K_TO			"to"		/* the destination host's name */
#define MHL_K_TO_URI			"to_uri"
#define MHL_K_MIGRATION			"migration"
#define MHL_K_DATA_TRANSFERRED_BYTES	"data_transferred_bytes"
#define MHL_K_MEMORY_TOTAL_BYTES	"memory_total_bytes"
#define MHL_K_MEMORY_TRANSFERRED_BYTES	"memory_transferred_bytes"
#define MHL_K_DOWNTIME_MS		"downtime_ms"
#define MHL_K_TIME_ELAPSED_MS		"time_elapsed_ms"
#define MHL_K_MEMORY_ITERATIONS		"memory_iterations"
#define MHL_K_EXPECTED_TRANSFER_BYTES	"expected_transfer_bytes"	/* boot memory + plugged */
#define MHL_K_RESIZE_DURING		"resize_during"	/* a resize asked while migrating: {requested_bytes, accepted, refused} */
#define MHL_K_ZERO_PAGES		"zero_pages"	/* pages QEMU sent as a zero-page marker (libvirt's memory_constant) */
#define MHL_K_NORMAL_PAGES		"normal_pages"	/* pages sent with their data */
#define MHL_K_MIGRATED_BYTES		"migrated_bytes"	/* (zero_pages + normal_pages) * page size: the guest memory QEMU walked */
#define MHL_K_MIGRATE_S			"migrate_s"	/* virDomainMigrateToURI3's call, until it returned */
/* daemon-restart: run --daemon-restart's command restarts the run's daemon; the lab reconnects */
#define MHL_K_RESTART_ARGV		"restart_argv"	/* the operator's command (run --daemon-restart) */
#define MHL_K_RESTART_EXIT		"restart_exit"	/* its exit status; absent when it did not exit (killed at the deadline, not started) */
#define MHL_K_RESTART_S			"restart_s"	/* from its start until it returned */
#define MHL_K_RECONNECT_TRIES		"reconnect_tries"	/* virConnectOpen calls until the new daemon answered */
#define MHL_K_EVENTS_FROM_T		"events_from_t"	/* t (s since domain creation) from which the new connection's events come */
#define MHL_K_SIZE_EVENTS_AFTER		"size_events_after"	/* the timeline's size-change events after events_from_t (filled at the trial's end) */

/*
 * ---- the other paths (issue 35): dimm, vmem (a virtio-mem device hot-added
 * or removed), balloon, hugepages ----
 * Each of these steps' results holds MHL_K_ELASTIC: {mechanism ("dimm",
 * "virtio-mem", "balloon", "hugetlb"), action ("attach", "detach",
 * "target", "alloc"), ok, seconds (the request until the guest's change was
 * complete, or the step's deadline), refused (libvirt's or QEMU's message
 * when it refused: ok is then false, and a scenario's xfail may say it
 * must), requested_bytes (what the step asked the guest to gain (> 0) or
 * give up (< 0)), memtotal_before_bytes and memtotal_after_bytes (the
 * guest's MemTotal: the guest-visible change), and the kind's own figures
 * below}. A step that gives memory back writes res.host as a resize does
 * (mhlTrialHostSide). reports/ shows them in every format (docs/host.md).
 */
#define MHL_K_ELASTIC			"elastic"
#define MHL_K_MECHANISM			"mechanism"
#define MHL_K_ACTION			"action"
/* (each kind's own keys follow, in a block per kind) */
/*
 * dimm (mechanism "dimm"): removed (a detach: libvirt's DEVICE_REMOVED came
 * within the deadline), removal_failed (its DEVICE_REMOVAL_FAILED came),
 * alias (the device's, ua-dimm-ID), slot and base_address (QEMU's), and on a
 * detach that did not complete range_blocks ([{block, state, valid_zones}]:
 * the guest's memory blocks over the DIMM's range, guest text cleaned) and
 * pinned_blocks (the numbers of those not offline: online, or going-offline,
 * the one the guest's offline retries on: what held it);
 * backend_before_bytes/backend_after_bytes (a completed detach: the
 * resident bytes of the DIMM's own backend in QEMU, 0 once unmapped). vmem
 * (mechanism "virtio-mem"): alias, and plugged_bytes (an attach: what the
 * guest plugged of its request within the deadline).
 */
#define MHL_K_REMOVED			"removed"
#define MHL_K_REMOVAL_FAILED		"removal_failed"
#define MHL_K_SLOT			"slot"
#define MHL_K_BASE_ADDRESS		"base_address"
#define MHL_K_RANGE_BLOCKS		"range_blocks"
#define MHL_K_BLOCK			"block"
#define MHL_K_STATE			"state"
#define MHL_K_VALID_ZONES		"valid_zones"
#define MHL_K_PINNED_BLOCKS		"pinned_blocks"
#define MHL_K_BACKEND_BEFORE_BYTES	"backend_before_bytes"	/* the DIMM's backend's resident bytes */
#define MHL_K_BACKEND_AFTER_BYTES	"backend_after_bytes"
/* hugepages (mechanism "hugetlb", action "alloc"): a node's pool set through nr_hugepages */
#define MHL_K_PAGE_BYTES		"page_bytes"	/* the huge page size: 2 MiB or 1 GiB */
#define MHL_K_REQUESTED_PAGES		"requested_pages"	/* the pool asked for (count; 0 frees it) */
#define MHL_K_POOL_BEFORE_PAGES		"pool_before_pages"	/* the node's pool of that size before the step */
#define MHL_K_ALLOCATED_PAGES		"allocated_pages"	/* the pool after: ok when it is requested_pages */
#define MHL_K_ZONE_FREE_AFTER_PAGES	"zone_free_after_pages"	/* {zone: pages free} of the node after the step (/proc/zoneinfo): ZONE_MOVABLE memory left that became no huge page */
#define MHL_K_COMPACTION		"compaction"	/* /proc/vmstat compaction (and pin) counters' changes across the step: {name: change} */
#define MHL_K_COMPACT_STALL		"compact_stall"	/* three of them, the ones the reports show */
#define MHL_K_COMPACT_FAIL		"compact_fail"
#define MHL_K_COMPACT_SUCCESS		"compact_success"
/*
 * balloon (step-balloon.c): the balloon's actual size (libvirt's
 * VIR_DOMAIN_MEMORY_STAT_ACTUAL_BALLOON: the guest's memory as the balloon
 * leaves it) before and after, the target asked, whether the device reports
 * free pages (its live XML's freePageReporting), and what the guest sees:
 * MemFree and MemAvailable before and after (MemTotal in the common keys).
 */
#define MHL_K_TARGET_BYTES		"target_bytes"
#define MHL_K_ACTUAL_BEFORE_BYTES	"actual_before_bytes"
#define MHL_K_ACTUAL_AFTER_BYTES	"actual_after_bytes"
#define MHL_K_FREE_PAGE_REPORTING	"free_page_reporting"
#define MHL_K_MEMFREE_BEFORE_BYTES	"memfree_before_bytes"
#define MHL_K_MEMFREE_AFTER_BYTES	"memfree_after_bytes"
#define MHL_K_MEMAVAILABLE_BEFORE_BYTES	"memavailable_before_bytes"
#define MHL_K_MEMAVAILABLE_AFTER_BYTES	"memavailable_after_bytes"

/* ---- the verdict ---- */

typedef enum {
	MHL_VERDICT_PASS,
	MHL_VERDICT_FAIL,	/* an outcome was not what the steps require */
	MHL_VERDICT_ERROR,	/* the trial could not be carried out */
	MHL_VERDICT_SKIP,	/* nothing it asserts could run on this kernel (reason says why) */
	MHL_VERDICT_XFAIL,	/* failed as a declared known deviation says it must (reason) */
	MHL_VERDICT_XPASS,	/* passed although a known deviation says it fails: fails the run */
	MHL_VERDICT_INTERRUPTED,
	MHL_VERDICT_LOST,	/* started (started.jsonl) and never recorded: memhp-lab was killed */
	MHL_VERDICT_LAST
} mhlVerdict;

/* "pass", "fail", "error", "skip", "xfail", "xpass", "interrupted", "lost", indexed by mhlVerdict. */
extern const char *const mhlVerdictNames[MHL_VERDICT_LAST];
/* The verdict of a record; MHL_VERDICT_LAST when it has none or an unknown one. */
mhlVerdict mhlVerdictOf(json_object *rec);
/*
 * Why a step did not run, the fixed vocabulary of "skip_code" (docs/record.md):
 * "other-pin-policy", "other-kernel" (an expect filtered by pin_policy: or
 * kernel:), "kernel-lacks" (a capability this kernel does not have),
 * "needs-skipped-step" (it names or asserts on a skipped pin). NULL-terminated.
 */
extern const char *const mhlSkipCodes[];

/* Whether a verdict lets a run succeed: pass, skip and xfail do. */
bool mhlVerdictOk(mhlVerdict v);

/* ---- the summary: the few numbers every reader wants ---- */

/*
 * Absent fields are -1 (numbers) or MHL_TRI_UNSET (booleans); only fields
 * that are set are written. A trial fills the first group, a soak the second.
 */
typedef enum { MHL_TRI_UNSET = -1, MHL_TRI_FALSE, MHL_TRI_TRUE } mhlTri;

typedef struct {
	double boot_to_agent_s;
	double initial_plug_s;
	gint64 pinned_bytes;
	gint64 pinned_pages_movable_before;
	gint64 pinned_pages_movable_after;
	gint64 requested_bytes;
	gint64 reached_bytes;
	double seconds_to_converge;
	mhlTri pattern_ok_after_resize;
	mhlTri pattern_ok_at_release;
	gint64 pins_failed;
	/* the host side of every shrinking resize (MHL_K_HOST_SHRINKS) */
	gint64 host_shrinks;
	gint64 host_before_bytes;
	gint64 host_after_bytes;
	gint64 host_reclaimed_bytes;
	gint64 host_reclaimable_bytes;	/* -1 when a shrink had no reclaimable figure */
	double host_reclaimed_of_reclaimable;
	double host_settle_s;
	double plug_to_online_s;	/* the last grow: request to the guest's MemTotal grown */
	/* soak */
	gint64 cycles;
	gint64 segments;
	gint64 findings;
	double soak_seconds;
	double cycles_per_hour;
} mhlSummary;

/* Every field unset. */
void mhlSummaryInit(mhlSummary *sum);
/* The set fields as a JSON object, in the schema's order. */
json_object *mhlSummaryToJSON(const mhlSummary *sum);
/* rec.summary into *sum (fields absent there stay unset); rec may be NULL. */
void mhlSummaryRead(json_object *rec, mhlSummary *sum);
/*
 * Whether every field of @summary (a record's summary object) has its type:
 * false with *key the first that has not and *want its type ("a number",
 * "a boolean").
 */
bool mhlSummaryCheck(json_object *summary, const char **key, const char **want);

/* ---- writing ---- */

/*
 * Append @rec as one line with a single write(2) on an O_APPEND descriptor
 * (one append at a time: a mutex, and flock where the filesystem has it),
 * then fsync. All or nothing: after a short or failed write (ENOSPC, a file
 * size limit) or a failed fsync the file is truncated back to its old size.
 * A file whose last line was torn (a kill mid-write: no final newline) gets
 * a newline first, so the torn line stays one bad line and this record a
 * line of its own.
 */
int mhlRecordAppend(const char *path, json_object *rec);

/* ---- text from outside (record/text.c) ---- */

/*
 * @len bytes of @s (-1: up to its NUL) from outside - the guest's console or
 * output, a record file from elsewhere - as text a record and every report
 * format can carry: valid UTF-8 (U+FFFD for each byte that is not, and for
 * U+FFFE/U+FFFF), escape sequences dropped whole, every other control
 * character (C0, DEL, C1) dropped, but '\n' and '\t' kept when @multiline
 * (one line: a space). At most @max bytes (0: no limit), cut between two
 * characters and ending in "...". Never NULL (NULL @s gives "").
 */
char *mhlTextClean(const char *s, gssize len, gsize max, bool multiline);
/* mhlTextClean() applied to every string (and key) in @o, in place. */
void mhlJSONClean(json_object *o, bool multiline);
/*
 * How many of the first @max bytes of @s to quote ("'%.*s'", mhlTextCutLen(s,
 * 300), s) so that no UTF-8 sequence is cut in the middle: @max backed off to
 * the start of the character it would split, all of @s when it is shorter. A
 * plain "%.300s" cuts a character of guest text in two, and the record (JSON,
 * junit.xml) then holds a byte that is not UTF-8. 0 for NULL @s or @max <= 0.
 */
int mhlTextCutLen(const char *s, int max);

/* ---- reading (json.c) ---- */

/*
 * A dotted path into a record: "summary.reached_bytes"; a component of
 * digits indexes an array ("steps.0.workload"). NULL when absent or null. The typed accessors give the default (NULL, 0) for a value of
 * another type: a string is never a number or a boolean, an object never an
 * array; json-c's own getters assert on some types and read "false" as true.
 */
json_object *mhlJ(json_object *o, const char *path);
const char *mhlJStr(json_object *o, const char *path, const char *dflt);
gint64 mhlJInt(json_object *o, const char *path, gint64 dflt);
double mhlJDbl(json_object *o, const char *path, double dflt);
bool mhlJBool(json_object *o, const char *path, bool dflt);
json_object *mhlJArr(json_object *o, const char *path);	/* an array, or NULL */
json_object *mhlJObj(json_object *o, const char *path);	/* an object, or NULL */
size_t mhlJLen(json_object *o, const char *path);	/* length of an array there, else 0 */
/* Element @i of array @arr; NULL when @arr is no array or too short. */
json_object *mhlJIdx(json_object *arr, size_t i);

/* A line of trials.jsonl that could not be used, and why. */
typedef struct {
	int line;
	char *why;
} mhlRunBad;

typedef struct {
	char *dir;		/* RUN_DIR as given */
	int dirfd;		/* RUN_DIR opened once (O_DIRECTORY | O_NOFOLLOW): every file of it is read below it */
	char *records;		/* RUN_DIR/trials.jsonl */
	GPtrArray *trials;	/* json_object *, file order */
	GArray *lines;		/* int: line of each trial in trials.jsonl */
	GPtrArray *bad;		/* mhlRunBad * */
} mhlRun;

void mhlRunFree(mhlRun *run);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(mhlRun, mhlRunFree)

/*
 * Parse RUN_DIR/trials.jsonl. Lines that are not a JSON object with a string
 * "trial" and "verdict", and records of the wrong shape (a field the readers
 * take as an array, object, number, boolean or string of another type: "steps
 * is an object, not an array"), go to run->bad (with
 * "RUN_DIR/trials.jsonl:LINE" and why, a missing final newline named as a
 * truncated write) and the rest are kept, every string in them made valid
 * UTF-8 without control characters (mhlJSONClean, newlines kept). NULL +
 * mhlError when RUN_DIR or the file cannot be read or holds no lines at all
 * (an empty run). RUN_DIR may come from elsewhere (docs/security.md): it is
 * opened once, and trials.jsonl and started.jsonl below it only as regular
 * files (never a link; a FIFO is refused, not waited on), read a line at a
 * time: a line longer than MHL_RECORD_LINE_MAX is named and skipped, so a
 * file of any size costs bounded memory.
 */
#define MHL_RECORD_LINE_MAX (16 * 1024 * 1024)
mhlRun *mhlRunLoad(const char *dir);

#endif
