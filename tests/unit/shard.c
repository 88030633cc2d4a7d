/* tests/unit/shard.c - run --shard K/N (cli/shard.h): parsing, the batch engines' variables, stability. */
#include <glib.h>

#include <string.h>

#include "cli/shard.h"
#include "unit.h"
#include "util.h"

static const char *const engineVars[] = {
	"CI_NODE_INDEX", "CI_NODE_TOTAL", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN",
	"SLURM_ARRAY_TASK_COUNT", "JOB_COMPLETION_INDEX", "MEMHP_SHARDS", NULL
};

static const struct shardParse {
	const char *arg;
	const char *env;	/* "NAME=VALUE NAME=VALUE": the engine's variables for auto */
	int k, n;		/* 0, 0: refused */
	const char *why;	/* a piece of the error */
} parses[] = {
	{ "1/3", "", 1, 3, NULL },
	{ "3/3", "", 3, 3, NULL },
	{ "1000/1000", "", 1000, 1000, NULL },
	{ "0/3", "", 0, 0, "expected K/N with 1 <= K <= N" },
	{ "4/3", "", 0, 0, "expected K/N" },
	{ "1/1001", "", 0, 0, "expected K/N" },
	{ "1/3/4", "", 0, 0, "expected K/N" },
	{ "-1/3", "", 0, 0, "expected K/N" },
	{ "1/ 3", "", 0, 0, "expected K/N" },
	{ "a/b", "", 0, 0, "expected K/N" },
	{ "auto", "CI_NODE_INDEX=2 CI_NODE_TOTAL=4", 2, 4, NULL },
	{ "auto", "CI_NODE_INDEX=5 CI_NODE_TOTAL=4", 0, 0, "CI_NODE_INDEX '5' and CI_NODE_TOTAL '4'" },
	{ "auto", "CI_NODE_INDEX=1", 0, 0, "CI_NODE_TOTAL '(unset)'" },
	{ "auto", "SLURM_ARRAY_TASK_ID=7 SLURM_ARRAY_TASK_MIN=5 SLURM_ARRAY_TASK_COUNT=3", 3, 3, NULL },
	{ "auto", "SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=2", 1, 2, NULL },
	{ "auto", "SLURM_ARRAY_TASK_ID=8 SLURM_ARRAY_TASK_MIN=5 SLURM_ARRAY_TASK_COUNT=3", 0, 0, "not within" },
	{ "auto", "JOB_COMPLETION_INDEX=0 MEMHP_SHARDS=3", 1, 3, NULL },
	{ "auto", "JOB_COMPLETION_INDEX=2 MEMHP_SHARDS=3", 3, 3, NULL },
	{ "auto", "JOB_COMPLETION_INDEX=3 MEMHP_SHARDS=3", 0, 0, "needs MEMHP_SHARDS" },
	{ "auto", "JOB_COMPLETION_INDEX=0", 0, 0, "needs MEMHP_SHARDS" },
	{ "auto", "", 0, 0, "none of CI_NODE_INDEX (GitLab), SLURM_ARRAY_TASK_ID (Slurm) or JOB_COMPLETION_INDEX" },
};

static bool shardParseJudge(const void *row, GString *desc)
{
	const struct shardParse *c = row;
	g_auto(GStrv) env = g_strsplit(c->env, " ", -1);
	int k = 0, n = 0, rc;
	bool ok;
	char **e;

	g_string_printf(desc, "--shard %s%s%s: %s", c->arg, *c->env ? " with " : "", c->env,
			c->n ? "accepted" : "refused");
	if (unitListing)
		return true;
	for (e = (char **)engineVars; *e; e++)
		g_unsetenv(*e);
	for (e = env; *e; e++) {
		g_auto(GStrv) kv = g_strsplit(*e, "=", 2);

		if (kv[0] && kv[1])
			g_setenv(kv[0], kv[1], TRUE);
	}
	rc = mhlShardParse(c->arg, &k, &n);
	ok = c->n ? rc == 0 && k == c->k && n == c->n : rc < 0 && strstr(mhlErrorLast(), c->why) != NULL;
	if (!ok)
		unitDiag("rc %d, %d/%d, error '%s'", rc, k, n, rc < 0 ? mhlErrorLast() : "");
	mhlErrorReset();
	for (e = (char **)engineVars; *e; e++)
		g_unsetenv(*e);
	return unitExpect(ok);
}

/* The same id lands in the same shard whatever else the run holds; the shards cover every id once. */
static bool shardStable(void)
{
	static const char *const ids[] = { "demo", "c1:kernel=6.12,policy=series", "c1:kernel=6.1,policy=series",
					   "stock-online:pkg=linux-image-cloud-amd64,online=kernel" };
	int counts[4] = { 0 };
	bool ok = true;
	size_t i;

	ok = unitExpect(mhlShardOf("demo", 3) == mhlShardOf("demo", 3));
	for (i = 0; i < G_N_ELEMENTS(ids); i++) {
		int s = mhlShardOf(ids[i], 4);

		ok = unitExpect(s >= 1 && s <= 4) && ok;
		counts[s - 1]++;
	}
	ok = unitExpect(counts[0] + counts[1] + counts[2] + counts[3] == 4) && ok;
	ok = unitExpect(mhlShardOf("anything", 1) == 1) && ok;
	return ok;
}

static bool shardPinned(void)
{
	/* FNV-1a 64: "" is 14695981039346656037, 'a' is 12638187200555641996 (the published test vectors) */
	return unitExpect(mhlShardOf("", 1000) == (int)(14695981039346656037ULL % 1000) + 1) &&
	       unitExpect(mhlShardOf("a", 1000) == (int)(12638187200555641996ULL % 1000) + 1);
}

static const unitCase cases[] = {
	{ "a trial's shard is stable and within 1..N; N = 1 is everything", shardStable },
	{ "the shard hash is FNV-1a 64 (test vectors): shards do not move between versions", shardPinned },
};

static const unitTable tables[] = {
	UNIT_TABLE(parses, shardParseJudge),
	UNIT_CASES(cases),
};

const unitModule unitShard = UNIT_MODULE("shard", NULL, NULL, tables);
