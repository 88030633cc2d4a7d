/*
 * run-daemon.c - `memhp-lab run --daemon-restart 'ARGV'`: how the operator
 * restarts the libvirt daemon of --uri (libvirt has no API for it, and a
 * scenario never runs a command on the host), for the scenario's
 * daemon-restart steps (trial/step-daemon.c). One string split into words
 * as a shell would (g_shell_parse_argv: quotes and backslashes, no
 * expansion) and run without a shell through lib/spawn.h: the operator's
 * own option, typed once, where a repeated --daemon-restart-arg per word
 * would only be harder to write. Every daemon-restart step is checked before
 * anything boots: the option given, a daemon (not the embedded driver, which
 * has none, nor a fleet, whose guests die with their connection), and one
 * trial at a time (the step replaces the connection every trial shares).
 */
#include <glib.h>

#include "cli/run.h"

#include <string.h>

#include "trial/queue.h"
#include "util.h"

/* The first daemon-restart step of @jobs: its scenario and step, or NULL. */
static const mhlStep *firstRestart(GPtrArray *jobs, const mhlScenario **sp)
{
	guint j;
	int i;

	for (j = 0; j < jobs->len; j++) {
		const mhlScenario *s = ((mhlJob *)jobs->pdata[j])->s;

		for (i = 0; i < s->nsteps; i++) {
			if (s->steps[i].type == MHL_STEP_DAEMON_RESTART) {
				*sp = s;
				return &s->steps[i];
			}
		}
	}
	return NULL;
}

static int argvParse(const char *text, char ***argv)
{
	g_autoptr(GError) err = NULL;

	if (strchr(text, '\n')) {
		mhlError("run: --daemon-restart is given once: one command ('%s' holds a line break)", text);
		return -1;
	}
	if (!g_shell_parse_argv(text, NULL, argv, &err)) {
		mhlError("run: --daemon-restart '%s': %s", text, err->message);
		return -1;
	}
	return 0;
}

int mhlRunDaemonRestart(const mhlRunOptions *o, GPtrArray *jobs, int n, char ***argv)
{
	const mhlScenario *s = NULL;
	const mhlStep *st = firstRestart(jobs, &s);

	if (o->daemon_restart && argvParse(o->daemon_restart, argv) < 0)
		return -1;
	if (!st)
		return 0;
	if (!o->daemon_restart) {
		mhlError("%s:%d:%d: daemon-restart: no command restarts the daemon: give run --daemon-restart 'ARGV' (e.g. 'systemctl restart virtqemud')",
			 s->path, st->line, st->col);
		return -1;
	}
	if (o->hosts || o->hosts_file) {
		mhlError("%s:%d:%d: daemon-restart: not in a fleet run (--host/--hosts): a fleet's guests end with their connection; give --uri URI",
			 s->path, st->line, st->col);
		return -1;
	}
	if (!o->uri || g_str_has_prefix(o->uri, "qemu:///embed")) {
		mhlError("%s:%d:%d: daemon-restart: the embedded driver (%s) has no daemon to restart: give --uri URI of a libvirt daemon",
			 s->path, st->line, st->col, o->uri ? o->uri : "the default without --uri");
		return -1;
	}
	if (n > 1) {
		mhlError("%s:%d:%d: daemon-restart: %d trials at once would share the connection the restart breaks: give -j 1",
			 s->path, st->line, st->col, n);
		return -1;
	}
	return 0;
}
