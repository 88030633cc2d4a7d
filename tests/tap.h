/* tests/tap.h - KTAP output in the kselftest shape: plan, ok/not ok, totals. */
#ifndef MHL_TAP_H
#define MHL_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tapPass, tapFail, tapNum;

static inline void tapPlan(int n)
{
	printf("KTAP version 1\n1..%d\n", n);
}

/*
 * One check: "ok N desc" or "not ok N desc", then the file:line that judged
 * it (none when @file is NULL: the caller printed its own diagnostics).
 */
#define tapOk(cond, ...) tapResult(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
static inline __attribute__((format(printf, 4, 5)))
int tapResult(int ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d ", ok ? "" : "not ", ++tapNum);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok && file)
		printf("# failed at %s:%d\n", file, line);
	ok ? tapPass++ : tapFail++;
	return ok;
}

static inline int tapFinish(void)
{
	printf("# Totals: pass:%d fail:%d\n", tapPass, tapFail);
	return tapFail ? 1 : 0;
}

#endif
