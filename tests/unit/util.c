/*
 * tests/unit/util.c - lib/: util.h's templates with @KEY@ placeholders;
 * spawn.h, the one way a program is started (argv, stdio, deadline, its end
 * in words).
 */
#include <glib.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "spawn.h"
#include "unit.h"
#include "util.h"

static const char *const pairs[] = { "A", "1", "BC", "two", NULL };

static bool templateReplaced(void)
{
	g_autofree char *t = mhlTemplateExpand("x@A@y@BC@z", pairs, "t");

	return unitExpect(t && !strcmp(t, "x1ytwoz"));
}

static bool templateUnknown(void)
{
	g_autofree char *t = mhlTemplateExpand("@NOPE@", pairs, "t.xml");

	return unitExpect(!t && strstr(mhlErrorLast(), "unknown placeholder '@NOPE@'"));
}

static bool spawnNoShell(void)
{
	const char *argv[] = { "echo", "a; touch /nonexistent/x", "$(id)", "`id`", "*", NULL };
	g_auto(mhlSpawn) c = { .argv = argv, .out = MHL_SPAWN_CAPTURE };

	return unitExpect(mhlSpawnRun(&c) == 0 && mhlSpawnCheck(&c) == 0 &&
			  !strcmp(c.out_text, "a; touch /nonexistent/x $(id) `id` *\n"));
}

static bool spawnCaptureApart(void)
{
	const char *argv[] = { "/bin/sh", "-c", "echo out; echo err >&2; cat", NULL };
	g_auto(mhlSpawn) c = { .argv = argv, .out = MHL_SPAWN_CAPTURE, .err = MHL_SPAWN_CAPTURE };

	/* stdin is /dev/null unless asked: cat ends at once */
	return unitExpect(mhlSpawnRun(&c) == 0 && !strcmp(c.out_text, "out\n") && !strcmp(c.err_text, "err\n"));
}

static bool spawnExitWords(void)
{
	const char *argv[] = { "/bin/sh", "-c", "exit 3", NULL };
	g_auto(mhlSpawn) c = { .argv = argv };

	return unitExpect(mhlSpawnRun(&c) == 0 && mhlSpawnCheck(&c) < 0 &&
			  !strcmp(c.why, "'/bin/sh' exited with status 3"));
}

static bool spawnSignalWords(void)
{
	const char *argv[] = { "/bin/sh", "-c", "kill -9 $$", NULL };
	g_auto(mhlSpawn) c = { .argv = argv };

	return unitExpect(mhlSpawnRun(&c) == 0 && mhlSpawnCheck(&c) < 0 &&
			  !strcmp(c.why, "'/bin/sh' was killed by signal 9 (Killed)"));
}

static bool spawnMissing(void)
{
	const char *a1[] = { "/nonexistent/prog", NULL }, *a2[] = { "memhp-no-such-program", NULL };
	g_auto(mhlSpawn) c1 = { .argv = a1 };
	g_auto(mhlSpawn) c2 = { .argv = a2 };

	return unitExpect(mhlSpawnRun(&c1) < 0 && c1.errnum == ENOENT && !c1.pid &&
			  !strcmp(c1.why, "cannot run '/nonexistent/prog': No such file or directory") &&
			  mhlSpawnStart(&c2) < 0 &&
			  !strcmp(c2.why, "cannot run 'memhp-no-such-program': not found in PATH"));
}

static bool spawnTimeout(void)
{
	const char *argv[] = { "sleep", "30", NULL };
	g_auto(mhlSpawn) c = { .argv = argv, .out = MHL_SPAWN_CAPTURE, .timeout = 0.3 };
	double t0 = mhlNow();

	return unitExpect(mhlSpawnRun(&c) < 0 && c.errnum == ETIMEDOUT && mhlNow() - t0 < 10 && !c.pid &&
			  !strcmp(c.why, "'sleep' did not end within 0.3 s (killed)"));
}

static bool spawnFileAndPoll(void)
{
	g_autofree char *dir = g_dir_make_tmp("mhl-unit-spawn-XXXXXX", NULL);
	g_autofree char *file = g_build_filename(dir, "err", NULL), *text = NULL;
	const char *argv[] = { "/bin/sh", "-c", "echo to-stdout; echo to-file >&2", NULL };
	g_auto(mhlSpawn) c = { .argv = argv, .err = MHL_SPAWN_FILE, .err_file = file };
	double t0 = mhlNow();
	bool ended = false;

	if (mhlSpawnStart(&c) == 0)
		while (!(ended = mhlSpawnPoll(&c)) && mhlNow() - t0 < 10)
			g_usleep(10 * 1000);
	g_file_get_contents(file, &text, NULL, NULL);
	unlink(file);
	rmdir(dir);
	return unitExpect(ended && c.ended && mhlSpawnCheck(&c) == 0 && text && !strcmp(text, "to-file\n"));
}

static bool spawnNoDescriptor(void)
{
	const char *argv[] = { "/bin/sh", "-c", "test -e /proc/self/fd/57", NULL };
	g_auto(mhlSpawn) c = { .argv = argv };
	int fd = open("/dev/null", O_RDONLY);	/* not close-on-exec, as a library may leave one */
	bool moved = fd >= 0 && dup2(fd, 57) == 57;

	mhlSpawnRun(&c);
	if (fd >= 0)
		close(fd);
	if (moved)
		close(57);
	return unitExpect(moved && mhlSpawnCheck(&c) < 0 && !strcmp(c.why, "'/bin/sh' exited with status 1"));
}

static bool spawnDirEnv(void)
{
	const char *argv[] = { "/bin/sh", "-c", "pwd; echo \"$MHL_X\"", NULL }, *envp[] = { "MHL_X=y z", NULL };
	g_auto(mhlSpawn) c = { .argv = argv, .envp = envp, .dir = "/", .out = MHL_SPAWN_CAPTURE };

	return unitExpect(mhlSpawnRun(&c) == 0 && !strcmp(c.out_text, "/\ny z\n"));
}

static const unitCase cases[] = {
	{ "template: placeholders replaced", templateReplaced },
	{ "template: unknown placeholder named", templateUnknown },
	{ "spawn: argv only, never a shell: ';', $(...), `...`, * reach the program as text", spawnNoShell },
	{ "spawn: stdout and stderr captured apart, stdin /dev/null", spawnCaptureApart },
	{ "spawn: an exit status in words, naming the program", spawnExitWords },
	{ "spawn: a death by a signal in words, naming the program and the signal", spawnSignalWords },
	{ "spawn: a program that is not there: cannot run, naming it and why (a path, a name in PATH)", spawnMissing },
	{ "spawn: past its timeout: killed, saying after how long", spawnTimeout },
	{ "spawn: stderr to a file, stdout to /dev/null, started and polled", spawnFileAndPoll },
	{ "spawn: no descriptor of ours but stdio reaches the child", spawnNoDescriptor },
	{ "spawn: its working directory and environment as given", spawnDirEnv },
};

static const unitTable tables[] = { UNIT_CASES(cases) };

const unitModule unitUtil = UNIT_MODULE("util", NULL, NULL, tables);
