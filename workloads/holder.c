// SPDX-License-Identifier: GPL-2.0
/*
 * holder.c - see holder.h. The flow of every mode:
 *
 *   map the buffer (backing, node) -> pattern (unless touch-by-pin) ->
 *   census before -> mode->prepare (untimed) -> mode->pin -> pattern
 *   (touch-by-pin) -> census after (PFN of every page kept) -> pattern
 *   check -> mode->io -> one JSON line
 *   to the caller -> serve check/release on the socket until release or
 *   SIGTERM -> mode->unpin.
 *
 * The command forks: the holder child does all of the above, the parent
 * relays the child's one JSON line and exits with its verdict, so the
 * caller (qemu-ga's guest-exec) sees the result while the pins are held.
 */
#include "holder.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buffer.h"
#include "mhl-size.h"
#include "mhl-pin-keys.h"

#define HUGE_2M		(2UL << 20)
#define NODE_DIR	"/sys/devices/system/node/node%d"
#define NODE_HUGEPAGES	NODE_DIR "/hugepages/hugepages-2048kB/nr_hugepages"
#define MPOL_BIND_	2
#define MPOL_MF_STRICT_	(1 << 0)

static volatile sig_atomic_t stop_requested;

static void on_term(int sig)
{
	(void)sig;
	stop_requested = 1;
}

double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

void json_errno(FILE *f, int err)
{
	fprintf(f, ",\"errno\":%d," MHL_PIN_KEY(MHL_PIN_K_ERRNO_NAME) "\"%s\"", err,
		strerrorname_np(err) ? strerrorname_np(err) : "?");
}

static inline uint64_t pattern_word(uint64_t seed, uint64_t idx)
{
	uint64_t x = (idx + 1) * 0x9e3779b97f4a7c15ULL ^ seed;

	return x ^ (x >> 29);
}

void pattern_fill(const struct holder *h, uint64_t off, uint64_t len)
{
	uint64_t *w = (uint64_t *)(h->buf + off), i, base = off / 8, sum = 0;

	if (h->read_only) {
		for (i = 0; i < len / 8; i += 4096 / 8)
			sum += ((volatile uint64_t *)w)[i];
		__asm__ volatile("" : : "r"(sum));
		return;
	}
	for (i = 0; i < len / 8; i++)
		w[i] = pattern_word(h->seed, base + i);
}

uint64_t pattern_bad(const struct holder *h, uint64_t off, uint64_t len)
{
	const uint64_t *w = (const uint64_t *)(h->buf + off);
	uint64_t i, base = off / 8, bad = 0;

	for (i = 0; i < len / 8; i++)
		bad += w[i] != (h->read_only ? 0 : pattern_word(h->seed, base + i));
	return bad;
}

static long read_long(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

static int write_long(const char *path, long v)
{
	char buf[32];
	int fd = open(path, O_WRONLY | O_CLOEXEC), len = snprintf(buf, sizeof(buf), "%ld", v);
	int rc = fd < 0 ? -1 : (int)write(fd, buf, len);

	if (fd >= 0)
		close(fd);
	return rc == len ? 0 : -1;
}

/* MemTotal of a node in bytes, -1 when it has no such node. */
static long long node_mem_total(int node)
{
	char path[96], line[128];
	long long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), NODE_DIR "/meminfo", node);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %*d MemTotal: %lld kB", &kib) == 1)
			break;
	fclose(f);
	return kib < 0 ? -1 : kib * 1024;
}

static int bind_node(void *addr, uint64_t len, int node)
{
	unsigned long mask = 1UL << node;

	if (node < 0)
		return 0;
	return (int)syscall(SYS_mbind, addr, len, MPOL_BIND_, &mask, sizeof(mask) * 8,
			    MPOL_MF_STRICT_);
}

/* hugetlb: grow the node's 2 MiB pool by what the buffer needs. */
static int hugetlb_reserve(struct holder *h)
{
	char path[128];
	long have, want = (long)(h->size / HUGE_2M);

	snprintf(path, sizeof(path), NODE_HUGEPAGES, h->node < 0 ? 0 : h->node);
	if ((have = read_long(path)) < 0 || write_long(path, have + want) < 0)
		return -1;
	h->hugepages_added = read_long(path) - have;
	if (h->hugepages_added < want) {
		errno = ENOMEM;	/* the node has no room for that many 2 MiB pages */
		return -1;
	}
	return 0;
}

static void hugetlb_unreserve(struct holder *h)
{
	char path[128];
	long have;

	if (h->hugepages_added <= 0)
		return;
	snprintf(path, sizeof(path), NODE_HUGEPAGES, h->node < 0 ? 0 : h->node);
	if ((have = read_long(path)) >= h->hugepages_added)
		write_long(path, have - h->hugepages_added);
	h->hugepages_added = 0;
}

static int buffer_setup(struct holder *h)
{
	char *p;

	h->memfd = -1;
	switch (h->backing) {
	case MHL_PIN_BACKING_ANON:
		h->fail_what = "mmap/mbind";
		h->buf = buffer_map(h->size, h->node);
		return h->buf ? 0 : -1;
	case MHL_PIN_BACKING_THP:
		h->fail_what = "mmap/mbind";
		p = mmap(NULL, h->size + HUGE_2M, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return -1;
		h->buf = (char *)(((uintptr_t)p + HUGE_2M - 1) & ~(HUGE_2M - 1));
		madvise(h->buf, h->size, MADV_HUGEPAGE);
		break;
	case MHL_PIN_BACKING_HUGETLB:
		h->fail_what = "reserve 2 MiB hugetlb pages on the node";
		if (h->size % HUGE_2M) {
			errno = EINVAL;
			return -1;
		}
		if (hugetlb_reserve(h) < 0)
			return -1;
		h->fail_what = "mmap MAP_HUGETLB/mbind";
		p = mmap(NULL, h->size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (21 << MAP_HUGE_SHIFT), -1, 0);
		if (p == MAP_FAILED)
			return -1;
		h->buf = p;
		break;
	case MHL_PIN_BACKING_MEMFD:
		h->fail_what = "memfd_create/ftruncate/mmap";
		h->memfd = memfd_create("memhp-pin", MFD_CLOEXEC);
		if (h->memfd < 0 || ftruncate(h->memfd, (off_t)h->size) < 0)
			return -1;
		p = mmap(NULL, h->size, PROT_READ | PROT_WRITE, MAP_SHARED, h->memfd, 0);
		if (p == MAP_FAILED)
			return -1;
		h->buf = p;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	h->fail_what = "mbind";
	return bind_node(h->buf, h->size, h->node);
}

/* Bytes of [buf, buf + size) mapped by PMDs: AnonHugePages of its VMAs in smaps. */
static long long pmd_mapped(const struct holder *h)
{
	unsigned long lo = (uintptr_t)h->buf, hi = lo + h->size, s = 0, e = 0, a, b;
	char line[256];
	long long kb, total = 0;
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* A VMA's header "start-end perms ..."; no field line parses so. */
		if (sscanf(line, "%lx-%lx ", &a, &b) == 2) {
			s = a;
			e = b;
			continue;
		}
		if (e > lo && s < hi && sscanf(line, "AnonHugePages: %lld kB", &kb) == 1)
			total += kb * 1024;
	}
	fclose(f);
	return total;
}

/*
 * Split every PMD of a THP buffer, the way split_huge_pmd() is reached from
 * user space, keeping the range mapped and its data:
 *   mprotect: one 4 KiB page in the middle of each 2 MiB made read-only and
 *     writable again; the folio stays whole, now mapped by 512 PTEs.
 *   munmap: that page unmapped and a fresh 4 KiB page mapped in its place;
 *     the folio stays, partly mapped (queued for a deferred split).
 * MADV_NOHUGEPAGE afterwards keeps khugepaged from collapsing it again.
 */
static int thp_split(struct holder *h)
{
	uint64_t off;

	h->fail_what = "split the THPs";
	h->pmd_mapped_before_split = pmd_mapped(h);
	for (off = 0; off + HUGE_2M <= h->size; off += HUGE_2M) {
		char *p = h->buf + off + HUGE_2M / 2;

		if (!strcmp(h->split, "mprotect")) {
			h->fail_what = "mprotect (split the PMD)";
			if (mprotect(p, 4096, PROT_READ) < 0 ||
			    mprotect(p, 4096, PROT_READ | PROT_WRITE) < 0)
				return -1;
		} else {
			h->fail_what = "munmap + mmap MAP_FIXED (split the PMD)";
			if (munmap(p, 4096) < 0 ||
			    mmap(p, 4096, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != p ||
			    bind_node(p, 4096, h->node) < 0)
				return -1;
			pattern_fill(h, off + HUGE_2M / 2, 4096);
		}
	}
	madvise(h->buf, h->size, MADV_NOHUGEPAGE);
	h->pmd_mapped_after_split = pmd_mapped(h);
	return 0;
}

/* The PFN of the shared zero page: what a read fault maps in a 4 KiB mapping. */
static uint64_t zero_page_pfn(struct census_ctx *cx)
{
	volatile char *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct census c;
	uint64_t pfn = 0;

	if (p == MAP_FAILED)
		return 0;
	(void)p[0];
	if (census_take(cx, (const void *)p, 4096, &c, &pfn) < 0)
		pfn = 0;
	munmap((void *)p, 4096);
	return pfn;
}

/* CMA areas from the kernel log (klogctl: the boot messages are still there). */
static void cma_from_log(struct census_ctx *cx)
{
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *log = len > 0 ? malloc(len + 1) : NULL;

	if (!log)
		return;
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, len);
	if (len > 0) {
		log[len] = '\0';
		cx->ncma = census_parse_cma_log(log, cx->cma, CENSUS_MAX_CMA);
	}
	free(log);
}

/* The mode's I/O check as a string (",\"io\":{...}"); *ok cleared if it failed. */
static char *io_check(struct holder *h, bool *ok)
{
	char *s = NULL;
	size_t len = 0;
	FILE *m;

	if (!h->mode->io || !(m = open_memstream(&s, &len)))
		return NULL;
	if (h->mode->io(h, m) != 0)
		*ok = false;
	fclose(m);
	return s;
}

/*
 * Census + pattern + PFN stability (+ the I/O check in @io), printed as one
 * JSON object. Returns the verdict.
 */
static bool report_state(struct holder *h, FILE *f, const char *what, bool released,
			 const char *io, bool io_ok)
{
	uint64_t n = h->size / h->cx.page_size, moved = 0, bad, i;
	uint64_t *now = calloc(n, sizeof(*now));
	struct census c;
	bool ok;

	if (!now || census_take(&h->cx, h->buf, h->size, &c, now) < 0) {
		int err = errno;

		fprintf(f, "{" MHL_PIN_KEY(MHL_PIN_K_OK) "false,\"id\":\"%s\",\"what\":\"%s\"", h->id, what);
		json_errno(f, err);
		fprintf(f, ",\"error\":\"census: %s\"}\n", strerror(err));
		free(now);
		return false;
	}
	for (i = 0; i < n; i++)
		moved += now[i] != h->pfns[i];
	free(now);
	bad = pattern_bad(h, 0, h->size);
	ok = bad == 0 && io_ok;
	fprintf(f, "{" MHL_PIN_KEY(MHL_PIN_K_OK) "%s," MHL_PIN_KEY(MHL_PIN_K_MODE) "\"%s\",\"id\":\"%s\",\"what\":\"%s\"," MHL_PIN_KEY(MHL_PIN_K_PINNED) "%s"
		"," MHL_PIN_KEY(MHL_PIN_K_BYTES_PINNED) "%" PRIu64 ",\"pattern_bad_words\":%" PRIu64 "," MHL_PIN_KEY(MHL_PIN_K_PATTERN_OK) "%s"
		"," MHL_PIN_KEY(MHL_PIN_K_PAGES_MOVED_SINCE_PIN) "%" PRIu64 "," MHL_PIN_KEY(MHL_PIN_K_RELEASED) "%s%s," MHL_PIN_KEY(MHL_PIN_K_CENSUS),
		ok ? "true" : "false", h->mode->name, h->id, what, h->pins ? "true" : "false",
		released ? 0 : h->bytes_pinned, bad, bad ? "false" : "true", moved,
		released ? "true" : "false", io ? io : "");
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

/* Serve check/release until released or SIGTERM; never leaves the pins behind. */
static void holder_serve(struct holder *h, int lfd)
{
	bool released = false;

	while (!released && !stop_requested) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		char req[32] = "", *io;
		bool io_ok = true;
		FILE *f;
		int cfd;
		ssize_t n;

		if (poll(&p, 1, 500) <= 0)
			continue;
		cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (cfd < 0)
			continue;
		n = read(cfd, req, sizeof(req) - 1);
		req[n > 0 ? n : 0] = '\0';
		if (!(f = fdopen(cfd, "w"))) {
			close(cfd);
			continue;
		}
		released = !strncmp(req, "release", 7);
		if (!released && strncmp(req, "check", 5)) {
			fprintf(f, "{" MHL_PIN_KEY(MHL_PIN_K_OK) "false,\"id\":\"%s\",\"error\":\"unknown request\"}\n", h->id);
			fclose(f);
			continue;
		}
		/* I/O through the pins while they are held, also right before a release. */
		io = io_check(h, &io_ok);
		if (released) {
			double t0 = now_us();

			if (h->mode->unpin(h) < 0) {
				int err = errno;

				fprintf(f, "{" MHL_PIN_KEY(MHL_PIN_K_OK) "false," MHL_PIN_KEY(MHL_PIN_K_MODE) "\"%s\",\"id\":\"%s\",\"what\":\"release\"",
					h->mode->name, h->id);
				json_errno(f, err);
				fprintf(f, ",\"error\":\"unpin: %s\"}\n", strerror(err));
			} else {
				fprintf(stderr, "memhp-pin %s: unpinned in %.0f us\n", h->id,
					now_us() - t0);
				report_state(h, f, "release", true, io, io_ok);
			}
		} else {
			report_state(h, f, "check", false, io, io_ok);
		}
		free(io);
		fclose(f);
	}
	if (!released)
		h->mode->unpin(h);	/* SIGTERM */
}

/* The first "error":"..." value of a JSON line, for the one-line stderr message. */
static void say_error(const char *mode, const char *line)
{
	const char *e = strstr(line, "\"error\":\"");
	int len;

	if (!e)
		return;
	e += 9;
	len = (int)(strchrnul(e, '"') - e);
	fprintf(stderr, "memhp-pin %s: %.*s\n", mode, len, e);
}

static int relay(const struct holder *h, int rfd, pid_t pid)
{
	char line[16384];
	FILE *r = fdopen(rfd, "r");
	int ok, status;

	if (!r || !fgets(line, sizeof(line), r)) {
		waitpid(pid, &status, 0);
		snprintf(line, sizeof(line),
			 "{" MHL_PIN_KEY(MHL_PIN_K_OK) "false," MHL_PIN_KEY(MHL_PIN_K_MODE) "\"%s\",\"id\":\"%s\"," MHL_PIN_KEY(MHL_PIN_K_BYTES_PINNED) "0," MHL_PIN_KEY(MHL_PIN_K_SIGNAL) "\"%s%s\""
			 ",\"error\":\"holder exited without a result (%s %d%s)\"}\n",
			 h->mode->name, h->id, WIFSIGNALED(status) ? "SIG" : "",
			 WIFSIGNALED(status) ? sigabbrev_np(WTERMSIG(status)) : "",
			 WIFSIGNALED(status) ? "signal" : "status",
			 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
			 WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ?
			 ": SIGKILL, the OOM killer? see the console log" : "");
	}
	fputs(line, stdout);
	ok = !strncmp(line, MHL_PIN_OK_TRUE, sizeof(MHL_PIN_OK_TRUE) - 1);
	if (!ok) {
		say_error(h->mode->name, line);
		waitpid(pid, NULL, 0);
	}
	return ok ? 0 : 1;
}

static void holder_detach(const struct holder *h)
{
	char logpath[128];
	int nul = open("/dev/null", O_RDWR), log;

	setsid();
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	signal(SIGHUP, SIG_IGN);
	/*
	 * The holder outlives this command: it must not keep the caller's stdout
	 * or stderr open (qemu-ga waits for EOF on them before it reports the exit).
	 */
	/* init shields qemu-ga (and so us) from the OOM killer; a holder is fair game. */
	if ((log = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC)) >= 0) {
		if (write(log, "0", 1) != 1)
			fprintf(stderr, "memhp-pin %s: cannot reset oom_score_adj\n", h->id);
		close(log);
	}
	snprintf(logpath, sizeof(logpath), RUN_DIR "/%s.log", h->id);
	log = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	dup2(nul, 0);
	dup2(nul, 1);
	dup2(log >= 0 ? log : nul, 2);
}

/*
 * The guest's plain copy bandwidth, for the pin throughput to be read
 * against: memcpy of up to 64 MiB of the buffer into a buffer faulted first.
 */
static double memcpy_gib_s(const struct holder *h)
{
	uint64_t len = h->size < (64ULL << 20) ? h->size : 64ULL << 20;
	char *dst = malloc(len);
	double t0, us;

	if (!dst)
		return 0;
	memset(dst, 1, len);
	t0 = now_us();
	memcpy(dst, h->buf, len);
	__asm__ volatile("" : : "r"(dst) : "memory");	/* the copy is used: keep it */
	us = now_us() - t0;
	free(dst);
	return us > 0 ? len / (us / 1e6) / (1 << 30) : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * "scatter":{...}: the layout (block, buffer, pages kept, blocks skipped)
 * and, @after the pin's census, the physical blocks the kept pages are in
 * now (h->pfns): as many as pages when they stayed where they were placed.
 */
static void print_scatter(const struct holder *h, bool after)
{
	uint64_t n = h->size / 4096, per = h->scatter / 4096, i, blocks = 0;
	uint64_t *b = after ? malloc(n * sizeof(*b)) : NULL;

	printf(",\"scatter\":{\"block_bytes\":%" PRIu64 ",\"buffer_bytes\":%" PRIu64 ",\"pages\":%" PRIu64
	       ",\"blocks_skipped\":%" PRIu64, h->scatter, h->sc.buffer_bytes, h->sc.pages, h->sc.skipped);
	if (b) {
		for (i = 0; i < n; i++)
			b[i] = h->pfns[i] / per;
		qsort(b, n, sizeof(*b), cmp_u64);
		for (i = 0; i < n; i++)
			blocks += !i || b[i] != b[i - 1];
		printf(",\"blocks_after\":%" PRIu64, blocks);
		free(b);
	}
	putchar('}');
}

/* The head of a pin result; @after: the census after the pin is in h->pfns. */
static void print_head(const struct holder *h, bool ok, bool after)
{
	printf("{" MHL_PIN_KEY(MHL_PIN_K_OK) "%s," MHL_PIN_KEY(MHL_PIN_K_MODE) "\"%s\",\"id\":\"%s\",\"node\":%d,\"backing\":\"%s\""
	       ",\"touch\":\"%s\"," MHL_PIN_KEY(MHL_PIN_K_BYTES_ASKED) "%" PRIu64 "," MHL_PIN_KEY(MHL_PIN_K_BYTES_PINNED) "%" PRIu64
	       "," MHL_PIN_KEY(MHL_PIN_K_PINNED) "%s", ok ? "true" : "false", h->mode->name, h->id, h->node,
	       mhl_pin_backings[h->backing],
	       mhl_pin_touches[h->read_only ? MHL_PIN_TOUCH_READ : h->touch_by_pin ? MHL_PIN_TOUCH_PIN : MHL_PIN_TOUCH_BEFORE],
	       h->scatter && h->sc.buffer_bytes ? h->sc.buffer_bytes : h->size, h->bytes_pinned,
	       h->pins && h->bytes_pinned ? "true" : "false");
	if (h->scatter)
		print_scatter(h, after);
	if (h->split)
		printf(",\"split\":\"%s\",\"pmd_mapped_before_split\":%lld," MHL_PIN_KEY(MHL_PIN_K_PMD_MAPPED_AFTER_SPLIT) "%lld",
		       h->split, h->pmd_mapped_before_split, h->pmd_mapped_after_split);
}

/* Where the zero page is and which CMA areas the census knows (after the census). */
static void print_page_kinds(struct holder *h)
{
	enum census_zone zone;
	int node, i;

	if (h->cx.zero_pfn && census_block_of_pfn(&h->cx, h->cx.zero_pfn, &node, &zone) == 0)
		printf("," MHL_PIN_KEY(MHL_PIN_K_ZERO_PAGE) "{\"pfn\":%" PRIu64 ",\"node\":%d," MHL_PIN_KEY(MHL_PIN_K_ZONE) "\"%s\"}",
		       h->cx.zero_pfn, node, census_zone_names[zone]);
	fputs(",\"cma_areas\":[", stdout);
	for (i = 0; i < h->cx.ncma; i++)
		printf("%s{\"start_pfn\":%" PRIu64 ",\"pages\":%" PRIu64 "}", i ? "," : "",
		       h->cx.cma[i].start_pfn, h->cx.cma[i].nr_pages);
	putchar(']');
}

/* Usage errors: one line to stderr, one JSON object with "error", exit 2. */
static int usage_error(const char *mode, const char *msg, const char *arg)
{
	fprintf(stderr, "memhp-pin %s: %s%s%s\n", mode, msg, arg ? " " : "", arg ? arg : "");
	printf("{" MHL_PIN_KEY(MHL_PIN_K_OK) "false," MHL_PIN_KEY(MHL_PIN_K_MODE) "\"%s\",\"errno\":%d," MHL_PIN_KEY(MHL_PIN_K_ERRNO_NAME) "\"EINVAL\",\"error\":\"%s%s%s\"}\n",
	       mode, EINVAL, msg, arg ? " " : "", arg ? arg : "");
	return 2;
}

int lab_guest_only(const char *mode, const char *what)
{
	char line[4096], msg[512], *tok, *save = NULL;
	FILE *f = fopen("/proc/cmdline", "re");
	bool guest = false;

	if (f && fgets(line, sizeof(line), f))
		for (tok = strtok_r(line, " \n", &save); tok && !guest; tok = strtok_r(NULL, " \n", &save))
			guest = !strcmp(tok, "memhp_guest=1");
	if (f)
		fclose(f);
	if (guest)
		return 0;
	snprintf(msg, sizeof(msg), "runs only in a memhp-lab guest (no memhp_guest=1 on /proc/cmdline): it would configure this machine's kernel (%s)", what);
	return usage_error(mode, msg, NULL);
}

/*
 * The row of a name table (lib/mhl-pin.h) that option --@opt's @arg names,
 * into *@out: 0, or usage_error()'s exit code with the table's names.
 */
static int option_name(const char *mode, const char *opt, const void *rows, size_t n, size_t stride,
		       const char *arg, int *out)
{
	char known[160], msg[224];

	if ((*out = mhl_name_index_(rows, n, stride, arg)) >= 0)
		return 0;
	mhl_names_join_(known, sizeof(known), rows, n, stride, ", ");
	snprintf(msg, sizeof(msg), "unknown --%s (known: %s):", opt, known);
	return usage_error(mode, msg, arg);
}
#define OPTION_NAME(mode, opt, rows, arg, out) option_name((mode), (opt), MHL_ROWS(rows), (arg), (out))

/* The options of a holder into @h; 0, or usage_error()'s exit code. */
static int parse_options(struct holder *h, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "id", required_argument, NULL, 'i' },
		{ "size", required_argument, NULL, 's' },
		{ "node", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 'S' },
		{ "backing", required_argument, NULL, 'b' },
		{ "touch", required_argument, NULL, 't' },
		{ "device", required_argument, NULL, 'd' },
		{ "split", required_argument, NULL, 'x' },
		{ "scatter", required_argument, NULL, 'c' },
		{ 0 }
	};
	const char *mode = h->mode->name;
	int c, v, rc;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'i': h->id = optarg; break;
		case 's':
			if (mhl_size_parse(optarg, &h->size) < 0 || !h->size || h->size % 4096)
				return usage_error(mode, "invalid --size (a non-zero multiple of 4 KiB):", optarg);
			break;
		case 'n': h->node = atoi(optarg); break;
		case 'S': h->seed = strtoull(optarg, NULL, 0); break;
		case 'b':
			if ((rc = OPTION_NAME(mode, "backing", mhl_pin_backings, optarg, &v)))
				return rc;
			h->backing = v;
			break;
		case 't':
			if ((rc = OPTION_NAME(mode, "touch", mhl_pin_touches, optarg, &v)))
				return rc;
			h->touch_by_pin = v == MHL_PIN_TOUCH_PIN;
			h->read_only = v == MHL_PIN_TOUCH_READ;
			break;
		case 'd': h->device = optarg; break;
		case 'x':
			if ((rc = OPTION_NAME(mode, "split", mhl_pin_splits, optarg, &v)))
				return rc;
			h->split = optarg;
			break;
		case 'c':
			if (mhl_size_parse(optarg, &h->scatter) < 0 || h->scatter < 8192 ||
			    (h->scatter & (h->scatter - 1)))
				return usage_error(mode, "invalid --scatter (a block size: a power of two of at least 8 KiB):", optarg);
			break;
		default: return usage_error(mode, "unknown option", NULL);
		}
	}
	return 0;
}

/*
 * --scatter: the layout exists before the pin (anon, touched before), the
 * buffer is whole blocks, one VMA per kept page at most BUFFER_SCATTER_MAX,
 * and the mode pins a buffer of any layout (gup, io_uring) or holds it (hold:
 * the control). 0, or usage_error()'s exit code.
 */
static int check_scatter(const struct holder *h)
{
	const char *mode = h->mode->name;

	if (!h->scatter)
		return 0;
	if (h->mode != &gup_mode && h->mode != &uring_mode && h->mode != &hold_mode)
		return usage_error(mode, "--scatter is for the gup, io_uring and hold modes, not", mode);
	if (h->backing != MHL_PIN_BACKING_ANON || h->touch_by_pin || h->read_only || h->split)
		return usage_error(mode, "--scatter needs --backing anon and --touch before (the pages are placed before the pin), and no --split", NULL);
	if (h->size % h->scatter || h->size / h->scatter > BUFFER_SCATTER_MAX) {
		char msg[160];

		snprintf(msg, sizeof(msg), "--scatter %" PRIu64 " needs a --size of whole blocks, at most %d of them, not %" PRIu64 " bytes",
			 h->scatter, BUFFER_SCATTER_MAX, h->size);
		return usage_error(mode, msg, NULL);
	}
	return 0;
}

/*
 * The options that depend on each other or on the machine (after
 * parse_options(), @argv for the --node argument); 0, or usage_error()'s
 * exit code.
 */
static int check_options(const struct holder *h, char **argv)
{
	const char *mode = h->mode->name;
	long long total;
	int rc;

	if (!h->id || !h->size || strchr(h->id, '/') || strchr(h->id, '"'))
		return usage_error(mode, "--id NAME (no '/') and --size SIZE are required", NULL);
	if (h->read_only && h->mode != &gup_mode)
		return usage_error(mode, "--touch read (a read-only pin) is for gup only: this mode writes the buffer", NULL);
	if (h->split && (h->backing != MHL_PIN_BACKING_THP || h->touch_by_pin || h->read_only))
		return usage_error(mode, "--split needs --backing thp and --touch before (the THPs exist before the pin)", NULL);
	if (h->split && h->size % HUGE_2M)
		return usage_error(mode, "--split needs a --size that is a multiple of 2 MiB", NULL);
	if ((rc = check_scatter(h)))
		return rc;
	if (h->node >= 0 && (total = node_mem_total(h->node)) < 0)
		return usage_error(mode, "no such NUMA node: --node", argv[optind - 1]);
	if (h->node >= 0 && (long long)h->size > total) {
		char msg[160];

		snprintf(msg, sizeof(msg), "--size %" PRIu64 " does not fit node %d (MemTotal %lld bytes)",
			 h->size, h->node, total);
		return usage_error(mode, msg, NULL);
	}
	return 0;
}

/*
 * The buffer, its pattern, the census before, the pin (timed into @pin_us)
 * and the census after, which keeps each page's PFN in h->pfns. -1 with
 * errno set and h->fail_what naming the step that failed.
 */
static int holder_pin(struct holder *h, struct census *before, struct census *after,
		      double *pin_us)
{
	double t0;

	if (buffer_setup(h) < 0)
		return -1;
	if (!h->touch_by_pin)
		pattern_fill(h, 0, h->size);
	if (h->split && thp_split(h) < 0)
		return -1;
	h->fail_what = "scatter the buffer (pagemap, mremap)";
	if (h->scatter && buffer_scatter(&h->buf, &h->size, h->scatter, &h->sc) < 0)
		return -1;
	if (h->scatter)	/* the pattern of the pages kept, at their new offsets */
		pattern_fill(h, 0, h->size);
	h->fail_what = "census";
	if (census_init(&h->cx, "", "/proc/self/pagemap") < 0)
		return -1;
	h->cx.zero_pfn = zero_page_pfn(&h->cx);
	cma_from_log(&h->cx);
	h->pfns = calloc(h->size / h->cx.page_size, sizeof(*h->pfns));
	if (!h->pfns || census_take(&h->cx, h->buf, h->size, before, NULL) < 0)
		return -1;
	if (h->mode->prepare && h->mode->prepare(h) < 0)
		return -1;
	t0 = now_us();
	if (h->mode->pin(h) < 0)
		return -1;
	*pin_us = now_us() - t0;
	if (h->touch_by_pin)
		pattern_fill(h, 0, h->size);
	h->fail_what = "census";
	return census_take(&h->cx, h->buf, h->size, after, h->pfns);
}

/*
 * The listening socket for `memhp-pin ctl` at @sa; -1 with errno set (the
 * holder then exits, so nothing is closed here).
 */
static int holder_listen(struct holder *h, const struct sockaddr_un *sa)
{
	int lfd;

	h->fail_what = "listen on " RUN_DIR "/ID.sock";
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	unlink(sa->sun_path);
	if (lfd < 0 || bind(lfd, (const struct sockaddr *)sa, sizeof(*sa)) < 0 || listen(lfd, 4) < 0)
		return -1;
	return lfd;
}

/* The pin result on stdout: the one JSON line the caller gets on success. */
static void print_result(struct holder *h, double pin_us, const struct census *before,
			 const struct census *after)
{
	uint64_t bad = pattern_bad(h, 0, h->size);
	bool io_ok = true;
	char *io = io_check(h, &io_ok);

	print_head(h, !bad && io_ok, true);
	printf("," MHL_PIN_KEY(MHL_PIN_K_PIN_US) "%.0f,\"pin_gib_s\":%.3f,\"memcpy_gib_s\":%.3f,\"holder_pid\":%d"
	       ",\"pattern_bad_words\":%" PRIu64 "," MHL_PIN_KEY(MHL_PIN_K_PATTERN_OK) "%s",
	       pin_us, h->bytes_pinned ? h->bytes_pinned / (pin_us / 1e6) / (1 << 30) : 0.0,
	       memcpy_gib_s(h), getpid(), bad, bad ? "false" : "true");
	if (h->mode->json)
		h->mode->json(h, stdout);
	if (io)
		fputs(io, stdout);
	free(io);
	print_page_kinds(h);
	fputs("," MHL_PIN_KEY(MHL_PIN_K_CENSUS_BEFORE), stdout);
	census_print_json(stdout, before);
	fputs("," MHL_PIN_KEY(MHL_PIN_K_CENSUS_AFTER), stdout);
	census_print_json(stdout, after);
	fputs("}\n", stdout);
}

/*
 * A step of the holder failed (errno still set by it): the failure as the one
 * JSON line on stdout, the buffer and the hugetlb pages given back, exit 1.
 */
static void __attribute__((noreturn))
holder_fail(struct holder *h)
{
	int err = errno ? errno : EIO;

	h->bytes_pinned = 0;
	print_head(h, false, false);
	if (h->mode->json)
		h->mode->json(h, stdout);
	json_errno(stdout, err);
	printf(",\"failed_at\":\"%s\",\"error\":\"%s: %s\"}\n", h->fail_what ? h->fail_what : "?",
	       h->fail_what ? h->fail_what : "?", strerror(err));
	fclose(stdout);
	if (h->buf)
		munmap(h->buf, h->size);
	hugetlb_unreserve(h);
	_exit(1);
}

/*
 * The holder child: detach from the caller, pin, send the result down the
 * pipe @wfd, then serve `ctl` on @sa until release or SIGTERM. Never returns.
 */
static void __attribute__((noreturn))
holder_run(struct holder *h, const struct sockaddr_un *sa, int wfd)
{
	struct census before, after;
	double pin_us;
	int lfd;

	holder_detach(h);
	stdout = fdopen(wfd, "w");

	if (holder_pin(h, &before, &after, &pin_us) < 0)
		holder_fail(h);
	if ((lfd = holder_listen(h, sa)) < 0)
		holder_fail(h);
	print_result(h, pin_us, &before, &after);
	fclose(stdout);
	holder_serve(h, lfd);
	unlink(sa->sun_path);
	hugetlb_unreserve(h);
	/*
	 * A clean release leaves nothing behind: the log of every pin stayed,
	 * one tmpfs inode and dentry per soak cycle, a slab trend the soak's
	 * detector found (docs/soak.md). A holder that failed keeps its log.
	 */
	{
		char logpath[128];	/* as holder_detach() names it */

		snprintf(logpath, sizeof(logpath), RUN_DIR "/%s.log", h->id);
		unlink(logpath);
	}
	_exit(0);
}

int holder_main(const struct pin_mode *m, int argc, char **argv)
{
	struct holder h = { .mode = m, .node = -1, .seed = 0x6d656d6870ULL, .pins = true,
			    .pmd_mapped_before_split = -1, .pmd_mapped_after_split = -1 };
	struct sockaddr_un sa;
	int rc, pipefd[2];
	pid_t pid;

	if ((rc = parse_options(&h, argc, argv)) || (rc = check_options(&h, argv)) ||
	    (m->guest_only && (rc = lab_guest_only(m->name, "links, device bindings, modules or mounts"))) ||
	    /* hugetlb_reserve() writes the node's nr_hugepages: the host's pool, outside a guest */
	    (h.backing == MHL_PIN_BACKING_HUGETLB && (rc = lab_guest_only(m->name, "--backing hugetlb grows the node's hugetlb pool, nr_hugepages"))))
		return rc;
	mkdir(RUN_DIR, 0755);
	if (sock_path(h.id, &sa) < 0 || pipe2(pipefd, O_CLOEXEC) < 0) {
		perror("memhp-pin: setup");
		return 1;
	}
	fflush(stdout);
	if ((pid = fork()) < 0) {
		perror("memhp-pin: fork");
		return 1;
	}
	if (pid > 0) {
		close(pipefd[1]);
		return relay(&h, pipefd[0], pid);
	}
	close(pipefd[0]);
	holder_run(&h, &sa, pipefd[1]);
}

int holder_ctl(int argc, char **argv)
{
	struct sockaddr_un sa;
	char reply[32768];
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

		printf("{" MHL_PIN_KEY(MHL_PIN_K_OK) "false,\"id\":\"%s\",\"what\":\"%s\"", argv[1], argv[2]);
		json_errno(stdout, err);
		printf(",\"error\":\"no holder at %s: %s\"}\n", sa.sun_path, strerror(err));
		return 1;
	}
	if (write(fd, argv[2], strlen(argv[2])) < 0)
		return 1;
	shutdown(fd, SHUT_WR);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, timeout_ms) <= 0) {
			printf("{" MHL_PIN_KEY(MHL_PIN_K_OK) "false,\"id\":\"%s\",\"what\":\"%s\",\"error\":\"holder did not answer within %d s\"}\n",
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
		printf("{" MHL_PIN_KEY(MHL_PIN_K_OK) "false,\"id\":\"%s\",\"error\":\"holder closed without a reply\"}\n", argv[1]);
		return 1;
	}
	fputs(reply, stdout);
	return !strncmp(reply, MHL_PIN_OK_TRUE, sizeof(MHL_PIN_OK_TRUE) - 1) ? 0 : 1;
}
