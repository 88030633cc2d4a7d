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
/* The "return" array of a query-memory-devices reply parsed into @root (owned by it), or NULL + mhlError naming @reply. */
json_object *mhlMemoryDevicesArray(json_object *root, const char *reply);

/*
 * QEMU's memslots of a virtio-mem device with dynamic memslots (8.2 on):
 * the memslot-N names that lines of HMP `info mtree` @text map, "alias
 * memslot-N @MEMDEV ...", for backend @memdev ("memvirtiomem0"), each once
 * (every address space holding device-memory lists them). Pure.
 */
int mhlParseMemslots(const char *text, const char *memdev);
/* The same of the running guest, for node @node's virtio-mem device; -1 + mhlError. */
int mhlGuestMemslots(virDomainPtr dom, int node);

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
 * /proc/meminfo text -> the kernel-memory figures a soak follows, in bytes
 * (slab_unreclaimable_bytes, slab_reclaimable_bytes, vmalloc_bytes,
 * page_tables_bytes, percpu_bytes, kernel_stack_bytes, hugetlb_bytes,
 * mem_free_bytes, mem_available_bytes; hugepages_total a count): those the
 * text has, each bounded. Never NULL.
 */
json_object *mhlParseMeminfo(const char *text);

#define MHL_SLABINFO_MAX 1024	/* caches kept of one /proc/slabinfo */
#define MHL_SLAB_NAME_MAX 64	/* a cache's name, NUL included */
/*
 * /proc/slabinfo (version 2.x) -> {"cache": [active_objs, num_objs,
 * objsize, slab_bytes]} for every cache holding objects (slab_bytes:
 * num_slabs * pages per slab * 4 KiB);
 * names cut at 63 bytes, a byte that is not printable ASCII or is one of
 * quote, backslash, <, >, & turned into '?'; at most MHL_SLABINFO_MAX
 * caches; rows that do not parse or are out of bounds skipped. NULL +
 * mhlError when the header is not slabinfo's.
 */
json_object *mhlParseSlabinfo(const char *text);

/*
 * The guest kernel's memory in one agent round trip: {meminfo: {..},
 * block_bytes, online_blocks}; with @drop, `sync; echo 3 >
 * /proc/sys/vm/drop_caches` first and slabinfo too. NULL + mhlError.
 */
json_object *mhlGuestKernelMem(virDomainPtr dom, bool drop);
/*
 * A soak's checkpoint in the same one round trip: returns {vmstat,
 * zoneinfo} as mhlGuestSnapshot reads them (before any drop), NULL +
 * mhlError when the guest did not answer; *km mhlGuestKernelMem's object,
 * or NULL + mhlError when that part of the reply does not parse.
 */
json_object *mhlGuestCycleMem(virDomainPtr dom, bool drop, json_object **km);

#define MHL_KMEMLEAK_LINES_MAX 100000	/* lines of a report read */
#define MHL_KMEMLEAK_SITES_MAX 4096	/* distinct sites tallied */
#define MHL_KMEMLEAK_SITES_SHOWN 20	/* sites in the record, most bytes first */
#define MHL_KMEMLEAK_SCAN_DEADLINE 300	/* seconds for the guest's scans (TCG) */
/*
 * /sys/kernel/debug/kmemleak's report -> {objects, bytes, sites: [{site,
 * objects, bytes}]}: every "unreferenced object" entry counted, tallied by
 * its first backtrace frame that is not an allocator (names made of
 * [A-Za-z0-9_.$], others '?'; "?" when the trace has none). Never NULL.
 */
json_object *mhlParseKmemleak(const char *text);

/* Scan, then clear what was reported so far (boot's suspects). 0, or -1 + mhlError. */
int mhlGuestKmemleakBaseline(virDomainPtr dom);

/* Two scans, then the report's text (at most 4 MiB); NULL + mhlError. */
char *mhlGuestKmemleakReport(virDomainPtr dom);

/*
 * The console scan: kernel problem reports on the serial log, on lines with
 * the kernel's "[ seconds.micros]" stamp only: WARNING:, BUG:, Oops, Kernel
 * panic, general protection fault, hung tasks, RCU stalls. The guest runs the
 * kernel under test and may print anything: the log is scanned by length
 * (a NUL is a byte like another), and each line is matched as a terminal
 * would show it (guest/console.c): escape sequences and control characters
 * drop out, a backspace moves back one character and what follows overwrites
 * it, a carriage return goes back to the line's start; invalid UTF-8 becomes
 * U+FFFD. A line of any length is scanned whole through a window of
 * MHL_CONSOLE_LINE_MAX characters (bounded memory: text that left the window
 * is matched and no longer editable), its stamp looked for in its first
 * MHL_CONSOLE_LINE_MAX characters; one finding a line, its text cut to
 * MHL_CONSOLE_TEXT_MAX bytes; and incrementally, a watcher reading only what
 * was appended since its last look.
 */
#define MHL_CONSOLE_FINDINGS_MAX 100	/* findings kept in a record; all are counted */
#define MHL_CONSOLE_TEXT_MAX 512	/* bytes of a finding's text */
#define MHL_CONSOLE_LINE_MAX 4096	/* characters of a line held at once (its window) */

struct mhlConsoleTerm;

typedef struct {
	guint64 offset;		/* bytes of the log fed so far */
	int line;		/* lines ended so far (a finding's line is the next one's number) */
	gint64 count;		/* findings so far, every one */
	size_t max;		/* findings kept */
	json_object *findings;	/* the first @max: [{"line": N, "kind": "...", "text": "..."}] */
	json_object *fatal;	/* the first panic or Oops, kept or not; NULL */
	struct mhlConsoleTerm *term;	/* the line being read, as a terminal shows it (console.c) */
} mhlConsoleScanner;

/* An empty scanner keeping the first @max findings. */
void mhlConsoleScannerInit(mhlConsoleScanner *sc, size_t max);

/*
 * The OOM killer's line about @comm in the serial log @path ("Out of memory:
 * Killed process N (memhp-pin) ..." or an "oom-kill:" line naming it): the
 * last one in the log's last 1 MiB, cleaned and at most 240 bytes; NULL when
 * there is none (a step quotes it for a holder killed with SIGKILL).
 */
char *mhlConsoleOomLine(const char *path, const char *comm);
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
