// SPDX-License-Identifier: GPL-2.0
/*
 * vfio.c - memhp-pin vfio and vfio-noiommu, with QEMU's edu PCI device.
 *
 * vfio (type1): bind edu to vfio-pci (driver_override + drivers_probe), open
 * its IOMMU group and a container, VFIO_TYPE1v2_IOMMU, and VFIO_IOMMU_MAP_DMA
 * the buffer at IOVA 1 MiB: vfio_pin_pages_remote -> pin_user_pages_remote
 * (FOLL_LONGTERM). The I/O check programs edu's DMA engine: a page of the
 * buffer is copied into the device (RAM -> edu at its IOVA), zeroed through
 * the CPU mapping, and copied back (edu -> RAM): the page holds its pattern
 * again only if the IOMMU still points at the pages the process maps.
 *
 * vfio-noiommu (negative control, an UNPROTECTED setup): with
 * vfio.enable_unsafe_noiommu_mode there is no IOMMU, no MAP_DMA and nothing
 * is pinned; a driver hands the device physical addresses (from pagemap).
 * The I/O check has the device read the recorded physical address of a page
 * into its buffer and write that into a scratch page: after an unplug has
 * migrated the buffer, the device reads whatever now lives there.
 *
 * edu (docs/specs/edu.rst in QEMU): BAR0 0x80 DMA source, 0x88 destination,
 * 0x90 count, 0x98 command (bit 0 start, bit 1 direction: 1 = edu buffer to
 * RAM); the edu buffer is at 0x40000, 4096 bytes (2048 per transfer here). BAR0 is mmapped so 64-bit
 * addresses go in one store. The orchestrator gives edu a 64-bit DMA mask;
 * the IOVAs stay below 256 MiB anyway, where edu's default 28-bit mask reaches.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/pci_regs.h>
#include <linux/vfio.h>

#include "holder.h"

#define PCI_DEVICES	"/sys/bus/pci/devices"
#define NOIOMMU_PARAM	"/sys/module/vfio/parameters/enable_unsafe_noiommu_mode"
#define EDU_VENDOR	0x1234
#define EDU_DEVICE	0x11e8
#define EDU_DMA_SRC	0x80
#define EDU_DMA_DST	0x88
#define EDU_DMA_CNT	0x90
#define EDU_DMA_CMD	0x98
#define EDU_DMA_RUN	0x1
#define EDU_DMA_TO_RAM	0x2
#define EDU_BUF		0x40000
#define EDU_BUF_SIZE	4096
/*
 * Bytes per transfer: QEMU 7.2's edu refuses (hw_error, QEMU exits) a
 * transfer that ends exactly at the end of its buffer, so half a page.
 */
#define EDU_XFER	2048
#define EDU_DMA_REACH	(256ULL << 20)	/* edu's default 28-bit DMA mask */
#define VFIO_IOVA	(1ULL << 20)
#define DMA_PAGES	4
#define DMA_TIMEOUT_MS	5000

struct vfio {
	bool noiommu;
	char bdf[32];
	char group[32];
	int container, groupfd, device;
	uint64_t cfg_off;
	volatile uint8_t *bar0;
	size_t bar0_size;
	bool mapped;
	char *scratch;			/* noiommu: where the device writes what it read */
	uint64_t scratch_phys;
};

static struct vfio vfio_state = { .container = -1, .groupfd = -1, .device = -1 };

/* Copy a name that must fit; -1 + ENAMETOOLONG when it does not. */
static int name_copy(char *out, size_t len, const char *src)
{
	size_t l = strlen(src);

	if (l >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(out, src, l + 1);
	return 0;
}

static int sysfs_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc;
	ssize_t len = (ssize_t)strlen(val);

	if (fd < 0)
		return -1;
	rc = write(fd, val, len) == len ? 0 : -1;
	close(fd);
	return rc;
}

static unsigned long sysfs_hex(const char *dir, const char *name)
{
	char path[320], buf[32] = "";
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? strtoul(buf, NULL, 16) : 0;
}

/* The first edu device (1234:11e8), or the one given with --device. */
static int find_edu(struct holder *h, struct vfio *v)
{
	DIR *d;
	struct dirent *e;

	if (h->device) {
		return name_copy(v->bdf, sizeof(v->bdf), h->device);
	}
	if (!(d = opendir(PCI_DEVICES)))
		return -1;
	while ((e = readdir(d))) {
		char dir[300];

		if (e->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), PCI_DEVICES "/%s", e->d_name);
		if (sysfs_hex(dir, "vendor") == EDU_VENDOR && sysfs_hex(dir, "device") == EDU_DEVICE) {
			int rc = name_copy(v->bdf, sizeof(v->bdf), e->d_name);

			closedir(d);
			return rc;
		}
	}
	closedir(d);
	errno = ENODEV;
	return -1;
}

static int link_name(const char *bdf, const char *link, char *out, size_t len)
{
	char path[160], target[256];
	ssize_t n;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/%s", bdf, link);
	if ((n = readlink(path, target, sizeof(target) - 1)) < 0)
		return -1;
	target[n] = '\0';
	return name_copy(out, len, strrchr(target, '/') ? strrchr(target, '/') + 1 : target);
}

static int bind_vfio_pci(struct vfio *v)
{
	char path[160], drv[64] = "";

	if (!link_name(v->bdf, "driver", drv, sizeof(drv)) && !strcmp(drv, "vfio-pci"))
		return 0;
	snprintf(path, sizeof(path), PCI_DEVICES "/%s/driver_override", v->bdf);
	if (sysfs_write(path, "vfio-pci") < 0)
		return -1;
	if (drv[0]) {
		snprintf(path, sizeof(path), PCI_DEVICES "/%s/driver/unbind", v->bdf);
		sysfs_write(path, v->bdf);
	}
	sysfs_write("/sys/bus/pci/drivers_probe", v->bdf);
	if (link_name(v->bdf, "driver", drv, sizeof(drv)) < 0 || strcmp(drv, "vfio-pci")) {
		errno = ENODEV;	/* vfio-pci refused it: no IOMMU group and no noiommu mode */
		return -1;
	}
	return 0;
}

static int region(struct vfio *v, unsigned int index, struct vfio_region_info *ri)
{
	memset(ri, 0, sizeof(*ri));
	ri->argsz = sizeof(*ri);
	ri->index = index;
	return ioctl(v->device, VFIO_DEVICE_GET_REGION_INFO, ri);
}

/* Bind, group, container, device fd, BAR0 mapped, bus mastering on. */
static int vfio_open(struct holder *h, struct vfio *v)
{
	struct vfio_group_status st = { .argsz = sizeof(st) };
	struct vfio_region_info ri;
	char path[96];
	uint16_t cmd;

	h->priv = v;
	h->fail_what = "find the edu PCI device (1234:11e8; scenario devices: {edu: true})";
	if (find_edu(h, v) < 0)
		return -1;
	if (v->noiommu) {
		h->fail_what = "enable " NOIOMMU_PARAM;
		if (sysfs_write(NOIOMMU_PARAM, "Y") < 0)
			return -1;
	}
	h->fail_what = v->noiommu ? "bind to vfio-pci (a device behind no IOMMU)" :
				    "bind to vfio-pci (a device behind an IOMMU: devices: {iommu: true})";
	if (bind_vfio_pci(v) < 0)
		return -1;
	h->fail_what = "IOMMU group of the device";
	if (link_name(v->bdf, "iommu_group", v->group, sizeof(v->group) - 8) < 0)
		return -1;
	if (v->noiommu) {
		memmove(v->group + 8, v->group, strlen(v->group) + 1);
		memcpy(v->group, "noiommu-", 8);
	}
	snprintf(path, sizeof(path), "/dev/vfio/%s", v->group);
	h->fail_what = v->noiommu ? "open /dev/vfio/noiommu-N (is the device behind an IOMMU?)" :
				    "open /dev/vfio/N";
	if ((v->groupfd = open(path, O_RDWR | O_CLOEXEC)) < 0)
		return -1;
	h->fail_what = "open /dev/vfio/vfio";
	if ((v->container = open("/dev/vfio/vfio", O_RDWR | O_CLOEXEC)) < 0)
		return -1;
	h->fail_what = "VFIO_GET_API_VERSION";
	if (ioctl(v->container, VFIO_GET_API_VERSION) != VFIO_API_VERSION) {
		errno = EPROTO;
		return -1;
	}
	h->fail_what = "VFIO_GROUP_GET_STATUS (viable)";
	if (ioctl(v->groupfd, VFIO_GROUP_GET_STATUS, &st) < 0)
		return -1;
	if (!(st.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		errno = EBUSY;	/* another device of the group is not bound to vfio */
		return -1;
	}
	h->fail_what = "VFIO_GROUP_SET_CONTAINER";
	if (ioctl(v->groupfd, VFIO_GROUP_SET_CONTAINER, &v->container) < 0)
		return -1;
	h->fail_what = "VFIO_SET_IOMMU";
	if (ioctl(v->container, VFIO_SET_IOMMU, v->noiommu ? VFIO_NOIOMMU_IOMMU : VFIO_TYPE1v2_IOMMU) < 0)
		return -1;
	h->fail_what = "VFIO_GROUP_GET_DEVICE_FD";
	if ((v->device = ioctl(v->groupfd, VFIO_GROUP_GET_DEVICE_FD, v->bdf)) < 0)
		return -1;
	h->fail_what = "BAR0 of the device";
	if (region(v, VFIO_PCI_BAR0_REGION_INDEX, &ri) < 0)
		return -1;
	if (!(ri.flags & VFIO_REGION_INFO_FLAG_MMAP) || ri.size < EDU_BUF + EDU_BUF_SIZE) {
		errno = ENXIO;
		return -1;
	}
	v->bar0_size = ri.size;
	v->bar0 = mmap(NULL, ri.size, PROT_READ | PROT_WRITE, MAP_SHARED, v->device,
		       (off_t)ri.offset);
	if (v->bar0 == MAP_FAILED) {
		v->bar0 = NULL;
		return -1;
	}
	h->fail_what = "PCI command register: memory + bus master";
	if (region(v, VFIO_PCI_CONFIG_REGION_INDEX, &ri) < 0 ||
	    pread(v->device, &cmd, 2, (off_t)(ri.offset + PCI_COMMAND)) != 2)
		return -1;
	v->cfg_off = ri.offset;
	cmd |= PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
	return pwrite(v->device, &cmd, 2, (off_t)(ri.offset + PCI_COMMAND)) == 2 ? 0 : -1;
}

static void reg_write(struct vfio *v, unsigned int reg, uint64_t val)
{
	*(volatile uint64_t *)(v->bar0 + reg) = val;
}

/* One edu DMA of a page; waits for the engine (100 ms of virtual time per transfer). */
static int edu_dma(struct vfio *v, uint64_t src, uint64_t dst, uint64_t cmd)
{
	struct timespec ms = { 0, 1000000 };
	int i;

	reg_write(v, EDU_DMA_SRC, src);
	reg_write(v, EDU_DMA_DST, dst);
	reg_write(v, EDU_DMA_CNT, EDU_XFER);
	reg_write(v, EDU_DMA_CMD, cmd | EDU_DMA_RUN);
	for (i = 0; i < DMA_TIMEOUT_MS; i++) {
		if (!(*(volatile uint64_t *)(v->bar0 + EDU_DMA_CMD) & EDU_DMA_RUN))
			return 0;
		nanosleep(&ms, NULL);
	}
	errno = ETIMEDOUT;
	return -1;
}

static int scratch_setup(struct holder *h, struct vfio *v)
{
	uint64_t entry = 0, pfn;

	v->scratch = mmap(NULL, EDU_BUF_SIZE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);
	if (v->scratch == MAP_FAILED)
		return -1;
	memset(v->scratch, 0, EDU_BUF_SIZE);
	if (pread(h->cx.pagemap_fd, &entry, 8, (off_t)((uintptr_t)v->scratch / 4096 * 8)) != 8 ||
	    !census_pagemap_pfn(entry, &pfn)) {
		errno = EIO;
		return -1;
	}
	v->scratch_phys = pfn * 4096;
	return 0;
}

/*
 * The DMA check on DMA_PAGES pages spread over the part of the buffer edu
 * reaches. type1: RAM -> edu at the page's IOVA, zero the page, edu -> RAM.
 * noiommu: RAM -> edu at the physical address recorded at pin time, edu ->
 * scratch page, compare with the page as the process sees it.
 */
static int vfio_io(struct holder *h, FILE *f)
{
	struct vfio *v = h->priv;
	uint64_t reach = h->size, i, ps = (uint64_t)h->cx.page_size;
	int good = 0, bad = 0, err = 0;
	double t0 = now_us();

	if (!v->noiommu && reach > EDU_DMA_REACH - VFIO_IOVA)
		reach = EDU_DMA_REACH - VFIO_IOVA;
	for (i = 0; i < DMA_PAGES; i++) {
		uint64_t off = (reach / ps - 1) * i / (DMA_PAGES - 1) * ps;
		uint64_t addr = v->noiommu ? h->pfns[off / ps] * ps : VFIO_IOVA + off;
		bool same;

		if (edu_dma(v, addr, EDU_BUF, 0) < 0) {
			err = errno;
			bad++;
			continue;
		}
		if (v->noiommu) {
			memset(v->scratch, 0, EDU_XFER);
			if (edu_dma(v, EDU_BUF, v->scratch_phys, EDU_DMA_TO_RAM) < 0)
				err = errno;
			same = !memcmp(v->scratch, h->buf + off, EDU_XFER);
		} else {
			memset(h->buf + off, 0, EDU_XFER);
			if (edu_dma(v, EDU_BUF, addr, EDU_DMA_TO_RAM) < 0)
				err = errno;
			same = pattern_bad(h, off, EDU_XFER) == 0;
		}
		good += same;
		bad += !same;
	}
	fprintf(f, ",\"io\":{\"dma\":\"edu\",\"addresses\":\"%s\",\"pages\":%d,\"bytes\":%d"
		",\"pages_ok\":%d,\"pages_bad\":%d,\"dma_us\":%.0f,\"ok\":%s",
		v->noiommu ? "physical (pagemap at pin time)" : "iova", DMA_PAGES,
		DMA_PAGES * EDU_XFER, good, bad, now_us() - t0, bad ? "false" : "true");
	if (err)
		json_errno(f, err);
	fputs("}", f);
	/* noiommu: a device that reads stale memory is the finding, not a workload failure. */
	return bad && !v->noiommu ? -1 : 0;
}

static int vfio_pin(struct holder *h)
{
	struct vfio *v = &vfio_state;
	struct vfio_iommu_type1_dma_map map = {
		.argsz = sizeof(map),
		.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
		.vaddr = (uintptr_t)h->buf,
		.iova = VFIO_IOVA,
		.size = h->size,
	};

	if (vfio_open(h, v) < 0)
		return -1;
	h->fail_what = "VFIO_IOMMU_MAP_DMA";
	if (ioctl(v->container, VFIO_IOMMU_MAP_DMA, &map) < 0)
		return -1;
	v->mapped = true;
	h->bytes_pinned = h->size;
	return 0;
}

static int noiommu_pin(struct holder *h)
{
	struct vfio *v = &vfio_state;

	v->noiommu = true;
	h->pins = false;	/* nothing is pinned: that is what this mode shows */
	if (vfio_open(h, v) < 0)
		return -1;
	h->fail_what = "scratch page for the device";
	if (scratch_setup(h, v) < 0)
		return -1;
	if (h->touch_by_pin)
		memset(h->buf, 0, h->size);	/* nothing faults it in but the CPU */
	return 0;
}

static void vfio_json(struct holder *h, FILE *f)
{
	struct vfio *v = &vfio_state;

	(void)h;
	fprintf(f, ",\"vfio\":{\"device\":\"%s\",\"group\":\"%s\",\"iommu\":\"%s\"",
		v->bdf, v->group, v->noiommu ? "noiommu" : "type1v2");
	if (v->noiommu)
		fputs(",\"protected\":false,\"warning\":\"vfio-noiommu: an UNPROTECTED setup - no IOMMU, nothing pinned; the physical addresses a device was given stop being the buffer when the kernel migrates it\"",
		      f);
	else
		fprintf(f, ",\"protected\":true,\"iova\":%llu,\"mapped\":%s", VFIO_IOVA,
			v->mapped ? "true" : "false");
	fputs("}", f);
}

static int vfio_unpin(struct holder *h)
{
	struct vfio *v = &vfio_state;
	struct vfio_iommu_type1_dma_unmap unmap = {
		.argsz = sizeof(unmap), .iova = VFIO_IOVA, .size = h->size,
	};
	int rc = 0;

	if (v->mapped && ioctl(v->container, VFIO_IOMMU_UNMAP_DMA, &unmap) < 0)
		rc = -1;
	v->mapped = false;
	if (v->bar0)
		munmap((void *)v->bar0, v->bar0_size);
	v->bar0 = NULL;
	/* Closing the device, group and container also unmaps whatever is left. */
	if (v->device >= 0)
		close(v->device);
	if (v->groupfd >= 0)
		close(v->groupfd);
	if (v->container >= 0)
		close(v->container);
	v->device = v->groupfd = v->container = -1;
	h->bytes_pinned = 0;
	return rc;
}

const struct pin_mode vfio_mode = {
	.name = "vfio",
	.guest_only = true,
	.pin = vfio_pin,
	.io = vfio_io,
	.json = vfio_json,
	.unpin = vfio_unpin,
};

const struct pin_mode vfio_noiommu_mode = {
	.name = "vfio-noiommu",
	.guest_only = true,
	.pin = noiommu_pin,
	.io = vfio_io,
	.json = vfio_json,
	.unpin = vfio_unpin,
};
