/*
 * run-peer.c - `memhp-lab run --peer NAME=URI...`: the libvirt daemons a
 * scenario's migrate steps can send a guest to. A scenario names a peer
 * (migrate: {to: NAME}), never its URI; the operator says where it is. Every
 * migrate step's name is checked against the peers given before anything
 * boots; each peer is connected once per run, once libvirt's event loop runs
 * (its domain events registered, and what a killed run of ours left there
 * destroyed), and closed at the run's end.
 */
#include <glib.h>

#include "cli/run.h"

#include <string.h>

#include "host/session.h"
#include "trial/queue.h"
#include "util.h"

void mhlPeerFree(mhlPeer *p)
{
	if (!p)
		return;
	if (p->conn)
		virConnectClose(p->conn);
	g_free(p->name);
	g_free(p->uri);
	g_free(p);
}

static bool peerNameOk(const char *name, gsize len)
{
	gsize i;

	for (i = 0; i < len; i++)
		if (!g_ascii_isalnum(name[i]) && !strchr("._-", name[i]))
			return false;
	return len > 0 && len < sizeof(((mhlStep *)NULL)->to);
}

/* --peer's values (newline-separated NAME=URI) into @peers (mhlPeer *). -1 + mhlError. */
static int peersParse(const char *list, GPtrArray *peers)
{
	g_auto(GStrv) v = g_strsplit(list, "\n", -1);
	int i;

	for (i = 0; v[i]; i++) {
		const char *eq = strchr(v[i], '=');
		mhlPeer *p;

		if (!eq || !peerNameOk(v[i], (gsize)(eq - v[i])) || !eq[1] || strpbrk(eq, "\r\t ")) {
			mhlError("run: --peer '%s': expected NAME=URI, NAME of [A-Za-z0-9._-] (1 to %zu), URI a libvirt URI",
				 v[i], sizeof(((mhlStep *)NULL)->to) - 1);
			return -1;
		}
		p = g_new0(mhlPeer, 1);
		p->name = g_strndup(v[i], (gsize)(eq - v[i]));
		p->uri = g_strdup(eq + 1);
		if (mhlPeerFind(peers, p->name)) {
			mhlError("run: --peer '%s' names peer '%s' a second time", v[i], p->name);
			mhlPeerFree(p);
			return -1;
		}
		g_ptr_array_add(peers, p);
	}
	return 0;
}

static char *peerNames(GPtrArray *peers)
{
	GString *s = g_string_new(NULL);
	guint i;

	for (i = 0; i < peers->len; i++)
		g_string_append_printf(s, "%s%s", i ? ", " : "", ((mhlPeer *)peers->pdata[i])->name);
	return g_string_free(s, false);
}

int mhlRunPeers(const mhlRunOptions *o, GPtrArray *jobs, GPtrArray *peers)
{
	guint j;
	int i;

	if (o->peers && peersParse(o->peers, peers) < 0)
		return -1;
	for (j = 0; j < jobs->len; j++) {
		const mhlScenario *s = ((mhlJob *)jobs->pdata[j])->s;

		for (i = 0; i < s->nsteps; i++) {
			const mhlStep *st = &s->steps[i];
			g_autofree char *names = NULL;

			if (st->type != MHL_STEP_MIGRATE || mhlPeerFind(peers, st->to))
				continue;
			names = peerNames(peers);
			mhlError("%s:%d:%d: migrate: to: '%s' names no peer of this run: give run --peer %s=URI (peers given: %s)",
				 s->path, st->line, st->col, st->to, st->to, *names ? names : "none");
			return -1;
		}
	}
	if (peers->len && (o->hosts || o->hosts_file)) {
		mhlError("run: --peer migrates one trial's guest from where it runs; a fleet run (--host/--hosts) places guests itself: give one or the other");
		return -1;
	}
	return 0;
}

int mhlRunPeersConnect(GPtrArray *peers)
{
	guint i;

	for (i = 0; i < peers->len; i++) {
		mhlPeer *p = peers->pdata[i];

		if (!(p->conn = virConnectOpen(p->uri))) {
			mhlErrorVirt("cannot connect to peer '%s' at '%s' (run --peer)", p->name, p->uri);
			return -1;
		}
		if (mhlConnIsQemu(p->conn, p->uri) < 0)
			return -1;
		/* a killed run's guest that migrated there has no embedded driver to die with */
		if (mhlDeadRunDomainsDestroy(p->conn, false) < 0)
			mhlErrorReset();
		if (mhlDomainEventsRegister(p->conn) < 0)
			return -1;
	}
	return 0;
}
