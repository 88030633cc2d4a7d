/*
 * tests/unit/pin.c - memhp-pin's decisions that need no kernel: the
 * scatter's layout (workloads/buffer.c: one page kept per block, no two in
 * one physical block), read from a fake pagemap file, and the gup mode's
 * ENOMEM retry (workloads/retry.c) against a fake pin and a fake
 * gup_longterm_migrate_fail. No guest, no gup_test.
 */
#include <glib.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "buffer.h"
#include "retry.h"
#include "unit.h"

/* ---- scatter: a pagemap file of our own ---- */

#define PM_PRESENT (1ULL << 63)
#define FAKE_VA 0x100000UL	/* the buffer's address: only an offset into the pagemap here */
#define BLOCK (16 << 10)	/* 4 pages a block */

/*
 * The layout of @nblk blocks at FAKE_VA whose pages have the pagemap
 * entries @ent (4 per block), into @pick; the pages kept, or -1.
 */
static long layoutOf(const uint64_t *ent, uint64_t nblk, long *pick)
{
	g_autofree char *path = g_build_filename(unitTmpdir, "pagemap", NULL);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	size_t bytes = nblk * 4 * sizeof(*ent);
	long kept = -9;
	uint64_t b;

	if (fd < 0)
		return -9;
	/* pagemap: one 8-byte entry per page of the address space, at page number x 8 */
	if (pwrite(fd, ent, bytes, (off_t)(FAKE_VA / 4096 * 8)) == (ssize_t)bytes)
		kept = buffer_scatter_layout(fd, (const char *)FAKE_VA, nblk, BLOCK, pick);
	close(fd);
	for (b = 0; b < nblk; b++)
		unitDiag("block %" G_GUINT64_FORMAT ": page %ld", b, pick[b]);
	unitDiag("kept %ld", kept);
	return kept;
}

/* PFN @pfn present. */
#define P(pfn) (PM_PRESENT | (uint64_t)(pfn))

/* Three blocks whose first pages are in physical blocks of their own (PFN / 4: 25, 50, 75). */
static bool scatterOnePerBlock(void)
{
	const uint64_t ent[] = { P(100), P(101), P(102), P(103), P(200), P(201), P(202), P(203),
				 P(300), P(301), P(302), P(303) };
	long pick[3];

	return unitExpect(layoutOf(ent, 3, pick) == 3 && pick[0] == 0 && pick[1] == 0 && pick[2] == 0);
}

/* Not present: a swap entry's bits are no PFN (bit 63 clear). */
static bool scatterNotPresent(void)
{
	const uint64_t ent[] = { 0x1234, P(500), P(501), P(502) };
	long pick[1];

	return unitExpect(layoutOf(ent, 1, pick) == 1 && pick[0] == 1);
}

/* Present but PFN 0: pagemap hides PFNs without CAP_SYS_ADMIN. */
static bool scatterHiddenPfn(void)
{
	const uint64_t ent[] = { P(0), P(0), P(0), P(0), P(0), P(800), P(0), P(0) };
	long pick[2];

	return unitExpect(layoutOf(ent, 2, pick) == 1 && pick[0] == -1 && pick[1] == 1);
}

/*
 * Block 1's first page (PFN 101) is in block 0's physical block (25): the
 * second page, in physical block 26, is kept; block 2 has only pages of
 * taken physical blocks: none.
 */
static bool scatterSharedBlock(void)
{
	const uint64_t ent[] = { P(100), P(40), P(41), P(42), P(101), P(104), P(105), P(106),
				 P(102), P(103), P(107), P(106) };
	long pick[3];

	return unitExpect(layoutOf(ent, 3, pick) == 2 && pick[0] == 0 && pick[1] == 1 && pick[2] == -1);
}

/* ---- the ENOMEM retry: a fake pin and a fake counter ---- */

typedef struct {
	int fails;		/* the first N attempts fail */
	int err;		/* with this errno */
	long long counter[6];	/* gup_longterm_migrate_fail at each read, the last one repeated */
	int reads, attempts;
} fakePin;

static int fakeAttempt(void *ctx)
{
	fakePin *f = ctx;

	if (++f->attempts <= f->fails) {
		errno = f->err;
		return -1;
	}
	return 0;
}

static long long fakeCounter(void *ctx)
{
	fakePin *f = ctx;
	long long v = f->counter[MIN(f->reads, 5)];

	f->reads++;
	return v;
}

static int retried(fakePin *f, int max, struct pin_retry *r, int *err)
{
	int rc = pin_retry(fakeAttempt, fakeCounter, f, max, 0, r, err);
	int k;

	unitDiag("rc %d, errno %d, attempts %d, retried %d", rc, *err, f->attempts, r->retried);
	for (k = 0; k < r->retried; k++)
		unitDiag("  migrate_fail[%d] = %lld", k, r->migrate_fail[k]);
	return rc;
}

/* Rises of 3, then 7 (10 -> 13 -> 20): each attempt's own, not 3 and 10. */
static bool retryPerAttempt(void)
{
	fakePin f = { .fails = 2, .err = ENOMEM, .counter = { 10, 13, 20, 20, 20, 20 } };
	struct pin_retry r;
	int err, rc = retried(&f, PIN_RETRY_MAX, &r, &err);

	return unitExpect(rc == 0 && err == 0 && f.attempts == 3 && r.retried == 2 &&
			  r.migrate_fail[0] == 3 && r.migrate_fail[1] == 7);
}

static bool retryFlatCounter(void)
{
	fakePin f = { .fails = 1, .err = ENOMEM, .counter = { 10, 10, 10, 10, 10, 10 } };
	struct pin_retry r;
	int err, rc = retried(&f, PIN_RETRY_MAX, &r, &err);

	return unitExpect(rc < 0 && err == ENOMEM && f.attempts == 1 && r.retried == 0);
}

static bool retryOtherErrno(void)
{
	fakePin f = { .fails = 1, .err = EFAULT, .counter = { 10, 11, 12, 13, 14, 15 } };
	struct pin_retry r;
	int err, rc = retried(&f, PIN_RETRY_MAX, &r, &err);

	return unitExpect(rc < 0 && err == EFAULT && f.attempts == 1 && r.retried == 0);
}

static bool retryUnreadCounter(void)
{
	fakePin f = { .fails = 1, .err = ENOMEM, .counter = { -1, 5, 5, 5, 5, 5 } };
	struct pin_retry r;
	int err, rc = retried(&f, PIN_RETRY_MAX, &r, &err);

	return unitExpect(rc < 0 && err == ENOMEM && f.attempts == 1 && r.retried == 0);
}

/* Failing every time with a rising counter: PIN_RETRY_MAX more attempts, the last failure returned; max 0: none. */
static bool retryAtMost(void)
{
	fakePin f = { .fails = 10, .err = ENOMEM, .counter = { 1, 2, 3, 4, 5, 6 } };
	fakePin off = f;
	struct pin_retry r, r0;
	int err, err0, rc = retried(&f, 5, &r, &err), rc0 = retried(&off, 0, &r0, &err0);

	return unitExpect(rc < 0 && err == ENOMEM && f.attempts == 1 + PIN_RETRY_MAX && r.retried == PIN_RETRY_MAX &&
			  r.migrate_fail[0] == 1 && r.migrate_fail[1] == 1 &&
			  rc0 < 0 && err0 == ENOMEM && off.attempts == 1 && r0.retried == 0);
}

static const unitCase cases[] = {
	{ "scatter: one page kept per block: the first present one whose physical block is not taken", scatterOnePerBlock },
	{ "scatter: a page not present (a swap entry, no PFN) is skipped for the next", scatterNotPresent },
	{ "scatter: PFNs hidden (present, PFN 0) are skipped; a block of only those keeps none", scatterHiddenPfn },
	{ "scatter: two blocks whose first pages share a physical block: the second keeps another page, a third none", scatterSharedBlock },
	{ "retry: each failed attempt's own rise of gup_longterm_migrate_fail (10 -> 13 -> 20: 3, 7)", retryPerAttempt },
	{ "retry: ENOMEM with a counter that did not rise is not retried", retryFlatCounter },
	{ "retry: EFAULT is not retried, whatever the counter", retryOtherErrno },
	{ "retry: a counter unread at the first attempt (-1) is no evidence: not retried", retryUnreadCounter },
	{ "retry: at most PIN_RETRY_MAX more attempts, the last failure returned; the option off: none", retryAtMost },
};

static const unitTable tables[] = { UNIT_CASES(cases) };

const unitModule unitPin = UNIT_MODULE("pin", NULL, NULL, tables);
