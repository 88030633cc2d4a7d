// SPDX-License-Identifier: GPL-2.0
/*
 * leak.c - memhp-pin leak: a known kernel-memory leak for the soak's leak
 * detector to find (docs/soak.md, "Proving the detector").
 *
 *   memhp-pin leak --id ID [--what io_uring]
 *	Each call leaves one more kernel object alive: an io_uring instance
 *	(io_uring_setup, 8 entries, with a sparse table of LEAK_FILES fixed
 *	files: the ring's own allocations plus two 8 KiB kvmalloc arrays, all
 *	unreclaimable slab) whose file descriptor a long-lived keeper process
 *	holds and never closes. The first call forks the keeper (it
 *	serves RUN_DIR/ID.sock, detached like a pin holder); every call,
 *	the first included, asks it for one more ring and prints
 *	{"ok":true,"mode":"leak","what":"io_uring","held":N}. The keeper lives
 *	until the guest powers off: that is the leak.
 *
 *   memhp-pin leak --id ID --what kmemleak-test
 *	A leak kmemleak must find, on a kernel with it (kernel: {debug:
 *	kmemleak}): the kernel's own samples/kmemleak/kmemleak-test.ko,
 *	unloaded if loaded and loaded again (finit_module, delete_module).
 *	Its init orphans 8 kmallocs, 5 vmallocs and a per-CPU area; its exit
 *	drops a list of 10 objects and one kmalloc per CPU without freeing
 *	them. The module comes with the flavour's modules cpio under
 *	/usr/lib/modules/RELEASE/kernel/samples/kmemleak/ (kernel/build.sh).
 *	"held" counts the loads, in RUN_DIR/ID.loads.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "holder.h"
#include "mhl-pin-keys.h"

#define LEAK_RINGS_MAX	65536	/* the keeper stops leaking here (and says so) */
#define LEAK_ENTRIES	8
#define LEAK_FILES	1024	/* 1024 * 8 bytes: kmalloc-8k, the largest slab size */

static int leak_fail(const char *what, int err)
{
	printf("{" MHL_PIN_KEY(MHL_PIN_K_OK) "false," MHL_PIN_KEY(MHL_PIN_K_MODE) "\"leak\"");
	json_errno(stdout, err);
	printf(",\"error\":\"%s\"}\n", what);
	return 1;
}

/* The keeper: one more ring per connection, the count back as one JSON line. */
static void leak_keep(int lfd)
{
	struct rlimit nofile;
	unsigned int held = 0;
	int nul = open("/dev/null", O_RDWR);

	setsid();
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	/* qemu-ga waits for EOF on the caller's stdout and stderr: keep neither */
	dup2(nul, 0);
	dup2(nul, 1);
	dup2(nul, 2);
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}
	for (;;) {
		int cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC), rc = 0;
		const char *call = "io_uring_queue_init";
		struct io_uring ring;
		char line[160];
		int n;

		if (cfd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			_exit(1);
		}
		if (held >= LEAK_RINGS_MAX)
			rc = -ENOSPC;
		else if ((rc = io_uring_queue_init(LEAK_ENTRIES, &ring, 0)) == 0) {
			held++;	/* the ring stays mapped and its fd open: never io_uring_queue_exit */
			call = "io_uring_register_files_sparse";
			rc = io_uring_register_files_sparse(&ring, LEAK_FILES);
		}
		if (rc == 0)
			n = snprintf(line, sizeof(line),
				     "{" MHL_PIN_KEY(MHL_PIN_K_OK) "true," MHL_PIN_KEY(MHL_PIN_K_MODE) "\"leak\",\"what\":\"io_uring\",\"held\":%u}\n", held);
		else
			n = snprintf(line, sizeof(line),
				     "{" MHL_PIN_KEY(MHL_PIN_K_OK) "false," MHL_PIN_KEY(MHL_PIN_K_MODE) "\"leak\",\"what\":\"io_uring\",\"held\":%u,\"errno\":%d,\"error\":\"%s\"}\n",
				     held, -rc, rc == -ENOSPC ? "the keeper holds LEAK_RINGS_MAX rings" : call);
		if (write(cfd, line, (size_t)n) != n)
			rc = -EIO;
		close(cfd);
	}
}

/* --what kmemleak-test: unload and load the kernel's kmemleak test module once more. */
static int leak_kmemleak_test(const char *id)
{
	char path[256], count[128];
	struct utsname u;
	unsigned int held = 0;
	FILE *f;
	int fd;

	if (uname(&u) < 0)
		return leak_fail("uname", errno);
	snprintf(path, sizeof(path), "/usr/lib/modules/%s/kernel/samples/kmemleak/kmemleak-test.ko", u.release);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return leak_fail("open /usr/lib/modules/RELEASE/kernel/samples/kmemleak/kmemleak-test.ko "
				 "(a kernel with debug: kmemleak brings it)", errno);
	if (syscall(SYS_delete_module, "kmemleak_test", O_NONBLOCK) < 0 && errno != ENOENT) {
		close(fd);
		return leak_fail("delete_module kmemleak_test", errno);
	}
	if (syscall(SYS_finit_module, fd, "", 0) < 0) {
		int err = errno;

		close(fd);
		return leak_fail("finit_module kmemleak-test.ko", err);
	}
	close(fd);
	mkdir(RUN_DIR, 0755);
	snprintf(count, sizeof(count), RUN_DIR "/%s.loads", id);
	if ((f = fopen(count, "r"))) {
		if (fscanf(f, "%u", &held) != 1)
			held = 0;
		fclose(f);
	}
	held++;
	if ((f = fopen(count, "w"))) {
		fprintf(f, "%u\n", held);
		fclose(f);
	}
	printf("{" MHL_PIN_KEY(MHL_PIN_K_OK) "true," MHL_PIN_KEY(MHL_PIN_K_MODE) "\"leak\",\"what\":\"kmemleak-test\",\"held\":%u}\n", held);
	return 0;
}

/* Connect to the keeper of @sa; -1 with errno. */
static int leak_connect(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), err;

	if (fd < 0)
		return -1;
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

int leak_main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *id = NULL, *what = "io_uring";
	char line[256];
	ssize_t n, got = 0;
	int i, fd, lfd;
	pid_t pid;

	if (lab_guest_only("leak", "it loads a module"))
		return 2;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--id") && i + 1 < argc)
			id = argv[++i];
		else if (!strcmp(argv[i], "--what") && i + 1 < argc)
			what = argv[++i];
		else
			return leak_fail("usage: memhp-pin leak --id ID [--what io_uring|kmemleak-test]", EINVAL);
	}
	if (!id || !*id || strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != strlen(id) ||
	    strlen(id) > 31)
		return leak_fail("--id: 1 to 31 of [A-Za-z0-9_-]", EINVAL);
	if (!strcmp(what, "kmemleak-test"))
		return leak_kmemleak_test(id);
	if (strcmp(what, "io_uring"))
		return leak_fail("--what: io_uring or kmemleak-test", EINVAL);
	snprintf(sa.sun_path, sizeof(sa.sun_path), RUN_DIR "/%s.sock", id);
	if ((fd = leak_connect(&sa)) < 0) {
		if (errno != ENOENT && errno != ECONNREFUSED)
			return leak_fail("connect to the keeper", errno);
		/* the first call: start the keeper */
		mkdir(RUN_DIR, 0755);
		unlink(sa.sun_path);
		if ((lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
		    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 16) < 0)
			return leak_fail("the keeper's socket", errno);
		fflush(stdout);
		if ((pid = fork()) < 0)
			return leak_fail("fork", errno);
		if (pid == 0)
			leak_keep(lfd);	/* never returns */
		close(lfd);
		if ((fd = leak_connect(&sa)) < 0)
			return leak_fail("connect to the new keeper", errno);
	}
	while (got < (ssize_t)sizeof(line) - 1 && (n = read(fd, line + got, sizeof(line) - 1 - got)) > 0)
		got += n;
	close(fd);
	line[got > 0 ? got : 0] = 0;
	if (got <= 0 || line[got - 1] != '\n')
		return leak_fail("the keeper's answer was cut short", EPROTO);
	fputs(line, stdout);
	return strncmp(line, MHL_PIN_OK_TRUE, sizeof(MHL_PIN_OK_TRUE) - 1) ? 1 : 0;
}
