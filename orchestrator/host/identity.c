/*
 * identity.c - what a host is, for the record (issue 32, item 3): after a
 * host upgrade a nightly's reader must see what changed. Read once per
 * connection or run: hostname, kernel, libvirt and QEMU versions, CPU model,
 * cores and memory. Nothing here fails a run: a field that cannot be read
 * is left out.
 */
#include <glib.h>

#include "host/identity.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "host/accel.h"
#include "record/record.h"
#include "spawn.h"

static char *versionText(unsigned long v)
{
	return g_strdup_printf("%lu.%lu.%lu", v / 1000000, v / 1000 % 1000, v % 1000);
}

static void addStr(json_object *o, const char *key, const char *val)
{
	if (val && *val)
		json_object_object_add(o, key, json_object_new_string(val));
}

/* "model name" of /proc/cpuinfo's first CPU, or NULL. */
static char *cpuModel(void)
{
	g_autofree char *text = NULL;
	char *p, *nl;

	if (!g_file_get_contents("/proc/cpuinfo", &text, NULL, NULL) || !(p = strstr(text, "model name")) ||
	    !(p = strchr(p, ':')))
		return NULL;
	p++;
	if ((nl = strchr(p, '\n')))
		*nl = '\0';
	return g_strstrip(g_strdup(p));
}

/* QEMU's own "QEMU emulator version X (...)" line, asked once per process. */
static const char *qemuVersionLocal(void)
{
	static gsize once;
	static char *ver;

	if (g_once_init_enter(&once)) {
		const char *argv[] = { MHL_EMULATOR, "-version", NULL };
		g_auto(mhlSpawn) c = { .argv = argv, .out = MHL_SPAWN_CAPTURE, .timeout = 60 };

		if (mhlSpawnRun(&c) == 0) {
			*strchrnul(c.out_text, '\n') = '\0';
			ver = g_strdup(c.out_text);
		}
		g_once_init_leave(&once, 1);
	}
	return ver;
}

static void addUname(json_object *o)
{
	struct utsname u;

	if (uname(&u) < 0)
		return;
	addStr(o, MHL_K_KERNEL, u.release);
	addStr(o, MHL_K_KERNEL_BUILD, u.version);
	addStr(o, MHL_K_MACHINE, u.machine);
}

json_object *mhlHostIdentityLocal(void)
{
	json_object *o = json_object_new_object();
	g_autofree char *model = cpuModel();
	char host[256] = "";
	unsigned long lib = 0;
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	gethostname(host, sizeof(host) - 1);
	addStr(o, MHL_K_HOSTNAME, host);
	addUname(o);
	addStr(o, MHL_K_CPU_MODEL, model);
	json_object_object_add(o, MHL_K_CPUS, json_object_new_int((int)sysconf(_SC_NPROCESSORS_ONLN)));
	if (pages > 0 && psz > 0)
		json_object_object_add(o, MHL_K_MEMORY_BYTES, json_object_new_int64((int64_t)pages * psz));
	/*
	 * Not virGetVersion: its first call initializes libvirt, whose logging
	 * would go to stderr before mhlLibvirtStart points it at the run's
	 * libvirt.log (and before the guard forks). The library this binary
	 * was built against; each record's host_identity has the daemon's.
	 */
	lib = LIBVIR_VERSION_NUMBER;
	{
		g_autofree char *v = versionText(lib);

		addStr(o, MHL_K_LIBVIRT_BUILT_WITH, v);
	}
	addStr(o, MHL_K_QEMU, qemuVersionLocal());
	return o;
}

json_object *mhlHostIdentityConn(virConnectPtr conn, bool local)
{
	json_object *o = json_object_new_object();
	g_autofree char *name = conn ? virConnectGetHostname(conn) : NULL;
	unsigned long lib = 0, hv = 0;
	virNodeInfo info;

	addStr(o, MHL_K_HOSTNAME, name);
	if (local)
		addUname(o);
	if (conn && virNodeGetInfo(conn, &info) == 0) {
		addStr(o, MHL_K_CPU_MODEL, info.model);
		json_object_object_add(o, MHL_K_CPUS, json_object_new_int((int)info.cpus));
		json_object_object_add(o, MHL_K_MEMORY_BYTES, json_object_new_int64((int64_t)info.memory * 1024));
	}
	if (conn && virConnectGetLibVersion(conn, &lib) == 0) {
		g_autofree char *v = versionText(lib);

		addStr(o, MHL_K_LIBVIRT, v);
	}
	if (conn && virConnectGetVersion(conn, &hv) == 0 && hv) {
		g_autofree char *v = versionText(hv);

		addStr(o, MHL_K_QEMU, v);
	}
	if (local && !json_object_object_get_ex(o, MHL_K_QEMU, NULL))
		addStr(o, MHL_K_QEMU, qemuVersionLocal());
	if (!local && !json_object_object_get_ex(o, MHL_K_HOSTNAME, NULL))
		addStr(o, MHL_K_HOSTNAME, "?");
	return o;
}
