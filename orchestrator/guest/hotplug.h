/*
 * hotplug.h - memory devices attached to and detached from a running guest
 * (the dimm and vmem steps): the device XML, what QEMU says of a DIMM, the
 * guest's memory blocks over a DIMM's range, and libvirt's removal events.
 */
#ifndef MHL_GUEST_HOTPLUG_H
#define MHL_GUEST_HOTPLUG_H

#include <json-c/json.h>
#include <libvirt/libvirt.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * The libvirt alias of the device a dimm or vmem step names @id: a user
 * alias ("ua-" prefix, which libvirt keeps as given), "ua-dimm-ID" or
 * "ua-vmem-ID". Newly allocated.
 */
char *mhlHotplugAlias(const char *kind, const char *id);

/*
 * The <memory> device XML of a DIMM (@block 0) or a virtio-mem device of
 * @size bytes on guest node @node with alias @alias (checked: [A-Za-z0-9_-]
 * after "ua-"). Newly allocated.
 */
char *mhlHotplugXML(const char *alias, int node, uint64_t size, uint64_t block, uint64_t requested);

/* What QEMU says of a DIMM (query-memory-devices): its slot, base address, size and node. */
typedef struct {
	int slot;
	uint64_t addr;
	uint64_t size;
	int node;
} mhlDimmInfo;

/* The DIMM whose id is @alias in a query-memory-devices reply; -1 + mhlError. Pure. */
int mhlParseDimm(const char *reply, const char *alias, mhlDimmInfo *out);
int mhlGuestDimm(virDomainPtr dom, const char *alias, mhlDimmInfo *out);

/*
 * The guest's memory blocks within [@base, @base + @size): from "B\n" (its
 * block_size_bytes, hex) then "memoryN STATE ZONES..." lines, as
 * [{block, state, valid_zones}] (guest text, cleaned; lines that are not
 * that are skipped). NULL + mhlError when the block size is not a number.
 */
json_object *mhlParseBlocksRange(const char *text, uint64_t base, uint64_t size);
json_object *mhlGuestBlocksRange(virDomainPtr dom, uint64_t base, uint64_t size);

#endif
