/*
 * doctor.c - `memhp-lab doctor`: is this host ready to run trials? One line
 * per check, "ok", "WARN" (works, with less: TCG instead of KVM, a kernel
 * not built that was not asked for) or "FAIL" with what to do about it (or,
 * with --json, one object per check); exit 1 if any failed. The hints say
 * what to run where memhp-lab was started from: a checkout (make targets)
 * or an installed prefix (a checkout is needed to build a kernel).
 */
#include <glib.h>

#include "cli/doctor.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "host/accel.h"
#include "host/kernel.h"
#include "mhl-exit.h"
#include "scenario/names.h"
#include "spawn.h"
#include "util.h"

typedef enum { LVL_OK, LVL_WARN, LVL_FAIL } mhlLevel;

static int failures;
static json_object *checks;	/* --json: the checks so far, else NULL (one line each) */
static bool installed;		/* started from an installed prefix, not a checkout */

static void __attribute__((format(printf, 3, 4)))
lineAt(mhlLevel lvl, const char *what, const char *fmt, ...)
{
	static const char *const words[] = { "ok", "WARN", "FAIL" };
	g_autofree char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	if (checks) {
		json_object *c = json_object_new_object();

		json_object_object_add(c, "check", json_object_new_string(what));
		json_object_object_add(c, "ok", json_object_new_boolean(lvl != LVL_FAIL));
		if (lvl == LVL_WARN)
			json_object_object_add(c, "warning", json_object_new_boolean(true));
		json_object_object_add(c, "detail", json_object_new_string(msg));
		json_object_array_add(checks, c);
	} else {
		printf("%-4s %-22s %s\n", words[lvl], what, msg);
	}
	if (lvl == LVL_FAIL)
		failures++;
}

/* How to build kernel @kver here: make in a checkout; from a prefix, where to do that. */
static char *kernelHint(const char *kver)
{
	if (installed)
		return g_strdup_printf("build it in a memhp-lab checkout: make kernel KVERS=%s (the kernel cache $MEMHP_CACHE is shared; then make install)", kver);
	return g_strdup_printf("make kernel KVERS=%s%s", kver, !strcmp(kver, "6.12") ? ", or make demo" : "");
}

static void __attribute__((format(printf, 3, 4)))
line(bool ok, const char *what, const char *fmt, ...)
{
	g_autofree char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	lineAt(ok ? LVL_OK : LVL_FAIL, what, "%s", msg);
}

/* Run argv, return its stdout+stderr (NULL if it could not run, or ran past a minute). */
static char *capture(const char *const *argv)
{
	g_auto(mhlSpawn) c = { .argv = argv, .out = MHL_SPAWN_CAPTURE, .err = MHL_SPAWN_CAPTURE, .timeout = 60 };

	if (mhlSpawnRun(&c) < 0)
		return NULL;
	return g_strconcat(c.out_text, c.err_text, NULL);
}

static void checkLibvirt(void)
{
	g_autofree char *root = g_strdup("/tmp/mhl-doctor-XXXXXX"), *uri = NULL;
	unsigned long ver = 0;
	virConnectPtr conn;

	virGetVersion(&ver, NULL, NULL);
	if (virEventRegisterDefaultImpl() < 0) {
		line(false, "libvirt", "cannot register an event loop: %s", virGetLastErrorMessage());
		return;
	}
	if (!g_mkdtemp(root)) {
		line(false, "libvirt", "cannot create %s: %s", root, g_strerror(errno));
		return;
	}
	uri = g_strdup_printf("qemu:///embed?root=%s", root);
	conn = virConnectOpen(uri);
	line(conn != NULL, "libvirt", "%lu.%lu.%lu: embedded QEMU driver %s%s%s", ver / 1000000,
	     ver / 1000 % 1000, ver % 1000, conn ? "opens" : "does not open: ",
	     conn ? "" : virGetLastErrorMessage(),
	     conn ? "" : " (install libvirt-daemon-driver-qemu and libvirt-daemon-system: make deps)");
	if (conn)
		virConnectClose(conn);
	mhlRemoveTree(root);
}

/* -c URI (or LIBVIRT_DEFAULT_URI): that daemon answers and has the QEMU driver. */
static void checkUri(const char *uri)
{
	virConnectPtr conn = virConnectOpen(uri);
	g_autofree char *caps = NULL;

	if (!conn) {
		line(false, "libvirt URI", "%s: %s", uri, virGetLastErrorMessage());
		return;
	}
	caps = virConnectGetCapabilities(conn);
	line(caps && strstr(caps, "<domain type='qemu'"), "libvirt URI", "%s: %s", uri,
	     caps && strstr(caps, "<domain type='qemu'") ? "opens, its QEMU driver runs guests" :
	     "opens, but offers no QEMU guests (not the QEMU driver, or no qemu-system-x86_64 there)");
	virConnectClose(conn);
}

static void checkQemu(void)
{
	const char *vargv[] = { MHL_EMULATOR, "-version", NULL };
	const char *dargv[] = { MHL_EMULATOR, "-machine", "q35", "-device", "help", NULL };
	g_autofree char *ver = NULL, *devs = NULL;

	if (access(MHL_EMULATOR, X_OK) < 0) {
		line(false, "QEMU", "%s: %s (install qemu-system-x86: make deps)", MHL_EMULATOR,
		     g_strerror(errno));
		return;
	}
	ver = capture(vargv);
	devs = capture(dargv);
	if (ver)
		*strchrnul(ver, '\n') = '\0';
	line(devs && strstr(devs, "\"virtio-mem-pci\""), "QEMU", "%s: %s", ver ? ver : MHL_EMULATOR,
	     devs && strstr(devs, "\"virtio-mem-pci\"") ? "has virtio-mem-pci" :
	     "no virtio-mem-pci device (QEMU 5.1 or later is needed)");
}

static void checkKvm(const char *image, const char *cache)
{
	g_autofree char *why = NULL;
	const char *accel, *dev = mhlAccelDevice();
	int fd = open(dev, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		lineAt(LVL_WARN, "KVM", "%s: %s: guests run under TCG (slower, same results)", dev,
		       g_strerror(errno));
		return;
	}
	close(fd);
	if (!image) {
		lineAt(LVL_WARN, "KVM", "%s opens; no kernel built yet to probe a boot with", dev);
		return;
	}
	accel = mhlAccelChoose(MHL_EMULATOR, image, cache, false, &why);
	lineAt(!strcmp(accel, "kvm") ? LVL_OK : LVL_WARN, "KVM", "%s: %s",
	       !strcmp(accel, "kvm") ? "usable" : "not usable, TCG instead (slower, same results)", why);
}

/* The rdma flavour beside @kver's default build: a warning where missing (only RDMA pins boot it). */
static void checkRdma(const char *kver, const char *cache)
{
	/* make demo builds the default 6.12 alone */
	g_autofree char *hint = installed ? kernelHint(kver) : g_strdup_printf("make kernel KVERS=%s", kver);
	g_autofree char *what = g_strdup_printf("kernel %s %s", kver, MHL_KERNEL_FLAVOUR_RDMA);
	g_autofree char *ptr = NULL, *image = NULL;
	g_autofree char *dir = mhlKernelPointer(cache, kver, MHL_KERNEL_FLAVOUR_RDMA, &ptr);
	bool readable;

	if (!dir) {
		lineAt(LVL_WARN, what, "not built (%s missing); only RDMA pins boot it: %s", ptr, hint);
		return;
	}
	image = g_build_filename(dir, "bzImage", NULL);
	readable = access(image, R_OK) == 0;
	line(readable, what, "%s%s", dir, readable ? "" : ": bzImage unreadable");
}

static char *checkKernel(const char *kver, const char *cache, const char *datadir, bool asked)
{
	g_autofree char *hint = kernelHint(kver), *cur = NULL;
	g_autofree char *dir = mhlKernelPointer(cache, kver, "current", &cur);
	g_autofree char *config = NULL, *required = NULL, *missing = NULL, *cfgpath = NULL;
	g_autofree char *reqpath = g_build_filename(datadir, "kernel", "required.list", NULL);
	g_autofree char *what = g_strdup_printf("kernel %s", kver);
	char *image;

	if (!dir) {
		/* one not asked for: a warning (a 6.12-only setup runs what it runs) */
		lineAt(asked ? LVL_FAIL : LVL_WARN, what, "not built (%s missing)%s: %s", cur,
		       asked ? "" : "; only its trials need it", hint);
		return NULL;
	}
	image = g_build_filename(dir, "bzImage", NULL);
	cfgpath = g_build_filename(dir, "config", NULL);
	if (access(image, R_OK) < 0 || !g_file_get_contents(cfgpath, &config, NULL, NULL) ||
	    !g_file_get_contents(reqpath, &required, NULL, NULL)) {
		line(false, what, "%s: bzImage or config unreadable, or %s missing: %s", dir,
		     reqpath, hint);
		g_free(image);
		return NULL;
	}
	missing = mhlKconfigMissing(config, required);
	line(!missing, what, "%s%s%s%s%s%s", dir, missing ? ": config lacks " : "",
	     missing ? missing : "", missing ? " (kernel/required.list changed: " : "", missing ? hint : "",
	     missing ? ")" : "");
	checkRdma(kver, cache);
	return image;
}

static void checkMemory(void)
{
	g_autofree char *text = NULL;
	unsigned long long kib = 0;
	const char *p;

	if (g_file_get_contents("/proc/meminfo", &text, NULL, NULL) &&
	    (p = strstr(text, "MemAvailable:")))
		sscanf(p, "MemAvailable: %llu", &kib);
	/* The demo guest: 1 GiB + 128 MiB boot memory, 1 GiB virtio-mem, QEMU itself. */
	line(kib >= (2432ULL << 10), "memory", "%llu MiB available: %llu demo-sized guest(s) fit",
	     kib >> 10, kib / (2432ULL << 10));
}

int mhlDoctor(const mhlDoctorOptions *o)
{
	const char *const *known = mhlKernelForms;
	g_autoptr(json_object) out = o->json ? json_object_new_object() : NULL;
	g_autofree char *image = NULL, *mkfile = g_build_filename(o->datadir, "Makefile", NULL);
	g_auto(GStrv) want = o->kernels ? g_strsplit(o->kernels, "\n", -1) : NULL;
	bool img_ok = access(o->initrd, R_OK) == 0;
	size_t k;
	int i, built = 0;

	failures = 0;
	installed = !g_file_test(mkfile, G_FILE_TEST_IS_REGULAR);
	checks = o->json ? json_object_new_array() : NULL;
	checkLibvirt();
	if (o->uri)
		checkUri(o->uri);
	checkQemu();
	/* --kernel K...: those must pass; else every known one, and one missing is a warning */
	for (i = 0; want && want[i]; i++) {
		g_autofree char *img = checkKernel(want[i], o->cache, o->datadir, true);

		if (img && !image)
			image = g_steal_pointer(&img);
	}
	for (k = 0; !want && k < G_N_ELEMENTS(mhlKernelForms); k++) {
		g_autofree char *img = checkKernel(known[k], o->cache, o->datadir, false);

		built += img != NULL;
		if (img && !image)
			image = g_steal_pointer(&img);
	}
	if (!want && !built) {
		g_autofree char *forms = mhlNamesJoin(MHL_ROWS(mhlKernelForms), " or ");

		lineAt(LVL_FAIL, "kernel", "none built (%s): %s", forms, installed ?
		       "build one in a memhp-lab checkout (make demo: 6.12), then make install" : "make demo (6.12)");
	}
	checkKvm(image, o->cache);
	line(img_ok, "guest image", "%s%s%s", o->initrd, img_ok ? "" : ": missing: ", img_ok ? "" : installed ?
	     "build it in a memhp-lab checkout (make image: no kernel build) and make install" :
	     "make image (or make demo)");
	line(access(o->tmpl, R_OK) == 0, "domain template", "%s%s", o->tmpl,
	     access(o->tmpl, R_OK) == 0 ? "" : ": missing (make install, or run build/memhp-lab in the checkout)");
	checkMemory();
	if (out) {
		json_object_object_add(out, "ready", json_object_new_boolean(!failures));
		json_object_object_add(out, "failed", json_object_new_int(failures));
		json_object_object_add(out, "checks", g_steal_pointer(&checks));
		printf("%s\n", json_object_to_json_string_ext(out, JSON_C_TO_STRING_PRETTY |
								JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		printf("%s\n", failures ? "something to fix (FAIL lines above)" : "ready");
	}
	return failures ? MHL_EXIT_FAILED : MHL_EXIT_PASS;
}
