#include <glib.h>

#include "host/accel.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

#define PROBE_SECONDS 20

static bool probeBoot(const char *emulator, const char *kernel, const char *log)
{
	g_autofree char *serial = g_strdup_printf("file:%s", log);
	const char *argv[] = {
		emulator, "-machine", "q35", "-accel", "kvm", "-cpu", "host", "-m", "256",
		"-display", "none", "-monitor", "none", "-no-reboot", "-nodefaults",
		"-serial", serial, "-kernel", kernel,
		"-append", "console=ttyS0 panic=-1 rdinit=/memhp-no-init", NULL
	};
	double t0 = mhlNow();
	bool booted = false;
	pid_t pid;

	g_autofree char *errlog = g_strdup_printf("%s.stderr", log);

	unlink(log);
	pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR);
		int err = open(errlog, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(nul, 0);
		dup2(nul, 1);
		dup2(err >= 0 ? err : nul, 2);	/* QEMU's reason, e.g. a failed MSR write */
		execv(emulator, (char **)argv);
		_exit(127);
	}
	while (mhlNow() - t0 < PROBE_SECONDS && !mhlInterrupted) {
		g_autofree char *out = NULL;
		int status;

		if (g_file_get_contents(log, &out, NULL, NULL) && strstr(out, "Linux version")) {
			booted = true;
			break;
		}
		if (waitpid(pid, &status, WNOHANG) == pid) {
			pid = -1;
			break;
		}
		g_usleep(200 * 1000);
	}
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return booted;
}

const char *mhlAccelChoose(const char *emulator, const char *kernel, const char *cache_dir,
			   char **why)
{
	const char *env = g_getenv("MEMHP_ACCEL");
	g_autofree char *key = NULL, *cache = NULL, *cached = NULL, *log = NULL;
	struct utsname u;
	struct stat st;
	bool kvm;
	int fd;

	if (env && (!strcmp(env, "kvm") || !strcmp(env, "tcg"))) {
		*why = g_strdup("MEMHP_ACCEL");
		return !strcmp(env, "kvm") ? "kvm" : "tcg";
	}
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		*why = g_strdup_printf("/dev/kvm: %s", g_strerror(errno));
		return "tcg";
	}
	close(fd);
	uname(&u);
	stat(emulator, &st);
	key = g_strdup_printf("%s %s %lld", u.release, emulator, (long long)st.st_mtime);
	cache = g_build_filename(cache_dir, "accel-probe", NULL);
	if (g_file_get_contents(cache, &cached, NULL, NULL)) {
		char *nl = strchr(cached, '\n');

		if (nl && !strncmp(nl + 1, key, strlen(key))) {
			*why = g_strdup_printf("cached probe in %s", cache);
			return !strncmp(cached, "kvm", 3) ? "kvm" : "tcg";
		}
	}
	g_mkdir_with_parents(cache_dir, 0755);
	log = g_build_filename(cache_dir, "accel-probe.log", NULL);
	fprintf(stderr, "memhp-lab: probing KVM (a test boot of at most %d s; once per machine)\n",
		PROBE_SECONDS);
	kvm = probeBoot(emulator, kernel, log);
	{
		g_autofree char *content = g_strdup_printf("%s\n%s\n", kvm ? "kvm" : "tcg", key);

		g_file_set_contents(cache, content, -1, NULL);
	}
	*why = g_strdup_printf("KVM probe %s (logs %s, %s.stderr)", kvm ? "booted" : "did not boot",
			       log, log);
	return kvm ? "kvm" : "tcg";
}
