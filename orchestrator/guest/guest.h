/* guest.h - what the host reads of the guest: plugged sizes, counters, console. */
#ifndef MHL_GUEST_H
#define MHL_GUEST_H

#include <json-c/json.h>
#include <libvirt/libvirt.h>

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

/* vmstat, zoneinfo and memory blocks of the running guest. */
json_object *mhlGuestSnapshot(virDomainPtr dom);

/*
 * Scan a console log for kernel problem reports (lines with the kernel's
 * "[ seconds.micros]" prefix only): WARNING:, BUG:, Oops, Kernel panic,
 * general protection fault, hung tasks, RCU stalls. Returns a JSON array of
 * {"line": N, "kind": "...", "text": "..."}.
 */
json_object *mhlConsoleScan(const char *text);

#endif
