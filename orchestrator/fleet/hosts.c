/*
 * hosts.c - the hosts of a fleet run: --host URI (repeatable) or --hosts
 * FILE, a YAML list of {uri, slots, labels, pool}; and how many guests each
 * may run at once.
 */
#include <glib.h>

#include "fleet/fleet.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "scenario/names.h"
#include "scenario/scenario.h"
#include "util.h"

#define HOSTS_FILE_MAX (64 << 10)	/* bytes: a list of hosts, not a document */

void mhlFleetHostFree(mhlFleetHost *h)
{
	if (!h)
		return;
	if (h->conn)
		virConnectClose(h->conn);
	g_free(h->uri);
	g_strfreev(h->labels);
	g_free(h->pool);
	g_free(h->lost);
	if (h->uploaded)
		g_hash_table_unref(h->uploaded);
	if (h->parts)
		g_hash_table_unref(h->parts);
	pthread_mutex_destroy(&h->lock);
	pthread_mutex_destroy(&h->upload_lock);
	g_free(h);
}

static mhlFleetHost *hostNew(const char *uri, int line)
{
	mhlFleetHost *h = g_new0(mhlFleetHost, 1);

	h->uri = g_strdup(uri);
	h->line = line;
	pthread_mutex_init(&h->lock, NULL);
	pthread_mutex_init(&h->upload_lock, NULL);
	h->uploaded = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	h->parts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	return h;
}

/*
 * How a fleet host is reached: the QEMU driver, locally or through one of
 * these transports. Not qemu+ext (libvirt runs the URI's command= as the
 * connection) nor any other driver.
 */
static const char *const hostSchemes[] = { "qemu", "qemu+ssh", "qemu+libssh", "qemu+tls", "qemu+tcp", "qemu+unix", NULL };

/* 1 to 255 of @set, the first not '-' (ssh would take it for an option). */
static bool hostPartOk(const char *s, const char *set)
{
	size_t n = strlen(s);

	return n && n <= 255 && s[0] != '-' && strspn(s, set) == n;
}

/*
 * Whether @uri is a libvirt URI a fleet host may have (docs/fleet.md): a
 * scheme of hostSchemes, [USER@]HOST[:PORT] of plain names, the path
 * /system or /session (never /embed: no storage pool to upload into), and
 * no query parameter but socket=ABSOLUTE-PATH with qemu+unix. libvirt
 * reads its parameters case-insensitively, split at '&' and ';',
 * percent-decoded: so are they here. The rest of libvirt's remote
 * parameters (command, netcat, keyfile, no_verify, known_hosts, sshauth,
 * pkipath, ...) change what runs or what is verified: refused, naming the
 * parameter. 0, or -1 + mhlError naming @where.
 */
static int hostUriOk(const char *uri, const char *where)
{
	g_autoptr(GUri) u = NULL;
	g_autoptr(GError) err = NULL;
	GUriParamsIter it;
	const char *c, *scheme, *host, *user, *path, *query;
	char *name = NULL, *value = NULL;
	bool unix_ = false;
	size_t i;

	for (c = uri; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f || *c == ' ')
			break;
	if (*c || !strstr(uri, "://") || !(u = g_uri_parse(uri, G_URI_FLAGS_ENCODED_QUERY, &err))) {
		mhlError("%s: '%s' is not a libvirt URI (e.g. qemu+ssh://HOST/system)", where, uri);
		return -1;
	}
	scheme = g_uri_get_scheme(u);
	for (i = 0; hostSchemes[i] && g_ascii_strcasecmp(scheme, hostSchemes[i]); i++)
		;
	if (!hostSchemes[i]) {
		mhlError("%s: '%s': transport '%s' is not one a fleet host is reached by (qemu, qemu+ssh, qemu+libssh, qemu+tls, qemu+tcp, qemu+unix)",
			 where, uri, scheme);
		return -1;
	}
	unix_ = !g_ascii_strcasecmp(scheme, "qemu+unix");
	host = g_uri_get_host(u) ? g_uri_get_host(u) : "";
	user = g_uri_get_userinfo(u);
	path = g_uri_get_path(u);
	if (!g_ascii_strcasecmp(path, "/embed")) {
		mhlError("%s: '%s': an embedded driver (qemu:///embed) is not a fleet host: it has no storage pool to receive the kernel and guest image, and no daemon that outlives this process; a fleet host is a libvirt daemon with a storage pool (e.g. qemu:///system, qemu+ssh://HOST/system; docs/fleet.md). To run here with an embedded driver, leave out --host/--hosts",
			 where, uri);
		return -1;
	}
	if (g_uri_get_fragment(u) || (user && !hostPartOk(user, G_CSET_A_2_Z G_CSET_a_2_z G_CSET_DIGITS "._-")) ||
	    (*host && !hostPartOk(host, G_CSET_A_2_Z G_CSET_a_2_z G_CSET_DIGITS ".:-")) || (unix_ && *host) ||
	    (!*host && i > 0 && !unix_) || (strcmp(path, "/system") && strcmp(path, "/session"))) {
		mhlError("%s: '%s': expected %s://[USER@]HOST[:PORT]/system (a user and host of letters, digits, '.', '-'; no password or fragment)",
			 where, uri, scheme);
		return -1;
	}
	if (!(query = g_uri_get_query(u)))
		return 0;
	g_uri_params_iter_init(&it, query, -1, "&;", G_URI_PARAMS_NONE);
	while (g_uri_params_iter_next(&it, &name, &value, &err)) {
		g_autofree char *n = name, *v = value;

		if (unix_ && !g_ascii_strcasecmp(n, "socket") && g_path_is_absolute(v) && !strpbrk(v, "\n\r\t")) {
			name = value = NULL;
			continue;
		}
		mhlError("%s: '%s': the query parameter '%s' is not one a fleet host takes (only socket=/PATH with qemu+unix; ssh options go in ~/.ssh/config, docs/fleet.md)",
			 where, uri, n);
		return -1;
	}
	if (err) {
		mhlError("%s: '%s': its query does not parse: %s", where, uri, err->message);
		return -1;
	}
	return 0;
}

/* A URI we can hand to virConnectOpen (hostUriOk), and not twice. */
static int hostAdd(GPtrArray *out, mhlFleetHost *h, const char *where)
{
	guint i;

	if (hostUriOk(h->uri, where) < 0) {
		mhlFleetHostFree(h);
		return -1;
	}
	for (i = 0; i < out->len; i++) {
		if (!strcmp(((mhlFleetHost *)out->pdata[i])->uri, h->uri)) {
			mhlError("%s: host '%s' is named twice", where, h->uri);
			mhlFleetHostFree(h);
			return -1;
		}
	}
	if (out->len >= MHL_FLEET_MAX_HOSTS) {
		mhlError("%s: more than %d hosts", where, MHL_FLEET_MAX_HOSTS);
		mhlFleetHostFree(h);
		return -1;
	}
	g_ptr_array_add(out, h);
	return 0;
}

#define AT(path, n) (path), (int)(n)->start_mark.line + 1, (int)(n)->start_mark.column + 1

/* labels: [a, b]: names of [A-Za-z0-9._-]. */
static int labelsParse(const char *path, yaml_document_t *doc, yaml_node_t *v, mhlFleetHost *h)
{
	g_autoptr(GPtrArray) l = g_ptr_array_new_with_free_func(g_free);
	yaml_node_item_t *it;

	if (v->type != YAML_SEQUENCE_NODE) {
		mhlError("%s:%d:%d: labels must be a list of names", AT(path, v));
		return -1;
	}
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *n = yaml_document_get_node(doc, *it);
		const char *s = n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : "";

		if (!*s || strspn(s, G_CSET_A_2_Z G_CSET_a_2_z G_CSET_DIGITS "._-") != strlen(s) || strlen(s) > 64) {
			mhlError("%s:%d:%d: a label is 1 to 64 of [A-Za-z0-9._-]", AT(path, n));
			return -1;
		}
		g_ptr_array_add(l, g_strdup(s));
	}
	g_ptr_array_add(l, NULL);
	h->labels = (char **)g_ptr_array_free(g_steal_pointer(&l), FALSE);
	return 0;
}

/* The keys of a host in the file, uri required. */
enum { HOST_URI, HOST_SLOTS, HOST_LABELS, HOST_POOL };
static const char *const hostKeys[] = { [HOST_URI] = "uri", [HOST_SLOTS] = "slots", [HOST_LABELS] = "labels",
					[HOST_POOL] = "pool" };

/* One host of the file: a mapping with uri and optional slots, labels, pool. */
static int hostParse(const char *path, yaml_document_t *doc, yaml_node_t *m, GPtrArray *out)
{
	g_autoptr(mhlFleetHost) h = hostNew("", (int)m->start_mark.line + 1);
	g_autofree char *where = NULL, *known = mhlNamesKnown(hostKeys);
	yaml_node_pair_t *p;

	if (m->type != YAML_MAPPING_NODE) {
		mhlError("%s:%d:%d: a host must be a mapping {%s}", AT(path, m), known);
		return -1;
	}
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key), *v = yaml_document_get_node(doc, p->value);
		const char *key = k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "";
		const char *val = v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : NULL;
		int which = mhlNameIndex(hostKeys, key);
		char *end;

		if (which == HOST_LABELS) {
			if (labelsParse(path, doc, v, h) < 0)
				return -1;
			continue;
		}
		if (which < 0) {
			mhlError("%s:%d:%d: unknown key '%s' in a host (known: %s)", AT(path, k), key, known);
			return -1;
		}
		if (!val || !*val) {
			mhlError("%s:%d:%d: %s must be a scalar", AT(path, v), key);
			return -1;
		}
		if (which == HOST_URI) {
			g_free(h->uri);
			h->uri = g_strdup(val);
		} else if (which == HOST_POOL) {
			if (!mhlFleetPoolNameValid(val)) {
				mhlError("%s:%d:%d: pool: not a storage pool name ([A-Za-z0-9._-], 1 to 64 of them, not starting with '.' or '-')",
					 AT(path, v));
				return -1;
			}
			g_free(h->pool);
			h->pool = g_strdup(val);
		} else if ((h->max_slots = (int)strtol(val, &end, 10)) < 1 || h->max_slots > 64 || *end) {
			mhlError("%s:%d:%d: slots: '%s' is not a number of guests in [1, 64]", AT(path, v), val);
			return -1;
		}
	}
	if (!*h->uri) {
		mhlError("%s:%d:%d: a host needs 'uri'", AT(path, m));
		return -1;
	}
	where = g_strdup_printf("%s:%d", path, h->line);
	return hostAdd(out, g_steal_pointer(&h), where);
}

static int hostsFileParse(const char *path, yaml_document_t *doc, GPtrArray *out)
{
	yaml_node_t *root = yaml_document_get_root_node(doc), *list = NULL;
	yaml_node_item_t *it;

	if (root && root->type == YAML_MAPPING_NODE && root->data.mapping.pairs.top - root->data.mapping.pairs.start == 1) {
		yaml_node_pair_t *p = root->data.mapping.pairs.start;
		yaml_node_t *k = yaml_document_get_node(doc, p->key);

		if (k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, "hosts"))
			list = yaml_document_get_node(doc, p->value);
	}
	if (!list || list->type != YAML_SEQUENCE_NODE || list->data.sequence.items.top == list->data.sequence.items.start) {
		mhlError("%s: expected 'hosts:' with a list of hosts ({uri, slots, labels, pool})", path);
		return -1;
	}
	for (it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++)
		if (hostParse(path, doc, yaml_document_get_node(doc, *it), out) < 0)
			return -1;
	return 0;
}

static int hostsFileLoad(const char *path, GPtrArray *out)
{
	g_autofree char *buf = NULL;
	g_autoptr(GError) err = NULL;
	yaml_document_t doc;
	gsize len;
	int rc;

	if (!g_file_get_contents(path, &buf, &len, &err)) {
		mhlError("--hosts: cannot read '%s': %s", path, err->message);
		return -1;
	}
	if (len > HOSTS_FILE_MAX) {
		mhlError("--hosts: '%s' is %zu bytes; a hosts file is at most %d", path, (size_t)len, HOSTS_FILE_MAX);
		return -1;
	}
	if (mhlYamlLoad(path, buf, len, &doc) < 0)
		return -1;
	rc = hostsFileParse(path, &doc, out);
	yaml_document_delete(&doc);
	return rc;
}

int mhlFleetHostsParse(const char *uris, const char *file, GPtrArray *out)
{
	g_auto(GStrv) list = uris ? g_strsplit(uris, "\n", -1) : NULL;
	int i;

	if (file && hostsFileLoad(file, out) < 0)
		return -1;
	for (i = 0; list && list[i]; i++)
		if (hostAdd(out, hostNew(list[i], 0), "--host") < 0)
			return -1;
	return 0;
}

bool mhlFleetHostHasLabels(const mhlFleetHost *h, char *const *want)
{
	int i;

	for (i = 0; want && want[i]; i++)
		if (!h->labels || !g_strv_contains((const char *const *)h->labels, want[i]))
			return false;
	return true;
}

int mhlFleetSlots(const mhlFleetHost *h, uint64_t need_bytes, int jobs)
{
	uint64_t fit = need_bytes ? h->avail_bytes / need_bytes : 0;
	int n = (int)MIN(fit, (uint64_t)MAX(h->cores, 1));

	if (h->max_slots)
		n = MIN(n, h->max_slots);
	if (jobs)
		n = MIN(n, jobs);
	return n;
}
