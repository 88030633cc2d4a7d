#include "guest/domain.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <stdio.h>
#include <string.h>

#include "scenario/names.h"
#include "util.h"

#define KIB(b) ((unsigned long long)(b) >> 10)

/*
 * @s as XML character data, fit for text and for an attribute quoted with '
 * or ": & < > ' " as entities, tab and line ends as character references (an
 * attribute keeps them). NULL + mhlError for what XML 1.0 cannot hold: other
 * control characters, and bytes that are not UTF-8.
 */
static char *xmlText(const char *what, const char *s)
{
	g_autoptr(GString) out = g_string_sized_new(strlen(s) + 16);
	const unsigned char *c;

	if (!g_utf8_validate(s, -1, NULL)) {
		mhlError("domain XML: %s '%s' is not UTF-8", what, s);
		return NULL;
	}
	for (c = (const unsigned char *)s; *c; c++) {
		switch (*c) {
		case '&': g_string_append(out, "&amp;"); break;
		case '<': g_string_append(out, "&lt;"); break;
		case '>': g_string_append(out, "&gt;"); break;
		case '\'': g_string_append(out, "&apos;"); break;
		case '"': g_string_append(out, "&quot;"); break;
		case '\t': case '\n': case '\r': g_string_append_printf(out, "&#%d;", *c); break;
		default:
			if (*c < 0x20) {
				mhlError("domain XML: %s holds control character 0x%02x, which XML cannot carry",
					 what, *c);
				return NULL;
			}
			g_string_append_c(out, (char)*c);
		}
	}
	return g_string_free(g_steal_pointer(&out), FALSE);
}

/*
 * <memoryBacking> for the scenario's memory_backing, or "" for anonymous
 * memory allocated on demand (libvirt's default). It covers every memory
 * backend of the guest: the cells' boot memory and the virtio-mem devices.
 * virtio-mem with prealloc: libvirt sets QEMU's virtio-mem prealloc=on, so
 * a block is populated when the guest plugs it, not the whole device at start.
 */
static char *memoryBacking(const mhlScenario *s)
{
	const mhlMemBacking *mb = mhlMemBackingOf(s->backing);
	g_autoptr(GString) b = g_string_new(NULL);

	if (mb->hugetlb)
		g_string_append_printf(b, "    <hugepages>\n      <page size='%llu' unit='KiB'/>\n    </hugepages>\n",
				       KIB(s->hugepage_size));
	g_string_append(b, mb->xml);
	if (s->prealloc)
		g_string_append(b, "    <allocation mode='immediate'/>\n");
	if (!b->len)
		return g_strdup("");
	return g_strdup_printf("  <memoryBacking>\n%s  </memoryBacking>\n", b->str);
}

/* The kernel parameters of the scenario's online policy (static strings; one buffer for the ratio). */
static const char *onlineArgs(const mhlScenario *s)
{
	static __thread char buf[160];
	const mhlOnlinePolicy *op = mhlOnlinePolicyOf(s->online);

	if (!op->ratio)
		return op->cmdline;
	g_snprintf(buf, sizeof(buf), "%s%s%.0d", op->cmdline,
		   s->online_ratio ? " memory_hotplug.auto_movable_ratio=" : "", s->online_ratio);
	return buf;
}

/* Node @i's virtio-mem device @n, appended to @vmems. */
static void vmemXML(GString *vmems, const mhlNode *n, int i)
{
	g_string_append_printf(vmems,
		"    <memory model='virtio-mem'>\n"
		"      <target%s>\n"
		"        <size unit='KiB'>%llu</size>\n"
		"        <node>%d</node>\n"
		"        <block unit='KiB'>%llu</block>\n"
		"        <requested unit='KiB'>%llu</requested>\n"
		"      </target>\n"
		"    </memory>\n",
		/* the attribute: libvirt 11.3 drops the element form unless it validates (docs/stacks.md) */
		n->vmem_dynamic ? " dynamicMemslots='yes'" : "",
		KIB(n->vmem_size), i, KIB(n->vmem_block), KIB(n->vmem_requested));
}

/*
 * The guest kernel's command line, as raw text. online: where plugged memory
 * goes (docs/scenarios.md); the pin policy's own parameters (baseline: the
 * series' test switch, on from boot; docs/kernel.md). no_timer_check, on
 * every guest: under TCG on a loaded host the boot-time check of the timer
 * through the IO-APIC can miss its ticks and the kernel panics there ("timer
 * doesn't work through Interrupt-remapped IO-APIC", seen with the vIOMMU in
 * a stock-kernel run at load 6 on 2 cores; "IO-APIC + timer doesn't work!"
 * without it, a lab 6.12 trial at load 15); the check proves nothing in a VM
 * whose timer QEMU provides. intel_iommu=on with the vIOMMU.
 * memhp_guest=1: memhp-pin's modes that configure a kernel run only where it is.
 */
static char *kernelCmdline(const mhlScenario *s)
{
	return g_strdup_printf("console=ttyS0 panic=-1 no_timer_check%s%s%s memhp_guest=1 %s",
			       onlineArgs(s), mhlPinPolicyOf(s->pin_policy)->cmdline,
			       s->iommu ? " intel_iommu=on" : "", s->cmdline);
}

/*
 * The memory the dimm and vmem steps attach while the guest runs: one slot
 * and its size for each attach (a detached device's slot may not come back
 * before the next attach), added to <maxMemory>.
 */
static int hotplugSlots(const mhlScenario *s, unsigned long long *bytes)
{
	int i, n = 0;

	for (i = 0; i < s->nsteps; i++) {
		const mhlStep *st = &s->steps[i];

		if ((st->type == MHL_STEP_DIMM || st->type == MHL_STEP_VMEM) &&
		    st->action == MHL_ACTION_ATTACH) {
			n++;
			*bytes += st->size;
		}
	}
	return n;
}

/*
 * <maxMemory>: a slot for each virtio-mem device and each device a dimm or
 * vmem step attaches, room for all of them; "" when there is none (QEMU
 * refuses slots when maxmem equals the boot memory).
 */
static char *maxMemory(const mhlScenario *s, int nvmem, unsigned long long bootb, unsigned long long vmemb)
{
	nvmem += hotplugSlots(s, &vmemb);
	return nvmem ? g_strdup_printf("  <maxMemory slots='%d' unit='KiB'>%llu</maxMemory>\n",
				       nvmem, KIB(bootb + vmemb)) : g_strdup("");
}

static bool hasReboot(const mhlScenario *s)
{
	int i;

	for (i = 0; i < s->nsteps; i++)
		if (s->steps[i].type == MHL_STEP_REBOOT)
			return true;
	return false;
}

/* Whether a hugepages step asks for 1 GiB pages: the guest CPU needs pdpe1gb for them. */
static bool wants1GPages(const mhlScenario *s)
{
	int i;

	for (i = 0; i < s->nsteps; i++)
		if (s->steps[i].type == MHL_STEP_HUGEPAGES && s->steps[i].size == MHL_HUGEPAGE_1G)
			return true;
	return false;
}

/* <cpu>'s attributes. TCG: QEMU's default model; KVM: the host CPU. */
static const char *cpuMode(const mhlScenario *s, const mhlDomainParams *p)
{
	if (!g_strcmp0(p->accel, "kvm"))
		return "mode='host-passthrough'";
	return wants1GPages(s) ? "mode='custom' match='exact' check='none'" : "";
}

/* What <cpu> holds before <numa>: 1 GiB huge pages need pdpe1gb, which TCG's default model lacks. */
static const char *cpuFeatures(const mhlScenario *s, const mhlDomainParams *p)
{
	if (!wants1GPages(s))
		return "";
	if (!g_strcmp0(p->accel, "kvm"))
		return "    <feature policy='require' name='pdpe1gb'/>\n";
	return "    <model fallback='allow'>qemu64</model>\n"
	       "    <feature policy='require' name='pdpe1gb'/>\n";
}
/*
 * devices: {balloon: true}: a virtio balloon whose free pages the guest
 * reports (QEMU 7.2's free-page-reporting: the host drops them), its
 * statistics every second (free_page_reporting: false: without); else
 * none at all. By s->balloon, then s->balloon_no_reporting.
 */
static const char *const memballoonXML[] = {
	"    <memballoon model='none'/>\n",
	"    <memballoon model='virtio' freePageReporting='on'>\n"
	"      <stats period='1'/>\n"
	"    </memballoon>\n",
	"    <memballoon model='virtio'>\n"
	"      <stats period='1'/>\n"
	"    </memballoon>\n",
};

/*
 * edu has no libvirt model: QEMU command-line passthrough, in JSON like
 * libvirt's own -device arguments (QEMU creates the others first, so edu
 * would come before the vIOMMU and bypass it), at a fixed slot, with a
 * 40-bit DMA mask so vfio-noiommu can hand it physical addresses (its
 * default 28 bits reach 256 MiB).
 */
static const char eduXML[] =
	"  <qemu:commandline>\n"
	"    <qemu:arg value='-device'/>\n"
	"    <qemu:arg value='{\"driver\":\"edu\",\"id\":\"edu0\",\"bus\":\"pcie.0\",\"addr\":\"0x10\",\"dma_mask\":1099511627775}'/>\n"
	"  </qemu:commandline>\n";

char *mhlDomainXMLBuild(const char *tmpl, const char *tmpl_name, const mhlScenario *s,
			const mhlDomainParams *p)
{
	g_autoptr(GString) cells = g_string_new(NULL);
	g_autoptr(GString) vmems = g_string_new(NULL);
	g_autofree char *cmdline = NULL, *boot = NULL, *max = NULL, *vcpus = NULL;
	g_autofree char *name = NULL, *kernel = NULL, *initrd = NULL, *emulator = NULL, *console = NULL;
	g_autofree char *runhost = xmlText("this machine's id", mhlRunHostId());
	g_autofree char *raw = kernelCmdline(s), *backing = memoryBacking(s);
	unsigned long long bootb = 0, vmemb = 0;
	int i, cpu = 0, nvmem = 0;

	for (i = 0; i < s->nnodes; i++) {
		const mhlNode *n = &s->nodes[i];
		g_autofree char *cpus = n->cpus > 1 ? g_strdup_printf("%d-%d", cpu, cpu + n->cpus - 1)
						    : g_strdup_printf("%d", cpu);

		g_string_append_printf(cells,
			"      <cell id='%d' cpus='%s' memory='%llu' unit='KiB'/>\n", i, cpus, KIB(n->memory));
		cpu += n->cpus;
		bootb += n->memory;
		if (!n->vmem_size)
			continue;
		nvmem++;
		vmemb += n->vmem_size;
		vmemXML(vmems, n, i);
	}
	/* Every value from outside goes in as text: none can add an element (a <qemu:arg>). */
	if (!runhost || !(cmdline = xmlText("the kernel command line", raw)) ||
	    !(name = xmlText("the domain name", p->name)) ||
	    !(kernel = xmlText("the kernel path", p->kernel)) ||
	    !(initrd = xmlText("the initrd path", p->initrd)) ||
	    !(emulator = xmlText("the emulator path", p->emulator)) ||
	    !(console = xmlText("the console log path", p->console_log)))
		return NULL;
	boot = g_strdup_printf("%llu", KIB(bootb));
	max = maxMemory(s, nvmem, bootb, vmemb);
	vcpus = g_strdup_printf("%d", cpu);
	{
		const char *const pairs[] = {
			"DOMTYPE", !g_strcmp0(p->accel, "kvm") ? "kvm" : "qemu",
			"NAME", name,
			"RUN_HOST", runhost,
			"BOOT_KIB", boot,
			"MAX_MEMORY", max,
			"MEMORY_BACKING", backing,
			"VCPUS", vcpus,
			"KERNEL", kernel,
			"INITRD", initrd,
			"CMDLINE", cmdline,
			"CPU_MODE", cpuMode(s, p),
			"CPU_FEATURES", cpuFeatures(s, p),
			"CELLS", cells->str,
			"EMULATOR", emulator,
			"CONSOLE_LOG", console,
			"VMEMS", vmems->str,
			/* a reboot step resets the guest under the same QEMU; else a reset stops it */
			"ON_REBOOT", hasReboot(s) ? "restart" : "destroy",
			/* devices: the intel vIOMMU needs the split I/O APIC for intremap. */
			"IOAPIC", s->iommu ? "<ioapic driver='qemu'/>" : "",
			"IOMMU", s->iommu ?
				"    <iommu model='intel'>\n"
				"      <driver intremap='on' caching_mode='on'/>\n"
				"    </iommu>\n" : "",
			"QEMU_ARGS", s->edu ? eduXML : "",
			"MEMBALLOON", memballoonXML[s->balloon + (s->balloon && s->balloon_no_reporting)],
			NULL
		};

		return mhlTemplateExpand(tmpl, pairs, tmpl_name);
	}
}

/* The unique virtio-mem <memory> element on @node; NULL + mhlError otherwise. */
static xmlNodePtr findVirtioMem(xmlDocPtr doc, int node)
{
	g_autofree char *expr = g_strdup_printf(
		"/domain/devices/memory[@model='virtio-mem'][target/node='%d']", node);
	xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
	xmlXPathObjectPtr res = ctx ? xmlXPathEvalExpression(BAD_CAST expr, ctx) : NULL;
	xmlNodePtr found = NULL;
	int n = res && res->nodesetval ? res->nodesetval->nodeNr : 0;

	if (n == 1)
		found = res->nodesetval->nodeTab[0];
	else
		mhlError("domain XML has %d virtio-mem devices on node %d (need exactly one)", n, node);
	xmlXPathFreeObject(res);
	xmlXPathFreeContext(ctx);
	return found;
}

static xmlDocPtr parseDomain(const char *domxml)
{
	xmlDocPtr doc = xmlReadMemory(domxml, (int)strlen(domxml), "domain.xml", NULL,
				      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);

	if (!doc) {
		const xmlError *e = xmlGetLastError();

		mhlError("cannot parse domain XML: %s", e && e->message ? e->message : "?");
	}
	return doc;
}

char *mhlVirtioMemUpdateXML(const char *domxml, int node, unsigned long long requested_kib)
{
	xmlDocPtr doc = parseDomain(domxml);
	xmlNodePtr mem, cur, req = NULL, target = NULL;
	xmlBufferPtr buf;
	char num[32];
	char *out = NULL;

	if (!doc)
		return NULL;
	mem = findVirtioMem(doc, node);
	if (!mem)
		goto cleanup;
	for (cur = mem->children; cur; cur = cur->next)
		if (cur->type == XML_ELEMENT_NODE && !xmlStrcmp(cur->name, BAD_CAST "target"))
			target = cur;
	if (!target) {
		mhlError("virtio-mem device on node %d has no <target>", node);
		goto cleanup;
	}
	for (cur = target->children; cur; cur = cur->next)
		if (cur->type == XML_ELEMENT_NODE && !xmlStrcmp(cur->name, BAD_CAST "requested"))
			req = cur;
	snprintf(num, sizeof(num), "%llu", requested_kib);
	if (!req)
		req = xmlNewChild(target, NULL, BAD_CAST "requested", NULL);
	xmlNodeSetContent(req, BAD_CAST num);
	xmlSetProp(req, BAD_CAST "unit", BAD_CAST "KiB");
	/* <current> is read-only state; libvirt rejects it in an update. */
	for (cur = target->children; cur; cur = cur->next) {
		if (cur->type == XML_ELEMENT_NODE && !xmlStrcmp(cur->name, BAD_CAST "current")) {
			xmlUnlinkNode(cur);
			xmlFreeNode(cur);
			break;
		}
	}
	buf = xmlBufferCreate();
	if (xmlNodeDump(buf, doc, mem, 0, 0) < 0)
		mhlError("cannot serialize the virtio-mem device XML");
	else
		out = g_strdup((const char *)xmlBufferContent(buf));
	xmlBufferFree(buf);
cleanup:
	xmlFreeDoc(doc);
	return out;
}

char *mhlVirtioMemAlias(const char *domxml, int node)
{
	xmlDocPtr doc = parseDomain(domxml);
	xmlNodePtr mem, cur;
	char *alias = NULL;

	if (!doc)
		return NULL;
	mem = findVirtioMem(doc, node);
	for (cur = mem ? mem->children : NULL; cur && !alias; cur = cur->next) {
		if (cur->type == XML_ELEMENT_NODE && !xmlStrcmp(cur->name, BAD_CAST "alias")) {
			xmlChar *n = xmlGetProp(cur, BAD_CAST "name");

			alias = g_strdup((const char *)n);
			xmlFree(n);
		}
	}
	if (mem && !alias)
		mhlError("virtio-mem device on node %d has no alias in the live XML", node);
	xmlFreeDoc(doc);
	return alias;
}

char *mhlDomainXMLConsolePty(const char *domxml)
{
	xmlDocPtr doc = parseDomain(domxml);
	xmlXPathContextPtr ctx = doc ? xmlXPathNewContext(doc) : NULL;
	xmlXPathObjectPtr res = ctx ? xmlXPathEvalExpression(BAD_CAST "/domain/devices/serial | /domain/devices/console", ctx) : NULL;
	xmlChar *out = NULL;
	char *ret = NULL;
	int i, len = 0;

	for (i = 0; res && res->nodesetval && i < res->nodesetval->nodeNr; i++) {
		xmlNodePtr dev = res->nodesetval->nodeTab[i], cur, next;

		xmlSetProp(dev, BAD_CAST "type", BAD_CAST "pty");
		for (cur = dev->children; cur; cur = next) {
			next = cur->next;
			if (cur->type == XML_ELEMENT_NODE && (!xmlStrcmp(cur->name, BAD_CAST "source") ||
							      !xmlStrcmp(cur->name, BAD_CAST "log"))) {
				xmlUnlinkNode(cur);
				xmlFreeNode(cur);
			}
		}
	}
	if (doc && (!res || !res->nodesetval || !res->nodesetval->nodeNr))
		mhlError("domain XML has no <serial> or <console> to stream the guest's console from");
	else if (doc)
		xmlDocDumpMemory(doc, &out, &len);
	if (out)
		ret = g_strndup((const char *)out, (gsize)len);
	xmlFree(out);
	xmlXPathFreeObject(res);
	xmlXPathFreeContext(ctx);
	xmlFreeDoc(doc);
	return ret;
}

char *mhlDomainXMLPtyPath(const char *livexml)
{
	xmlDocPtr doc = parseDomain(livexml);
	xmlXPathContextPtr ctx = doc ? xmlXPathNewContext(doc) : NULL;
	xmlXPathObjectPtr res = ctx ? xmlXPathEvalExpression(
		BAD_CAST "/domain/devices/serial[@type='pty']/source/@path", ctx) : NULL;
	char *ret = NULL;

	if (res && res->nodesetval && res->nodesetval->nodeNr > 0) {
		xmlChar *v = xmlNodeGetContent(res->nodesetval->nodeTab[0]);

		if (v && g_str_has_prefix((const char *)v, "/dev/pts/"))
			ret = g_strdup((const char *)v);
		xmlFree(v);
	}
	if (doc && !ret)
		mhlError("the live domain XML has no serial pty under /dev/pts/ to read the guest's console from");
	xmlXPathFreeObject(res);
	xmlXPathFreeContext(ctx);
	xmlFreeDoc(doc);
	return ret;
}
