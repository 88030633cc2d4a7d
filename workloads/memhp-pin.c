// SPDX-License-Identifier: GPL-2.0
/*
 * memhp-pin - long-term pin a buffer inside the guest and hold the pins.
 *
 *   memhp-pin MODE --id ID --size SIZE [--node N] [--seed S]
 *                  [--backing BACKING] [--touch TOUCH] [--split SPLIT] [--scatter BLOCK]
 *                  [--device PCI-ADDRESS]
 *	MODE, BACKING, TOUCH and SPLIT are rows of lib/mhl-pin.h's tables, which
 *	the orchestrator reads too. MODE is one of the pinning paths real software uses:
 *	  gup           gup_test PIN_LONGTERM_TEST_START (this file)
 *	  io_uring      IORING_REGISTER_BUFFERS, I/O with READ/WRITE_FIXED (uring.c)
 *	  vfio          VFIO type1 VFIO_IOMMU_MAP_DMA, DMA by QEMU's edu device (vfio.c)
 *	  vfio-noiommu  the UNPROTECTED negative control: no IOMMU, nothing pinned (vfio.c)
 *	  hold          memory in use and held, nothing pinned: what an unplug must
 *	                migrate (scale sweeps; this file)
 *	Maps a buffer bound to node N, writes a pattern (before the pin, or
 *	after it with --touch pin, so the pin itself faults the pages in), takes
 *	a census (node/zone of every page), pins, takes the census again and
 *	checks the pattern and the mode's I/O. --touch read never writes: each
 *	page is read (mapping the shared zero page) and gup pins read-only;
 *	the pattern is then all zeros. --split splits the PMD of each THP of
 *	a --backing thp buffer before the census (holder.c: thp_split).
 *	--scatter BLOCK (gup, io_uring, hold) keeps one 4 KiB page in each
 *	BLOCK of the touched buffer, no two in one physical BLOCK, moved next
 *	to each other, and frees the rest before the census: the pin then
 *	holds pages spread over SIZE / BLOCK blocks (buffer.c: buffer_scatter).
 *	A holder process keeps the pins
 *	and serves requests on /run/memhp/ID.sock; this command prints one JSON
 *	object and exits, so the host's guest-exec sees the result while the
 *	pins are held (holder.c).
 *
 *   memhp-pin bench --size SIZE [--node N] [--repeat R] [--fresh]
 *	gup_test PIN_LONGTERM_BENCHMARK R times (bench.c).
 *
 *   memhp-pin leak --id ID [--what io_uring]
 *	one more io_uring instance kept open by a keeper process per call: a
 *	known kernel-memory leak for the soak's detector (leak.c).
 *
 *   memhp-pin ctl ID check|release [--timeout SEC]
 *	check: census + pattern check + the mode's I/O through the pins, and
 *	whether any page changed PFN since the pin. release: the same, then
 *	unpin and exit.
 *
 * Exactly one JSON object goes to stdout; diagnostics go to stderr. The exit
 * status is 0 when the JSON says "ok": true.
 *
 * gup mode test options (docs/workloads.md), comma-separated, from the
 * environment variable MEMHP_PIN_GUP or else the guest kernel's command
 * line (memhp_pin.gup=..., which the kernel ignores: scenarios set it with
 * cmdline:); their results go to "gup_test":{...} in the JSON:
 *	fast      pin with PIN_LONGTERM_TEST_FLAG_USE_FAST (GUP-fast first)
 *	overflow  first ask for a range that wraps (addr 0xfffffffffffff000,
 *	          8 KiB, GUP-fast): it must fail at once
 *	flip      20 ms into the pin, turn the pin-in-place switch off; if
 *	          gup_longterm_retry then climbs by more than 5, turn it back
 *	          on so that the pin can end (unwedged: true); restored after
 *	          the pin
 *	twin      a second thread pins the same range through a second
 *	          gup_test file at the same time, then unpins; the primary pin
 *	          is tried once more if it failed while the twin held pins
 *	retry     if the pin fails with ENOMEM while gup_longterm_migrate_fail
 *	          rose (a page it had to move out of ZONE_MOVABLE could not
 *	          be migrated), try it again, at most PIN_RETRY_MAX more times,
 *	          100 ms apart: a migration can fail on a transient reference
 *	          (a partly mapped THP that could not be split); every failed
 *	          attempt is reported, so a retry never hides a failure
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>

#include "bench.h"
#include "holder.h"
#include "retry.h"
#include "mhl-pin-keys.h"
#include "gup_test.h"	/* the kernel's own, copied from the built tree */

#define GUP_TEST_PATH	"/sys/kernel/debug/gup_test"

#define SWITCH_PATH	"/sys/kernel/debug/gup_longterm/pin_in_place"
#define FLIP_AFTER_MS	20
#define FLIP_MAX_RETRIES 5

static int gup_fd = -1;

/* The gup test options and what they saw (see the top of this file). */
static struct {
	char opts[64];
	bool fast, overflow, flip, twin, retry;
	/* overflow */
	bool ov_returned;
	int ov_errno;		/* 0: the START succeeded */
	double ov_ms;
	/* flip */
	char switch_before;	/* 'Y' or 'N', 0 unread */
	bool flipped, unwedged;
	double flipped_at_ms;
	long long retries;	/* gup_longterm_retry during the pin, -1 unread */
	volatile int pin_done;
	/* twin */
	int twin_errno;		/* 0: the twin's START succeeded */
	int attempts;		/* of the primary pin */
	/* retry: gup_longterm_migrate_fail during each failed attempt (retry.c) */
	struct pin_retry rt;
} gt = { .retries = -1, .attempts = 0 };

static double ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void gup_options(void)
{
	const char *env = getenv("MEMHP_PIN_GUP");
	char line[4096], *p, *tok, *save;
	FILE *f;

	if (env) {
		snprintf(gt.opts, sizeof(gt.opts), "%s", env);
	} else if ((f = fopen("/proc/cmdline", "r"))) {
		if (fgets(line, sizeof(line), f))
			for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
				if (!strncmp(tok, "memhp_pin.gup=", 14))
					snprintf(gt.opts, sizeof(gt.opts), "%s", tok + 14);
		fclose(f);
	}
	for (p = gt.opts; *p; p++)	/* it goes into JSON as is */
		if (*p == '"' || *p == '\\' || (unsigned char)*p < ' ')
			*p = '?';
	snprintf(line, sizeof(line), "%s", gt.opts);
	for (tok = strtok_r(line, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		gt.fast |= !strcmp(tok, "fast");
		gt.overflow |= !strcmp(tok, "overflow");
		gt.flip |= !strcmp(tok, "flip");
		gt.twin |= !strcmp(tok, "twin");
		gt.retry |= !strcmp(tok, "retry");
	}
}

/*
 * A /proc/vmstat counter, -1 if missing. No stdio and no malloc: the flip
 * thread reads it while the pin holds mmap_lock for read, and a malloc that
 * has to grow the heap would wait for the pin to end.
 */
static long long vmstat_read(const char *name)
{
	static char buf[16384];
	size_t len = strlen(name);
	ssize_t n, got = 0;
	char *p;
	int fd = open("/proc/vmstat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (got < (ssize_t)sizeof(buf) - 1 && (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = 0;
	for (p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, name, len) && p[len] == ' ')
			return strtoll(p + len + 1, NULL, 10);
	return -1;
}

static int switch_write(char c)
{
	int fd = open(SWITCH_PATH, O_WRONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = write(fd, c == 'Y' ? "1" : "0", 1) == 1 ? 0 : -1;
	close(fd);
	return rc;
}

static char switch_read(void)
{
	char c = 0;
	int fd = open(SWITCH_PATH, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c;
}

/*
 * overflow: PIN_LONGTERM_TEST_START of a range that wraps, with GUP-fast, in
 * a child; it must come back within 5 s (a kernel that loops there does not
 * even die of SIGKILL: the child is then left behind).
 */
static void overflow_probe(void)
{
	int pfd[2], err = EIO;
	pid_t pid;
	double t0 = ms_now();
	struct pollfd p;

	if (pipe(pfd) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		struct pin_longterm_test pin = {
			.addr = 0xfffffffffffff000ULL, .size = 0x2000,
			.flags = PIN_LONGTERM_TEST_FLAG_USE_FAST | PIN_LONGTERM_TEST_FLAG_USE_WRITE,
		};
		int fd = open(GUP_TEST_PATH, O_RDWR | O_CLOEXEC);

		err = fd < 0 ? errno : ioctl(fd, PIN_LONGTERM_TEST_START, &pin) < 0 ? errno : 0;
		if (write(pfd[1], &err, sizeof(err)) < 0)
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	p = (struct pollfd){ .fd = pfd[0], .events = POLLIN };
	if (pid > 0 && poll(&p, 1, 5000) == 1 && read(pfd[0], &err, sizeof(err)) == sizeof(err)) {
		gt.ov_returned = true;
		gt.ov_errno = err;
		waitpid(pid, NULL, 0);
	} else if (pid > 0) {
		kill(pid, SIGKILL);
	}
	gt.ov_ms = ms_now() - t0;
	close(pfd[0]);
}

/* flip: turn the switch off FLIP_AFTER_MS into the pin, see that it ends. */
static void *flipper(void *arg)
{
	long long r0 = vmstat_read("gup_longterm_retry"), r;
	double t0 = ms_now();

	(void)arg;
	while (!gt.pin_done && ms_now() - t0 < FLIP_AFTER_MS)
		usleep(1000);
	if (gt.pin_done)
		return NULL;
	if (switch_write('N') == 0) {
		gt.flipped = true;
		gt.flipped_at_ms = ms_now() - t0;
	}
	while (!gt.pin_done) {
		usleep(10000);
		r = vmstat_read("gup_longterm_retry");
		if (!gt.unwedged && r0 >= 0 && r - r0 > FLIP_MAX_RETRIES) {
			switch_write('Y');
			gt.unwedged = true;
		}
	}
	return NULL;
}

struct twin_arg {
	struct pin_longterm_test pin;
	pthread_barrier_t *go;
};

/* twin: pin the same range through a file of its own, then unpin. */
static void *twin_pin(void *arg)
{
	struct twin_arg *ta = arg;
	int fd = open(GUP_TEST_PATH, O_RDWR | O_CLOEXEC);

	pthread_barrier_wait(ta->go);
	if (fd < 0) {
		gt.twin_errno = errno;
		return NULL;
	}
	gt.twin_errno = ioctl(fd, PIN_LONGTERM_TEST_START, &ta->pin) < 0 ? errno : 0;
	close(fd);	/* drops the twin's pins */
	return NULL;
}

/* One attempt of the pin (pin_retry): the gup_test START of @ctx, a struct pin_longterm_test. */
static int gup_attempt(void *ctx)
{
	return ioctl(gup_fd, PIN_LONGTERM_TEST_START, ctx);
}

static long long migrate_fail_read(void *ctx)
{
	(void)ctx;
	return vmstat_read("gup_longterm_migrate_fail");
}

static int gup_pin(struct holder *h)
{
	struct pin_longterm_test pin = {
		.addr = (uintptr_t)h->buf,
		.size = h->size,
		/* --touch read: a read-only pin (no FOLL_WRITE), as for the zero page */
		.flags = h->read_only ? 0 : PIN_LONGTERM_TEST_FLAG_USE_WRITE,
	};
	pthread_t flip_thread, twin_thread;
	pthread_barrier_t go;
	struct twin_arg ta;
	long long r0 = -1;
	int rc, err = 0;

	gup_options();
	if (gt.fast)
		pin.flags |= PIN_LONGTERM_TEST_FLAG_USE_FAST;
	if (gt.overflow)
		overflow_probe();

	h->fail_what = "open " GUP_TEST_PATH " (CONFIG_GUP_TEST, debugfs)";
	if ((gup_fd = open(GUP_TEST_PATH, O_RDWR | O_CLOEXEC)) < 0)
		return -1;
	h->fail_what = "PIN_LONGTERM_TEST_START";
	if (gt.flip) {
		gt.switch_before = switch_read();
		r0 = vmstat_read("gup_longterm_retry");
		if (pthread_create(&flip_thread, NULL, flipper, NULL))
			gt.flip = false;
	}
	if (gt.twin) {
		ta = (struct twin_arg){ .pin = pin, .go = &go };
		pthread_barrier_init(&go, NULL, 2);
		if (pthread_create(&twin_thread, NULL, twin_pin, &ta)) {
			gt.twin = false;
			pthread_barrier_destroy(&go);
		} else {
			pthread_barrier_wait(&go);
		}
	}
	gt.attempts = 1;
	rc = pin_retry(gup_attempt, migrate_fail_read, &pin, gt.retry ? PIN_RETRY_MAX : 0, 100 * 1000,
		       &gt.rt, &err);
	if (gt.twin) {
		pthread_join(twin_thread, NULL);
		pthread_barrier_destroy(&go);
		if (rc < 0 && err == ENOMEM) {	/* the twin's pins made the migration fail */
			gt.attempts = 2;
			rc = ioctl(gup_fd, PIN_LONGTERM_TEST_START, &pin);
			err = errno;
		}
	}
	if (gt.flip) {
		gt.pin_done = 1;
		pthread_join(flip_thread, NULL);
		if (r0 >= 0)
			gt.retries = vmstat_read("gup_longterm_retry") - r0;
		if (gt.switch_before)
			switch_write(gt.switch_before);
	}
	if (rc < 0) {
		close(gup_fd);
		gup_fd = -1;
		errno = err;
		return -1;
	}
	h->bytes_pinned = h->size;
	return 0;
}

static void errno_field(FILE *f, const char *key, int err)
{
	fprintf(f, ",\"%s\":", key);
	if (!err)
		fputs("null", f);
	else
		fprintf(f, "\"%s\"", strerrorname_np(err) ? strerrorname_np(err) : "?");
}

/* ,"gup_test":{...}: only when test options are set. */
static void gup_json(struct holder *h, FILE *f)
{
	int i;

	(void)h;
	if (!gt.opts[0])
		return;
	fprintf(f, ",\"gup_test\":{\"options\":\"%s\",\"fast\":%s", gt.opts,
		gt.fast ? "true" : "false");
	if (gt.overflow) {
		fprintf(f, ",\"overflow\":{\"returned\":%s,\"ms\":%.1f",
			gt.ov_returned ? "true" : "false", gt.ov_ms);
		errno_field(f, "errno_name", gt.ov_returned ? gt.ov_errno : 0);
		fputs("}", f);
	}
	if (gt.flip)
		fprintf(f, ",\"flip\":{\"switch_before\":\"%c\",\"flipped\":%s,\"flipped_at_ms\":%.1f,"
			"\"retries\":%lld,\"unwedged\":%s}",
			gt.switch_before ? gt.switch_before : '?', gt.flipped ? "true" : "false",
			gt.flipped_at_ms, gt.retries, gt.unwedged ? "true" : "false");
	if (gt.retry) {
		fprintf(f, ",\"retry\":{\"attempts\":%d,\"migrate_fail\":[", 1 + gt.rt.retried);
		for (i = 0; i < gt.rt.retried; i++)
			fprintf(f, "%s%lld", i ? "," : "", gt.rt.migrate_fail[i]);
		fputs("]}", f);
	}
	if (gt.twin) {
		fprintf(f, ",\"twin\":{\"attempts\":%d", gt.attempts);
		errno_field(f, "errno_name", gt.twin_errno);
		fputs("}", f);
	}
	fputs("}", f);
}

static int gup_unpin(struct holder *h)
{
	int rc = 0;

	if (gup_fd < 0)
		return 0;
	if (ioctl(gup_fd, PIN_LONGTERM_TEST_STOP) < 0)
		rc = -1;
	close(gup_fd);	/* closing also drops the pins, should STOP have failed */
	gup_fd = -1;
	h->bytes_pinned = 0;
	return rc;
}

const struct pin_mode gup_mode = {
	.name = "gup",
	.pin = gup_pin,
	.json = gup_json,
	.unpin = gup_unpin,
};

/* hold: the buffer is in use and held, nothing pins it. */
static int hold_pin(struct holder *h)
{
	h->pins = false;
	if (h->touch_by_pin)
		memset(h->buf, 0, h->size);	/* nothing faults it in but the CPU */
	return 0;
}

static int hold_unpin(struct holder *h)
{
	(void)h;
	return 0;
}

const struct pin_mode hold_mode = {
	.name = "hold",
	.pin = hold_pin,
	.unpin = hold_unpin,
};

/* The modes, by MHL_PIN_MODES row (lib/mhl-pin.h). */
#define PIN_MODE_PTR_(id, var, ...) [MHL_PIN_##id] = &var##_mode,
static const struct pin_mode *const modes[MHL_PIN_MODE_LAST] = { MHL_PIN_MODES(PIN_MODE_PTR_) };

/* The commands that are no pin mode, after the modes in the "known:" list. */
static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "bench", cmd_bench },
	{ "leak", leak_main },
	{ "ctl", holder_ctl },
};

/* An unknown MODE: stderr and the JSON contract's one object say it, with every mode and command. */
static int unknown_mode(const char *arg)
{
	char known[256];
	size_t at = mhl_names_join(known, sizeof(known), mhl_pin_modes, ", ");

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]) && at < sizeof(known); i++)
		at += snprintf(known + at, sizeof(known) - at, ", %s", commands[i].name);
	fprintf(stderr, "memhp-pin: unknown mode '%s' (known: %s)\n", arg, known);
	printf("{" MHL_PIN_KEY(MHL_PIN_K_OK) "false,\"errno\":%d," MHL_PIN_KEY(MHL_PIN_K_ERRNO_NAME) "\"EINVAL\",\"error\":\"unknown mode '%.64s' (known: %s)\"}\n",
	       EINVAL, strchr(arg, '"') ? "?" : arg, known);
	return 2;
}

static int usage(void)
{
	char m[160], b[64], t[64], x[64];

	mhl_names_join(m, sizeof(m), mhl_pin_modes, "|");
	mhl_names_join(b, sizeof(b), mhl_pin_backings, "|");
	mhl_names_join(t, sizeof(t), mhl_pin_touches, "|");
	mhl_names_join(x, sizeof(x), mhl_pin_splits, "|");
	fprintf(stderr,
		"usage: memhp-pin %s --id ID --size SIZE [--node N] [--seed S]\n"
		"                 [--backing %s] [--touch %s]\n"
		"                 [--split %s] [--scatter BLOCK] [--device PCI-ADDRESS]\n"
		"       memhp-pin bench --size SIZE [--node N] [--repeat R] [--fresh]\n"
		"       memhp-pin ctl ID check|release [--timeout SEC]\n"
		"       memhp-pin leak --id ID [--what io_uring]\n", m, b, t, x);
	return 2;
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 2)
		return usage();
	if ((i = mhl_name_index(mhl_pin_modes, argv[1])) >= 0)
		return holder_main(modes[i], argc - 1, argv + 1);
	if ((i = mhl_name_index(commands, argv[1])) >= 0)
		return commands[i].run(argc - 1, argv + 1);
	return unknown_mode(argv[1]);
}
