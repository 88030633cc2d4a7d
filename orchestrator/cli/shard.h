/*
 * shard.h - `run --shard K/N`: a stable part of a run's trials, for the batch
 * engines teams already run (GitLab CI parallel:, Kubernetes Indexed Jobs,
 * Slurm job arrays), and `report --merge` of the shards' run directories.
 */
#ifndef MHL_CLI_SHARD_H
#define MHL_CLI_SHARD_H

#include <glib.h>

/* The most shards a run splits into. */
#define MHL_SHARD_MAX 1000

/*
 * --shard's argument: "K/N" (1 <= K <= N <= MHL_SHARD_MAX) or "auto", which
 * reads the engine's own variables: CI_NODE_INDEX/CI_NODE_TOTAL (GitLab,
 * 1-based), SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_MIN/_COUNT (Slurm),
 * JOB_COMPLETION_INDEX (Kubernetes, 0-based) with MEMHP_SHARDS (the Job's
 * completions: Kubernetes does not export them). 0 and *k, *n set, or -1 +
 * mhlError saying which variable is missing or wrong.
 */
int mhlShardParse(const char *arg, int *k, int *n);

/* The shard (1..@n) trial @id belongs to: FNV-1a of the id, so the same trial always lands in the same one. */
int mhlShardOf(const char *id, int n);

/*
 * report --merge DIR... -o OUT: the run directories of the shards of one run
 * (their run.json name the shard and the whole run's trial ids) made into
 * one: OUT/trials.jsonl in the whole run's order, the console logs copied,
 * OUT/run.json. Refuses shards of different runs, a shard given twice, a
 * trial recorded twice or not at all, naming it and the directories. 0, or
 * -1 + mhlError.
 */
int mhlShardMerge(char **dirs, int ndirs, const char *out);

#endif
