/*
 * planned.h - the steps a trial's scenario plans, as a report sees them.
 *
 * The reports list the steps a trial never ran (ktap: SKIP "not run: ...")
 * and read only record/ (docs/architecture.md): they never load a scenario
 * themselves. The command that writes a report hands them a reader of the
 * scenario file a record names (mhlScenarioPlannedSteps, scenario/planned.c)
 * in mhlReportOpts; without one they list nothing.
 */
#ifndef MHL_RECORD_PLANNED_H
#define MHL_RECORD_PLANNED_H

#include <glib.h>

typedef struct {
	char *kind;	/* the step kind, as a record's "step": "pin", "resize", ... */
	int line;	/* its line in the scenario file, as a record's "line" */
	char *name;	/* "check pin0": as mhlStepName names a recorded step */
} mhlPlannedStep;

/*
 * The steps scenario file @path plans for trial @trial (its first trial
 * when none has that id: --only, an edited record), in order, each an
 * mhlPlannedStep * freed with the array; NULL when @path is not a readable
 * regular .yaml scenario (nothing reported: a report never guesses).
 */
typedef GPtrArray *(*mhlPlannedStepsFn)(const char *path, const char *trial);

#endif
