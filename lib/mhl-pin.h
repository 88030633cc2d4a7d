/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mhl-pin.h - memhp-pin's closed sets, one table each, included by both
 * sides of the workload's command line as QAPI generates both sides of a
 * command: memhp-pin (workloads/) parses and dispatches with them, the
 * orchestrator (scenario/ checks a pin step, trial/step-pin.c builds the
 * command, host/kernel.c asks the guest kernel for what a mode needs).
 * A new pin mode is one row of MHL_PIN_MODES and its workloads/<mode>.c.
 */
#ifndef MHL_PIN_H
#define MHL_PIN_H

#include "mhl-names.h"

/* The devices a mode needs in the scenario's devices: (scenario/: the pin's check). */
#define MHL_PIN_DEV_IOMMU 1u	/* devices: {iommu: true}: a vIOMMU */
#define MHL_PIN_DEV_EDU 2u	/* devices: {edu: true}: QEMU's edu PCI device */

/* A guest kernel option a mode needs: without it its pin steps are skipped (kernel-lacks). */
struct mhl_pin_kconfig {
	const char *opt;	/* CONFIG_<opt>; NULL ends the list */
	int builtin;		/* =m is not enough: the guest's init loads no module for it */
	const char *why;	/* the skip's reason says it */
};

/*
 * The pin modes: X(ID, VAR, NAME, DEVICES, DEVICES_WHY, READ_ONLY, KCONFIG...)
 *   ID           MHL_PIN_<ID>, the row's index
 *   VAR          the workload's `const struct pin_mode VAR_mode` (workloads/)
 *   NAME         memhp-pin's MODE argument and the pin step's workload:
 *   DEVICES      MHL_PIN_DEV_* it needs, DEVICES_WHY what for (NULL: none)
 *   READ_ONLY    it takes --touch read (touch: read): a read-only pin that
 *                never writes the buffer
 *   KCONFIG      {opt, builtin, why} rows of the guest kernel options it needs
 */
#define MHL_PIN_MODES(X)									\
	X(GUP, gup, "gup", 0, NULL, 1,								\
	  { "GUP_TEST", 0, "gup_test (mm/gup_test.c) is how the gup workload and bench pin" })	\
	X(IO_URING, uring, "io_uring", 0, NULL, 0,						\
	  { "IO_URING", 0, "the io_uring workload registers buffers with it" })			\
	X(VFIO, vfio, "vfio", MHL_PIN_DEV_IOMMU | MHL_PIN_DEV_EDU,				\
	  "a vIOMMU and a device to map DMA for", 0,						\
	  { "VFIO_IOMMU_TYPE1", 0, "the vfio workload maps DMA through it" })			\
	X(VFIO_NOIOMMU, vfio_noiommu, "vfio-noiommu", MHL_PIN_DEV_EDU, "a device to bind", 0,	\
	  { "VFIO_NOIOMMU", 0, "the vfio-noiommu workload needs VFIO's no-IOMMU mode" })	\
	/* Debian's generic kernels have these as modules (the guest's init loads them,	\
	 * host/kmod.c), its cloud kernels no rxe at all. */					\
	X(RDMA, rdma, "rdma", 0, NULL, 0,							\
	  { "RDMA_RXE", 0, "the rdma workload registers its MR with soft-RoCE" },		\
	  { "INFINIBAND_USER_ACCESS", 0, "the rdma workload reaches rxe through user verbs" },	\
	  { "DUMMY", 0, "the rdma workload runs rxe on a dummy netdev" })			\
	X(RDMA_ODP, rdma_odp, "rdma-odp", 0, NULL, 0,						\
	  { "RDMA_RXE", 0, "the rdma-odp workload registers its MR with soft-RoCE" },		\
	  { "INFINIBAND_USER_ACCESS", 0, "the rdma-odp workload reaches rxe through user verbs" }, \
	  { "DUMMY", 0, "the rdma-odp workload runs rxe on a dummy netdev" },			\
	  { "INFINIBAND_ON_DEMAND_PAGING", 1, "an MR with IBV_ACCESS_ON_DEMAND needs it" })	\
	X(HOLD, hold, "hold", 0, NULL, 0, { NULL, 0, NULL })					\
	X(KMEM, kmem, "kmem", 0, NULL, 0, { NULL, 0, NULL })

#define MHL_PIN_ENUM_(id, var, name, ...) MHL_PIN_##id,
enum mhl_pin_mode_id { MHL_PIN_MODES(MHL_PIN_ENUM_) MHL_PIN_MODE_LAST };

struct mhl_pin_mode_row {
	const char *name;
	unsigned int devices;
	const char *devices_why;
	int read_only;
	struct mhl_pin_kconfig kconfig[5];	/* ends at the first NULL opt */
};

#define MHL_PIN_ROW_(id, var, nm, dev, why, ro, ...) \
	[MHL_PIN_##id] = { .name = nm, .devices = dev, .devices_why = why, .read_only = ro, .kconfig = { __VA_ARGS__ } },
static const struct mhl_pin_mode_row mhl_pin_modes[MHL_PIN_MODE_LAST] = { MHL_PIN_MODES(MHL_PIN_ROW_) };

/* The buffer's backing (--backing, a pin step's backing:). */
#define MHL_PIN_BACKINGS(X)								\
	X(ANON, "anon")		/* private anonymous, 4 KiB pages (THP off) */		\
	X(THP, "thp")		/* private anonymous, MADV_HUGEPAGE, 2 MiB aligned */	\
	X(HUGETLB, "hugetlb")	/* MAP_HUGETLB 2 MiB pages, reserved on the node */	\
	X(MEMFD, "memfd")	/* memfd (shmem), MAP_SHARED */

#define MHL_PIN_NAME_ENUM_(id, name) MHL_PIN_BACKING_##id,
enum mhl_pin_backing { MHL_PIN_BACKINGS(MHL_PIN_NAME_ENUM_) MHL_PIN_BACKING_LAST };
#undef MHL_PIN_NAME_ENUM_
#define MHL_PIN_NAME_(id, name) name,
static const char *const mhl_pin_backings[MHL_PIN_BACKING_LAST] = { MHL_PIN_BACKINGS(MHL_PIN_NAME_) };

/* Who first touches the buffer (--touch, touch:): before the pin, the pin itself, or reads only. */
enum mhl_pin_touch { MHL_PIN_TOUCH_BEFORE, MHL_PIN_TOUCH_PIN, MHL_PIN_TOUCH_READ, MHL_PIN_TOUCH_LAST };
static const char *const mhl_pin_touches[MHL_PIN_TOUCH_LAST] = {
	[MHL_PIN_TOUCH_BEFORE] = "before", [MHL_PIN_TOUCH_PIN] = "pin", [MHL_PIN_TOUCH_READ] = "read",
};

/* How each THP's PMD is split before the census (--split, split:; holder.c: thp_split). */
static const char *const mhl_pin_splits[] = { "mprotect", "munmap" };

#endif
