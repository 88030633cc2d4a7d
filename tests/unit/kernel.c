/* tests/unit/kernel.c - the guest kernel (orchestrator/host/kernel.h): required config options. */
#include <glib.h>

#include <string.h>

#include "host/kernel.h"
#include "unit.h"

static const char config[] = "CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_CC=m\nCONFIG_DD=y";

static bool nothingMissing(void)
{
	g_autofree char *missing = mhlKconfigMissing(config, "# comment\nA\n\nDD\n");

	if (missing)
		unitDiag("got '%s'", missing);
	return unitExpect(!missing);
}

static bool threeMissing(void)
{
	g_autofree char *missing = mhlKconfigMissing(config, "A\nB\nCC\nD\n");

	if (!missing || strcmp(missing, "CONFIG_B CONFIG_CC CONFIG_D"))
		unitDiag("got '%s'", missing ? missing : "(none)");
	return unitExpect(missing && !strcmp(missing, "CONFIG_B CONFIG_CC CONFIG_D"));
}

static bool renamedAlternatives(void)
{
	g_autofree char *missing = mhlKconfigMissing(config, "B|DD\nA\nX|CC|B\n");

	if (!missing || strcmp(missing, "CONFIG_X|CC|B"))
		unitDiag("got '%s'", missing ? missing : "(none)");
	return unitExpect(missing && !strcmp(missing, "CONFIG_X|CC|B"));
}

static const unitCase cases[] = {
	{ "kconfig: every required option =y -> nothing missing", nothingMissing },
	{ "kconfig: unset, =m and a name that is only a prefix (D of DD) are missing: "
	  "'CONFIG_B CONFIG_CC CONFIG_D'", threeMissing },
	{ "kconfig: A|B (an option renamed between trees) is there when one name is =y", renamedAlternatives },
};

static const unitTable tables[] = { UNIT_CASES(cases) };

const unitModule unitKernel = UNIT_MODULE("kernel", NULL, NULL, tables);
