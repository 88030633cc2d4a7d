/*
 * kernel/kmod-extract.c - `memhp-kmod extract`: a package's filesystem
 * archive unpacked by the parser that checks it (issue 48, item 2).
 *
 * dpkg-deb -x hands the archive to GNU tar, which reads some members
 * differently from any other parser (a regular file named './lib/' is a
 * directory to it, and its data the next headers): a check by one parser
 * and an extraction by another is a differential an attacker chooses. Here
 * the bytes are read once: each block goes through mhlTarCheck (the
 * stream checker of `members`) and then to libarchive, which extracts each
 * entry after it too was checked as libarchive reads it (name, type, link
 * target: host/kmod.c's rules), with its SECURE_* flags, no owner and no
 * set-id bits. Then the extracted tree is walked with lstat: every path
 * must be one the archive listed, of the type it listed, and a link must
 * point where it said; anything else refuses the package.
 */
#include <glib.h>

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/kmod.h"
#include "kmod-extract.h"
#include "util.h"

#define READ_CHUNK 65536
#define WALK_MAX 1000000	/* paths of one package (a kernel image has about 6,000) */

/* What the read callback gives libarchive: stdin, every byte checked first. */
typedef struct {
	int fd;
	mhlTarCheck *check;
	int verdict;		/* mhlTarCheckFeed's last: 0 going on, 1 the archive's end, -1 refused */
	char *why;		/* the check's refusal */
	guint8 buf[READ_CHUNK];
} extractIn;

static la_ssize_t inRead(struct archive *a, void *opaque, const void **out)
{
	extractIn *in = opaque;
	ssize_t n;

	do
		n = read(in->fd, in->buf, sizeof(in->buf));
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		archive_set_error(a, errno, "cannot read the archive");
		return -1;
	}
	if (n > 0 && in->verdict == 0 && (in->verdict = mhlTarCheckFeed(in->check, in->buf, (size_t)n)) < 0) {
		in->why = g_strdup(mhlErrorLast());
		archive_set_error(a, EINVAL, "%s", in->why);
		return -1;
	}
	*out = in->buf;
	return n;
}

/* One entry as libarchive read it: its kind ('0' file, '5' directory, '2' link, '1' hard link). */
typedef struct {
	char kind;
	char *link;		/* a symbolic link's target */
} extractMember;

static void memberFree(gpointer p)
{
	extractMember *m = p;

	g_free(m->link);
	g_free(m);
}

/*
 * Entry @e checked as libarchive reads it, its normalised name into *@name
 * and what the walk expects of it into @seen: -1 + mhlError when refused.
 */
static int entryCheck(const char *who, struct archive_entry *e, GHashTable *seen, char **name)
{
	const char *raw = archive_entry_pathname(e), *hard = archive_entry_hardlink(e);
	const char *sym = archive_entry_symlink(e), *why = NULL;
	mode_t type = archive_entry_filetype(e);
	extractMember *m;
	char kind;

	if (!raw || !(*name = mhlTarNameOk(raw, &why))) {
		mhlError("%s: member '%.80s': %s", who, raw ? raw : "(no name)", raw ? why : "no name");
		return -1;
	}
	if (hard) {
		g_autofree char *target = mhlTarNameOk(hard, &why);
		extractMember *t = target ? g_hash_table_lookup(seen, target) : NULL;

		if (!t || t->kind != '0') {
			mhlError("%s: member '%s': a hard link to '%.80s', which is no earlier file of the package",
				 who, *name, hard);
			return -1;
		}
		kind = '0';	/* on disk, one more name of a regular file */
	} else if (type == AE_IFREG) {
		kind = '0';
	} else if (type == AE_IFDIR) {
		kind = '5';
	} else if (type == AE_IFLNK && sym && mhlTarLinkOk(sym, &why)) {
		kind = '2';
	} else {
		mhlError("%s: member '%s': %s", who, *name,
			 type == AE_IFLNK ? (why ? why : "a symbolic link without a target") :
			 "neither a file, a directory nor a link");
		return -1;
	}
	if (!**name && kind != '5') {
		mhlError("%s: something other than a directory in place of the root", who);
		return -1;
	}
	m = g_new0(extractMember, 1);
	m->kind = kind;
	m->link = kind == '2' ? g_strdup(sym) : NULL;
	g_hash_table_replace(seen, g_strdup(*name), m);
	return 0;
}

/* Unpack every entry of @a into the current directory (@dir, for messages); what each was into @seen. */
static int extractAll(const char *who, const char *dir, struct archive *a, GHashTable *seen, unsigned int *n)
{
	struct archive *w = archive_write_disk_new();
	struct archive_entry *e;
	int r, rc = -1;

	/* no owner, no set-id bits (no _PERM), nothing through a link, no '..', no absolute name */
	archive_write_disk_set_options(w, ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_SECURE_SYMLINKS |
				       ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS);
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		g_autofree char *name = NULL;

		if (entryCheck(who, e, seen, &name) < 0)
			goto out;
		/* the name libarchive writes is the one checked: "./" and empty components gone */
		archive_entry_set_pathname(e, *name ? name : ".");
		if (archive_entry_hardlink(e)) {
			g_autofree char *t = mhlTarNameOk(archive_entry_hardlink(e), NULL);

			archive_entry_set_hardlink(e, t);
		}
		if (archive_write_header(w, e) != ARCHIVE_OK) {
			mhlError("%s: cannot extract '%s' into '%s': %s", who, name, dir, archive_error_string(w));
			goto out;
		}
		if (archive_entry_size(e) > 0) {
			const void *buf;
			size_t len;
			la_int64_t off;

			while ((r = archive_read_data_block(a, &buf, &len, &off)) == ARCHIVE_OK)
				if (archive_write_data_block(w, buf, len, off) != ARCHIVE_OK) {
					mhlError("%s: cannot write '%s' into '%s': %s", who, name, dir,
						 archive_error_string(w));
					goto out;
				}
			if (r != ARCHIVE_EOF) {
				mhlError("%s: member '%s': %s", who, name, archive_error_string(a));
				goto out;
			}
		}
		if (archive_write_finish_entry(w) != ARCHIVE_OK) {
			mhlError("%s: cannot finish '%s' in '%s': %s", who, name, dir, archive_error_string(w));
			goto out;
		}
		(*n)++;
	}
	if (r != ARCHIVE_EOF) {
		mhlError("%s: %s", who, archive_error_string(a));
		goto out;
	}
	rc = archive_write_close(w) == ARCHIVE_OK ? 0 : -1;
	if (rc < 0)
		mhlError("%s: cannot finish the extraction into '%s': %s", who, dir, archive_error_string(w));
out:
	archive_write_free(w);
	return rc;
}

/*
 * The tree under directory fd @fd (path @rel from the root, "" for it)
 * holds only what @seen lists, each of its type, links to their targets;
 * *@count paths seen so far.
 */
static int walkCheck(const char *who, int fd, const char *rel, GHashTable *seen, size_t *count)
{
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	DIR *d;
	struct dirent *de;
	guint i;
	int dfd = dup(fd);

	if (dfd < 0 || !(d = fdopendir(dfd))) {
		if (dfd >= 0)
			close(dfd);
		mhlError("%s: cannot read the extracted '%s': %s", who, *rel ? rel : ".", g_strerror(errno));
		return -1;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			g_ptr_array_add(names, g_strdup(de->d_name));
	closedir(d);
	for (i = 0; i < names->len; i++) {
		const char *base = g_ptr_array_index(names, i);
		g_autofree char *path = *rel ? g_strdup_printf("%s/%s", rel, base) : g_strdup(base);
		const extractMember *m = g_hash_table_lookup(seen, path);
		struct stat st;
		char kind;

		if (++*count > WALK_MAX || fstatat(fd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			mhlError("%s: the extracted '%.80s': %s", who, path,
				 *count > WALK_MAX ? "more paths than any package has" : g_strerror(errno));
			return -1;
		}
		kind = S_ISREG(st.st_mode) ? '0' : S_ISDIR(st.st_mode) ? '5' : S_ISLNK(st.st_mode) ? '2' : '?';
		if (!m || m->kind != kind) {
			mhlError("%s: the extracted tree holds '%.80s' (%s), %s: refused", who, path,
				 kind == '0' ? "a file" : kind == '5' ? "a directory" : kind == '2' ? "a link" : "a special file",
				 m ? "of another type than its member" : "which no member of the package names");
			return -1;
		}
		if (kind == '2') {
			char target[4097];
			ssize_t n = readlinkat(fd, base, target, sizeof(target) - 1);

			if (n < 0 || (target[n] = 0, strcmp(target, m->link))) {
				mhlError("%s: the extracted link '%.80s' does not point where its member says", who, path);
				return -1;
			}
		}
		if (kind == '5') {
			int sub = openat(fd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			int r;

			if (sub < 0) {
				mhlError("%s: cannot open the extracted '%.80s': %s", who, path, g_strerror(errno));
				return -1;
			}
			r = walkCheck(who, sub, path, seen, count);
			close(sub);
			if (r < 0)
				return -1;
		}
	}
	return 0;
}

int mhlTarExtract(const char *who, int in_fd, const char *dir)
{
	g_autoptr(mhlTarCheck) check = mhlTarCheckNew(who);
	g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, memberFree);
	g_autofree extractIn *in = g_new0(extractIn, 1);
	struct archive *a = archive_read_new();
	unsigned int n = 0;
	size_t walked = 0;
	int dfd = -1, rc = -1, cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	in->fd = in_fd;
	in->check = check;
	/* an empty directory of our own: nothing in it that the archive did not make */
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 || fchdir(dfd) < 0) {
		mhlError("%s: cannot enter the extraction directory '%s': %s", who, dir, g_strerror(errno));
		goto out;
	}
	archive_read_support_format_tar(a);
	archive_read_support_format_gnutar(a);
	if (archive_read_open(a, in, NULL, inRead, NULL) != ARCHIVE_OK) {
		mhlError("%s: %s", who, archive_error_string(a));
		goto out;
	}
	if (extractAll(who, dir, a, seen, &n) < 0) {
		if (in->verdict < 0)	/* the stream check's reason, not libarchive's echo of it */
			mhlError("%s", in->why);
		goto out;
	}
	/* libarchive stops at the end marker; the check must have reached it too */
	if (in->verdict == 0) {
		guint8 rest[READ_CHUNK];
		ssize_t k;

		while (in->verdict == 0 && (k = read(in_fd, rest, sizeof(rest))) > 0)
			in->verdict = mhlTarCheckFeed(check, rest, (size_t)k);
		if (in->verdict < 0 || (in->verdict == 0 && mhlTarCheckFinish(check) < 0))
			goto out;
	}
	if (walkCheck(who, dfd, "", seen, &walked) < 0)
		goto out;
	fprintf(stderr, "%s: %u members extracted into %s; the tree holds them alone (%zu paths, lstat)\n", who, n,
		dir, walked);
	rc = 0;
out:
	archive_read_free(a);
	g_free(in->why);
	if (dfd >= 0)
		close(dfd);
	if (cwd >= 0) {
		if (fchdir(cwd) < 0)
			rc = -1;
		close(cwd);
	}
	return rc;
}
