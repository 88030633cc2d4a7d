// SPDX-License-Identifier: GPL-2.0
/*
 * memhp-pin - long-term pin a buffer inside the guest and hold the pin.
 *
 *   memhp-pin gup --id ID --size SIZE [--node N] [--seed S]
 *	Maps an anonymous buffer bound to node N (mbind MPOL_BIND), writes a
 *	pattern, takes a census (node/zone of every page), long-term pins it with
 *	gup_test PIN_LONGTERM_TEST_START, takes the census again and checks the
 *	pattern. A holder process keeps the pin and serves requests on
 *	/run/memhp/ID.sock; this command prints one JSON object and exits, so the
 *	host's guest-exec sees the result while the pin is still held.
 *
 *   memhp-pin bench --size SIZE [--node N] [--repeat R] [--fresh]
 *	gup_test PIN_LONGTERM_BENCHMARK R times (bench.c).
 *
 *   memhp-pin ctl ID check|release [--timeout SEC]
 *	check: census + pattern check of the held buffer, and whether any page
 *	changed PFN since the pin. release: the same, then unpin and exit.
 *
 * Exactly one JSON object goes to stdout; diagnostics go to stderr. The exit
 * status is 0 when the JSON says "ok": true.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>

#include "bench.h"
#include "buffer.h"
#include "census.h"
#include "gup_test.h"	/* the kernel's own, copied from the built tree */
#include "mhl-size.h"

#define GUP_TEST_PATH	"/sys/kernel/debug/gup_test"
#define RUN_DIR		"/run/memhp"

struct holder {
	const char *id;
	uint64_t size;
	int node;
	uint64_t seed;
	char *buf;
	uint64_t *pfns;		/* PFN of each page right after the pin */
	int gup_fd;
	struct census_ctx cx;
};

static volatile sig_atomic_t stop_requested;

static void on_term(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static inline uint64_t pattern_word(uint64_t seed, uint64_t idx)
{
	uint64_t x = (idx + 1) * 0x9e3779b97f4a7c15ULL ^ seed;

	return x ^ (x >> 29);
}

static void pattern_write(struct holder *h)
{
	uint64_t *w = (uint64_t *)h->buf, n = h->size / 8, i;

	for (i = 0; i < n; i++)
		w[i] = pattern_word(h->seed, i);
}

static uint64_t pattern_bad_words(const struct holder *h)
{
	const uint64_t *w = (const uint64_t *)h->buf;
	uint64_t n = h->size / 8, i, bad = 0;

	for (i = 0; i < n; i++)
		bad += w[i] != pattern_word(h->seed, i);
	return bad;
}

static void json_errno(FILE *f, int err)
{
	fprintf(f, ",\"errno\":%d,\"errno_name\":\"%s\",\"error\":\"%s\"",
		err, strerrorname_np(err) ? strerrorname_np(err) : "?", strerror(err));
}

/* Census + pattern check + PFN stability; printed as one JSON object. */
static bool report_state(struct holder *h, FILE *f, const char *what, bool released)
{
	struct census c;
	uint64_t *now = calloc(h->size / h->cx.page_size, sizeof(*now));
	uint64_t moved = 0, bad, i, n = h->size / h->cx.page_size;
	bool ok;

	if (!now || census_take(&h->cx, h->buf, h->size, &c, now) < 0) {
		int err = errno;

		fprintf(f, "{\"ok\":false,\"id\":\"%s\",\"what\":\"%s\"", h->id, what);
		json_errno(f, err);
		fputs("}\n", f);
		free(now);
		return false;
	}
	for (i = 0; i < n; i++)
		moved += now[i] != h->pfns[i];
	free(now);
	bad = pattern_bad_words(h);
	ok = bad == 0;
	fprintf(f, "{\"ok\":%s,\"id\":\"%s\",\"what\":\"%s\",\"bytes_pinned\":%" PRIu64
		",\"pattern_bad_words\":%" PRIu64 ",\"pattern_ok\":%s"
		",\"pages_moved_since_pin\":%" PRIu64 ",\"released\":%s,\"census\":",
		ok ? "true" : "false", h->id, what, released ? 0 : h->size, bad,
		bad ? "false" : "true", moved, released ? "true" : "false");
	census_print_json(f, &c);
	fputs("}\n", f);
	return ok;
}

static int sock_path(const char *id, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if ((size_t)snprintf(sa->sun_path, sizeof(sa->sun_path), RUN_DIR "/%s.sock", id) >=
	    sizeof(sa->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Serve check/release until released or SIGTERM; never leaves the pin behind. */
static void holder_serve(struct holder *h, int lfd)
{
	for (;;) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		char req[32] = "";
		bool release;
		FILE *f;
		int cfd;
		ssize_t n;

		if (stop_requested)
			break;
		if (poll(&p, 1, 500) <= 0)
			continue;
		cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (cfd < 0)
			continue;
		n = read(cfd, req, sizeof(req) - 1);
		req[n > 0 ? n : 0] = '\0';
		release = !strncmp(req, "release", 7);
		f = fdopen(cfd, "w");
		if (!f) {
			close(cfd);
			continue;
		}
		if (!release && strncmp(req, "check", 5)) {
			fprintf(f, "{\"ok\":false,\"id\":\"%s\",\"error\":\"unknown request\"}\n", h->id);
		} else if (release) {
			double t0 = now_us();
			int rc = ioctl(h->gup_fd, PIN_LONGTERM_TEST_STOP);

			if (rc < 0) {
				int err = errno;

				fprintf(f, "{\"ok\":false,\"id\":\"%s\",\"what\":\"release\"", h->id);
				json_errno(f, err);
				fputs("}\n", f);
			} else {
				fprintf(stderr, "memhp-pin %s: unpinned in %.0f us\n", h->id, now_us() - t0);
				report_state(h, f, "release", true);
			}
		} else {
			report_state(h, f, "check", false);
		}
		fclose(f);
		if (release)
			break;
	}
	close(h->gup_fd);	/* closing also drops the pins, should STOP have failed */
}

static int cmd_gup(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "id", required_argument, NULL, 'i' },
		{ "size", required_argument, NULL, 's' },
		{ "node", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 'S' },
		{ 0 }
	};
	struct holder h = { .id = NULL, .node = -1, .seed = 0x6d656d6870ULL };
	struct pin_longterm_test pin = { 0 };
	struct census before, after;
	struct sockaddr_un sa;
	double t0, pin_us;
	int c, rc, err = 0, pipefd[2], lfd;
	pid_t pid;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'i': h.id = optarg; break;
		case 's':
			if (mhl_size_parse(optarg, &h.size) < 0 || !h.size) {
				fprintf(stderr, "memhp-pin: invalid --size '%s'\n", optarg);
				return 2;
			}
			break;
		case 'n': h.node = atoi(optarg); break;
		case 'S': h.seed = strtoull(optarg, NULL, 0); break;
		default: return 2;
		}
	}
	if (!h.id || !h.size || strchr(h.id, '/')) {
		fprintf(stderr, "memhp-pin gup: --id NAME (no '/') and --size SIZE are required\n");
		return 2;
	}
	mkdir(RUN_DIR, 0755);
	if (sock_path(h.id, &sa) < 0 || pipe2(pipefd, O_CLOEXEC) < 0) {
		perror("memhp-pin: setup");
		return 1;
	}

	pid = fork();
	if (pid < 0) {
		perror("memhp-pin: fork");
		return 1;
	}
	if (pid > 0) {
		/* Parent: relay the holder's single JSON line, exit with its verdict. */
		char line[8192];
		FILE *r;
		int ok;

		close(pipefd[1]);
		r = fdopen(pipefd[0], "r");
		if (!r || !fgets(line, sizeof(line), r)) {
			printf("{\"ok\":false,\"mode\":\"gup\",\"id\":\"%s\",\"error\":\"holder exited without a result\"}\n",
			       h.id);
			return 1;
		}
		fputs(line, stdout);
		ok = strstr(line, "\"ok\":true") != NULL;
		if (!ok)
			waitpid(pid, NULL, 0);
		return ok ? 0 : 1;
	}

	/* Holder. */
	close(pipefd[0]);
	setsid();
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	signal(SIGHUP, SIG_IGN);
	/*
	 * The holder outlives this command: it must not keep the caller's stdout
	 * or stderr open (qemu-ga waits for EOF on them before it reports the exit).
	 */
	{
		char logpath[128];
		int nul = open("/dev/null", O_RDWR), log;

		snprintf(logpath, sizeof(logpath), RUN_DIR "/%s.log", h.id);
		log = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		dup2(nul, 0);
		dup2(nul, 1);
		dup2(log >= 0 ? log : nul, 2);
	}
	stdout = fdopen(pipefd[1], "w");

	h.buf = buffer_map(h.size, h.node);
	if (!h.buf) {
		err = errno;
		goto fail;
	}
	pattern_write(&h);
	if (census_init(&h.cx, "", "/proc/self/pagemap") < 0) {
		err = errno;
		goto fail;
	}
	h.pfns = calloc(h.size / h.cx.page_size, sizeof(*h.pfns));
	if (!h.pfns || census_take(&h.cx, h.buf, h.size, &before, NULL) < 0) {
		err = errno ? errno : ENOMEM;
		goto fail;
	}
	h.gup_fd = open(GUP_TEST_PATH, O_RDWR | O_CLOEXEC);
	if (h.gup_fd < 0) {
		err = errno;
		goto fail;
	}
	pin.addr = (uintptr_t)h.buf;
	pin.size = h.size;
	pin.flags = PIN_LONGTERM_TEST_FLAG_USE_WRITE;
	t0 = now_us();
	rc = ioctl(h.gup_fd, PIN_LONGTERM_TEST_START, &pin);
	pin_us = now_us() - t0;
	if (rc < 0) {
		err = errno;
		goto fail;
	}
	if (census_take(&h.cx, h.buf, h.size, &after, h.pfns) < 0) {
		err = errno;
		goto fail;
	}
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	unlink(sa.sun_path);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 4) < 0) {
		err = errno;
		goto fail;
	}
	{
		uint64_t bad = pattern_bad_words(&h);

		printf("{\"ok\":%s,\"mode\":\"gup\",\"id\":\"%s\",\"node\":%d,\"bytes_asked\":%" PRIu64
		       ",\"bytes_pinned\":%" PRIu64 ",\"pin_us\":%.0f,\"holder_pid\":%d"
		       ",\"pattern_bad_words\":%" PRIu64 ",\"pattern_ok\":%s,\"census_before\":",
		       bad ? "false" : "true", h.id, h.node, h.size, h.size, pin_us, getpid(), bad,
		       bad ? "false" : "true");
		census_print_json(stdout, &before);
		fputs(",\"census_after\":", stdout);
		census_print_json(stdout, &after);
		fputs("}\n", stdout);
		fclose(stdout);
	}
	holder_serve(&h, lfd);
	unlink(sa.sun_path);
	_exit(0);

fail:
	printf("{\"ok\":false,\"mode\":\"gup\",\"id\":\"%s\",\"node\":%d,\"bytes_asked\":%" PRIu64
	       ",\"bytes_pinned\":0", h.id, h.node, h.size);
	json_errno(stdout, err);
	fputs("}\n", stdout);
	fclose(stdout);
	_exit(1);
}

static int cmd_ctl(int argc, char **argv)
{
	struct sockaddr_un sa;
	char reply[16384];
	size_t len = 0;
	int fd, timeout_ms = 30000;
	ssize_t n;

	if (argc < 3 || (strcmp(argv[2], "check") && strcmp(argv[2], "release"))) {
		fprintf(stderr, "usage: memhp-pin ctl ID check|release [--timeout SEC]\n");
		return 2;
	}
	if (argc == 5 && !strcmp(argv[3], "--timeout"))
		timeout_ms = atoi(argv[4]) * 1000;
	if (sock_path(argv[1], &sa) < 0)
		return 2;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = errno;

		printf("{\"ok\":false,\"id\":\"%s\",\"what\":\"%s\"", argv[1], argv[2]);
		json_errno(stdout, err);
		printf(",\"detail\":\"no holder at %s\"}\n", sa.sun_path);
		return 1;
	}
	if (write(fd, argv[2], strlen(argv[2])) < 0)
		return 1;
	shutdown(fd, SHUT_WR);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, timeout_ms) <= 0) {
			printf("{\"ok\":false,\"id\":\"%s\",\"what\":\"%s\",\"error\":\"holder did not answer within %d s\"}\n",
			       argv[1], argv[2], timeout_ms / 1000);
			return 1;
		}
		n = read(fd, reply + len, sizeof(reply) - 1 - len);
		if (n <= 0)
			break;
		len += n;
	}
	reply[len] = '\0';
	if (!len) {
		printf("{\"ok\":false,\"id\":\"%s\",\"error\":\"holder closed without a reply\"}\n", argv[1]);
		return 1;
	}
	fputs(reply, stdout);
	return strstr(reply, "\"ok\":true") ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "gup"))
		return cmd_gup(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "ctl"))
		return cmd_ctl(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "bench"))
		return cmd_bench(argc - 1, argv + 1);
	fprintf(stderr,
		"usage: memhp-pin gup --id ID --size SIZE [--node N] [--seed S]\n"
		"       memhp-pin bench --size SIZE [--node N] [--repeat R] [--fresh]\n"
		"       memhp-pin ctl ID check|release [--timeout SEC]\n");
	return 2;
}
