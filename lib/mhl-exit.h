/*
 * mhl-exit.h - memhp-lab's exit status: one meaning per value, the same for
 * every command (docs/cli.md, "Exit status"). A nightly gate tells "the kernel
 * under test failed" (1) from "the lab or the host failed" (3) without reading
 * JSON. The anchors: kselftest's KSFT_PASS 0, KSFT_FAIL 1, KSFT_SKIP 4, and
 * avocado's split of a test failure from a job failure and an interruption.
 */
#ifndef MHL_EXIT_H
#define MHL_EXIT_H

#define MHL_EXIT_PASS		0	/* every trial passed (or skipped, or failed as declared) */
#define MHL_EXIT_FAILED		1	/* the kernel under test: a trial failed, passed unexpectedly, or its guest crashed or hung; a regression */
#define MHL_EXIT_USAGE		2	/* usage or setup error: nothing was run */
#define MHL_EXIT_HARNESS	3	/* the lab or the host: a trial could not be carried out, a record lost or unreadable, a report not written */
#define MHL_EXIT_SKIP		4	/* every trial was skipped: nothing it asserts ran (kselftest's KSFT_SKIP) */
#define MHL_EXIT_INTERRUPTED	5	/* a signal ended the work, or trials were not run, and nothing failed */

#endif
