/*
 * palette.c - the one table of plot colours (docs/reports.md, "Plots"):
 * a zone keeps its hue in every plot of every report (Movable purple,
 * Normal blue, DMA32 green, DMA orange, CMA red, other grey), and a node its
 * shade of that hue (node 0 darkest), so "node 1 Movable" is the same colour
 * in each trial's census. Host-side series and the timeline have their own
 * fixed colours here too.
 */
#include <glib.h>

#include <string.h>

#include "reports/report.h"

static const struct {
	const char *zone;
	const char *shade[MHL_PALETTE_NODES];	/* node 0, 1, 2, 3 */
} zoneColours[] = {
	{ "Movable", { "#4a148c", "#8e24aa", "#ba68c8", "#e1bee7" } },
	{ "Normal", { "#0d47a1", "#1e88e5", "#64b5f6", "#bbdefb" } },
	{ "DMA32", { "#1b5e20", "#43a047", "#81c784", "#c8e6c9" } },
	{ "DMA", { "#e65100", "#fb8c00", "#ffb74d", "#ffe0b2" } },
	{ "CMA", { "#b71c1c", "#e53935", "#e57373", "#ffcdd2" } },
	{ "other", { "#424242", "#757575", "#9e9e9e", "#e0e0e0" } },
};

const char *mhlZoneColour(const char *zone, long node)
{
	size_t i;

	if (node < 0 || node >= MHL_PALETTE_NODES)
		node = MHL_PALETTE_NODES - 1;
	for (i = 0; i < G_N_ELEMENTS(zoneColours); i++)
		if (!strcmp(zone, zoneColours[i].zone))
			return zoneColours[i].shade[node];
	return zoneColours[G_N_ELEMENTS(zoneColours) - 1].shade[node];	/* an unknown zone: "other" */
}

const char *const mhlZoneNames[] = { "Movable", "Normal", "DMA32", "DMA", "CMA", "other", NULL };

/* The verdict colours of the HTML's CSS, for plots that colour by verdict. */
const char *mhlVerdictColour(const char *verdict)
{
	static const struct { const char *v, *c; } t[] = {
		{ "pass", "#66bb6a" }, { "fail", "#e57373" }, { "error", "#ffb74d" }, { "skip", "#90caf9" },
		{ "xfail", "#9575cd" }, { "xpass", "#f06292" },
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(t); i++)
		if (!strcmp(verdict, t[i].v))
			return t[i].c;
	return "#bdbdbd";
}
