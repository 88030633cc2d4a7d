/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mhl-pin-keys.h - the keys of memhp-pin's JSON that the host reads: the one
 * spelling of the workload's contract (docs/workloads.md).
 *
 * Both sides include this header, as QEMU's QAPI generates both sides of
 * QMP from one schema: memhp-pin prints with MHL_PIN_KEY() (workloads/),
 * the trial's pin, check, io, release and bench steps check and read what it
 * printed, and reports/ shows it (through orchestrator/record/record.h, which
 * includes this file). A key the host does not read may stay a literal in the
 * workload's printf; one it reads is added here first.
 */
#ifndef MHL_PIN_KEYS_H
#define MHL_PIN_KEYS_H

/* "KEY": in a printf format: printf("{" MHL_PIN_KEY(MHL_PIN_K_OK) "%s", ...) */
#define MHL_PIN_KEY(k)			"\"" k "\":"

/* How a result that says "ok": true begins (memhp-pin's exit status comes from it). */
#define MHL_PIN_OK_TRUE			"{" MHL_PIN_KEY(MHL_PIN_K_OK) "true"

/* Every result: the pin, a holder's check/release, bench, a failure. */
#define MHL_PIN_K_OK			"ok"
#define MHL_PIN_K_MODE			"mode"
#define MHL_PIN_K_ERRNO_NAME		"errno_name"	/* the failing call's errno, "ENOMEM" */

/* The pin (memhp-pin MODE) */
#define MHL_PIN_K_PINNED		"pinned"	/* false: the mode pins nothing (vfio-noiommu, hold) */
#define MHL_PIN_K_BYTES_ASKED		"bytes_asked"
#define MHL_PIN_K_BYTES_PINNED		"bytes_pinned"
#define MHL_PIN_K_PIN_US		"pin_us"
#define MHL_PIN_K_SIGNAL		"signal"	/* the holder died of it: "SIGKILL" */
#define MHL_PIN_K_PMD_MAPPED_AFTER_SPLIT "pmd_mapped_after_split"
#define MHL_PIN_K_PATTERN_OK		"pattern_ok"
#define MHL_PIN_K_ZERO_PAGE		"zero_page"	/* {pfn, node, zone} */
#define MHL_PIN_K_ZONE			"zone"
#define MHL_PIN_K_CENSUS_BEFORE		"census_before"
#define MHL_PIN_K_CENSUS_AFTER		"census_after"

/* A holder's answer (memhp-pin ctl ID check|release) */
#define MHL_PIN_K_PAGES_MOVED_SINCE_PIN	"pages_moved_since_pin"
#define MHL_PIN_K_RELEASED		"released"
#define MHL_PIN_K_CENSUS		"census"

/* A census (census.c): page counts by kind, by zone, by node */
#define MHL_PIN_K_PAGES			"pages"
#define MHL_PIN_K_NOT_PRESENT		"not_present"
#define MHL_PIN_K_UNKNOWN		"unknown"
#define MHL_PIN_K_ZERO			"zero"
#define MHL_PIN_K_THP			"thp"
#define MHL_PIN_K_CMA			"cma"
#define MHL_PIN_K_BY_ZONE		"by_zone"
#define MHL_PIN_K_BY_NODE		"by_node"
#define MHL_PIN_ZONE_MOVABLE		"Movable"	/* a key of by_zone (census_zone_names) */

/* kmem mode (kmem.c): "kmem": {kernel_bytes, first_error: {errno_name, at}} */
#define MHL_PIN_K_KMEM			"kmem"
#define MHL_PIN_K_KERNEL_BYTES		"kernel_bytes"
#define MHL_PIN_K_FIRST_ERROR		"first_error"
#define MHL_PIN_K_AT			"at"

/* memhp-pin bench (bench.c): "runs": [{get_us, ...}] */
#define MHL_PIN_K_RUNS			"runs"
#define MHL_PIN_K_GET_US		"get_us"
#define MHL_PIN_K_HELD			"held"		/* memhp-pin leak: the objects it keeps alive */

#endif
