/*
 * tests/unit/scenario.c - scenario files (orchestrator/scenario/scenario.h):
 * every validation error names file:line:column and what is wrong; the
 * shipped scenarios load; matrices expand into trials.
 */
#include <glib.h>

#include <string.h>
#include <unistd.h>

#include "mhl-pin.h"
#include "scenario/names.h"
#include "scenario/scenario.h"
#include "unit.h"
#include "util.h"

/* Two nodes, the second with 128 MiB to pin from; then "steps:". */
#define PIN_GUEST "nodes:\n  - memory: 1G\n  - memory: 128M\nsteps:\n"
/* The same with a 1 GiB virtio-mem device on node 1 asking for @req at boot. */
#define VMEM_GUEST(req) "nodes:\n  - memory: 1G\n  - memory: 128M\n" \
	"    virtio_mem: {size: 1G, block: 2M, requested: " req "}\nsteps:\n"

/* A scenario that must be refused, and a part of the message that says why. */
static const struct scenarioError {
	const char *desc, *yaml, *want;
} errors[] = {
	{ "unknown key", "name: x\nnodez: []\n", "2:1: unknown key 'nodez'" },
	{ "wrong type", "nodes: 3\n", "1:8: nodes must be a list" },
	{ "negative size", "nodes:\n  - memory: -1G\n", "2:13: node memory: '-1G' is not a size" },
	{ "unparsable size", "nodes:\n  - memory: lots\n", "'lots' is not a size" },
	{ "not a block multiple",
	  "nodes:\n  - memory: 1G\n    virtio_mem: {size: 1G, block: 2M, requested: 3M}\n",
	  "3:17: virtio_mem: size" },
	{ "requested > size",
	  "nodes:\n  - memory: 1G\n    virtio_mem: {size: 1G, block: 2M, requested: 2G}\n",
	  "at most size" },
	{ "node that does not exist",
	  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 1M, node: 2}\n",
	  ":4:5: step 'pin' names node 2, but the guest has 1 node(s)" },
	{ "workload never started",
	  "nodes:\n  - memory: 1G\nsteps:\n  - release: {id: ghost}\n",
	  ":4:5: step 'release' refers to workload 'ghost', which was never started" },
	{ "unknown step", "nodes:\n  - memory: 1G\nsteps:\n  - dance: {}\n", "4:5: unknown step 'dance'" },
	{ "missing key", "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a}\n", "step 'pin' needs 'size'" },
	{ "YAML syntax", "nodes: [\n", "YAML syntax error" },
	{ "unknown kernel", "kernel: '5.4'\nnodes:\n  - memory: 1G\n", "unknown kernel '5.4'" },
	{ "kernel package: a name with shell in it",
	  "kernel: {package: 'linux-image-$(id)'}\nnodes:\n  - memory: 1G\n",
	  "1:19: kernel: package 'linux-image-$(id)': expected a Debian linux-image-* package name" },
	{ "kernel package: not a kernel image package", "kernel: {package: bash}\nnodes:\n  - memory: 1G\n",
	  "kernel: package 'bash': expected a Debian linux-image-* package name" },
	{ "kernel package: a version with a space", "kernel: {package: 'linux-image-x=1 2'}\nnodes:\n  - memory: 1G\n",
	  "package 'linux-image-x=1 2': expected" },
	{ "kernel package and bzimage at once",
	  "kernel: {package: linux-image-x, bzimage: /b, config: /c}\nnodes:\n  - memory: 1G\n",
	  "kernel: one of 'package', 'deb', or 'bzimage' and 'config' (and 'modules')" },
	{ "kernel deb and package at once",
	  "kernel: {deb: /x.deb, package: linux-image-x}\nnodes:\n  - memory: 1G\n",
	  "kernel: one of 'package', 'deb', or 'bzimage' and 'config' (and 'modules')" },
	{ "vfio pin without devices (run would fail after a boot with ENODEV)",
	  "nodes:\n  - memory: 1G\n  - memory: 128M\nsteps:\n  - pin: {id: v, workload: vfio, size: 2M}\n",
	  ":5:5: pin: workload vfio needs devices: {iommu: true, edu: true}" },
	{ "vfio-noiommu pin without edu",
	  "devices: {iommu: true}\nnodes:\n  - memory: 1G\n  - memory: 128M\nsteps:\n  - pin: {id: v, workload: vfio-noiommu, size: 2M}\n",
	  ":6:5: pin: workload vfio-noiommu needs devices: {edu: true}" },
	{ "fails_with: an errno name libc does not know",
	  "nodes:\n  - memory: 1G\n  - memory: 128M\nsteps:\n  - pin: {id: p, size: 2M, fails_with: ENOTANERRNO}\n",
	  "fails_with: 'ENOTANERRNO' is not an errno name" },
	{ "fails_with: a signal that does not exist",
	  "nodes:\n  - memory: 1G\n  - memory: 128M\nsteps:\n  - pin: {id: p, size: 2M, fails_with: SIGFOO}\n",
	  "fails_with: 'SIGFOO' is not an errno name" },
	{ "virtio_mem: a block below QEMU's 2 MiB",
	  "nodes:\n  - memory: 1G\n    virtio_mem: {size: 1G, block: 1M, requested: 0}\n",
	  "3:17: virtio_mem: block 1048576 bytes is below the 2 MiB QEMU accepts" },
	{ "online: a ratio without auto-movable", "online: {policy: movable, ratio: 3}\nnodes:\n  - memory: 1G\n",
	  "online: ratio needs policy: auto-movable" },
	{ "prebuilt kernel without config", "kernel: {bzimage: /b}\nnodes:\n  - memory: 1G\n",
	  "1:9: a prebuilt kernel needs both 'bzimage' and 'config'" },
	{ "unknown pin_policy", "pin_policy: sometimes\nnodes:\n  - memory: 1G\n",
	  "1:13: unknown pin_policy 'sometimes'" },
	{ "expect: unknown unplug value",
	  "nodes:\n  - memory: 1G\nsteps:\n  - expect: {unplug: maybe}\n",
	  "4:22: unplug: expected reached or short, not 'maybe'" },
	{ "expect: unplug before any resize",
	  "nodes:\n  - memory: 1G\nsteps:\n  - expect: {unplug: short}\n",
	  ":4:14: expect: 'unplug' needs a resize step before it" },
	{ "expect: movable_after_pin not a number",
	  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 1M, node: 0}\n  - expect: {movable_after_pin: some}\n",
	  "movable_after_pin (pages, or all): 'some' is not an integer" },
	{ "matrix: axis is not a list",
	  "matrix: {size: 1M}\nnodes:\n  - memory: 1G\n", "1:16: a matrix axis must be a list" },
	{ "matrix: unknown axis in a substitution",
	  "matrix: {size: [1M]}\nnodes:\n  - memory: ${mem}\n", "3:13: '${mem}' is not a matrix axis" },
	{ "substitution without a matrix",
	  "nodes:\n  - memory: ${mem}\n", "(the scenario has no matrix)" },
	{ "matrix: exclude names an unknown axis",
	  "matrix: {size: [1M], exclude: [{sise: 1M}]}\nnodes:\n  - memory: 1G\n",
	  "1:33: exclude names 'sise', which is not a matrix axis" },
	{ "matrix: everything excluded",
	  "matrix: {size: [1M], exclude: [{size: 1M}]}\nnodes:\n  - memory: 1G\n",
	  "the matrix's exclude rules leave no trial" },
	{ "matrix: a substituted value is still checked",
	  "matrix: {size: [1M, lots]}\nnodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: \"${size}\", node: 0}\n",
	  "5:24: size: 'lots' is not a size" },
	{ "expect: vmstat change not a number",
	  "nodes:\n  - memory: 1G\nsteps:\n  - expect: {vmstat: {pgfault: lots}}\n",
	  "vmstat pgfault: expected a change N or \">=N\", not 'lots'" },
	{ "expect: vmstat counter name",
	  "nodes:\n  - memory: 1G\nsteps:\n  - expect: {vmstat: {'Bad Name': 1}}\n",
	  "'Bad Name' is not a /proc/vmstat counter name" },
	{ "pin: fails_with keyed by something not a policy",
	  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 1M, node: 0, fails_with: {often: ENOMEM}}\n",
	  "fails_with: a mapping has one key, a pin_policy" },
	{ "wait: until something unknown",
	  "nodes:\n  - memory: 1G\nsteps:\n  - wait: {seconds: 5, until: sunrise}\n",
	  "until: expected converged, not 'sunrise'" },
	{ "io of a workload never started",
	  "nodes:\n  - memory: 1G\nsteps:\n  - io: {id: ghost}\n",
	  "step 'io' refers to workload 'ghost', which was never started" },
	{ "expect: integrity false",
	  "nodes:\n  - memory: 1G\nsteps:\n  - expect: {integrity: false}\n",
	  "integrity: only 'true' is meaningful here" },
	{ "sysrq: not one key",
	  "nodes:\n  - memory: 1G\nsteps:\n  - sysrq: {key: cc}\n", "4:18: sysrq key: expected one letter" },
	{ "expect: unknown policy",
	  "nodes:\n  - memory: 1G\nsteps:\n  - expect: {policy: maybe}\n",
	  "unknown policy 'maybe'" },
	{ "resize without device",
	  "nodes:\n  - memory: 1G\n  - memory: 64M\nsteps:\n  - resize: {node: 1, requested: 0}\n",
	  "node 1 has no virtio_mem device" },
	{ "pin: touch read with a mode that writes",
	  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 1M, node: 0, workload: io_uring, touch: read}\n",
	  ":4:5: pin: touch: read (a read-only pin of never-written memory) is for workload gup only, not io_uring" },
	{ "pin: split of a buffer that is not THP",
	  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 2M, node: 0, split: mprotect}\n",
	  ":4:5: pin: split needs backing: thp, touch: before" },
	{ "pin: split of less than a huge page",
	  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 1M, node: 0, backing: thp, split: munmap}\n",
	  "a size in whole 2 MiB pages" },
	{ "expect: census value not a count",
	  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 1M, node: 0}\n  - expect: {census_before: {cma: some}}\n",
	  "5:35: census_before cma: expected pages N, \">=N\" or all, not 'some'" },
	{ "expect: census before any pin",
	  "nodes:\n  - memory: 1G\nsteps:\n  - expect: {census_after: {Movable: 0}}\n",
	  ":4:14: expect: 'census_after' needs a pin step before it" },
	{ "expect: unknown kernel filter",
	  "nodes:\n  - memory: 1G\nsteps:\n  - expect: {kernel: '5.10'}\n",
	  "4:22: unknown kernel '5.10' (known: 6.12, 6.1, 7.3)" },
	/* hardening (issue 14): what a mistaken scenario must not get past check */
	{ "a key twice: the second named, not the last silently winning",
	  "name: a\nnodes:\n  - memory: 1G\nname: b\n",
	  "4:1: key 'name' given twice in one mapping (first at line 1, column 1)" },
	{ "a key twice in a nested mapping",
	  "nodes:\n  - {memory: 1G, cpus: 1, memory: 2G}\n",
	  "2:27: key 'memory' given twice in one mapping (first at line 2, column 6)" },
	{ "a key twice in a mapping of two keys",
	  "nodes:\n  - {memory: 1G, memory: 2G}\n",
	  "2:18: key 'memory' given twice in one mapping (first at line 2, column 6)" },
	{ "a key twice through an alias (&k name, then *k)",
	  "&k name: a\nnodes:\n  - memory: 1G\n*k : b\n",
	  "key 'name' given twice in one mapping" },
	{ "step id with a path, a space and a semicolon",
	  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: '../../x y;z', size: 1M, node: 0}\n",
	  "4:15: id '../../x y;z': expected 1 to 31 of A-Z, a-z, 0-9, '_' and '-'" },
	{ "step id with a backslash (memhp-pin's JSON)",
	  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: 'a\\b', size: 1M, node: 0}\n",
	  "4:15: id 'a\\b': expected" },
	{ "release of an id with a quote", "nodes:\n  - memory: 1G\nsteps:\n  - release: {id: 'a\"'}\n",
	  "4:19: id 'a\"': expected" },
	{ "name that leaves results/",
	  "name: ../../x\nnodes:\n  - memory: 1G\n", "1:7: name '../../x': expected 1 to 64 of" },
	{ "name starting with a dot", "name: .hidden\nnodes:\n  - memory: 1G\n", "1:7: name '.hidden'" },
	{ "name from a matrix value with a slash",
	  "name: \"n${v}\"\nmatrix: {v: [a, /b]}\nnodes:\n  - memory: 1G\n", "1:7: name 'n/b'" },
	{ "resize deadline nan (a wait that never ends)",
	  "nodes:\n  - memory: 1G\n  - memory: 64M\n    virtio_mem: {size: 128M}\nsteps:\n"
	  "  - resize: {node: 1, requested: 0, deadline: nan}\n",
	  "6:47: deadline: 'nan' is not a number of seconds in (0, 86400]" },
	{ "wait seconds nan", "nodes:\n  - memory: 1G\nsteps:\n  - wait: {seconds: NaN}\n",
	  "4:21: seconds: 'NaN' is not a number of seconds" },
	{ "wait seconds past a day", "nodes:\n  - memory: 1G\nsteps:\n  - wait: {seconds: 86401}\n",
	  "seconds: '86401' is not a number of seconds in (0, 86400]" },
	{ "cmdline with a line end", "cmdline: \"a\\nb\"\nnodes:\n  - memory: 1G\n",
	  "1:10: cmdline: control character 0x0a at offset 1" },
	{ "lists nested 40 deep",
	  "steps: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n",
	  "1:39: lists and mappings nest more than 32 deep" },
	{ "matrix: a value twice (two trials, one id)",
	  "matrix: {v: [x, y, x]}\nnodes:\n  - memory: 1G\n",
	  "1:20: matrix axis 'v': value 'x' twice (first at line 1, column 14)" },
	{ "xfail: not a list", "xfail: {reason: x}\nnodes:\n  - memory: 1G\n", "1:8: xfail must be a list" },
	{ "xfail: an entry without reason", "xfail:\n  - {kernel: '6.1'}\nnodes:\n  - memory: 1G\n",
	  "2:5: an xfail entry needs 'reason'" },
	{ "xfail: a match that is not a regex", "xfail:\n  - {reason: x, match: 'a(b'}\nnodes:\n  - memory: 1G\n",
	  "2:24: xfail match 'a(b' is not a regular expression" },
	{ "xfail: a reason of two lines", "xfail:\n  - {reason: \"a\\nb\"}\nnodes:\n  - memory: 1G\n",
	  "2:14: xfail reason must be one line without control characters" },
	{ "grid: no label", "grid: {vmstat: pgfault}\nnodes:\n  - memory: 1G\n",
	  "1:7: a grid entry needs a label and one of vmstat, path or ratio" },
	{ "grid: two sources", "grid: {label: x, vmstat: pgfault, path: summary.pins_failed}\nnodes:\n  - memory: 1G\n",
	  "1:7: a grid entry needs a label and one of vmstat, path or ratio" },
	{ "grid: a path with a shell character", "grid: {label: x, path: 'steps.0;id'}\nnodes:\n  - memory: 1G\n",
	  "1:24: grid path 'steps.0;id' is not a record path" },
	{ "grid: a path with an empty component", "grid: {label: x, path: steps..workload}\nnodes:\n  - memory: 1G\n",
	  "1:24: grid path 'steps..workload' is not a record path" },
	{ "grid: a vmstat name with a dot", "grid: {label: x, vmstat: a.b}\nnodes:\n  - memory: 1G\n",
	  "1:26: grid vmstat 'a.b' is not a /proc/vmstat name" },
	{ "grid: a ratio of one path", "grid: {label: x, ratio: [summary.pins_failed]}\nnodes:\n  - memory: 1G\n",
	  "1:25: grid ratio: two record paths, [DIVIDEND, DIVISOR]" },
	{ "grid: a label of two lines", "grid: {label: \"a\\nb\", vmstat: pgfault}\nnodes:\n  - memory: 1G\n",
	  "1:15: grid label must be one line without control characters" },
	{ "matrix: a key twice (an axis given twice)",
	  "matrix: {v: [x], v: [y]}\nnodes:\n  - memory: 1G\n",
	  "1:18: key 'v' given twice in one mapping" },
	{ "exec: argv[0] not an absolute path (no shell or PATH in the guest)",
	  "nodes:\n  - memory: 1G\nsteps:\n  - exec: {argv: [sh, -c, 'echo hi']}\n",
	  "4:19: exec: argv[0] 'sh' is not an absolute path" },
	{ "exec: argv as one string (a shell line) rather than a list",
	  "nodes:\n  - memory: 1G\nsteps:\n  - exec: {argv: '/bin/sh -c true'}\n",
	  "4:18: exec: argv must be a list" },
	{ "exec: an empty argv", "nodes:\n  - memory: 1G\nsteps:\n  - exec: {argv: []}\n",
	  "4:18: exec: argv is empty" },
	{ "exec: a control character in an argument",
	  "nodes:\n  - memory: 1G\nsteps:\n  - exec: {argv: [/bin/echo, \"a\\nb\"]}\n",
	  "4:30: exec: argv[1]: control character 0x0a at offset 1" },
	{ "exec: more than 32 entries",
	  "nodes:\n  - memory: 1G\nsteps:\n  - exec: {argv: [/bin/true, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a,"
	  " a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a]}\n",
	  "exec: argv is longer than 32 entries or 1024 bytes" },
	{ "exec: an exit status outside 0..255",
	  "nodes:\n  - memory: 1G\nsteps:\n  - exec: {argv: [/bin/true], exit: 256}\n", "exit" },
	{ "exec: a deadline that is not finite",
	  "nodes:\n  - memory: 1G\nsteps:\n  - exec: {argv: [/bin/true], deadline: .inf}\n", "deadline" },
	{ "exec: needs argv", "nodes:\n  - memory: 1G\nsteps:\n  - exec: {deadline: 5}\n", "needs 'argv'" },
	{ "pin: size 1GB, which virsh reads as 10^9 bytes: no whole number of pages (memhp-pin refuses it)",
	  PIN_GUEST "  - pin: {id: a, size: 1GB}\n",
	  ":5:18: pin: size 1000000000 bytes is no whole number of 4 KiB pages (KB, MB, GB are powers of 1000" },
	/*
	 * An expectation that cannot hold given the steps before it (issue
	 * "ready to gate nightly runs", item 7), named where the expect step
	 * gives it.
	 */
	{ "expect: integrity before any check, io or release (nothing judged: it could never pass)",
	  PIN_GUEST "  - pin: {id: a, size: 2M}\n  - expect: {integrity: true}\n",
	  ":6:14: expect: 'integrity' needs a check, io or release step before it" },
	{ "expect: integrity as the first step, named at its key on the expect's second line",
	  PIN_GUEST "  - expect: {console_clean: true,\n             integrity: true}\n",
	  ":6:14: expect: 'integrity' needs a check, io or release step before it" },
	{ "expect: host_reclaimed before any resize",
	  VMEM_GUEST("1G") "  - expect: {host_reclaimed: \">=90%\"}\n",
	  ":6:14: expect: 'host_reclaimed' needs a resize step before it" },
	{ "expect: host_reclaimed after only a grow (the host gets nothing back)",
	  VMEM_GUEST("0") "  - resize: {node: 1, requested: 512M}\n  - expect: {unplug: reached, host_reclaimed: \">=90%\"}\n",
	  ":7:31: expect: 'host_reclaimed' needs a resize step that shrinks a virtio_mem device before it" },
	{ "expect: host_reclaimed after a resize to the size the device already had",
	  VMEM_GUEST("1G") "  - resize: {node: 1, requested: 1G}\n  - expect: {host_reclaimed: \">=90%\"}\n",
	  ":7:14: expect: 'host_reclaimed' needs a resize step that shrinks" },
	{ "expect: pins_failed 1 after a pin that must succeed (its failure ends the trial)",
	  PIN_GUEST "  - pin: {id: a, size: 2M}\n  - expect: {pins_failed: 1}\n",
	  ":6:14: expect: 'pins_failed' (1) needs 1 pin step(s) before it that may fail (fails_with, or measure: true" },
	{ "expect: pins_failed 0 after a pin that must fail",
	  PIN_GUEST "  - pin: {id: a, size: 2M, fails_with: ENOMEM}\n  - expect: {pins_failed: 0}\n",
	  ":6:14: expect: 'pins_failed' (0) can never hold: 1 pin step(s) before it must fail (fails_with)" },
	{ "expect: pins_failed 1 under baseline after a pin that fails under series only",
	  PIN_GUEST "  - pin: {id: a, size: 2M, fails_with: {series: ENOMEM}}\n  - expect: {policy: baseline, pins_failed: 1}\n",
	  ":6:32: expect: 'pins_failed' (1) needs 1 pin step(s) before it that may fail" },
	{ "expect: movable_after_pin of a pin that must fail (a failed pin has no census)",
	  PIN_GUEST "  - pin: {id: a, size: 2M}\n  - pin: {id: b, size: 2M, fails_with: ENOMEM}\n  - expect: {movable_after_pin: 0}\n",
	  ":7:14: expect: 'movable_after_pin' needs a pin step that succeeds before it: the last one ('b', line 6) must fail (fails_with: ENOMEM)" },
	{ "expect: census_after under series of a pin that fails under series",
	  PIN_GUEST "  - pin: {id: a, size: 2M, fails_with: {series: ENOMEM}}\n  - expect: {policy: series, census_after: {Movable: 0}}\n",
	  ":6:30: expect: 'census_after' needs a pin step that succeeds before it: the last one ('a', line 5) must fail (fails_with: ENOMEM under series)" },
	{ "expect: census_before of a measured pin of size 0 (nothing pinned)",
	  PIN_GUEST "  - pin: {id: a, size: 0, measure: true}\n  - expect: {census_before: {Movable: all}}\n",
	  ":6:14: expect: 'census_before' needs a pin step that pins something before it: the last one ('a', line 5) has size 0" },
	{ "reboot: how something unknown",
	  VMEM_GUEST("1G") "  - reboot: {how: sideways}\n",
	  ":6:19: reboot: how: expected host, guest, not 'sideways'" },
	{ "check of a pin taken before a reboot (its holder is gone)",
	  VMEM_GUEST("1G") "  - pin: {id: a, size: 2M}\n  - reboot: {how: guest}\n  - check: {id: a}\n",
	  ":8:5: step 'check' refers to workload 'a', whose holder the reboot at line 7 ended" },
	{ "suspend: node without requested",
	  VMEM_GUEST("1G") "  - suspend: {seconds: 1, node: 1}\n",
	  ":6:27: suspend: node 1 without requested" },
	{ "suspend: requested not a multiple of the block",
	  VMEM_GUEST("1G") "  - suspend: {seconds: 1, node: 1, requested: 3M}\n",
	  ":6:5: suspend: requested 3145728 bytes must be a multiple of the block" },
};

static bool scenarioErrorJudge(const void *row, GString *desc)
{
	const struct scenarioError *c = row;
	g_autofree char *path = NULL;
	g_autoptr(mhlScenario) s = NULL;
	const char *msg;

	g_string_printf(desc, "scenario error: %s -> '%s'", c->desc, c->want);
	if (unitListing)
		return true;
	path = unitWriteTmp("s.yaml", c->yaml);
	s = mhlScenarioLoad(path);
	msg = mhlErrorLast();
	if (s || !strstr(msg, c->want))
		unitDiag("  got: %s", msg);
	return unitExpect(!s && strstr(msg, path) && strstr(msg, c->want));
}

/* Expectations that can hold given the steps before them: check takes them. */
static const struct scenarioHolds {
	const char *desc, *yaml;
} holds[] = {
	{ "integrity after a check", PIN_GUEST "  - pin: {id: a, size: 2M}\n  - check: {id: a}\n  - expect: {integrity: true}\n" },
	{ "integrity after an io", PIN_GUEST "  - pin: {id: a, size: 2M}\n  - io: {id: a}\n  - expect: {integrity: true}\n" },
	{ "integrity after a release", PIN_GUEST "  - pin: {id: a, size: 2M}\n  - release: {id: a}\n  - expect: {integrity: true}\n" },
	{ "vmstat and console_clean as the first step (they hold or not at any point)",
	  PIN_GUEST "  - expect: {vmstat: {nr_free_pages: \">=0\"}, console_clean: true}\n" },
	{ "a pin taken again after a reboot, then checked and released",
	  VMEM_GUEST("1G") "  - pin: {id: a, size: 2M}\n  - reboot:\n  - pin: {id: a, size: 2M}\n"
	  "  - check: {id: a}\n  - release: {id: a}\n  - expect: {integrity: true}\n" },
	{ "suspend with a resize while paused, then wait until converged",
	  VMEM_GUEST("1G") "  - suspend: {seconds: 1, node: 1, requested: 512M, deadline: 30}\n  - wait: {seconds: 30, until: converged}\n" },
	{ "host_reclaimed after a shrink below the boot request",
	  VMEM_GUEST("1G") "  - resize: {node: 1, requested: 0}\n  - expect: {host_reclaimed: \">=90%\"}\n" },
	{ "host_reclaimed after a grow and then a shrink",
	  VMEM_GUEST("0") "  - resize: {node: 1, requested: 512M}\n  - resize: {node: 1, requested: 256M}\n"
	  "  - expect: {host_reclaimed: \">=90%\"}\n" },
	{ "host_reclaimed after a shrink and a grow (the last shrink is judged)",
	  VMEM_GUEST("1G") "  - resize: {node: 1, requested: 0}\n  - resize: {node: 1, requested: 1G}\n"
	  "  - expect: {unplug: reached, host_reclaimed: \">=90%\"}\n" },
	{ "pins_failed 0 after pins that must succeed",
	  PIN_GUEST "  - pin: {id: a, size: 2M}\n  - pin: {id: b, size: 2M}\n  - expect: {pins_failed: 0}\n" },
	{ "pins_failed 1 after a pin that must fail",
	  PIN_GUEST "  - pin: {id: a, size: 2M, fails_with: SIGKILL}\n  - expect: {pins_failed: 1}\n" },
	{ "pins_failed 0 and 1 after a measured pin (it may fail)",
	  PIN_GUEST "  - pin: {id: a, size: 2M, measure: true}\n  - expect: {pins_failed: 0}\n  - expect: {pins_failed: 1}\n" },
	{ "pins_failed 0 for every policy after a pin that fails under series only (baseline: it holds)",
	  PIN_GUEST "  - pin: {id: a, size: 2M, fails_with: {series: ENOMEM}}\n  - expect: {pins_failed: 0}\n" },
	{ "census_after under baseline of a pin that fails under series only",
	  PIN_GUEST "  - pin: {id: a, size: 2M, fails_with: {series: ENOMEM}}\n"
	  "  - expect: {policy: baseline, census_after: {Movable: all}, movable_after_pin: all}\n" },
	{ "movable_after_pin of a pin that succeeds after two that must fail",
	  PIN_GUEST "  - pin: {id: a, size: 2M, fails_with: ENOMEM}\n  - pin: {id: b, size: 2M, fails_with: SIGKILL}\n"
	  "  - pin: {id: c, size: 2M}\n  - expect: {movable_after_pin: 0, census_before: {pages: all}}\n" },
};

static bool scenarioHoldsJudge(const void *row, GString *desc)
{
	const struct scenarioHolds *c = row;
	g_autofree char *path = NULL;
	g_autoptr(mhlScenario) s = NULL;

	g_string_printf(desc, "scenario expectation that can hold: %s", c->desc);
	if (unitListing)
		return true;
	path = unitWriteTmp("h.yaml", c->yaml);
	s = mhlScenarioLoad(path);
	if (!s)
		unitDiag("  refused: %s", mhlErrorLast());
	mhlErrorReset();
	return unitExpect(s != NULL);
}

/* grid: the first entry for the trial's pin_policy applies; an entry without policy, any. */
static bool gridApplies(void)
{
	g_autofree char *path = unitWriteTmp("g.yaml",
		"pin_policy: ${p}\nmatrix: {p: [series, baseline]}\n"
		"grid:\n  - {policy: baseline, label: in place, vmstat: gup_longterm_pinned_in_place}\n"
		"  - {label: moved, ratio: [steps.0.workload.a, summary.b]}\nnodes:\n  - memory: 1G\n");
	g_autoptr(GPtrArray) trials = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
	const mhlGridSpec *s0, *s1;

	if (mhlScenarioLoadAll(path, trials) < 0 || trials->len != 2)
		return unitExpect(false);
	s0 = mhlScenarioGrid(trials->pdata[0]);
	s1 = mhlScenarioGrid(trials->pdata[1]);
	return unitExpect(s0 && s0->kind == MHL_GRID_RATIO && !strcmp(s0->label, "moved") &&
			  !strcmp(s0->a, "steps.0.workload.a") && !strcmp(s0->b, "summary.b") &&
			  s1 && s1->kind == MHL_GRID_VMSTAT && !strcmp(s1->a, "gup_longterm_pinned_in_place"));
}

/* Whether a matrix axis chose pin_policy and kernel (run --pin-policy/--kernel then select, not override). */
static bool axisChosen(void)
{
	g_autofree char *path = unitWriteTmp("a.yaml", "pin_policy: ${p}\nkernel: '6.1'\nmatrix: {p: [baseline]}\n"
					     "nodes:\n  - memory: 1G\n");
	g_autofree char *path2 = unitWriteTmp("b.yaml", "pin_policy: baseline\nkernel: '${k}'\nmatrix: {k: ['6.12']}\n"
					      "nodes:\n  - memory: 1G\n");
	g_autoptr(GPtrArray) a = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
	g_autoptr(GPtrArray) b = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
	const mhlScenario *sa, *sb;

	if (mhlScenarioLoadAll(path, a) != 1 || mhlScenarioLoadAll(path2, b) != 1)
		return unitExpect(false);
	sa = a->pdata[0];
	sb = b->pdata[0];
	return unitExpect(sa->pin_policy_from_axis && !sa->kernel_from_axis && !strcmp(sa->pin_policy, "baseline") &&
			  !sb->pin_policy_from_axis && sb->kernel_from_axis && !strcmp(sb->kernel, "6.12"));
}

static bool demoLoads(void)
{
	g_autoptr(mhlScenario) s = mhlScenarioLoad("scenarios/demo.yaml");

	return unitExpect(s && s->nnodes == 2 && s->nsteps == 4 && s->steps[0].size == 256ULL << 20 &&
			  s->steps[1].requested == 0 && s->nodes[1].vmem_size == 1ULL << 30);
}

static bool policyExpects(void)
{
	g_autoptr(mhlScenario) s = mhlScenarioLoad("scenarios/pin-policy-ab.yaml");

	return unitExpect(s && s->nsteps > 5 && !strcmp(s->pin_policy, "series") &&
			  s->steps[2].type == MHL_STEP_EXPECT && s->steps[2].movable_after_pin == MHL_ALL &&
			  !mhlExpectApplies(s, &s->steps[2]) && mhlExpectApplies(s, &s->steps[1]) &&
			  s->steps[5].unplug == MHL_UNPLUG_SHORT);
}

static bool policyOverride(void)
{
	g_autoptr(mhlScenario) s = mhlScenarioLoad("scenarios/pin-policy-ab.yaml");

	return unitExpect(s && s->nsteps > 2 && mhlScenarioOverride(s, "6.1", "baseline") == 0 &&
			  !strcmp(s->kernel, "6.1") && mhlExpectApplies(s, &s->steps[2]) &&
			  mhlScenarioOverride(s, "5.4", NULL) < 0);
}

/* --kernel package:NAME: the scenario's kernel becomes that Debian package; a name with shell in it is refused. */
static bool packageOverride(void)
{
	g_autoptr(mhlScenario) s = mhlScenarioLoad("scenarios/demo.yaml");

	if (!unitExpect(s && mhlScenarioOverride(s, "package:linux-image-cloud-amd64=6.1.192-3", NULL) == 0))
		return false;
	if (!unitExpect(!strcmp(s->kernel, "package") && !strcmp(s->kernel_package, "linux-image-cloud-amd64=6.1.192-3")))
		return false;
	if (!unitExpect(mhlScenarioOverride(s, "package:linux-image-$(id)", NULL) < 0 &&
			strstr(mhlErrorLast(), "expected package:linux-image-NAME[=VERSION]")))
		return false;
	mhlErrorReset();
	return unitExpect(mhlScenarioOverride(s, "package:", NULL) < 0) && (mhlErrorReset(), true);
}

/* The trials of @path when there are @n of them, else NULL (freed by the caller). */
static GPtrArray *loadAll(const char *path, int n);

/*
 * The lab kernel's flavour a trial boots: rdma where a pin needs RDMA
 * (rdma, rdma-odp), the default build for the others; the debug: one named;
 * none for a kernel that is not the lab's, even with an RDMA pin.
 */
static bool flavourChosen(void)
{
	g_autofree char *path = unitWriteTmp("f.yaml",
		"matrix: {w: [gup, rdma, rdma-odp]}\nnodes:\n  - memory: 1G\n"
		"steps:\n  - pin: {id: p, workload: \"${w}\", size: 2M, node: 0}\n");
	g_autofree char *km = unitWriteTmp("k.yaml",
		"kernel: {version: \"6.1\", debug: kmemleak}\nnodes:\n  - memory: 1G\n"
		"steps:\n  - pin: {id: p, workload: io_uring, size: 2M, node: 0}\n");
	g_autoptr(GPtrArray) t = loadAll(path, 3);
	g_autoptr(mhlScenario) k = mhlScenarioLoad(km);
	mhlScenario *r;

	if (!unitExpect(t && k))
		return false;
	r = t->pdata[1];
	if (!unitExpect(!strcmp(mhlScenarioKernelFlavour(t->pdata[0]), "") &&
			!strcmp(mhlScenarioKernelFlavour(r), "rdma") &&
			!strcmp(mhlScenarioKernelFlavour(t->pdata[2]), "rdma") &&
			!strcmp(mhlScenarioKernelFlavour(k), "kmemleak")))
		return false;
	return unitExpect(mhlScenarioOverride(r, "package:linux-image-amd64", NULL) == 0 &&
			  !strcmp(mhlScenarioKernelFlavour(r), ""));
}

static GPtrArray *loadAll(const char *path, int n)
{
	GPtrArray *all = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
	int got = mhlScenarioLoadAll(path, all);

	if (got == n)
		return all;
	unitDiag("%s: %d trial(s), not %d: %s", path, got, n, got < 0 ? mhlErrorLast() : "");
	g_ptr_array_unref(all);
	return NULL;
}

static bool conformance4(void)
{
	g_autoptr(GPtrArray) all = loadAll("scenarios/conformance/4-zero-page.yaml", 4);
	mhlScenario *a = all ? all->pdata[0] : NULL, *d = all ? all->pdata[3] : NULL;
	const mhlStep *e = a ? &a->steps[2] : NULL;

	return unitExpect(a && e->type == MHL_STEP_EXPECT && !strcmp(e->kernel, "6.1") &&
			  !mhlExpectApplies(a, e) && mhlExpectApplies(d, &d->steps[2]) &&
			  !strcmp(a->steps[0].touch, "read") && a->steps[1].ncensus == 2 &&
			  a->steps[1].census_val[0] == MHL_ALL && !a->steps[1].census_after[0]);
}

static bool conformance5(void)
{
	g_autoptr(GPtrArray) all = loadAll("scenarios/conformance/5-split-thp.yaml", 8);
	mhlScenario *b = all ? all->pdata[1] : NULL;

	return unitExpect(b && !strcmp(b->steps[0].split, "munmap") && b->steps[1].census_atleast[1] &&
			  b->steps[1].census_val[1] == 32704 && !strcmp(b->steps[1].census_key[1], "thp"));
}

/* Two axes, one combination excluded. */
static const char matrixYAML[] =
	"name: m\nkernel: \"${k}\"\npin_policy: ${p}\n"
	"matrix:\n  k: [\"6.12\", \"6.1\"]\n  p: [series, baseline]\n"
	"  exclude:\n    - {k: \"6.1\", p: baseline}\n"
	"nodes:\n  - memory: 1G\n  - memory: 64M\n"
	"steps:\n  - pin: {id: a, size: 1M, node: 1}\n";

static bool matrixExpands(void)
{
	g_autofree char *path = unitWriteTmp("m.yaml", matrixYAML);
	g_autoptr(GPtrArray) all = loadAll(path, 3);
	mhlScenario *t1 = all ? all->pdata[0] : NULL, *t2 = all ? all->pdata[1] : NULL;
	mhlScenario *t3 = all ? all->pdata[2] : NULL;

	return unitExpect(all && !strcmp(t1->name, "m:k=6.12,p=series") &&
			  !strcmp(t2->name, "m:k=6.12,p=baseline") && !strcmp(t2->pin_policy, "baseline") &&
			  !strcmp(t3->name, "m:k=6.1,p=series") && !strcmp(t3->kernel, "6.1") &&
			  t3->nparams == 2 && !strcmp(t3->param_key[0], "k") && !strcmp(t3->param_val[1], "series") &&
			  !strcmp(t3->scenario_name, "m"));
}

static bool matrixRefusedByLoad(void)
{
	g_autofree char *path = unitWriteTmp("m.yaml", matrixYAML);
	g_autoptr(mhlScenario) s = mhlScenarioLoad(path);

	return unitExpect(!s && strstr(mhlErrorLast(), "makes 3 trials"));
}

/* @yaml (built by the caller) refused with @want in the message. */
static bool refusedWith(const char *name, const char *yaml, const char *want)
{
	g_autofree char *path = unitWriteTmp(name, yaml);
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
	int n;

	mhlErrorReset();	/* the first error is kept: a case may call this more than once */
	n = mhlScenarioLoadAll(path, all);

	if (n >= 0 || !strstr(mhlErrorLast(), want))
		unitDiag("  got %d: %s", n, n < 0 ? mhlErrorLast() : "");
	return unitExpect(n < 0 && strstr(mhlErrorLast(), path) && strstr(mhlErrorLast(), want));
}

/*
 * A scenario refused naming a table's names, the names written out here:
 * an expectation built from the table the code reads (mhlNamesKnown of
 * it) moves with the table, so a row dropped from it, or a lister that
 * skips one, went unseen. Adding a name to a table changes these lines.
 */
static const struct scenarioKnown {
	const char *desc, *yaml, *want;
} knownErrors[] = {
	{ "guest: an unknown userspace",
	  "guest: ubuntu\nnodes:\n  - memory: 1G\n",
	  "1:8: guest: unknown userspace 'ubuntu' (known: lab, debian)" },
	{ "online: an unknown policy", "online: sometimes\nnodes:\n  - memory: 1G\n",
	  "1:9: online: unknown policy 'sometimes' (known: movable, kernel, auto-movable, as-shipped)" },
	{ "pin: unknown split",
	  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 2M, node: 0, backing: thp, split: madvise}\n",
	  "4:58: unknown split 'madvise' (known: mprotect, munmap)" },
	{ "expect: census of an unknown count",
	  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 1M, node: 0}\n  - expect: {census_after: {Highmem: 0}}\n",
	  "5:29: census_after: unknown count 'Highmem' (known: pages, not_present, unknown, zero, thp, cma, DMA, DMA32, Normal, Movable, other)" },
	{ "xfail: an unknown key", "xfail:\n  - {reason: x, when: always}\nnodes:\n  - memory: 1G\n",
	  "2:17: unknown key 'when' in an xfail entry (known: kernel, policy, reason, match)" },
	{ "xfail: an unknown kernel", "xfail:\n  - {reason: x, kernel: '5.4'}\nnodes:\n  - memory: 1G\n",
	  "2:25: unknown xfail kernel '5.4' (known: 6.12, 6.1, 7.3)" },
	{ "xfail: an unknown policy", "xfail:\n  - {reason: x, policy: never}\nnodes:\n  - memory: 1G\n",
	  "2:25: unknown xfail policy 'never' (known: series, baseline)" },
	{ "grid: an unknown policy", "grid: [{label: x, vmstat: pgfault, policy: never}]\nnodes:\n  - memory: 1G\n",
	  "1:44: unknown grid policy 'never' (known: series, baseline)" },
	{ "grid: an unknown key", "grid: {label: x, sum: [a, b]}\nnodes:\n  - memory: 1G\n",
	  "1:18: unknown key 'sum' in a grid entry (known: label, policy, vmstat, path, ratio)" },
};

static bool scenarioKnownJudge(const void *row, GString *desc)
{
	const struct scenarioKnown *c = row;

	g_string_printf(desc, "scenario error: %s -> '%s'", c->desc, c->want);
	return unitListing || refusedWith("s.yaml", c->yaml, c->want);
}

/* 8 axes of 10 values, all excluded: refused from the product, before walking 10^8 combinations. */
static bool matrixProduct(void)
{
	g_autoptr(GString) y = g_string_new("matrix:\n");
	int a, v;

	for (a = 0; a < 8; a++) {
		g_string_append_printf(y, "  a%d: [", a);
		for (v = 0; v < 10; v++)
			g_string_append_printf(y, "%s%d", v ? ", " : "", v);
		g_string_append(y, "]\n");
	}
	g_string_append(y, "  exclude:\n    - {}\nnodes:\n  - memory: 1G\n");
	return refusedWith("product.yaml", y->str,
			   ":1:1: the matrix has 10 x 10 x 10 x 10 x 10 x 10 x 10 x 10 = 100000000 combinations before its excludes; at most 100000");
}

/* More anchors than libyaml's loader looks up in reasonable time. */
static bool manyAnchors(void)
{
	g_autoptr(GString) y = g_string_new("nodes:\n  - memory: 1G\nsteps:\n");
	int i;

	for (i = 0; i < MHL_SCENARIO_MAX_ANCHORS + 1; i++)
		g_string_append_printf(y, "  - &a%d {wait: {seconds: 1}}\n", i);
	return refusedWith("anchors.yaml", y->str, "260:5: more than 256 anchors");
}

/* A scenario refused by a later rule, not by the shape check's: the limit itself was not hit. */
static bool notRefusedFor(const char *name, const char *yaml, const char *limit, const char *instead)
{
	g_autofree char *path = unitWriteTmp(name, yaml);
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
	int n;

	mhlErrorReset();
	n = mhlScenarioLoadAll(path, all);
	if (n >= 0 || strstr(mhlErrorLast(), limit) || !strstr(mhlErrorLast(), instead))
		unitDiag("  got %d: %s", n, n < 0 ? mhlErrorLast() : "");
	return unitExpect(n < 0 && !strstr(mhlErrorLast(), limit) && strstr(mhlErrorLast(), instead));
}

/* "steps: " and @brackets '[' (then as many ']'): nested 1 + @brackets deep. */
static char *nested(int brackets)
{
	GString *y = g_string_new("steps: ");
	int i;

	for (i = 0; i < brackets; i++)
		g_string_append_c(y, '[');
	for (i = 0; i < brackets; i++)
		g_string_append_c(y, ']');
	g_string_append_c(y, '\n');
	return g_string_free(y, FALSE);
}

/* MHL_SCENARIO_MAX_DEPTH deep passes the shape check; one more is refused where it starts. */
static bool depthEdge(void)
{
	g_autofree char *at = nested(MHL_SCENARIO_MAX_DEPTH - 1), *past = nested(MHL_SCENARIO_MAX_DEPTH);

	return notRefusedFor("depth32.yaml", at, "nest more than", "a step must be a mapping") &&
	       refusedWith("depth33.yaml", past, "1:39: lists and mappings nest more than 32 deep");
}

/* A scenario padded with a comment to @len bytes. */
static char *padded(size_t len)
{
	static const char head[] = "nodes:\n  - memory: 1G\n#";
	char *y = g_malloc(len + 1);

	memcpy(y, head, sizeof(head) - 1);
	memset(y + sizeof(head) - 1, 'x', len - sizeof(head));
	y[len - 1] = '\n';
	y[len] = '\0';
	return y;
}

/* A file of MHL_SCENARIO_MAX_BYTES loads; one byte more is refused unread. */
static bool sizeEdge(void)
{
	g_autofree char *at = padded(MHL_SCENARIO_MAX_BYTES), *past = padded(MHL_SCENARIO_MAX_BYTES + 1);
	g_autofree char *path = unitWriteTmp("at-size.yaml", at);
	g_autoptr(mhlScenario) s = mhlScenarioLoad(path);

	if (!s)
		unitDiag("  %s", mhlErrorLast());
	return unitExpect(s != NULL) &&
	       refusedWith("past-size.yaml", past, "the file is larger than 1024 KiB, the most a scenario may be");
}

/* @n anchors on values of kind @kind (&aN followed by @value) under an unknown key. */
static char *anchored(int n, const char *value)
{
	GString *y = g_string_new("anchored: [");
	int i;

	for (i = 0; i < n; i++)
		g_string_append_printf(y, "%s&a%d %s", i ? ", " : "", i, value);
	g_string_append(y, "]\nnodes:\n  - memory: 1G\n");
	return g_string_free(y, FALSE);
}

/* Anchors count on scalars, lists and mappings alike; 256 of them pass, the 257th is refused. */
static bool anchorsEachKind(void)
{
	g_autofree char *scalars = anchored(MHL_SCENARIO_MAX_ANCHORS + 1, "x");
	g_autofree char *lists = anchored(MHL_SCENARIO_MAX_ANCHORS + 1, "[]");
	g_autofree char *maps = anchored(MHL_SCENARIO_MAX_ANCHORS + 1, "{}");
	g_autofree char *at = anchored(MHL_SCENARIO_MAX_ANCHORS, "x");

	return refusedWith("anchor-scalars.yaml", scalars, "more than 256 anchors") &&
	       refusedWith("anchor-lists.yaml", lists, "more than 256 anchors") &&
	       refusedWith("anchor-maps.yaml", maps, "more than 256 anchors") &&
	       notRefusedFor("anchors-256.yaml", at, "more than 256 anchors", "unknown key 'anchored'");
}

/* ${v} of a 200-byte value 30 times: 6000 bytes, past MHL_MAX_EXPANDED_LEN. */
static bool expandedLength(void)
{
	g_autoptr(GString) y = g_string_new("matrix: {v: [");
	int i;

	for (i = 0; i < 200; i++)
		g_string_append_c(y, 'v');
	g_string_append(y, "]}\ncmdline: \"");
	for (i = 0; i < 30; i++)
		g_string_append(y, "${v}");
	g_string_append(y, "\"\nnodes:\n  - memory: 1G\n");
	return refusedWith("expand.yaml", y->str, "2:10: more than 4096 bytes after substituting");
}

/* Ids that canonicalize alike get distinct file names; a plain id keeps its own. */
static bool trialFileNames(void)
{
	g_autofree char *plain = mhlTrialIdFileName("demo");
	g_autofree char *colon = mhlTrialIdFileName("ab:v=a:b");
	g_autofree char *space = mhlTrialIdFileName("ab:v=a b");
	g_autofree char *slash = mhlTrialIdFileName("ab:v=a/b");
	g_autofree char *under = mhlTrialIdFileName("ab_v_a_b");

	if (strcmp(plain, "demo") || !strcmp(colon, space) || !strcmp(colon, slash) ||
	    !strcmp(space, slash) || !strcmp(colon, under))
		unitDiag("got %s, %s, %s, %s, %s", plain, colon, space, slash, under);
	return unitExpect(!strcmp(plain, "demo") && !strcmp(under, "ab_v_a_b") &&
			  g_str_has_prefix(colon, "ab_v_a_b-") && strlen(colon) == strlen("ab_v_a_b-") + 8 &&
			  strcmp(colon, space) && strcmp(colon, slash) && strcmp(space, slash));
}

/*
 * Console log names are injective (issue 30, finding 9): a plain id that
 * reads like a hashed name, or like a fleet retry's log, gets a name of its
 * own; the retry's log is no other trial's.
 */
static bool trialLogNames(void)
{
	g_autofree char *hashed = mhlTrialIdFileName("ab:v=a b");
	g_autofree char *m = mhlTrialLogName("ab:v=a b", 1);
	g_autofree char *p = mhlTrialLogName(hashed, 1);	/* a scenario named "ab_v_a_b-XXXXXXXX" */
	g_autofree char *retry = mhlTrialLogName("x", 2);
	g_autofree char *att = mhlTrialLogName("x.attempt2", 1);	/* a scenario named "x.attempt2" */
	g_autofree char *att2 = mhlTrialLogName("x.attempt2", 2);
	g_autofree char *demo = mhlTrialLogName("demo", 1);
	g_autofree char *date = mhlTrialLogName("nightly-2025", 1);

	if (!strcmp(m, p) || !strcmp(retry, att) || strcmp(demo, "demo.console.log"))
		unitDiag("got %s, %s, %s, %s, %s", m, p, retry, att, demo);
	return unitExpect(strcmp(m, p) && strcmp(retry, att) && strcmp(retry, att2) && strcmp(att, att2) &&
			  !strcmp(demo, "demo.console.log") && !strcmp(retry, "x.attempt2.console.log") &&
			  !strcmp(date, "nightly-2025.console.log") && g_str_has_prefix(m, hashed));
}

/* A prebuilt kernel in a scenario given by a relative path (dir/own.yaml): its paths from the file's directory. */
static bool prebuiltRelative(void)
{
	g_autofree char *cwd = g_get_current_dir();
	g_autofree char *sub = g_build_filename(unitTmpdir, "rel", NULL);
	g_autofree char *file = g_build_filename(sub, "own.yaml", NULL);
	g_autofree char *want = g_build_filename(sub, "bz", NULL);
	g_autoptr(mhlScenario) s = NULL;

	g_mkdir_with_parents(sub, 0700);
	g_file_set_contents(file, "name: own\nkernel: {bzimage: bz, config: /abs/cfg}\nnodes:\n  - memory: 1G\n", -1, NULL);
	mhlErrorReset();
	if (chdir(unitTmpdir) < 0)
		return unitExpect(false);
	s = mhlScenarioLoad("rel/own.yaml");
	if (chdir(cwd) < 0)
		return unitExpect(false);
	if (!s)
		unitDiag("  got: %s", mhlErrorLast());
	return unitExpect(s && !strcmp(s->kernel, "prebuilt") && !strcmp(s->kernel_image, want) &&
			  !strcmp(s->kernel_config, "/abs/cfg"));
}

/* c3 declares the 6.1 series deviation: it applies there only, and only to a failure that matches. */
static bool conformance3Xfail(void)
{
	g_autoptr(GPtrArray) all = loadAll("scenarios/conformance/3-migration-fails.yaml", 4);
	mhlScenario *s612 = all ? all->pdata[0] : NULL, *s61 = all ? all->pdata[2] : NULL;
	mhlScenario *b61 = all ? all->pdata[3] : NULL;
	const char *why = "step 2 (expect, x.yaml:28): expect at line 28: vmstat gup_longterm_pin_fail change: expected >=1, got 0 (trial.c:1)";
	const mhlDeviation *d = s61 ? mhlScenarioDeviation(s61, why) : NULL;

	return unitExpect(s61 && s61->nxfail == 1 && !strcmp(s61->kernel, "6.1") &&
			  !strcmp(s61->pin_policy, "series") && d && strstr(d->reason, "try_grab_folio") &&
			  mhlScenarioDeviation(s61, NULL) == d &&
			  !mhlScenarioDeviation(s61, "step 1 (pin): pin failed with EFAULT") &&
			  !mhlScenarioDeviation(s612, why) && !mhlScenarioDeviation(s612, NULL) &&
			  !mhlScenarioDeviation(b61, NULL));
}

/* --kernel moves a trial onto the deviation's kernel: it is judged after the override. */
static bool xfailOverride(void)
{
	g_autofree char *path = unitWriteTmp("xf.yaml",
		"xfail:\n  - {kernel: '6.1', reason: 'r', match: '^boom [0-9]+$'}\n  - {policy: baseline, reason: 'any'}\n"
		"nodes:\n  - memory: 1G\n");
	g_autoptr(mhlScenario) s = mhlScenarioLoad(path);
	bool before = s && !mhlScenarioDeviation(s, "boom 1");

	return unitExpect(before && mhlScenarioOverride(s, "6.1", NULL) == 0 &&
			  mhlScenarioDeviation(s, "boom 12") == &s->xfail[0] &&
			  !mhlScenarioDeviation(s, "boom x") && s->xfail[0].line == 2 &&
			  mhlScenarioOverride(s, NULL, "baseline") == 0 &&
			  mhlScenarioDeviation(s, "anything") == &s->xfail[1]);
}

/* exec: argv kept in order, NUL-separated; deadline, exit and measure read. */
static bool execParses(void)
{
	g_autofree char *path = unitWriteTmp("ex.yaml",
		"nodes:\n  - memory: 1G\nsteps:\n  - exec: {argv: [/bin/sh, -c, 'echo \"$x\" >&2; exit 3'], deadline: 5, exit: 3}\n"
		"  - exec: {argv: [/bin/true], measure: true}\n");
	g_autoptr(mhlScenario) s = mhlScenarioLoad(path);
	const char *a = s ? s->steps[0].argv : "";

	if (!s)
		unitDiag("  %s", mhlErrorLast());
	return unitExpect(s && s->nsteps == 2 && s->steps[0].type == MHL_STEP_EXEC && s->steps[0].argc == 3 &&
			  !strcmp(a, "/bin/sh") && !strcmp(a + 8, "-c") &&
			  !strcmp(a + 11, "echo \"$x\" >&2; exit 3") && s->steps[0].deadline == 5 &&
			  s->steps[0].exit_status == 3 && !s->steps[0].measure && s->steps[1].argc == 1 &&
			  s->steps[1].exit_status == 0 && s->steps[1].deadline == 60 && s->steps[1].measure);
}

/*
 * A file with several independent errors: every one of them, in file order,
 * each "LINE:COL: what" once (issue 32, item 9); a file whose error leaves
 * nothing to read further, only that one.
 */
#define MAX_WANT 4
static const struct scenarioErrors {
	const char *desc, *yaml;
	int n;				/* errors the loader reports */
	const char *want[MAX_WANT];	/* the first of them, in order: "LINE:COL: text" after "FILE:" */
} manyErrors[] = {
	{ "a bad pin_policy, an unknown key in a node, a bad size in a step: three, in file order",
	  "pin_policy: sometimes\nnodes:\n  - memory: 1G\n    colour: blue\nsteps:\n  - pin: {id: a, size: lots}\n", 3,
	  { "1:13: unknown pin_policy 'sometimes'", "4:5: unknown key 'colour' in a node",
	    "6:24: size: 'lots' is not a size" } },
	{ "a step's error hides neither the next step's nor a later top-level key's",
	  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 1M, touch: never}\n  - dance: {}\n"
	  "  - wait: {seconds: -1}\nguest: windows\n", 4,
	  { "4:35: unknown touch 'never'", "5:5: unknown step 'dance'", "6:21: seconds: '-1'",
	    "7:8: guest: unknown userspace 'windows'" } },
	{ "a node's error hides not the next node's, which keeps its number (node 1)",
	  "nodes:\n  - memory: 1G\n    cpus: 9\n  - cpus: 1\n", 2,
	  { "3:11: cpus: '9' is not an integer in [1, 8]", "4:5: node 1 needs 'memory'" } },
	{ "no cross-step error that follows from a broken step: a check of the pin whose size is bad is not 'never started', the next step's error is",
	  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 1X}\n  - check: {id: a}\n  - sysrq: {key: ab}\n", 2,
	  { "4:24: size: '1X' is not a size", "6:18: sysrq" } },
	{ "an unknown top-level key, then a bad one: both",
	  "nodez: []\nnodes:\n  - memory: 1G\ncmdline: \"a\\tb\"\n", 2,
	  { "1:1: unknown key 'nodez' in the scenario", "4:10: cmdline: control character 0x09" } },
	{ "a matrix: an error every trial shares once; a substituted value's error per value, in file order though a later trial finds the earlier line",
	  "matrix: {c: [1, 9, 10]}\nnodes:\n  - memory: 1G\n    cpus: \"${c}\"\n  - memory: 8M\n", 3,
	  { "4:11: cpus: '9' is not an integer", "4:11: cpus: '10' is not an integer",
	    "5:13: node memory must be at least 16MiB" } },
	{ "more than 64 steps stops the steps: the 65th named once, the errors before it kept",
	  "nodes:\n  - memory: 1G\nsteps:\n  - dance: {}\n"
	  "  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n"
	  "  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n"
	  "  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n"
	  "  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n"
	  "  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n"
	  "  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n"
	  "  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n"
	  "  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n"
	  "  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n  - snapshot:\n"
	  "  - dance: {}\n  - dance: {}\n", 2, { "4:5: unknown step 'dance'", "68:5: more than 64 steps" } },
};

static bool scenarioErrorsJudge(const void *row, GString *desc)
{
	const struct scenarioErrors *c = row;
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
	g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *path = NULL;
	bool ok = true;
	guint i;

	g_string_printf(desc, "scenario errors: %s -> %d", c->desc, c->n);
	if (unitListing)
		return true;
	path = unitWriteTmp("s.yaml", c->yaml);
	if (mhlScenarioLoadAllErrors(path, all, errors) >= 0 || (int)errors->len != c->n)
		ok = false;
	for (i = 0; i < MAX_WANT && c->want[i]; i++) {
		g_autofree char *at = g_strconcat(path, ":", NULL);
		const char *e = i < errors->len ? errors->pdata[i] : "";

		if (!g_str_has_prefix(e, at) || !strstr(e, c->want[i]))
			ok = false;
	}
	for (i = 0; !ok && i < errors->len; i++)
		unitDiag("  got: %s", (const char *)errors->pdata[i]);
	/* mhlError holds the first, as for every caller of the loader */
	ok = ok && errors->len && !strcmp(mhlErrorLast(), errors->pdata[0]);
	mhlErrorReset();
	return unitExpect(ok);
}

/* mhlScenarioLoadAll (run, soak): the first error in file order, and how many more check lists. */
static bool loadAllCounts(void)
{
	g_autofree char *path = unitWriteTmp("s.yaml", "pin_policy: sometimes\nnodes:\n  - memory: 1G\n    cpus: 0\n"
					     "steps:\n  - dance: {}\n");
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
	g_autofree char *want = g_strdup_printf("%s:1:13: unknown pin_policy 'sometimes' (known: series, baseline) (and 2 more error(s) in the file: memhp-lab check %s lists every one)",
						path, path);
	bool ok;

	mhlErrorReset();
	ok = mhlScenarioLoadAll(path, all) < 0 && !strcmp(mhlErrorLast(), want);
	if (!ok)
		unitDiag("  got: %s", mhlErrorLast());
	mhlErrorReset();
	return unitExpect(ok);
}

/* An error reported before the load stays the one reported (only the first report is kept). */
static bool loadKeepsEarlierError(void)
{
	g_autofree char *path = unitWriteTmp("s.yaml", "nodes:\n  - cpus: 0\n  - cpus: 9\n");
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
	g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func(g_free);
	bool ok;

	mhlErrorReset();
	mhlError("earlier");
	ok = mhlScenarioLoadAllErrors(path, all, errors) < 0 && errors->len == 2 &&
	     g_str_has_prefix(mhlErrorLast(), "earlier");
	mhlErrorReset();
	return unitExpect(ok);
}

static const unitCase cases[] = {
	{ "scenario errors: mhlScenarioLoadAll's message is the first error and how many more check lists", loadAllCounts },
	{ "scenario errors: an error reported before the load stays mhlError's; the file's errors are still listed",
	  loadKeepsEarlierError },
	{ "scenario: exec: argv in order (no shell), deadline, exit, measure; defaults 60 s, exit 0", execParses },
	{ "scenario: c3 declares xfail for 6.1 series only, matched against the failure's reason", conformance3Xfail },
	{ "scenario: xfail applies by kernel and policy after --kernel/--pin-policy, match is a regex", xfailOverride },
	{ "scenario: a prebuilt kernel in a scenario given as dir/own.yaml: paths from the file's directory", prebuiltRelative },
	{ "scenario: the demo loads (2 nodes, 4 steps, 256 MiB pin, request 0)", demoLoads },
	{ "scenario: grid: the first entry for the trial's pin_policy applies, one without policy to any", gridApplies },
	{ "scenario: pin_policy and kernel from a matrix axis are marked so (run --pin-policy selects those)", axisChosen },
	{ "scenario: pin-policy-ab's expect steps parse, filtered by policy", policyExpects },
	{ "scenario: --kernel/--pin-policy override, unknown kernel refused", policyOverride },
	{ "scenario: --kernel package:NAME[=VERSION] makes it a Debian package kernel; shell in the name refused", packageOverride },
	{ "scenario: an rdma or rdma-odp pin boots the lab kernel's rdma flavour, gup the default, debug: its own; a package none",
	  flavourChosen },
	{ "scenario: c4 parses: touch read, census_before all, expect filtered by kernel", conformance4 },
	{ "scenario: c5 parses: 8 trials, split from the matrix, census thp >=32704", conformance5 },
	{ "matrix: 2 x 2 minus one exclude -> 3 trials, last axis fastest, ids from the values", matrixExpands },
	{ "matrix: mhlScenarioLoad refuses a file of several trials", matrixRefusedByLoad },
	{ "matrix: 8 axes of 10, all excluded, refused from the product (file:line, 10^8) at once",
	  matrixProduct },
	{ "YAML: more than 256 anchors refused before libyaml's loader", manyAnchors },
	{ "YAML: 256 anchors pass; the 257th refused whether on a scalar, a list or a mapping", anchorsEachKind },
	{ "YAML: nested 32 deep passes the shape check, 33 deep is refused at the bracket", depthEdge },
	{ "YAML: a scenario of exactly 1 MiB loads, 1 MiB and a byte is refused", sizeEdge },
	{ "matrix: a scalar past 4096 bytes after substitution is refused", expandedLength },
	{ "trial file names: ids alike but for ':', ' ', '/' get distinct names; 'demo' stays 'demo'",
	  trialFileNames },
	{ "trial ids: console log names are injective: a plain id like a hashed name or like a retry's log gets its own", trialLogNames },
};

static const unitTable tables[] = {
	UNIT_TABLE(errors, scenarioErrorJudge),
	UNIT_TABLE(knownErrors, scenarioKnownJudge),
	UNIT_TABLE(holds, scenarioHoldsJudge),
	UNIT_TABLE(manyErrors, scenarioErrorsJudge),
	UNIT_CASES(cases),
};

const unitModule unitScenario = UNIT_MODULE("scenario", NULL, NULL, tables);
