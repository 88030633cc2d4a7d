/*
 * scenario/scenario-int.h - how the parts of the scenario loader call each
 * other: scenario.c reads the top-level keys and hands each to its part:
 * steps.c (the step kinds), sections.c (kernel, nodes, devices, backing,
 * online, soak, xfail, grid, host labels), matrix.c (the axes and ${axis}).
 * Internal to scenario/.
 */
#ifndef MHL_SCENARIO_INT_H
#define MHL_SCENARIO_INT_H

#include "scenario/names.h"	/* pin_policy's names: arrays are indexed by a policy's row */
#include "scenario/scenario.h"
#include "scenario/yaml.h"

/* what a workload id (and, with '.', a scenario name) may hold */
#define ID_CHARS G_CSET_A_2_Z G_CSET_a_2_z G_CSET_DIGITS "_-"


/* steps.c: "steps:" into s->steps; the cross-step checks once every part is read. */
int mhlStepsParse(mhlYaml *y, mhlScenario *s, yaml_node_t *v);
int mhlStepsValidate(mhlScenario *s);

/* sections.c: one top-level key each; 0, or -1 + mhlError at the node. */
int mhlSecKernel(mhlYaml *y, mhlScenario *s, yaml_node_t *v);
int mhlSecNodes(mhlYaml *y, mhlScenario *s, yaml_node_t *v);
int mhlSecDevices(mhlYaml *y, mhlScenario *s, yaml_node_t *v);
int mhlSecBacking(mhlYaml *y, mhlScenario *s, yaml_node_t *v);
int mhlSecOnline(mhlYaml *y, mhlScenario *s, yaml_node_t *v);
int mhlSecSoak(mhlYaml *y, mhlScenario *s, yaml_node_t *v);
int mhlSecXfail(mhlYaml *y, mhlScenario *s, yaml_node_t *v);
int mhlSecGrid(mhlYaml *y, mhlScenario *s, yaml_node_t *v);
/* stack_needs: {qemu: "8.1", libvirt: "10.1", reason: TEXT}: the least versions the scenario needs. */
int mhlSecStackNeeds(mhlYaml *y, mhlScenario *s, yaml_node_t *v);
int mhlSecHostLabels(mhlYaml *y, mhlScenario *s, yaml_node_t *v);
int mhlSecNameCheck(mhlYaml *y, yaml_node_t *v);
int mhlSecCmdlineCheck(mhlYaml *y, yaml_node_t *v);
/* NAME[=VERSION] of a Debian kernel package (linux-image-*) */
bool mhlPackageNameOk(const char *p);

/* matrix.c */
/*
 * matrix: {AXIS: [VALUE, ...], ..., exclude: [{AXIS: VALUE, ...}, ...]}
 * The run is the cross product of the axes, in the order written, the last
 * axis varying fastest, without the combinations an exclude rule matches
 * in full.
 */
enum { RULE_ANY = -1, RULE_NEVER = -2 };	/* an exclude rule's entry for an axis */

typedef struct mhlMatrix {
	int naxes;
	const char *axis[MHL_MAX_AXES];
	yaml_node_t *values[MHL_MAX_AXES];	/* sequences of scalars */
	int nvalues[MHL_MAX_AXES];
	/* exclude rules: per axis the index of the value a rule names, or RULE_* */
	int nrules;
	int rule[MHL_MAX_EXCLUDES][MHL_MAX_AXES];
} mhlMatrix;


int mhlMatrixParse(mhlYaml *y, yaml_node_t *root, mhlMatrix *m);
const char *mhlMatrixValue(mhlYaml *y, const mhlMatrix *m, int a, int idx);
bool mhlMatrixExcluded(const mhlMatrix *m, const int *idx);
int mhlMatrixTemplated(mhlYaml *y);
int mhlMatrixExpand(mhlYaml *y, GHashTable *bind);

#endif
