/* retry.h - the gup mode's retry option (memhp-pin.c, "retry"): a pin that failed with ENOMEM while a migration failed, tried again. */
#ifndef MHP_RETRY_H
#define MHP_RETRY_H

#define PIN_RETRY_MAX	2	/* attempts after the first */

/* What the retries saw: reported whole, so that a retry never hides a failure. */
struct pin_retry {
	int retried;					/* attempts after the first */
	long long migrate_fail[PIN_RETRY_MAX];		/* gup_longterm_migrate_fail's rise during each failed attempt */
};

/*
 * Pin through @attempt (@ctx; < 0 with errno set when the pin failed) and,
 * while it failed with ENOMEM and the counter @migrate_fail reads (< 0:
 * unread) rose during that attempt (a page it had to move out of
 * ZONE_MOVABLE could not be migrated), try again, at most @max (at most
 * PIN_RETRY_MAX) more times, @pause_us apart. r->migrate_fail[k]: the rise
 * during failed attempt k alone, not since the first. Returns the last
 * attempt's return, its errno in *@err (0 when it succeeded).
 */
int pin_retry(int (*attempt)(void *ctx), long long (*migrate_fail)(void *ctx), void *ctx, int max,
	      unsigned int pause_us, struct pin_retry *r, int *err);

#endif
