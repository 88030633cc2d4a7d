/*
 * budget.h - a guest's memory budget enforced on its QEMU (issue 48, item
 * 5). `run` fits each guest against the host's available memory by what it
 * can make resident (scenario/fit.c); the guest runs the kernel under test
 * and is not trusted to stay within that. Under the embedded driver (QEMU
 * is our child; libvirt puts it in no cgroup of its own) its QEMU goes into
 * a memory cgroup of its own whose limit is that fit: a guest that
 * overruns is killed inside its budget by the kernel's OOM killer, and the
 * trial says so with the peak, never the host. cgroup v2 (a unified
 * hierarchy, the directory /sys/fs/cgroup/memhp-lab/) or v1 (a child of our
 * own memory cgroup); where neither can be written, the record says why
 * and the fit alone stands (docs/security.md, "The guest's memory budget").
 */
#ifndef MHL_HOST_BUDGET_H
#define MHL_HOST_BUDGET_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct {
	char *dir;		/* the guest's cgroup, NULL: not enforced */
	int version;		/* 1 or 2 */
	uint64_t limit;		/* bytes */
	char *why;		/* not enforced: why (NULL: not asked) */
} mhlBudget;

/*
 * A cgroup named @name (a domain name: [A-Za-z0-9._-]) limited to @limit
 * bytes, swap included (v1 memsw, v2 swap.max 0). 0, or -1 with b->why set
 * (nothing enforced; no error left).
 */
int mhlBudgetOpen(mhlBudget *b, const char *name, uint64_t limit);
/* Move process @pid (QEMU, all its threads) into it; -1 with b->why set. */
int mhlBudgetEnter(mhlBudget *b, pid_t pid);
/* Whether the OOM killer killed in it (QEMU overran its budget). */
bool mhlBudgetKilled(const mhlBudget *b);
/* The peak of what its processes had charged, bytes; -1: not known. */
int64_t mhlBudgetPeak(const mhlBudget *b);
/* {enforced, cgroup?, limit_bytes, peak_bytes?, oom_kills?, why?} for the record. */
json_object *mhlBudgetJSON(const mhlBudget *b);
/* Remove the cgroup (its processes gone) and free; b is then as zeroed. */
void mhlBudgetClose(mhlBudget *b);
/*
 * Remove the empty cgroups of runs whose process is gone (kill -9 leaves
 * them behind: memhp-<trial>-<pid>-<n>). Never fails; how many removed.
 */
int mhlBudgetSweep(void);

#endif
