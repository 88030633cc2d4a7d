/* domain.h - domain XML from the template, and the virtio-mem resize XML. */
#ifndef MHL_DOMAIN_H
#define MHL_DOMAIN_H

#include "scenario/scenario.h"

typedef struct {
	const char *name;
	const char *accel;	/* "kvm" or "tcg" */
	const char *kernel;	/* bzImage */
	const char *initrd;
	const char *console_log;
	const char *emulator;
} mhlDomainParams;

/* Fill the template for scenario s. NULL + mhlError on failure. */
char *mhlDomainXMLBuild(const char *tmpl, const char *tmpl_name, const mhlScenario *s,
			const mhlDomainParams *p);

/*
 * From a domain's XML, make the <memory model='virtio-mem'> device XML of the
 * device on @node with <requested> set to @requested_kib, for
 * virDomainUpdateDeviceFlags. Fails on zero or several matching devices.
 * Pure: no libvirt calls, so tests run it on saved XML.
 */
char *mhlVirtioMemUpdateXML(const char *domxml, int node, unsigned long long requested_kib);

/*
 * @domxml with its serial port and console turned into a pty (no <source>,
 * no path): for a fleet host, whose console comes back as a stream
 * (virDomainOpenConsole) rather than as a file we cannot see there. Pure.
 */
char *mhlDomainXMLConsolePty(const char *domxml);
/* The host path of the running domain's serial pty (/dev/pts/N) from its live XML; NULL + mhlError. */
char *mhlDomainXMLPtyPath(const char *livexml);

/* The alias of the virtio-mem device on @node (e.g. "virtiomem0"). */
char *mhlVirtioMemAlias(const char *domxml, int node);

#endif
