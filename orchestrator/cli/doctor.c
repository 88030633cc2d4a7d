/*
 * doctor.c - `memhp-lab doctor`: is this host ready to run trials? One line
 * per check, "ok" or "FAIL" with what to do about it (or, with --json, one
 * object per check); exit 1 if any failed.
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
#include "util.h"

static int failures;
static json_object *checks;	/* --json: the checks so far, else NULL (one line each) */

static void __attribute__((format(printf, 3, 4)))
line(bool ok, const char *what, const char *fmt, ...)
{
	g_autofree char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	if (checks) {
		json_object *c = json_object_new_object();

		json_object_object_add(c, "check", json_object_new_string(what));
		json_object_object_add(c, "ok", json_object_new_boolean(ok));
		json_object_object_add(c, "detail", json_object_new_string(msg));
		json_object_array_add(checks, c);
	} else {
		printf("%-4s %-22s %s\n", ok ? "ok" : "FAIL", what, msg);
	}
	if (!ok)
		failures++;
}

/* Run argv, return its stdout+stderr (NULL if it could not run). */
static char *capture(const char *const *argv)
{
	g_autofree char *out = NULL, *err = NULL;
	int status;

	if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
			  &status, NULL))
		return NULL;
	return g_strconcat(out ? out : "", err ? err : "", NULL);
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
	const char *accel;
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		line(true, "KVM", "/dev/kvm: %s: guests run under TCG (slower, same results)",
		     g_strerror(errno));
		return;
	}
	close(fd);
	if (!image) {
		line(true, "KVM", "/dev/kvm opens; no kernel built yet to probe a boot with");
		return;
	}
	accel = mhlAccelChoose(MHL_EMULATOR, image, cache, &why);
	line(true, "KVM", "%s: %s", !strcmp(accel, "kvm") ? "usable" : "not usable, TCG instead", why);
}

static char *checkKernel(const char *kver, const char *cache, const char *datadir)
{
	g_autofree char *cur = g_strdup_printf("%s/kernel/%s/current", cache, kver), *dir = NULL;
	g_autofree char *config = NULL, *required = NULL, *missing = NULL, *cfgpath = NULL;
	g_autofree char *reqpath = g_build_filename(datadir, "kernel", "required.list", NULL);
	g_autofree char *what = g_strdup_printf("kernel %s", kver);
	char *image;

	if (!g_file_get_contents(cur, &dir, NULL, NULL)) {
		line(false, what, "not built (%s missing): make kernel", cur);
		return NULL;
	}
	g_strstrip(dir);
	image = g_build_filename(dir, "bzImage", NULL);
	cfgpath = g_build_filename(dir, "config", NULL);
	if (access(image, R_OK) < 0 || !g_file_get_contents(cfgpath, &config, NULL, NULL) ||
	    !g_file_get_contents(reqpath, &required, NULL, NULL)) {
		line(false, what, "%s: bzImage or config unreadable, or %s missing: make kernel", dir,
		     reqpath);
		g_free(image);
		return NULL;
	}
	missing = mhlKconfigMissing(config, required);
	line(!missing, what, "%s%s%s%s", dir, missing ? ": config lacks " : "",
	     missing ? missing : "", missing ? " (kernel/required.list changed: make kernel)" : "");
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

int mhlDoctor(const char *initrd, const char *tmpl, const char *datadir, const char *cache, bool json)
{
	g_autofree char *img612 = NULL, *img61 = NULL;
	g_autoptr(json_object) out = json ? json_object_new_object() : NULL;

	failures = 0;
	checks = json ? json_object_new_array() : NULL;
	checkLibvirt();
	checkQemu();
	img612 = checkKernel("6.12", cache, datadir);
	img61 = checkKernel("6.1", cache, datadir);
	checkKvm(img612 ? img612 : img61, cache);
	line(access(initrd, R_OK) == 0, "guest image", "%s%s", initrd,
	     access(initrd, R_OK) == 0 ? "" : ": missing (make image)");
	line(access(tmpl, R_OK) == 0, "domain template", "%s%s", tmpl,
	     access(tmpl, R_OK) == 0 ? "" : ": missing (make install, or run build/memhp-lab in the checkout)");
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
