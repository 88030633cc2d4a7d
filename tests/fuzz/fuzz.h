/*
 * tests/fuzz/fuzz.h - what the libFuzzer targets share (one target per file in
 * tests/fuzz/, built by `make fuzz-build` into build/fuzz/<target>): the
 * input as a C string, a private scratch directory for the parsers that take
 * a path, and the checks of the error contract.
 *
 * A target aborts (a crash libFuzzer saves) on a sanitizer report and on a
 * broken contract of the parser's header; each iteration starts with no
 * reported error (mhlErrorReset keeps only the first).
 */
#ifndef MHL_FUZZ_H
#define MHL_FUZZ_H

#include <glib.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort with a message naming the broken contract: libFuzzer saves the input. */
#define fuzzAssert(cond, ...)							\
	do {									\
		if (!(cond)) {							\
			fprintf(stderr, "fuzz: %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);				\
			fputc('\n', stderr);					\
			abort();						\
		}								\
	} while (0)

/*
 * The input as a NUL-terminated string in a buffer of exactly size + 1 bytes
 * (ASan catches a read past it); an embedded NUL ends the string early, as
 * it would for text read from the guest. free() it.
 */
static inline char *fuzzString(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Whether an error was reported since the last reset; resets it. */
static inline int fuzzErrorTake(void)
{
	char *e = mhlErrorSteal();
	int reported = e != NULL;

	g_free(e);
	return reported;
}

static char *fuzzScratchDir;

static void fuzzScratchRemove(void)
{
	if (fuzzScratchDir)
		mhlRemoveTree(fuzzScratchDir);
}

/* This process's scratch directory (in /dev/shm when there is one), removed at exit. */
static inline const char *fuzzScratch(void)
{
	if (!fuzzScratchDir) {
		const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : g_get_tmp_dir();

		fuzzScratchDir = g_build_filename(base, "mhl-fuzz-XXXXXX", NULL);
		if (!g_mkdtemp(fuzzScratchDir)) {
			perror("fuzz: mkdtemp");
			abort();
		}
		atexit(fuzzScratchRemove);
	}
	return fuzzScratchDir;
}

/* Replace the file @name in the scratch directory with the input; its path (static). */
static inline const char *fuzzWriteFile(const char *name, const uint8_t *data, size_t size)
{
	static char *path;
	FILE *f;

	g_free(path);
	path = g_build_filename(fuzzScratch(), name, NULL);
	f = fopen(path, "w");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
		perror("fuzz: writing the input");
		abort();	/* not the parser's fault, but never a silent pass */
	}
	return path;
}

#endif
