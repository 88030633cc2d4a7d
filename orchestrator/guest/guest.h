/* guest.h - what the host reads of the guest: plugged sizes, counters, console. */
#ifndef MHL_GUEST_H
#define MHL_GUEST_H

#include <glib.h>
#include <json-c/json.h>
#include <libvirt/libvirt.h>
#include <stdbool.h>

/* QMP query-memory-devices: plugged and requested bytes of node's virtio-mem. */
int mhlGuestVirtioMemSize(virDomainPtr dom, int node, unsigned long long *size,
			  unsigned long long *requested);
int mhlParseMemoryDevices(const char *reply, int node, unsigned long long *size,
			  unsigned long long *requested);

/* /proc/vmstat text -> {"name": value, ...}. */
json_object *mhlParseVmstat(const char *text);
/* /proc/zoneinfo text -> [{"node":N,"zone":"Movable","present":..,"managed":..,"free":..}]. */
json_object *mhlParseZoneinfo(const char *text);
/* "memoryN state zones" lines -> {"blocks":N,"online":N,"offline":N,"by_zone":{..}}. */
json_object *mhlParseMemoryBlocks(const char *text);

/*
 * "memtotal KIB\nonline N\n" (the guest's MemTotal and its online memory
 * blocks) -> *memtotal bytes and *online; -1 when the text is not that
 * (the guest is not trusted: each number is checked).
 */
int mhlParseMemOnline(const char *text, guint64 *memtotal, int *online);
/* The running guest's MemTotal and online memory blocks; -1 + mhlError. */
int mhlGuestMemOnline(virDomainPtr dom, guint64 *memtotal, int *online);

/* vmstat, zoneinfo and memory blocks of the running guest. */
json_object *mhlGuestSnapshot(virDomainPtr dom);

/*
 * The console scan: kernel problem reports on the serial log, on lines with
 * the kernel's "[ seconds.micros]" stamp only: WARNING:, BUG:, Oops, Kernel
 * panic, general protection fault, hung tasks, RCU stalls. The guest runs the
 * kernel under test and may print anything: the log is scanned by length
 * (a NUL is a byte like another), each line with its escape sequences and
 * control characters dropped before matching (mhlTextClean), a finding's text
 * cut to MHL_CONSOLE_TEXT_MAX bytes; and incrementally, a watcher reading only
 * what was appended since its last look.
 */
#define MHL_CONSOLE_FINDINGS_MAX 100	/* findings kept in a record; all are counted */
#define MHL_CONSOLE_TEXT_MAX 512	/* bytes of a finding's text */
#define MHL_CONSOLE_LINE_MAX 4096	/* bytes of a line scanned: a longer one by its start */

typedef struct {
	guint64 offset;		/* bytes of the log fed so far */
	int line;		/* lines ended so far (a finding's line is the next one's number) */
	gint64 count;		/* findings so far, every one */
	size_t max;		/* findings kept */
	json_object *findings;	/* the first @max: [{"line": N, "kind": "...", "text": "..."}] */
	json_object *fatal;	/* the first panic or Oops, kept or not; NULL */
	GString *partial;	/* the line being read, not yet ended (at most MHL_CONSOLE_LINE_MAX bytes) */
} mhlConsoleScanner;

/* An empty scanner keeping the first @max findings. */
void mhlConsoleScannerInit(mhlConsoleScanner *sc, size_t max);
void mhlConsoleScannerClear(mhlConsoleScanner *sc);
/*
 * Scan @len bytes that follow what was fed before; a line not yet ended waits
 * for the rest, unless @final (the log is complete).
 */
void mhlConsoleScanFeed(mhlConsoleScanner *sc, const char *text, size_t len, bool final);
/* Feed what @path holds past sc->offset. -1 when it cannot be read (not there yet). */
int mhlConsoleScanFile(mhlConsoleScanner *sc, const char *path, bool final);
/*
 * The findings for a record (a new reference): the kept ones, the first panic
 * or Oops if it was not kept, and when findings were dropped an element
 * {"kind": "omitted", "count": N, "text": "N more kernel report(s) ..."}.
 */
json_object *mhlConsoleScanFindings(const mhlConsoleScanner *sc);
/* Whether a finding of @kind (panic, oops) means the guest cannot be trusted to go on. */
bool mhlConsoleKindFatal(const char *kind);

/* The whole of NUL-terminated @text at once: every finding, as a JSON array. */
json_object *mhlConsoleScan(const char *text);

#endif
