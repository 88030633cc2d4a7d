// SPDX-License-Identifier: GPL-2.0
/*
 * rdma.c - memhp-pin rdma and rdma-odp: the buffer registered as an RDMA
 * memory region with soft-RoCE (rxe), the long-term pin the seed article
 * names first: ibv_reg_mr -> ib_uverbs reg_mr -> rxe_reg_user_mr ->
 * ib_umem_get -> pin_user_pages_fast(FOLL_WRITE | FOLL_LONGTERM), held as
 * long as the MR is registered.
 *
 * The guest has no NIC for it: rxe runs on a dummy netdev with an IPv4
 * address, and RC traffic to its own address is looped back inside rxe.
 * Both are set up here over netlink (rtnetlink for the link and address,
 * RDMA_NLDEV_CMD_NEWLINK for the rxe link): no iproute2 in the image. A
 * second holder in the same guest finds them there (EEXIST) and shares them.
 * The provider is linked statically (RDMA_STATIC_PROVIDERS below).
 *
 * The device, two RC queue pairs connected to each other and a scratch MR
 * are set up before the timed pin (prepare), so pin_us is ibv_reg_mr alone.
 *
 * I/O check (after the pin, at every check and right before the release):
 * chunks spread over the whole buffer are RDMA READ into the scratch MR and
 * compared with the buffer as the CPU sees it, zeroed through the CPU
 * mapping and RDMA WRITTEN back from the scratch MR: the pattern is only
 * whole again if the pages rxe holds are the pages the process maps, in
 * both directions.
 *
 * rdma-odp registers with IBV_ACCESS_ON_DEMAND: no pages are pinned (faults
 * and MMU notifiers instead), so it must not hold an unplug back. rxe has
 * on-demand paging only since 6.15: on 6.12 and 6.1 the device says so
 * (odp_caps) and the mode fails with EOPNOTSUPP, naming it.
 */
#define RDMA_STATIC_PROVIDERS rxe	/* verbs.h: register the static rxe provider */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <rdma/rdma_netlink.h>

#include "holder.h"

#define RDMA_NETDEV	"memhp-rdma0"
#define RDMA_DEVICE	"rxe0"
#define RDMA_ADDR	"10.77.0.1"	/* the guest's only use of IPv4 */
#define RDMA_PREFIX	24
#define RDMA_WAIT_S	10		/* device, port and GID after NEWLINK */
#define RDMA_CQ_WAIT_S	20		/* one batch of work requests */
#define RDMA_DEPTH	8
#define RDMA_CHUNKS	64
#define RDMA_CHUNK_MAX	(64 << 10)
#define MPOL_BIND_	2

struct rdma {
	bool odp;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp[2];	/* qp[0] requests, qp[1] responds */
	struct ibv_mr *mr, *scratch_mr;
	char *scratch;
	size_t scratch_size;
	int gid_index;
	union ibv_gid gid;
	enum ibv_mtu mtu;
	double setup_us;
	bool odp_capable;
};

static struct rdma rdma_state = { .gid_index = -1 };

/* ---- netlink: the dummy netdev, its address and the rxe link ---- */

struct nlreq {
	struct nlmsghdr nh;
	char buf[512];
};

static void nl_attr(struct nlreq *r, unsigned short type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)&r->nh + NLMSG_ALIGN(r->nh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = (unsigned short)(NLA_HDRLEN + len);
	if (len)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void nl_attr_str(struct nlreq *r, unsigned short type, const char *s)
{
	nl_attr(r, type, s, strlen(s) + 1);
}

/*
 * Send @r on a new socket of @proto and wait for its ACK; 0, or -1 with
 * errno the kernel's answer (EEXIST for what is already there).
 */
static int nl_call(int proto, struct nlreq *r)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char reply[4096];
	struct nlmsghdr *nh = (struct nlmsghdr *)reply;
	struct timeval tv = { .tv_sec = 5 };
	ssize_t n;
	int fd, err = 0;

	r->nh.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	r->nh.nlmsg_seq = 1;
	if ((fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto)) < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (sendto(fd, r, r->nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    (n = recv(fd, reply, sizeof(reply), 0)) < 0) {
		err = errno;
	} else if (!NLMSG_OK(nh, (size_t)n) || nh->nlmsg_type != NLMSG_ERROR) {
		err = EPROTO;
	} else {
		err = -((struct nlmsgerr *)NLMSG_DATA(nh))->error;
	}
	close(fd);
	errno = err;
	return err ? -1 : 0;
}

/* rtnetlink request @type with @payload (ifinfomsg or ifaddrmsg) in front. */
static void rt_init(struct nlreq *r, unsigned short type, unsigned short flags,
		    const void *payload, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->nh.nlmsg_type = type;
	r->nh.nlmsg_flags = flags;
	r->nh.nlmsg_len = NLMSG_LENGTH(len);
	memcpy(NLMSG_DATA(&r->nh), payload, len);
}

static int link_add_dummy(const char *name)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nlreq r;
	struct nlattr *info;
	unsigned short start;

	rt_init(&r, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, &ifi, sizeof(ifi));
	nl_attr_str(&r, IFLA_IFNAME, name);
	/* IFLA_LINKINFO { IFLA_INFO_KIND "dummy" }, nested */
	start = (unsigned short)NLMSG_ALIGN(r.nh.nlmsg_len);
	nl_attr(&r, IFLA_LINKINFO | NLA_F_NESTED, NULL, 0);
	nl_attr_str(&r, IFLA_INFO_KIND, "dummy");
	info = (struct nlattr *)((char *)&r.nh + start);
	info->nla_len = (unsigned short)(r.nh.nlmsg_len - start);
	return nl_call(NETLINK_ROUTE, &r) < 0 && errno != EEXIST ? -1 : 0;
}

static int link_up(const char *name)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_flags = IFF_UP, .ifi_change = IFF_UP };
	struct nlreq r;

	if (!(ifi.ifi_index = (int)if_nametoindex(name)))
		return -1;
	rt_init(&r, RTM_NEWLINK, 0, &ifi, sizeof(ifi));
	return nl_call(NETLINK_ROUTE, &r);
}

static int addr_add(const char *name, const char *addr, int prefix)
{
	struct ifaddrmsg ifa = { .ifa_family = AF_INET, .ifa_prefixlen = (unsigned char)prefix };
	struct in_addr in;
	struct nlreq r;

	if (!(ifa.ifa_index = if_nametoindex(name)))
		return -1;
	inet_pton(AF_INET, addr, &in);
	rt_init(&r, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, &ifa, sizeof(ifa));
	nl_attr(&r, IFA_LOCAL, &in, sizeof(in));
	nl_attr(&r, IFA_ADDRESS, &in, sizeof(in));
	return nl_call(NETLINK_ROUTE, &r) < 0 && errno != EEXIST ? -1 : 0;
}

/* `rdma link add RDMA_DEVICE type rxe netdev NETDEV`, as iproute2's rdma does it. */
static int rxe_link_add(const char *dev, const char *netdev)
{
	struct nlreq r;

	memset(&r, 0, sizeof(r));
	r.nh.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_NEWLINK);
	r.nh.nlmsg_len = NLMSG_LENGTH(0);
	nl_attr_str(&r, RDMA_NLDEV_ATTR_DEV_NAME, dev);
	nl_attr_str(&r, RDMA_NLDEV_ATTR_LINK_TYPE, "rxe");
	nl_attr_str(&r, RDMA_NLDEV_ATTR_NDEV_NAME, netdev);
	return nl_call(NETLINK_RDMA, &r) < 0 && errno != EEXIST ? -1 : 0;
}

/* The netdev (up, with its address), loopback up (local routes), the rxe link. */
static int rxe_bring_up(struct holder *h)
{
	h->fail_what = "create the dummy netdev " RDMA_NETDEV " (RTM_NEWLINK, CONFIG_DUMMY)";
	if (link_add_dummy(RDMA_NETDEV) < 0)
		return -1;
	h->fail_what = "set " RDMA_NETDEV " and lo up (RTM_NEWLINK IFF_UP)";
	if (link_up(RDMA_NETDEV) < 0 || link_up("lo") < 0)
		return -1;
	h->fail_what = "add " RDMA_ADDR " to " RDMA_NETDEV " (RTM_NEWADDR)";
	if (addr_add(RDMA_NETDEV, RDMA_ADDR, RDMA_PREFIX) < 0)
		return -1;
	h->fail_what = "add the rxe link " RDMA_DEVICE " on " RDMA_NETDEV " (RDMA_NLDEV_CMD_NEWLINK, CONFIG_RDMA_RXE)";
	return rxe_link_add(RDMA_DEVICE, RDMA_NETDEV);
}

/* ---- verbs ---- */

static double elapsed_s(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Open RDMA_DEVICE; NULL with errno set (ENODEV: libibverbs does not list it). */
static struct ibv_context *open_device(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n = 0;

	if (!(list = ibv_get_device_list(&n)))
		return NULL;
	for (i = 0; i < n && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), RDMA_DEVICE) && !(ctx = ibv_open_device(list[i])))
			break;
	if (!ctx && i >= n)
		errno = ENODEV;
	ibv_free_device_list(list);
	return ctx;
}

/* The RoCE v2 GID of RDMA_ADDR (::ffff:a.b.c.d); -1 while it is not there yet. */
static int find_gid(struct rdma *d)
{
	struct ibv_port_attr pa;
	struct in_addr in;
	int i;

	if (ibv_query_port(d->ctx, 1, &pa) || pa.state != IBV_PORT_ACTIVE)
		return -1;
	inet_pton(AF_INET, RDMA_ADDR, &in);
	d->mtu = pa.active_mtu;
	for (i = 0; i < pa.gid_tbl_len; i++) {
		struct ibv_gid_entry e;

		if (ibv_query_gid_ex(d->ctx, 1, (uint32_t)i, &e, 0) || e.gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		if (!memcmp(e.gid.raw + 12, &in, 4) && e.gid.raw[10] == 0xff && e.gid.raw[11] == 0xff) {
			d->gid = e.gid;
			return d->gid_index = i;
		}
	}
	return -1;
}

/*
 * The device and its GID appear shortly after NEWLINK (the GID table is
 * filled from a work queue): wait for both, with a deadline.
 */
static int wait_device(struct holder *h, struct rdma *d)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	h->fail_what = "open " RDMA_DEVICE " with libibverbs (/dev/infiniband/uverbs*)";
	while (!(d->ctx = open_device())) {
		if (elapsed_s(&t0) > RDMA_WAIT_S)
			return -1;
		usleep(20000);
	}
	h->fail_what = "wait for port 1 ACTIVE with the RoCE v2 GID of " RDMA_ADDR;
	while (find_gid(d) < 0) {
		if (elapsed_s(&t0) > RDMA_WAIT_S) {
			errno = ETIMEDOUT;
			return -1;
		}
		usleep(20000);
	}
	return 0;
}

/* ibv_modify_qp returns the errno; keep it in errno like the other calls. */
static int qp_modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	int rc = ibv_modify_qp(qp, a, mask);

	errno = rc;
	return rc ? -1 : 0;
}

/* RESET -> INIT -> RTR -> RTS, connected to @dest_qpn at our own GID. */
static int qp_connect(struct rdma *d, struct ibv_qp *qp, uint32_t dest_qpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};

	if (qp_modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = d->mtu;
	a.dest_qp_num = dest_qpn;
	a.max_dest_rd_atomic = RDMA_DEPTH;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = d->gid;
	a.ah_attr.grh.sgid_index = (uint8_t)d->gid_index;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (qp_modify(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		      IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = RDMA_DEPTH;
	return qp_modify(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			 IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* Two RC QPs on one CQ, connected to each other over the loopback. */
static int qps_create(struct holder *h, struct rdma *d)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = RDMA_DEPTH, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int i;

	h->fail_what = "ibv_alloc_pd";
	if (!(d->pd = ibv_alloc_pd(d->ctx)))
		return -1;
	h->fail_what = "ibv_create_cq";
	if (!(d->cq = ibv_create_cq(d->ctx, 2 * RDMA_DEPTH, NULL, NULL, 0)))
		return -1;
	qa.send_cq = qa.recv_cq = d->cq;
	h->fail_what = "ibv_create_qp (RC)";
	for (i = 0; i < 2; i++)
		if (!(d->qp[i] = ibv_create_qp(d->pd, &qa)))
			return -1;
	h->fail_what = "ibv_modify_qp to RTS (loopback RC to our own GID)";
	if (qp_connect(d, d->qp[0], d->qp[1]->qp_num) < 0 || qp_connect(d, d->qp[1], d->qp[0]->qp_num) < 0)
		return -1;
	return 0;
}

/*
 * The local side of the I/O check, kept off the buffer's node so that it
 * never stands in the way of that node's unplug: it is pinned too.
 */
static int scratch_setup(struct holder *h, struct rdma *d)
{
	unsigned long mask = 1;	/* node 0 */

	d->scratch_size = RDMA_CHUNKS * RDMA_CHUNK_MAX;
	h->fail_what = "mmap the scratch buffer";
	d->scratch = mmap(NULL, d->scratch_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (d->scratch == MAP_FAILED) {
		d->scratch = NULL;
		return -1;
	}
	if (h->node != 0)
		syscall(SYS_mbind, d->scratch, d->scratch_size, MPOL_BIND_, &mask, 64UL, 0U);
	memset(d->scratch, 0, d->scratch_size);
	h->fail_what = "ibv_reg_mr of the scratch buffer";
	d->scratch_mr = ibv_reg_mr(d->pd, d->scratch, d->scratch_size, IBV_ACCESS_LOCAL_WRITE);
	return d->scratch_mr ? 0 : -1;
}

static int odp_check(struct holder *h, struct rdma *d)
{
	struct ibv_device_attr_ex ax;
	uint32_t need = IBV_ODP_SUPPORT_READ | IBV_ODP_SUPPORT_WRITE;
	int rc;

	h->fail_what = "ibv_query_device_ex";
	if ((rc = ibv_query_device_ex(d->ctx, NULL, &ax))) {
		errno = rc;
		return -1;
	}
	d->odp_capable = (ax.odp_caps.general_caps & IBV_ODP_SUPPORT) &&
			 (ax.odp_caps.per_transport_caps.rc_odp_caps & need) == need;
	h->fail_what = "on-demand paging: " RDMA_DEVICE " has no IBV_ODP_SUPPORT for RC READ and WRITE (rxe has ODP since 6.15)";
	if (!d->odp_capable) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return 0;
}

/* Everything but the registration of the buffer, so that pin_us is that alone. */
static int rdma_prepare(struct holder *h, bool odp)
{
	struct rdma *d = &rdma_state;
	double t0 = now_us();

	h->priv = d;
	d->odp = odp;
	h->pins = !odp;
	if (rxe_bring_up(h) < 0 || wait_device(h, d) < 0)
		return -1;
	if (odp && odp_check(h, d) < 0)
		return -1;
	if (qps_create(h, d) < 0 || scratch_setup(h, d) < 0)
		return -1;
	d->setup_us = now_us() - t0;
	return 0;
}

static int rdma_prepare_pinned(struct holder *h)
{
	return rdma_prepare(h, false);
}

static int rdma_prepare_odp(struct holder *h)
{
	return rdma_prepare(h, true);
}

static int rdma_pin(struct holder *h)
{
	struct rdma *d = h->priv;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

	h->fail_what = d->odp ? "ibv_reg_mr (IBV_ACCESS_ON_DEMAND)" : "ibv_reg_mr";
	if (!(d->mr = ibv_reg_mr(d->pd, h->buf, h->size, access | (d->odp ? IBV_ACCESS_ON_DEMAND : 0))))
		return -1;
	h->bytes_pinned = d->odp ? 0 : h->size;
	return 0;
}

/*
 * RDMA READ (@write false: buffer -> scratch) or WRITE (scratch -> buffer)
 * of @n chunks, RDMA_DEPTH at a time; the failed ones are counted, a CQ
 * that does not answer in time counts the rest and sets *err.
 */
static int rdma_rw(struct rdma *d, struct holder *h, bool write, uint64_t n, uint64_t chunk, int *err)
{
	uint64_t i, j;
	int bad = 0;

	for (i = 0; i < n; i += RDMA_DEPTH) {
		uint64_t batch = n - i < RDMA_DEPTH ? n - i : RDMA_DEPTH, got = 0;
		struct timespec t0;

		for (j = i; j < i + batch; j++) {
			uint64_t off = (j * (h->size / n)) & ~(chunk - 1);
			struct ibv_sge sge = {
				.addr = (uintptr_t)(d->scratch + j * chunk), .length = (uint32_t)chunk,
				.lkey = d->scratch_mr->lkey,
			};
			struct ibv_send_wr wr = {
				.wr_id = j, .sg_list = &sge, .num_sge = 1, .send_flags = IBV_SEND_SIGNALED,
				.opcode = write ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ,
				.wr.rdma = { .remote_addr = (uintptr_t)(h->buf + off), .rkey = d->mr->rkey },
			}, *badwr;
			int rc = ibv_post_send(d->qp[0], &wr, &badwr);

			if (rc) {
				*err = rc;
				return bad + (int)(n - j);
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		while (got < batch) {
			struct ibv_wc wc[RDMA_DEPTH];
			int k, m = ibv_poll_cq(d->cq, RDMA_DEPTH, wc);

			if (m < 0 || (!m && elapsed_s(&t0) > RDMA_CQ_WAIT_S)) {
				*err = m < 0 ? EIO : ETIMEDOUT;
				return bad + (int)(n - i - got);
			}
			for (k = 0; k < m; k++)
				if (wc[k].status != IBV_WC_SUCCESS) {
					bad++;
					*err = EIO;
					fprintf(stderr, "memhp-pin rdma: %s of chunk %" PRIu64 ": %s\n",
						write ? "RDMA WRITE" : "RDMA READ", wc[k].wr_id,
						ibv_wc_status_str(wc[k].status));
				}
			got += (uint64_t)m;
		}
	}
	return bad;
}

static double gib_s(uint64_t bytes, double us)
{
	return us > 0 ? bytes / (us / 1e6) / (1 << 30) : 0.0;
}

static int rdma_io(struct holder *h, FILE *f)
{
	struct rdma *d = h->priv;
	uint64_t n = h->size / 4096 < RDMA_CHUNKS ? h->size / 4096 : RDMA_CHUNKS;
	uint64_t chunk = RDMA_CHUNK_MAX, i;
	int err = 0, rbad, wbad = 0, cmp_bad = 0, pat_bad = 0;
	double t0 = now_us(), read_us, write_us = 0;

	if (!d || !d->mr)
		return -1;
	while (chunk > 4096 && chunk > h->size / n)
		chunk /= 2;
	rbad = rdma_rw(d, h, false, n, chunk, &err);
	read_us = now_us() - t0;
	for (i = 0; i < n; i++) {
		uint64_t off = (i * (h->size / n)) & ~(chunk - 1);

		cmp_bad += memcmp(d->scratch + i * chunk, h->buf + off, chunk) != 0;
	}
	/* Only what READ brought back intact is zeroed and written back. */
	if (!rbad && !cmp_bad) {
		for (i = 0; i < n; i++)
			memset(h->buf + ((i * (h->size / n)) & ~(chunk - 1)), 0, chunk);
		t0 = now_us();
		wbad = rdma_rw(d, h, true, n, chunk, &err);
		write_us = now_us() - t0;
		for (i = 0; i < n; i++)
			pat_bad += pattern_bad(h, (i * (h->size / n)) & ~(chunk - 1), chunk) != 0;
	}
	fprintf(f, ",\"io\":{\"chunks\":%" PRIu64 ",\"chunk_bytes\":%" PRIu64
		",\"rdma_read_failed\":%d,\"read_mismatch\":%d,\"rdma_write_failed\":%d"
		",\"pattern_bad_chunks\":%d,\"read_us\":%.0f,\"write_us\":%.0f"
		",\"read_gib_s\":%.3f,\"write_gib_s\":%.3f,\"ok\":%s",
		n, chunk, rbad, cmp_bad, wbad, pat_bad, read_us, write_us,
		gib_s(n * chunk, read_us), gib_s(n * chunk, write_us),
		rbad || cmp_bad || wbad || pat_bad ? "false" : "true");
	if (err)
		json_errno(f, err);
	fputs("}", f);
	return rbad || cmp_bad || wbad || pat_bad ? -1 : 0;
}

static void rdma_json(struct holder *h, FILE *f)
{
	struct rdma *d = &rdma_state;
	char gid[INET6_ADDRSTRLEN] = "";

	(void)h;
	if (d->gid_index >= 0)
		inet_ntop(AF_INET6, d->gid.raw, gid, sizeof(gid));
	fprintf(f, ",\"rdma\":{\"device\":\"%s\",\"provider\":\"rxe\",\"netdev\":\"%s\",\"address\":\"%s\""
		",\"gid\":\"%s\",\"gid_index\":%d,\"mtu\":%d,\"odp\":%s,\"odp_capable\":%s"
		",\"registered\":%s,\"mr_bytes\":%" PRIu64 ",\"lkey\":%u,\"rkey\":%u"
		",\"scratch_bytes\":%zu,\"setup_us\":%.0f}",
		RDMA_DEVICE, RDMA_NETDEV, RDMA_ADDR, gid, d->gid_index, d->mtu ? 128 << d->mtu : 0,
		d->odp ? "true" : "false", d->odp_capable ? "true" : "false", d->mr ? "true" : "false",
		d->mr ? (uint64_t)d->mr->length : 0, d->mr ? d->mr->lkey : 0, d->mr ? d->mr->rkey : 0,
		d->scratch_size, d->setup_us);
}

/* Deregister (the unpin), then the rest; the rxe link and netdev stay for others. */
static int rdma_unpin(struct holder *h)
{
	struct rdma *d = &rdma_state;
	int rc = 0, i;

	if (d->mr && (rc = ibv_dereg_mr(d->mr)))
		errno = rc;
	d->mr = NULL;
	h->bytes_pinned = 0;
	if (d->scratch_mr)
		ibv_dereg_mr(d->scratch_mr);
	d->scratch_mr = NULL;
	for (i = 0; i < 2; i++)
		if (d->qp[i])
			ibv_destroy_qp(d->qp[i]);
	d->qp[0] = d->qp[1] = NULL;
	if (d->cq)
		ibv_destroy_cq(d->cq);
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->ctx)
		ibv_close_device(d->ctx);	/* closing drops every registration in any case */
	d->cq = NULL;
	d->pd = NULL;
	d->ctx = NULL;
	if (d->scratch)
		munmap(d->scratch, d->scratch_size);
	d->scratch = NULL;
	return rc ? -1 : 0;
}

const struct pin_mode rdma_mode = {
	.name = "rdma",
	.guest_only = true,
	.prepare = rdma_prepare_pinned,
	.pin = rdma_pin,
	.io = rdma_io,
	.json = rdma_json,
	.unpin = rdma_unpin,
};

const struct pin_mode rdma_odp_mode = {
	.name = "rdma-odp",
	.guest_only = true,
	.prepare = rdma_prepare_odp,
	.pin = rdma_pin,
	.io = rdma_io,
	.json = rdma_json,
	.unpin = rdma_unpin,
};
