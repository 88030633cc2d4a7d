/*
 * upload.c - the kernel and the guest image reach a fleet host through
 * libvirt's storage API, never through a shared path: a directory pool on
 * the host (the run's own, "memhp-lab" under /var/lib/libvirt, created when
 * absent; or the hosts file's `pool`), one volume per file content named by
 * its SHA-256, written with virStorageVolUpload. A second volume
 * "<sha256>.ok" is made after the upload completed, so a file cut off mid
 * upload (the run killed) is sent again and a complete one never twice.
 */
#include <glib.h>

#include "fleet/fleet.h"

#include <errno.h>
#include <libvirt/virterror.h>
#include <string.h>

#include "util.h"

#define POOL_DIR "/var/lib/libvirt/memhp-lab"

/* The host's pool, started; created (persistent, autostarted) when it is ours and absent. */
static virStoragePoolPtr poolGet(mhlFleetHost *h)
{
	const char *name = h->pool ? h->pool : MHL_FLEET_POOL;
	virStoragePoolPtr p = virStoragePoolLookupByName(h->conn, name);
	g_autofree char *xml = NULL;

	if (!p && !h->pool) {
		mhlErrorReset();
		xml = g_strdup_printf("<pool type='dir'><name>%s</name><target><path>%s</path></target></pool>",
				      MHL_FLEET_POOL, POOL_DIR);
		if ((p = virStoragePoolDefineXML(h->conn, xml, 0)) &&
		    virStoragePoolBuild(p, 0) == 0)
			virStoragePoolSetAutostart(p, 1);
	}
	if (!p) {
		mhlErrorVirt("host '%s': no storage pool '%s'%s", h->uri, name,
			     h->pool ? " (the hosts file's pool)" : " and cannot create it");
		return NULL;
	}
	if (virStoragePoolIsActive(p) != 1 && virStoragePoolCreate(p, 0) < 0) {
		mhlErrorVirt("host '%s': cannot start storage pool '%s'", h->uri, name);
		virStoragePoolFree(p);
		return NULL;
	}
	virStoragePoolRefresh(p, 0);
	return p;
}

/* A raw volume @name of @bytes in @p; an old one of that name (a cut-off upload) is replaced. */
static virStorageVolPtr volCreate(mhlFleetHost *h, virStoragePoolPtr p, const char *name, gsize bytes)
{
	g_autofree char *xml = g_strdup_printf("<volume><name>%s</name><capacity unit='bytes'>%zu</capacity>"
					       "<target><format type='raw'/></target></volume>", name, (size_t)bytes);
	virStorageVolPtr v = virStorageVolLookupByName(p, name);

	if (v) {
		virStorageVolDelete(v, 0);
		virStorageVolFree(v);
	}
	mhlErrorReset();
	if (!(v = virStorageVolCreateXML(p, xml, 0)))
		mhlErrorVirt("host '%s': cannot create volume '%s'", h->uri, name);
	return v;
}

/* @data into volume @v with one stream. */
static int volWrite(mhlFleetHost *h, virStorageVolPtr v, const char *name, const char *data, gsize len)
{
	virStreamPtr st = virStreamNew(h->conn, 0);
	gsize off = 0;
	int rc = -1;

	if (!st || virStorageVolUpload(v, st, 0, len, 0) < 0) {
		mhlErrorVirt("host '%s': cannot upload to volume '%s'", h->uri, name);
		goto cleanup;
	}
	while (off < len) {
		int n = virStreamSend(st, data + off, MIN(len - off, (gsize)(1 << 20)));

		if (n < 0) {
			mhlErrorVirt("host '%s': upload of volume '%s' broke off at byte %zu of %zu",
				     h->uri, name, (size_t)off, (size_t)len);
			virStreamAbort(st);
			goto cleanup;
		}
		off += (gsize)n;
	}
	if (virStreamFinish(st) < 0) {
		mhlErrorVirt("host '%s': upload of volume '%s' did not finish", h->uri, name);
		goto cleanup;
	}
	rc = 0;
cleanup:
	if (st)
		virStreamFree(st);
	return rc;
}

/* "<sha256>-<basename>", or its path on the host when it and its mark are there already. */
static char *volUpload(mhlFleetHost *h, virStoragePoolPtr p, const char *path)
{
	g_autofree char *data = NULL, *sum = NULL, *base = g_path_get_basename(path), *name = NULL, *ok = NULL;
	g_autoptr(GError) err = NULL;
	virStorageVolPtr v, m;
	char *out = NULL;
	gsize len;

	if (!g_file_get_contents(path, &data, &len, &err)) {
		mhlError("cannot read '%s' to upload it to host '%s': %s", path, h->uri, err->message);
		return NULL;
	}
	sum = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)data, len);
	g_strcanon(base, G_CSET_A_2_Z G_CSET_a_2_z G_CSET_DIGITS "._-", '_');
	name = g_strdup_printf("%s-%s", sum, base);
	ok = g_strdup_printf("%s.ok", sum);
	if ((m = virStorageVolLookupByName(p, ok)) && (v = virStorageVolLookupByName(p, name))) {
		out = virStorageVolGetPath(v);
		virStorageVolFree(v);
		virStorageVolFree(m);
		mhlErrorReset();
		return out;
	}
	if (m)
		virStorageVolFree(m);
	mhlErrorReset();
	if (!(v = volCreate(h, p, name, len)))
		return NULL;
	if (volWrite(h, v, name, data, len) == 0 && (m = volCreate(h, p, ok, 0))) {
		virStorageVolFree(m);
		if (!(out = virStorageVolGetPath(v)))
			mhlErrorVirt("host '%s': volume '%s' has no path", h->uri, name);
	}
	virStorageVolFree(v);
	return out;
}

char *mhlFleetUpload(mhlFleetHost *h, const char *path)
{
	virStoragePoolPtr p;
	char *out;

	pthread_mutex_lock(&h->upload_lock);	/* one upload at a time per host: each file goes once */
	if ((out = g_strdup(g_hash_table_lookup(h->uploaded, path)))) {
		pthread_mutex_unlock(&h->upload_lock);
		return out;
	}
	if ((p = poolGet(h))) {
		out = volUpload(h, p, path);
		virStoragePoolFree(p);
	}
	if (out)
		g_hash_table_insert(h->uploaded, g_strdup(path), g_strdup(out));
	pthread_mutex_unlock(&h->upload_lock);
	return out;
}
