/* scenario.h - scenario files (YAML): the guest and the ordered steps. */
#ifndef MHL_SCENARIO_H
#define MHL_SCENARIO_H

#include <glib.h>
#include <stdint.h>

#define MHL_MAX_NODES 4
#define MHL_MAX_STEPS 64

typedef enum {
	MHL_STEP_PIN,		/* start a pinning workload, keep its holder */
	MHL_STEP_RESIZE,	/* change <requested> of a node's virtio-mem */
	MHL_STEP_CHECK,		/* census + pattern check of a held buffer */
	MHL_STEP_RELEASE,	/* release the pins of a workload */
	MHL_STEP_SNAPSHOT,	/* collect guest counters */
	MHL_STEP_LAST
} mhlStepType;

extern const char *const mhlStepTypeNames[MHL_STEP_LAST];

typedef struct {
	mhlStepType type;
	int line;		/* scenario line, for messages */
	char id[32];		/* workload id: pin, check, release */
	char workload[16];	/* pin: "gup" */
	uint64_t size;		/* pin: bytes */
	int node;		/* pin, resize */
	uint64_t requested;	/* resize: bytes */
	double deadline;	/* resize: seconds */
} mhlStep;

typedef struct {
	uint64_t memory;	/* boot memory of the cell */
	int cpus;
	uint64_t vmem_size;	/* 0: no virtio-mem device on this node */
	uint64_t vmem_block;
	uint64_t vmem_requested;
} mhlNode;

typedef struct {
	char *path;
	char *name;
	char *kernel;		/* "6.12" */
	char *cmdline;		/* extra guest kernel parameters */
	int nnodes;
	mhlNode nodes[MHL_MAX_NODES];
	int nsteps;
	mhlStep steps[MHL_MAX_STEPS];
} mhlScenario;

/* Parse and validate; NULL + mhlError naming file:line:column on error. */
mhlScenario *mhlScenarioLoad(const char *path);
void mhlScenarioFree(mhlScenario *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(mhlScenario, mhlScenarioFree)

#endif
