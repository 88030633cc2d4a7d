// SPDX-License-Identifier: GPL-2.0
/*
 * uring.c - memhp-pin io_uring: the buffer registered as io_uring fixed
 * buffers (IORING_REGISTER_BUFFERS: io_sqe_buffers_register ->
 * pin_user_pages(FOLL_WRITE | FOLL_LONGTERM)), held as long as the ring is
 * open. The buffer is split into buffers of at most 1 GiB (the kernel's
 * limit per iovec), at most 16384 of them (IORING_MAX_REG_BUFFERS).
 *
 * I/O check (after the pin, at every check and right before the release):
 * chunks spread over the whole buffer are written with IORING_OP_WRITE_FIXED
 * to a file in the guest (tmpfs), compared with the buffer, zeroed through
 * the CPU mapping and read back with IORING_OP_READ_FIXED: the pattern is
 * only whole again if the kernel's pinned pages are the ones the process
 * maps, in both directions.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "holder.h"

#define URING_BUF_MAX	(1ULL << 30)	/* bytes per registered buffer */
#define URING_BUFS_MAX	16384		/* IORING_MAX_REG_BUFFERS */
#define URING_DEPTH	8
#define URING_CHUNKS	64
#define URING_CHUNK_MAX	(64 << 10)

struct uring {
	struct io_uring ring;
	bool ring_up, registered;
	unsigned int nbufs;
	struct iovec *iov;
	int fd;
	char path[96];
	struct rlimit memlock;
};

static struct uring uring_state = { .fd = -1 };

/* Queue one fixed read/write per chunk, URING_DEPTH at a time; count the short or failed ones. */
static int uring_rw(struct uring *u, struct holder *h, bool write, uint64_t n, uint64_t chunk,
		    int *err)
{
	uint64_t i, done = 0;
	int bad = 0;

	for (i = 0; i < n; i += URING_DEPTH) {
		uint64_t j, batch = n - i < URING_DEPTH ? n - i : URING_DEPTH;
		struct io_uring_cqe *cqe;

		for (j = i; j < i + batch; j++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
			uint64_t off = (j * (h->size / n)) & ~(chunk - 1);
			int idx = (int)(off / URING_BUF_MAX);

			if (write)
				io_uring_prep_write_fixed(sqe, u->fd, h->buf + off, chunk, j * chunk, idx);
			else
				io_uring_prep_read_fixed(sqe, u->fd, h->buf + off, chunk, j * chunk, idx);
		}
		io_uring_submit(&u->ring);
		for (j = 0; j < batch; j++) {
			int rc = io_uring_wait_cqe(&u->ring, &cqe);

			if (rc < 0) {
				*err = -rc;
				return (int)(n - done);
			}
			if (cqe->res != (int)chunk) {
				bad++;
				if (cqe->res < 0)
					*err = -cqe->res;
			}
			io_uring_cqe_seen(&u->ring, cqe);
			done++;
		}
	}
	return bad;
}

static int uring_io(struct holder *h, FILE *f)
{
	struct uring *u = h->priv;
	uint64_t n = h->size / 4096 < URING_CHUNKS ? h->size / 4096 : URING_CHUNKS;
	uint64_t chunk = URING_CHUNK_MAX, i;
	int err = 0, wbad, rbad, cmp_bad = 0, pat_bad = 0;
	char *tmp;
	double t0 = now_us();

	while (chunk > 4096 && chunk > h->size / n)
		chunk /= 2;
	if (!(tmp = malloc(chunk)))
		return -1;
	wbad = uring_rw(u, h, true, n, chunk, &err);
	for (i = 0; i < n; i++) {
		uint64_t off = (i * (h->size / n)) & ~(chunk - 1);

		if (pread(u->fd, tmp, chunk, (off_t)(i * chunk)) != (ssize_t)chunk ||
		    memcmp(tmp, h->buf + off, chunk))
			cmp_bad++;
		memset(h->buf + off, 0, chunk);
	}
	rbad = uring_rw(u, h, false, n, chunk, &err);
	for (i = 0; i < n; i++) {
		uint64_t off = (i * (h->size / n)) & ~(chunk - 1);

		pat_bad += pattern_bad(h, off, chunk) != 0;
	}
	free(tmp);
	fprintf(f, ",\"io\":{\"path\":\"%s\",\"chunks\":%" PRIu64 ",\"chunk_bytes\":%" PRIu64
		",\"write_fixed_failed\":%d,\"file_mismatch\":%d,\"read_fixed_failed\":%d"
		",\"pattern_bad_chunks\":%d,\"io_us\":%.0f,\"ok\":%s",
		u->path, n, chunk, wbad, cmp_bad, rbad, pat_bad, now_us() - t0,
		wbad || cmp_bad || rbad || pat_bad ? "false" : "true");
	if (err)
		json_errno(f, err);
	fputs("}", f);
	return wbad || cmp_bad || rbad || pat_bad ? -1 : 0;
}

static int uring_pin(struct holder *h)
{
	struct uring *u = &uring_state;
	unsigned int i;
	int rc;

	h->priv = u;
	getrlimit(RLIMIT_MEMLOCK, &u->memlock);
	u->nbufs = (unsigned int)((h->size + URING_BUF_MAX - 1) / URING_BUF_MAX);
	h->fail_what = "split into at most 16384 buffers of 1 GiB";
	if (h->size > URING_BUFS_MAX * URING_BUF_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (!(u->iov = calloc(u->nbufs, sizeof(*u->iov))))
		return -1;
	for (i = 0; i < u->nbufs; i++) {
		uint64_t off = (uint64_t)i * URING_BUF_MAX;

		u->iov[i].iov_base = h->buf + off;
		u->iov[i].iov_len = h->size - off < URING_BUF_MAX ? h->size - off : URING_BUF_MAX;
	}
	h->fail_what = "io_uring_setup";
	if ((rc = io_uring_queue_init(URING_DEPTH, &u->ring, 0)) < 0) {
		errno = -rc;
		return -1;
	}
	u->ring_up = true;
	h->fail_what = "IORING_REGISTER_BUFFERS";
	if ((rc = io_uring_register_buffers(&u->ring, u->iov, u->nbufs)) < 0) {
		io_uring_queue_exit(&u->ring);
		u->ring_up = false;
		errno = -rc;
		return -1;
	}
	u->registered = true;
	h->bytes_pinned = h->size;
	snprintf(u->path, sizeof(u->path), "/tmp/memhp-%s.io", h->id);
	h->fail_what = "open the I/O file";
	/*
	 * A fixed name in /tmp: whatever is there (a file a killed holder left,
	 * a link another user planted) is removed, never written through, and
	 * the file is created new (O_EXCL: a link planted again in between
	 * fails the pin instead).
	 */
	if (unlink(u->path) < 0 && errno != ENOENT)
		return -1;
	u->fd = open(u->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	return u->fd < 0 ? -1 : 0;
}

static void uring_json(struct holder *h, FILE *f)
{
	struct uring *u = &uring_state;

	(void)h;
	fprintf(f, ",\"io_uring\":{\"buffers\":%u,\"buffer_bytes_max\":%llu,\"registered\":%s"
		",\"rlimit_memlock_cur\":%lld,\"rlimit_memlock_max\":%lld}",
		u->nbufs, URING_BUF_MAX, u->registered ? "true" : "false",
		u->memlock.rlim_cur == RLIM_INFINITY ? -1LL : (long long)u->memlock.rlim_cur,
		u->memlock.rlim_max == RLIM_INFINITY ? -1LL : (long long)u->memlock.rlim_max);
}

static int uring_unpin(struct holder *h)
{
	struct uring *u = &uring_state;
	int rc = 0;

	if (u->registered && (rc = io_uring_unregister_buffers(&u->ring)) < 0)
		errno = -rc;
	u->registered = false;
	if (u->ring_up)
		io_uring_queue_exit(&u->ring);	/* closing the ring drops the pins in any case */
	u->ring_up = false;
	if (u->fd >= 0) {
		close(u->fd);
		unlink(u->path);
		u->fd = -1;
	}
	h->bytes_pinned = 0;
	return rc < 0 ? -1 : 0;
}

const struct pin_mode uring_mode = {
	.name = "io_uring",
	.pin = uring_pin,
	.io = uring_io,
	.json = uring_json,
	.unpin = uring_unpin,
};
