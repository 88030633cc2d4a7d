/*
 * scale.h - the scale section of index.html (issue 36, item 5; docs/host.md
 * "Scale"): the trials that plug a virtio-mem device from 0 and take it all
 * back, as a table and a log-log plot of seconds against the device's size,
 * with what the host held: the device's backend before and after the unplug
 * and QEMU's resident set before the plug, at its peak and after.
 */
#ifndef MHL_REPORTS_SCALE_H
#define MHL_REPORTS_SCALE_H

#include <glib.h>

#include "reports/report.h"

/* One trial: its first resize grew a device from 0, its last took it back to 0. */
typedef struct {
	char *trial;		/* record text: escaped by the writer */
	gint64 device_bytes;	/* the first grow's plug.plugged_bytes */
	gint64 in_use_bytes;	/* the pin steps' workload.bytes_asked, added up */
	double plug_s, online_s, unplug_s;	/* request -> plugged, -> online; the unplug's seconds_to_converge */
	gint64 backend_before, backend_after;	/* the unplug's host side: the backends' bytes (-1: not read) */
	gint64 rss_before, rss_peak, rss_after;	/* QEMU's RSS: before the plug, the most any sample saw, after the unplug (-1) */
} mhlScalePoint;

/* The run's scale points, in record order; empty when none (g_ptr_array_unref it). */
GPtrArray *mhlScalePoints(const mhlRun *run);
/* The plot's settings, data and plot command into @sc, after mhlPlotBegin. */
void mhlScaleGnuplot(GPtrArray *pts, GString *sc);
/* The section: heading, table, then plot @plot of @dir (mhlPlotInline). */
void mhlHtmlScale(GString *out, GPtrArray *pts, const char *dir, const char *plot);

#endif
