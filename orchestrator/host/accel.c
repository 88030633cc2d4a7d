#include <glib.h>

#include "host/accel.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"
#include "util.h"

#define PROBE_SECONDS 20

/*
 * What the test boot showed. A clear answer (a boot, or QEMU refusing KVM)
 * is cached for good; no answer within PROBE_SECONDS is an answer too (a
 * /dev/kvm that hangs QEMU, as kvm-pvm's can), cached for MHL_ACCEL_TIMEOUT_TTL
 * so that a host that was only loaded is probed again one day; a starved or
 * interrupted probe is not cached.
 */
typedef enum {
	PROBE_BOOTED,		/* the banner on the serial log: KVM runs our kernel */
	PROBE_EXITED,		/* QEMU ended without it: KVM refused (its reason in .stderr) */
	PROBE_STARVED,		/* QEMU ended for want of a resource (mhlAccelExitIsAnswer): no answer */
	PROBE_TIMEOUT,		/* neither within PROBE_SECONDS: a hanging /dev/kvm (or a loaded host) */
	PROBE_INTERRUPTED,	/* a signal ended the wait */
} mhlProbe;

static const char *const probeWords[] = {
	[PROBE_BOOTED] = "booted",
	[PROBE_EXITED] = "did not boot (QEMU exited)",
	[PROBE_STARVED] = "ended for want of memory or another resource of a loaded host (not cached: probed again next time)",
	[PROBE_TIMEOUT] = "gave no answer within " G_STRINGIFY(PROBE_SECONDS) " s (cached as tcg for 7 days)",
	[PROBE_INTERRUPTED] = "was interrupted (not cached)",
};

/* The reason word of a cache line, per probe result (NULL: not cached). */
static const char *const probeReasons[] = {
	[PROBE_BOOTED] = "booted",
	[PROBE_EXITED] = "exited",
	[PROBE_STARVED] = NULL,
	[PROBE_TIMEOUT] = MHL_ACCEL_REASON_TIMEOUT,
	[PROBE_INTERRUPTED] = NULL,
};

/*
 * What QEMU says when the host, not KVM, stopped it: the errno texts of a
 * loaded or starved host (no memory, a busy or exhausted resource), as
 * g_strerror words them in "failed to initialize kvm: ..." and the like.
 */
static const char *const starvedWords[] = {
	"Cannot allocate memory", "Resource temporarily unavailable", "Device or resource busy",
	"Too many open files", "No space left on device", NULL
};

bool mhlAccelExitIsAnswer(int status, const char *qemu_stderr)
{
	int i;

	/* SIGKILL: the OOM killer or an operator, not KVM; exit 127: QEMU did not start */
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		return false;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return false;
	for (i = 0; qemu_stderr && starvedWords[i]; i++)
		if (strstr(qemu_stderr, starvedWords[i]))
			return false;
	return true;
}

static mhlProbe probeBoot(const char *emulator, const char *kernel, const char *log)
{
	g_autofree char *serial = g_strdup_printf("file:%s", log);
	const char *argv[] = {
		emulator, "-machine", "q35", "-accel", "kvm", "-cpu", "host", "-m", "256",
		"-display", "none", "-monitor", "none", "-no-reboot", "-nodefaults",
		"-serial", serial, "-kernel", kernel,
		"-append", "console=ttyS0 panic=-1 rdinit=/memhp-no-init", NULL
	};
	double t0 = mhlNow();
	mhlProbe res = PROBE_TIMEOUT;
	g_autofree char *errlog = g_strdup_printf("%s.stderr", log);
	/* stderr: QEMU's reason, e.g. a failed MSR write */
	g_auto(mhlSpawn) qemu = { .argv = argv, .err = MHL_SPAWN_FILE, .err_file = errlog };

	unlink(log);
	/* QEMU never started (no fork, no exec): the host's doing, no answer, as for an exit 127 */
	if (mhlSpawnStart(&qemu) < 0)
		return PROBE_STARVED;
	for (;;) {
		g_autofree char *out = NULL;

		if (mhlInterrupted) {
			res = PROBE_INTERRUPTED;
			break;
		}
		if (g_file_get_contents(log, &out, NULL, NULL) && strstr(out, "Linux version")) {
			res = PROBE_BOOTED;
			break;
		}
		if (mhlSpawnPoll(&qemu) && qemu.ended) {
			g_autofree char *err = NULL;

			g_file_get_contents(errlog, &err, NULL, NULL);
			res = mhlAccelExitIsAnswer(qemu.status, err) ? PROBE_EXITED : PROBE_STARVED;
			break;
		}
		if (mhlNow() - t0 >= PROBE_SECONDS)
			break;
		g_usleep(200 * 1000);
	}
	mhlSpawnKill(&qemu);	/* still running: a boot seen or no answer */
	return res;
}

/* "path size mtime" of @path: a rebuilt or replaced file is another key. */
static char *fileKey(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return g_strdup_printf("%s -", path);
	return g_strdup_printf("%s %lld %lld.%09ld", path, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
			       st.st_mtim.tv_nsec);
}

char *mhlAccelProbeKey(const char *emulator, const char *kernel, const char *dev)
{
	g_autofree char *e = fileKey(emulator), *k = fileKey(kernel), *d = NULL;
	struct utsname u;
	struct stat st;

	uname(&u);
	/* the node the probe opened: another node (MEMHP_KVM_DEVICE) or a /dev/kvm made again is another key */
	if (stat(dev, &st) < 0 || !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
		d = g_strdup_printf("%s -", dev);
	else
		d = g_strdup_printf("%s %u:%u", dev, major(st.st_rdev), minor(st.st_rdev));
	/* what decides whether KVM boots our guest: the host kernel, QEMU, the guest kernel, the device */
	return g_strdup_printf("host %s %s; emulator %s; kernel %s; device %s", u.release, u.version, e, k, d);
}

/* @key as stored: a tab or newline in a path must not split its line. */
static char *cacheKey(const char *key)
{
	return g_strescape(key, "");
}

const char *mhlAccelCacheLookup(const char *text, const char *key, gint64 now, gint64 *when, char **reason)
{
	g_auto(GStrv) lines = g_strsplit(text ? text : "", "\n", -1);
	g_autofree char *k = cacheKey(key);
	int i;

	for (i = 0; lines[i]; i++) {
		g_auto(GStrv) f = g_strsplit(lines[i], "\t", 4);
		gint64 at = 0;
		const char *accel;

		if (!f[0] || !f[1] || strcmp(f[1], k))
			continue;
		if (!strcmp(f[0], "kvm"))
			accel = "kvm";
		else if (!strcmp(f[0], "tcg"))
			accel = "tcg";
		else
			continue;
		if (f[2] && f[3]) {
			char *end;

			at = g_ascii_strtoll(f[2], &end, 10);
			if (*end || at < 0)
				continue;
			/* no answer is only an answer for a while; a time from the future is no time */
			if (!strcmp(f[3], MHL_ACCEL_REASON_TIMEOUT) &&
			    (at > now || now - at >= MHL_ACCEL_TIMEOUT_TTL))
				continue;
		}
		if (when)
			*when = at;
		if (reason)
			*reason = g_strdup(f[2] && f[3] ? f[3] : "");
		return accel;
	}
	return NULL;
}

/* @text with @key's line replaced by "@accel\t@key\t@when\t@reason", the newest CACHE_LINES kept. */
#define CACHE_LINES 32
char *mhlAccelCacheStore(const char *text, const char *key, const char *accel, gint64 when, const char *reason)
{
	g_auto(GStrv) lines = g_strsplit(text ? text : "", "\n", -1);
	g_autoptr(GPtrArray) keep = g_ptr_array_new();
	g_autofree char *k = cacheKey(key);
	GString *out = g_string_new(NULL);
	guint i, from;

	for (i = 0; lines[i]; i++) {
		g_auto(GStrv) f = g_strsplit(lines[i], "\t", 3);

		if (f[0] && f[1] && strcmp(f[1], k))
			g_ptr_array_add(keep, lines[i]);
	}
	from = keep->len >= CACHE_LINES ? keep->len - (CACHE_LINES - 1) : 0;
	for (i = from; i < keep->len; i++)
		g_string_append_printf(out, "%s\n", (char *)keep->pdata[i]);
	g_string_append_printf(out, "%s\t%s\t%" G_GINT64_FORMAT "\t%s\n", accel, k, when, reason);
	return g_string_free(out, FALSE);
}

/* "2026-12-07 19:00 UTC" of @t (seconds since the epoch). */
static char *utcText(gint64 t)
{
	g_autoptr(GDateTime) d = g_date_time_new_from_unix_utc(t);

	return d ? g_date_time_format(d, "%Y-%m-%d %H:%M UTC") : g_strdup("?");
}

const char *mhlAccelDevice(void)
{
	const char *dev = g_getenv("MEMHP_KVM_DEVICE");

	return dev && *dev ? dev : "/dev/kvm";
}

const char *mhlAccelChoose(const char *emulator, const char *kernel, const char *cache_dir,
			   bool quiet, char **why)
{
	const char *env = g_getenv("MEMHP_ACCEL"), *dev, *hit;
	const char *probe_emu = g_getenv("MEMHP_KVM_PROBE_EMULATOR");
	g_autofree char *key = NULL, *cache = NULL, *cached = NULL, *log = NULL, *reason = NULL;
	gint64 when = 0, now = g_get_real_time() / G_USEC_PER_SEC;
	mhlProbe res;
	int fd;

	if (env && (!strcmp(env, "kvm") || !strcmp(env, "tcg"))) {
		*why = g_strdup("MEMHP_ACCEL");
		return !strcmp(env, "kvm") ? "kvm" : "tcg";
	}
	dev = mhlAccelDevice();
	/* the tests' stand-in for a QEMU that hangs on this host's KVM (docs/cli.md) */
	if (probe_emu && *probe_emu)
		emulator = probe_emu;
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		*why = g_strdup_printf("%s: %s", dev, g_strerror(errno));
		return "tcg";
	}
	close(fd);
	key = mhlAccelProbeKey(emulator, kernel, dev);
	cache = g_build_filename(cache_dir, "accel-probe", NULL);
	if (g_file_get_contents(cache, &cached, NULL, NULL) &&
	    (hit = mhlAccelCacheLookup(cached, key, now, &when, &reason))) {
		g_autofree char *at = utcText(when), *until = utcText(when + MHL_ACCEL_TIMEOUT_TTL);

		if (!strcmp(reason, MHL_ACCEL_REASON_TIMEOUT))
			*why = g_strdup_printf("cached probe in %s: no answer within %d s on %s (a /dev/kvm that hangs QEMU); probed again after %s or when the host kernel, QEMU, guest kernel or %s changes",
					       cache, PROBE_SECONDS, at, until, dev);
		else if (*reason)
			*why = g_strdup_printf("cached probe in %s: %s on %s (this host kernel, QEMU, guest kernel and %s)",
					       cache, !strcmp(reason, "booted") ? "booted" : "QEMU exited", at, dev);
		else
			*why = g_strdup_printf("cached probe in %s (this host kernel, QEMU, guest kernel and %s)", cache, dev);
		return hit;
	}
	g_mkdir_with_parents(cache_dir, 0755);
	log = g_build_filename(cache_dir, "accel-probe.log", NULL);
	if (!quiet)
		fprintf(stderr, "memhp-lab: probing KVM with %s (a test boot of at most %d s; once per host kernel, QEMU, guest kernel and %s)\n",
			kernel, PROBE_SECONDS, dev);
	res = probeBoot(emulator, kernel, log);
	if (probeReasons[res]) {
		g_autofree char *content = mhlAccelCacheStore(cached, key, res == PROBE_BOOTED ? "kvm" : "tcg",
							      now, probeReasons[res]);

		g_file_set_contents(cache, content, -1, NULL);
	}
	*why = g_strdup_printf("KVM probe %s (logs %s, %s.stderr)", probeWords[res], log, log);
	return res == PROBE_BOOTED ? "kvm" : "tcg";
}
