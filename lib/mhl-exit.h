/* mhl-exit.h - memhp-lab's exit status: one meaning per value, for every command. */
#ifndef MHL_EXIT_H
#define MHL_EXIT_H

#define MHL_EXIT_PASS	0	/* every trial passed */
#define MHL_EXIT_FAILED	1	/* some trial failed, erred or was interrupted */
#define MHL_EXIT_USAGE	2	/* usage or setup error: nothing was run */
#define MHL_EXIT_SKIP	4	/* every trial was skipped: nothing it asserts ran (kselftest's KSFT_SKIP) */

#endif
