/* retry.c - see retry.h. */
#include "retry.h"

#include <errno.h>
#include <unistd.h>

int pin_retry(int (*attempt)(void *ctx), long long (*migrate_fail)(void *ctx), void *ctx, int max,
	      unsigned int pause_us, struct pin_retry *r, int *err)
{
	long long mf0 = migrate_fail(ctx), mf1;
	int rc;

	r->retried = 0;
	if (max > PIN_RETRY_MAX)
		max = PIN_RETRY_MAX;
	errno = 0;
	rc = attempt(ctx);
	*err = rc < 0 ? errno : 0;
	while (rc < 0 && *err == ENOMEM && r->retried < max && mf0 >= 0 && (mf1 = migrate_fail(ctx)) > mf0) {
		r->migrate_fail[r->retried++] = mf1 - mf0;
		if (pause_us)
			usleep(pause_us);
		mf0 = mf1;
		errno = 0;
		rc = attempt(ctx);
		*err = rc < 0 ? errno : 0;
	}
	return rc;
}
