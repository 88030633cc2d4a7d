/*
 * tests/unit/domain.c - the libvirt domain XML (orchestrator/guest/domain.h):
 * the virtio-mem update XML of a resize, a device's alias, and the domain
 * built from domains/numa-virtio-mem.xml for a scenario.
 */
#include <glib.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>

#include <string.h>

#include "guest/domain.h"
#include "scenario/scenario.h"
#include "unit.h"
#include "util.h"

static const char liveXML[] =
	"<domain type='qemu'><name>t</name><devices>"
	"<memory model='virtio-mem'><target><size unit='KiB'>1048576</size><node>1</node>"
	"<block unit='KiB'>2048</block><requested unit='KiB'>1048576</requested>"
	"<current unit='KiB'>1048576</current></target><alias name='virtiomem0'/></memory>"
	"</devices></domain>";

static bool resizeRequested(void)
{
	g_autofree char *dev = mhlVirtioMemUpdateXML(liveXML, 1, 0);

	return unitExpect(dev && strstr(dev, "<requested unit=\"KiB\">0</requested>") && !strstr(dev, "<current"));
}

static bool resizeKeepsNode(void)
{
	g_autofree char *dev = mhlVirtioMemUpdateXML(liveXML, 1, 0);

	return unitExpect(dev && strstr(dev, "<node>1</node>") && strstr(dev, "virtiomem0"));
}

static bool alias(void)
{
	g_autofree char *alias = mhlVirtioMemAlias(liveXML, 1);

	return unitExpect(alias && !strcmp(alias, "virtiomem0"));
}

static bool resizeNoDevice(void)
{
	g_autofree char *none = mhlVirtioMemUpdateXML(liveXML, 0, 0);

	return unitExpect(!none && strstr(mhlErrorLast(), "0 virtio-mem devices on node 0"));
}

static bool resizeTwoDevices(void)
{
	g_autofree char *two = g_strdup_printf("%.*s%s", (int)(strstr(liveXML, "</devices>") - liveXML),
					       liveXML, strstr(liveXML, "<memory"));
	g_autofree char *twice = mhlVirtioMemUpdateXML(two, 1, 0);

	return unitExpect(!twice && strstr(mhlErrorLast(), "2 virtio-mem devices"));
}

static bool resizeBrokenXML(void)
{
	g_autofree char *bad = mhlVirtioMemUpdateXML("<domain", 1, 0);

	return unitExpect(!bad && strstr(mhlErrorLast(), "cannot parse"));
}

/* The domain XML of @scenario from the shipped template, for a TCG guest; NULL on failure. */
static char *domainXML(const char *scenario)
{
	g_autofree char *tmpl = mhlFileRead("domains/numa-virtio-mem.xml", NULL);
	g_autoptr(mhlScenario) s = mhlScenarioLoad(scenario);
	mhlDomainParams p = { "n", "tcg", "/k", "/i", "/c.log", "/usr/bin/qemu-system-x86_64" };

	if (!tmpl || !s) {
		unitDiag("cannot load the template or %s: %s", scenario, mhlErrorLast());
		return NULL;
	}
	return mhlDomainXMLBuild(tmpl, "numa-virtio-mem.xml", s, &p);
}

static bool demoNode1(void)
{
	g_autofree char *xml = domainXML("scenarios/demo.yaml");

	return unitExpect(xml && strstr(xml, "<cell id='1' cpus='1' memory='131072' unit='KiB'/>") &&
			  strstr(xml, "<requested unit='KiB'>1048576</requested>") &&
			  strstr(xml, "memhp_default_state=online_movable") && strstr(xml, "type='qemu'"));
}

/* The domain says which machine's memhp-lab created it: cleanup judges its run's pid only there. */
static bool demoRunHost(void)
{
	g_autofree char *xml = domainXML("scenarios/demo.yaml");
	g_autofree char *want = g_strdup_printf("<memhp:run xmlns:memhp='%s' host='%s'/>", MHL_RUN_METADATA_NS, mhlRunHostId());

	return unitExpect(xml && strstr(xml, "<metadata>") && strstr(xml, want));
}

static bool demoNoDevices(void)
{
	g_autofree char *xml = domainXML("scenarios/demo.yaml");

	return unitExpect(xml && !strstr(xml, "<iommu") && !strstr(xml, "<qemu:commandline") &&
			  !strstr(xml, "intel_iommu"));
}

static bool vfioDevices(void)
{
	g_autofree char *xml = domainXML("scenarios/pin-vfio.yaml");
	xmlDocPtr doc = xml ? xmlReadMemory(xml, (int)strlen(xml), "d.xml", NULL,
					    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING) : NULL;
	bool ok = doc && strstr(xml, "<iommu model='intel'>") && strstr(xml, "intremap='on'") &&
		  strstr(xml, "<ioapic driver='qemu'/>") && strstr(xml, "intel_iommu=on") &&
		  strstr(xml, "xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'") &&
		  strstr(xml, "<qemu:arg value='{\"driver\":\"edu\"");

	xmlFreeDoc(doc);
	return unitExpect(ok);
}

/* The string value of XPath @expr in @doc, or NULL. */
static char *xpathString(xmlDocPtr doc, const char *expr)
{
	xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
	xmlXPathObjectPtr res = ctx ? xmlXPathEvalExpression(BAD_CAST expr, ctx) : NULL;
	xmlChar *v = res ? xmlXPathCastToString(res) : NULL;
	char *out = g_strdup((const char *)v);

	xmlFree(v);
	xmlXPathFreeObject(res);
	xmlXPathFreeContext(ctx);
	return out;
}

/*
 * A cmdline (or a run directory) with XML's special characters: the domain
 * is well-formed, the text comes back exactly, and nothing becomes markup
 * (a <qemu:commandline> would add QEMU arguments, QEMU running as root).
 */
static const char cmdlineEvil[] = "x<y & \"q\" </cmdline><qemu:commandline>";

static bool cmdlineEscaped(void)
{
	g_autofree char *yaml = g_strdup_printf("name: x\ncmdline: '%s'\nnodes:\n  - memory: 1G\n", cmdlineEvil);
	g_autofree char *path = unitWriteTmp("evil.yaml", yaml);
	g_autofree char *tmpl = mhlFileRead("domains/numa-virtio-mem.xml", NULL);
	g_autoptr(mhlScenario) s = mhlScenarioLoad(path);
	mhlDomainParams p = { "n", "tcg", "/k", "/i", "/r/it's \"o\" & <d>/c.log", "/usr/bin/qemu-system-x86_64" };
	g_autofree char *xml = s && tmpl ? mhlDomainXMLBuild(tmpl, "numa-virtio-mem.xml", s, &p) : NULL;
	g_autofree char *want = g_strdup_printf("console=ttyS0 panic=-1 no_timer_check memhp_default_state=online_movable memhp_guest=1 %s", cmdlineEvil);
	xmlDocPtr doc = xml ? xmlReadMemory(xml, (int)strlen(xml), "d.xml", NULL,
					    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING) : NULL;
	g_autofree char *cmdline = doc ? xpathString(doc, "string(/domain/os/cmdline)") : NULL;
	g_autofree char *qemu = doc ? xpathString(doc, "count(//*[local-name()='commandline' or local-name()='arg'])") : NULL;
	g_autofree char *serial = doc ? xpathString(doc, "string(/domain/devices/serial/source/@path)") : NULL;
	bool ok = doc && !g_strcmp0(cmdline, want) && !g_strcmp0(qemu, "0") && !g_strcmp0(serial, p.console_log);

	if (!ok)
		unitDiag("parsed %s; cmdline '%s', qemu elements %s, serial '%s' (%s)", doc ? "yes" : "no",
			 cmdline, qemu, serial, s ? "" : mhlErrorLast());
	xmlFreeDoc(doc);
	return unitExpect(ok);
}

/* A fleet host's guest: the template's file console turned into a pty, no path left. */
static bool consolePty(void)
{
	static const char xml[] =
		"<domain type='qemu'><name>t</name><devices>"
		"<serial type='file'><source path='/run/dir/t.console.log'/><target port='0'/></serial>"
		"<console type='file'><source path='/run/dir/t.console.log'/><target type='serial' port='0'/></console>"
		"<channel type='unix'><target type='virtio' name='org.qemu.guest_agent.0'/></channel>"
		"</devices></domain>";
	g_autofree char *pty = mhlDomainXMLConsolePty(xml);
	g_autofree char *none = mhlDomainXMLConsolePty("<domain><devices/></domain>");

	return unitExpect(pty && strstr(pty, "<serial type=\"pty\">") && strstr(pty, "<console type=\"pty\">") &&
			  !strstr(pty, "console.log") && strstr(pty, "org.qemu.guest_agent.0") && !none &&
			  strstr(mhlErrorLast(), "no <serial> or <console>"));
}

static const unitCase cases[] = {
	{ "resize XML: requested set to 0 KiB, <current> dropped", resizeRequested },
	{ "resize XML: keeps node and alias so libvirt finds the device", resizeKeepsNode },
	{ "alias of node 1's virtio-mem is virtiomem0", alias },
	{ "resize XML: no device on the node is an error saying so", resizeNoDevice },
	{ "resize XML: two matches is an error", resizeTwoDevices },
	{ "resize XML: broken XML is an error", resizeBrokenXML },
	{ "domain XML of the demo: node 1 cell, virtio-mem requested, online_movable, TCG", demoNode1 },
	{ "domain XML of the demo: no vIOMMU, no edu", demoNoDevices },
	{ "domain XML of the demo: its metadata names this machine (memhp:run host, /etc/machine-id)", demoRunHost },
	{ "domain XML with devices {iommu, edu}: well-formed, intel vIOMMU + split I/O APIC + "
	  "intel_iommu=on, edu as a JSON -device", vfioDevices },
	{ "domain XML: cmdline 'x<y & \"q\" </cmdline><qemu:commandline>' and a run dir with ' \" & < >: "
	  "well-formed, the exact text back, no qemu:commandline added", cmdlineEscaped },
	{ "fleet host: the serial port and console become a pty with no path; a domain without either is an error",
	  consolePty },
};

static const unitTable tables[] = { UNIT_CASES(cases) };

const unitModule unitDomain = UNIT_MODULE("domain", NULL, NULL, tables);
