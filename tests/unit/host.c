/* tests/unit/host.c - the host side (orchestrator/host/): which QEMU a dead run's cleanup may kill. */
#include <glib.h>

#include "host/guard.h"
#include "unit.h"

typedef struct {
	const char *cmdline;	/* /proc/PID/cmdline, NULs as spaces */
	const char *tag;	/* "-<pid>-" of the run */
	bool ours;
} guestRow;

static const guestRow guestRows[] = {
	{ "/usr/bin/qemu-system-x86_64 -name guest=memhp-demo-4514-0,debug-threads=on -S", "-4514-", true },
	{ "/usr/bin/qemu-system-x86_64 -name guest=memhp-k9_size_64MiB-ab12cd34-4514-1,debug-threads=on", "-4514-", true },
	{ "/usr/bin/qemu-system-x86_64 -name guest=memhp-demo-4515-0,debug-threads=on", "-4514-", false },
	{ "/usr/bin/qemu-system-x86_64 -name guest=memhp-demo-45140-0,debug-threads=on", "-4514-", false },
	{ "/usr/bin/qemu-system-x86_64 -name guest=other-vm-4514-0", "-4514-", false },
	{ "/usr/bin/qemu-system-x86_64 -name guest=memhp-x-4514-3-99-0,debug-threads=on", "-4514-", false },
	{ "/usr/bin/qemu-system-x86_64 -name guest=memhp-x-4514-3-99-0,debug-threads=on", "-99-", true },
	{ "qemu-system-x86_64 600", "-4514-", false },
	{ "sleep guest=memhp-demo-4514-0", "-4514-", false },
};

static bool guestJudge(const void *row, GString *desc)
{
	const guestRow *r = row;
	bool got;

	g_string_printf(desc, "cleanup of run %s: '%.60s' is %s guest", r->tag, r->cmdline,
			r->ours ? "its" : "not its");
	if (unitListing)
		return true;
	got = mhlQemuIsRunGuest(r->cmdline, r->tag);
	return unitExpect(got == r->ours);
}

static const unitTable tables[] = { UNIT_TABLE(guestRows, guestJudge) };

const unitModule unitHost = UNIT_MODULE("host", NULL, NULL, tables);
