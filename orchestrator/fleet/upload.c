/*
 * upload.c - the kernel and the guest image reach a fleet host through
 * libvirt's storage API, never through a shared path: a directory pool on
 * the host (the run's own, "memhp-lab" under /var/lib/libvirt, created when
 * absent; or the hosts file's `pool`), one volume per file content named by
 * its SHA-256, "<sha256>-<basename>", and a second volume "<sha256>.ok" made
 * once it is complete.
 *
 * Runs may share a pool (two orchestrators, or a run and its --resume), so
 * a run never deletes or rewrites a volume it did not create (issue 30,
 * finding 18): it uploads into a volume of its own, "<sha256>.part-<time>-
 * <pid>-<n>", clones that into the final name when that is free, marks it
 * .ok and deletes its part. A final volume with its .ok is reused only after
 * its content is read back and hashed: a volume cut off, or changed since,
 * is not the file. Where the final name is taken by something that is not
 * the file (another run's clone in progress, a damaged volume), this run
 * boots from its own part, which it deletes at the end (mhlFleetUploadsEnd).
 * Parts of dead runs are deleted a day after their time.
 *
 * Files are read and sent in chunks (1 MiB): nothing is held whole.
 */
#include <glib.h>

#include "fleet/fleet.h"

#include <errno.h>
#include <fcntl.h>
#include <libvirt/virterror.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#define POOL_DIR "/var/lib/libvirt/memhp-lab"
#define CHUNK (1 << 20)
#define PART_MAX_AGE (24 * 3600)	/* a dead run's part volume is deleted after a day */

bool mhlFleetPoolNameValid(const char *name)
{
	size_t i, n = name ? strlen(name) : 0;

	if (!n || n > 64 || name[0] == '.' || name[0] == '-')
		return false;
	for (i = 0; i < n; i++)
		if (!g_ascii_isalnum(name[i]) && !strchr("._-", name[i]))
			return false;
	return true;
}

/* The SHA-256 of @path, read in chunks, and its size; NULL + mhlError. */
static char *fileHash(const char *path, const char *uri, guint64 *size)
{
	g_autoptr(GChecksum) ck = g_checksum_new(G_CHECKSUM_SHA256);
	g_autofree guchar *buf = g_malloc(CHUNK);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	*size = 0;
	if (fd < 0) {
		mhlError("cannot read '%s' to upload it to host '%s': %s", path, uri, g_strerror(errno));
		return NULL;
	}
	while ((n = read(fd, buf, CHUNK)) > 0) {
		g_checksum_update(ck, buf, n);
		*size += (guint64)n;
	}
	if (n < 0) {
		mhlError("cannot read '%s' to upload it to host '%s': %s", path, uri, g_strerror(errno));
		close(fd);
		return NULL;
	}
	close(fd);
	return g_strdup(g_checksum_get_string(ck));
}

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

/* The XML of a raw volume @name of @bytes (@name: hex digits, '.', '-' and a canonical base name). */
static char *volXml(const char *name, guint64 bytes)
{
	return g_strdup_printf("<volume><name>%s</name><capacity unit='bytes'>%" G_GUINT64_FORMAT
			       "</capacity><target><format type='raw'/></target></volume>", name, bytes);
}

/* A new raw volume @name of @bytes in @p (never one that exists: creating it fails then). */
static virStorageVolPtr volCreate(mhlFleetHost *h, virStoragePoolPtr p, const char *name, guint64 bytes)
{
	g_autofree char *xml = volXml(name, bytes);
	virStorageVolPtr v = virStorageVolCreateXML(p, xml, 0);

	if (!v)
		mhlErrorVirt("host '%s': cannot create volume '%s'", h->uri, name);
	return v;
}

/* @path into volume @v, a chunk at a time, with one stream. */
static int volWrite(mhlFleetHost *h, virStorageVolPtr v, const char *name, const char *path, guint64 len)
{
	virStreamPtr st = virStreamNew(h->conn, 0);
	g_autofree char *buf = g_malloc(CHUNK);
	guint64 off = 0;
	int fd = -1, rc = -1;

	if (!st || virStorageVolUpload(v, st, 0, len, 0) < 0) {
		mhlErrorVirt("host '%s': cannot upload to volume '%s'", h->uri, name);
		goto cleanup;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		mhlError("cannot read '%s' to upload it to host '%s': %s", path, h->uri, g_strerror(errno));
		virStreamAbort(st);
		goto cleanup;
	}
	while (off < len) {
		ssize_t got = read(fd, buf, (size_t)MIN(len - off, (guint64)CHUNK)), sent = 0;

		if (got <= 0) {
			mhlError("'%s' changed while it was uploaded to host '%s' (%s at byte %" G_GUINT64_FORMAT ")",
				 path, h->uri, got < 0 ? g_strerror(errno) : "shorter", off);
			virStreamAbort(st);
			goto cleanup;
		}
		while (sent < got) {
			int n = virStreamSend(st, buf + sent, (size_t)(got - sent));

			if (n < 0) {
				mhlErrorVirt("host '%s': upload of volume '%s' broke off at byte %" G_GUINT64_FORMAT
					     " of %" G_GUINT64_FORMAT, h->uri, name, off + (guint64)sent, len);
				virStreamAbort(st);
				goto cleanup;
			}
			sent += n;
		}
		off += (guint64)got;
	}
	if (virStreamFinish(st) < 0) {
		mhlErrorVirt("host '%s': upload of volume '%s' did not finish", h->uri, name);
		goto cleanup;
	}
	rc = 0;
cleanup:
	if (fd >= 0)
		close(fd);
	if (st)
		virStreamFree(st);
	return rc;
}

/* Whether volume @v holds exactly @len bytes whose SHA-256 is @sum: read back and hashed. */
static bool volHolds(mhlFleetHost *h, virStorageVolPtr v, guint64 len, const char *sum)
{
	g_autoptr(GChecksum) ck = g_checksum_new(G_CHECKSUM_SHA256);
	g_autofree char *buf = g_malloc(CHUNK);
	virStreamPtr st = NULL;
	virStorageVolInfo info;
	guint64 got = 0;
	bool same = false;
	int n;

	if (virStorageVolGetInfo(v, &info) < 0 || info.capacity != len)
		goto out;
	if (!(st = virStreamNew(h->conn, 0)) || virStorageVolDownload(v, st, 0, len, 0) < 0)
		goto out;
	while ((n = virStreamRecv(st, buf, CHUNK)) > 0 && got + (guint64)n <= len) {
		g_checksum_update(ck, (const guchar *)buf, n);
		got += (guint64)n;
	}
	if (n == 0 && got == len && virStreamFinish(st) == 0)
		same = !strcmp(g_checksum_get_string(ck), sum);
	else
		virStreamAbort(st);
out:
	if (st)
		virStreamFree(st);
	mhlErrorReset();
	return same;
}

/* "<sha256>.part-<time>-<pid>-<n>": parts of dead runs older than PART_MAX_AGE deleted. */
static void partsPrune(mhlFleetHost *h, virStoragePoolPtr p)
{
	virStorageVolPtr *vols = NULL;
	int n = virStoragePoolListAllVolumes(p, &vols, 0), i;
	gint64 now = g_get_real_time() / G_USEC_PER_SEC;

	for (i = 0; i < n; i++) {
		const char *name = virStorageVolGetName(vols[i]);
		const char *part = name ? strstr(name, ".part-") : NULL;
		long long t;

		if (part && part - name == 64 && sscanf(part, ".part-%lld-", &t) == 1 && now - t > PART_MAX_AGE &&
		    !g_hash_table_contains(h->parts, name)) {
			if (virStorageVolDelete(vols[i], 0) == 0)
				fprintf(stderr, "memhp-lab: host '%s': deleted volume '%s' (a part left by a run over a day ago)\n",
					h->uri, name);
		}
		virStorageVolFree(vols[i]);
	}
	free(vols);
	mhlErrorReset();
}

/* The path of volume @name when it and its .ok are there and it holds the file; else NULL. */
static char *volReuse(mhlFleetHost *h, virStoragePoolPtr p, const char *name, const char *ok, guint64 len,
		      const char *sum)
{
	virStorageVolPtr v = NULL, m = NULL;
	char *out = NULL;

	if ((m = virStorageVolLookupByName(p, ok)) && (v = virStorageVolLookupByName(p, name)) &&
	    volHolds(h, v, len, sum))
		out = virStorageVolGetPath(v);
	else if (v)
		fprintf(stderr, "memhp-lab: warning: host '%s': volume '%s' does not hold the file its name says (size or SHA-256); this run uploads its own\n",
			h->uri, name);
	if (v)
		virStorageVolFree(v);
	if (m)
		virStorageVolFree(m);
	mhlErrorReset();
	return out;
}

/* "<sha256>-<basename>": its path on the host; reused, cloned from this run's part, or the part itself. */
static char *volUpload(mhlFleetHost *h, virStoragePoolPtr p, const char *path)
{
	static int seq;
	g_autofree char *sum = NULL, *base = g_path_get_basename(path), *name = NULL, *ok = NULL, *part = NULL;
	virStorageVolPtr pv, v, m;
	guint64 len;
	char *out;

	if (!(sum = fileHash(path, h->uri, &len)))
		return NULL;
	g_strcanon(base, G_CSET_A_2_Z G_CSET_a_2_z G_CSET_DIGITS "._-", '_');
	name = g_strdup_printf("%s-%.64s", sum, base);
	ok = g_strdup_printf("%s.ok", sum);
	if ((out = volReuse(h, p, name, ok, len, sum)))
		return out;
	part = g_strdup_printf("%s.part-%lld-%d-%d", sum, (long long)(g_get_real_time() / G_USEC_PER_SEC),
			       (int)getpid(), g_atomic_int_add(&seq, 1));
	if (!(pv = volCreate(h, p, part, len)))
		return NULL;
	g_hash_table_add(h->parts, g_strdup(part));
	if (volWrite(h, pv, part, path, len) < 0) {
		virStorageVolFree(pv);
		return NULL;
	}
	/* the final name when it is free: a clone of the part, then its mark, then the part goes */
	if (!(v = virStorageVolLookupByName(p, name))) {
		g_autofree char *xml = volXml(name, len);

		mhlErrorReset();
		if ((v = virStorageVolCreateXMLFrom(p, xml, pv, 0)) && volHolds(h, v, len, sum) &&
		    ((m = virStorageVolLookupByName(p, ok)) || (mhlErrorReset(), (m = volCreate(h, p, ok, 0))))) {
			virStorageVolFree(m);
			if ((out = virStorageVolGetPath(v)) && virStorageVolDelete(pv, 0) == 0)
				g_hash_table_remove(h->parts, part);
		}
	}
	if (v)
		virStorageVolFree(v);
	mhlErrorReset();
	if (!out && !(out = virStorageVolGetPath(pv)))	/* this run's own part, deleted at its end */
		mhlErrorVirt("host '%s': volume '%s' has no path", h->uri, part);
	virStorageVolFree(pv);
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
		if (!g_hash_table_size(h->uploaded))
			partsPrune(h, p);
		out = volUpload(h, p, path);
		virStoragePoolFree(p);
	}
	if (out)
		g_hash_table_insert(h->uploaded, g_strdup(path), g_strdup(out));
	pthread_mutex_unlock(&h->upload_lock);
	return out;
}

void mhlFleetUploadsEnd(mhlFleetHost *h)
{
	GHashTableIter it;
	gpointer key;
	virStoragePoolPtr p;

	if (!h->conn || !g_hash_table_size(h->parts) ||
	    !(p = virStoragePoolLookupByName(h->conn, h->pool ? h->pool : MHL_FLEET_POOL))) {
		mhlErrorReset();
		return;
	}
	g_hash_table_iter_init(&it, h->parts);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		virStorageVolPtr v = virStorageVolLookupByName(p, key);

		if (v) {
			virStorageVolDelete(v, 0);
			virStorageVolFree(v);
		}
		g_hash_table_iter_remove(&it);
	}
	virStoragePoolFree(p);
	mhlErrorReset();
}

/*
 * A volume of memhp-lab's: "<sha256>-<name>", "<sha256>.ok" or
 * "<sha256>.part-<time>-<pid>-<n>" (64 lowercase hex digits first). *rank:
 * the order they go in: marks first (no run reuses a volume that is being
 * deleted), then the volumes, then parts.
 */
static bool labVolume(const char *name, int *rank)
{
	long long t;
	int pid, n, end = 0;
	size_t i;

	for (i = 0; i < 64; i++)
		if (!name[i] || !g_ascii_isxdigit(name[i]) || g_ascii_isupper(name[i]))
			return false;
	name += 64;
	if (!strcmp(name, ".ok"))
		*rank = 0;
	else if (name[0] == '-' && name[1])
		*rank = 1;
	else if (sscanf(name, ".part-%lld-%d-%d%n", &t, &pid, &n, &end) == 3 && !name[end])
		*rank = 2;
	else
		return false;
	return true;
}

/* The XML of every domain on @conn, active or defined, one after the other. */
static char *domainsXml(virConnectPtr conn)
{
	GString *all = g_string_new(NULL);
	virDomainPtr *doms = NULL;
	int n = virConnectListAllDomains(conn, &doms, 0), i;

	for (i = 0; i < n; i++) {
		char *xml = virDomainGetXMLDesc(doms[i], 0);

		if (xml)
			g_string_append(all, xml);
		free(xml);
		virDomainFree(doms[i]);
	}
	free(doms);
	if (n < 0) {
		g_string_free(all, TRUE);
		return NULL;
	}
	return g_string_free(all, FALSE);
}

int mhlFleetVolumesClean(virConnectPtr conn, const char *uri, const char *pool, int *kept)
{
	const char *name = pool ? pool : MHL_FLEET_POOL;
	g_autofree char *doms = NULL;
	g_autoptr(GHashTable) used = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	virStoragePoolPtr p;
	virStorageVolPtr *vols = NULL;
	int n, i, rank, gone = 0, failed = 0;

	*kept = 0;
	if (!mhlFleetPoolNameValid(name)) {
		mhlError("cleanup: '%s' is not a storage pool name ([A-Za-z0-9._-], 1 to 64 of them, not starting with '.' or '-')", name);
		return -1;
	}
	if (!(p = virStoragePoolLookupByName(conn, name))) {
		if (virGetLastErrorCode() == VIR_ERR_NO_STORAGE_POOL) {
			mhlErrorReset();
			return 0;	/* no pool: nothing of ours there */
		}
		mhlErrorVirt("cleanup: host '%s': cannot look up storage pool '%s'", uri, name);
		return -1;
	}
	if (virStoragePoolIsActive(p) != 1 || virStoragePoolRefresh(p, 0) < 0 ||
	    (n = virStoragePoolListAllVolumes(p, &vols, 0)) < 0 || !(doms = domainsXml(conn))) {
		mhlErrorVirt("cleanup: host '%s': cannot list the volumes of storage pool '%s' (is it active?) or the domains", uri, name);
		virStoragePoolFree(p);
		return -1;
	}
	/* the volumes a domain names, by their SHA-256: those and their marks stay */
	for (i = 0; i < n; i++) {
		const char *vn = virStorageVolGetName(vols[i]);
		g_autofree char *path = virStorageVolGetPath(vols[i]);
		int r;

		if (vn && labVolume(vn, &r) && r > 0 && path && strstr(doms, path))
			g_hash_table_add(used, g_strndup(vn, 64));
	}
	for (rank = 0; rank < 3; rank++) {
		for (i = 0; i < n; i++) {
			const char *vn = vols[i] ? virStorageVolGetName(vols[i]) : NULL;
			g_autofree char *path = NULL, *sum = NULL;
			int r;

			if (!vn || !labVolume(vn, &r) || r != rank)
				continue;
			path = virStorageVolGetPath(vols[i]);
			sum = g_strndup(vn, 64);
			if (g_hash_table_contains(used, sum) && (rank == 0 || (path && strstr(doms, path)))) {
				fprintf(stderr, "memhp-lab: cleanup: host '%s': volume '%s' kept: a domain there uses %s\n", uri, vn,
					rank ? "it" : "the volume it marks");
				(*kept)++;
			} else if (virStorageVolDelete(vols[i], 0) == 0) {
				gone++;
			} else {
				fprintf(stderr, "memhp-lab: cleanup: host '%s': cannot delete volume '%s': %s\n", uri, vn,
					virGetLastErrorMessage());
				failed++;
			}
			virStorageVolFree(vols[i]);
			vols[i] = NULL;
		}
	}
	for (i = 0; i < n; i++)
		if (vols[i])
			virStorageVolFree(vols[i]);
	free(vols);
	virStoragePoolFree(p);
	mhlErrorReset();
	if (failed) {
		mhlError("cleanup: host '%s': %d volume(s) of pool '%s' could not be deleted (see above)", uri, failed, name);
		return -1;
	}
	return gone;
}
