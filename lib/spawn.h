/*
 * spawn.h - the one way memhp-lab starts a program on the host, as git's
 * run-command.h does: an argv (never a shell, so no text from a scenario, a
 * record or a file name is ever parsed as a command), the child's stdin,
 * stdout and stderr each inherited, /dev/null, captured or a file, a
 * working directory, an environment, a deadline, and its end decoded into
 * a sentence naming the program ("'gnuplot' exited with status 1").
 *
 *	const char *argv[] = { MHL_EMULATOR, "-version", NULL };
 *	g_auto(mhlSpawn) c = { .argv = argv, .out = MHL_SPAWN_CAPTURE };
 *
 *	if (mhlSpawnRun(&c) < 0 || mhlSpawnCheck(&c) < 0)
 *		mhlError("...: %s", c.why);
 *
 * The child gets no descriptor of ours but the three it is given (every
 * other one is closed on exec), and only async-signal-safe calls run between
 * fork and exec, so a worker thread may start one while others run.
 */
#ifndef MHL_SPAWN_H
#define MHL_SPAWN_H

#include <glib.h>
#include <stdbool.h>
#include <sys/types.h>

/* What one of the child's standard descriptors is. */
typedef enum {
	MHL_SPAWN_NULL,		/* /dev/null (the default: nothing read from our terminal, nothing written to it) */
	MHL_SPAWN_INHERIT,	/* ours */
	MHL_SPAWN_CAPTURE,	/* stdout, stderr: into out_text, err_text (mhlSpawnRun) */
	MHL_SPAWN_FILE,		/* stdout, stderr: out_file, err_file, truncated (/dev/null if it does not open) */
} mhlSpawnIo;

typedef struct {
	/* what to run: set by the caller */
	const char *const *argv;	/* argv[0]: a path, or a name without '/' looked up in PATH */
	const char *const *envp;	/* the child's environment; NULL: ours */
	const char *dir;		/* its working directory; NULL: ours */
	mhlSpawnIo in, out, err;	/* in: NULL or INHERIT */
	const char *out_file, *err_file;
	double timeout;			/* mhlSpawnRun: seconds before it is killed; 0: none */
	bool die_with_parent;		/* SIGKILL to it when the thread that started it ends (PR_SET_PDEATHSIG), memhp-lab killed included */

	/* what happened: set by mhlSpawn* */
	pid_t pid;			/* while it runs; 0 before and after */
	bool ended;			/* it ran and was waited for: status holds waitpid's */
	int status;
	char *out_text, *err_text;	/* what was captured ("" if nothing), NUL-terminated */
	int errnum;			/* after -1: the errno (ETIMEDOUT: past its timeout, ECHILD: no success) */
	char *why;			/* after -1: the program and why, for a message */
} mhlSpawn;

/*
 * Start it: 0, or -1 with why ("cannot run 'gnuplot': No such file or
 * directory") when it could not be started, exec included. No capture:
 * mhlSpawnRun reads what it captures.
 */
int mhlSpawnStart(mhlSpawn *c);
/* Whether a started child has ended (then status is set); never blocks. */
bool mhlSpawnPoll(mhlSpawn *c);
/* A started child that is still running: SIGKILL, then waited for. */
void mhlSpawnKill(mhlSpawn *c);
/*
 * Start it, read what it captures, wait for its end: 0 (whatever its exit
 * status: see mhlSpawnCheck), or -1 with why when it could not start or was
 * killed past its timeout.
 */
int mhlSpawnRun(mhlSpawn *c);
/* An ended child: 0 when it exited with status 0, else -1 with why ("'X' exited with status 1"). */
int mhlSpawnCheck(mhlSpawn *c);
/* A waitpid status in words: "exited with status N", "was killed by signal N (Killed)". */
char *mhlSpawnStatusWords(int status);
/* Kill it if it still runs; free what was captured and why. */
void mhlSpawnClear(mhlSpawn *c);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(mhlSpawn, mhlSpawnClear)

#endif
