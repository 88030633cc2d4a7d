/*
 * append.c - one record, one line, all or nothing (record.h): the -j worker
 * threads and a soak append to the same files, and a full disk, a file size
 * limit or a kill may stop a write halfway.
 */
#include <glib.h>

#include "record/record.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* The -j worker threads append to one file: one append at a time, in this process. */
static GMutex appendLock;

static int recordAppend(const char *path, json_object *rec);

int mhlRecordAppend(const char *path, json_object *rec)
{
	int rc;

	g_mutex_lock(&appendLock);
	rc = recordAppend(path, rec);
	g_mutex_unlock(&appendLock);
	return rc;
}

static int recordAppend(const char *path, json_object *rec)
{
	const char *json = json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN |
							  JSON_C_TO_STRING_NOSLASHESCAPE);
	g_autofree char *line = NULL;
	struct stat sb;
	char last = '\n';
	size_t len;
	ssize_t n;
	g_autofree char *dir = g_path_get_dirname(path), *base = g_path_get_basename(path);
	/*
	 * A run directory's file, opened below the directory's own descriptor:
	 * a link planted at the name (or the directory a link) is refused,
	 * never written through, and so is anything but a regular file of one
	 * link (docs/security.md, "Run directories").
	 */
	int fd = mhlOpenIn(dir, base, O_RDWR | O_APPEND | O_CREAT, 0644), err;

	if (fd < 0) {
		mhlError("cannot open record file '%s': %s", path,
			 mhlOpenWhy(errno));
		return -1;
	}
	/*
	 * The locks make the size read here the size our line starts at. flock
	 * is for another process appending (a second memhp-lab on the same
	 * directory); a filesystem without it still has the thread lock.
	 */
	(void)flock(fd, LOCK_EX);
	if (fstat(fd, &sb) < 0 || (sb.st_size > 0 && pread(fd, &last, 1, sb.st_size - 1) != 1)) {
		mhlError("cannot append a record to '%s': %s", path, g_strerror(errno));
		close(fd);
		return -1;
	}
	/* A torn last line (a kill mid-write) stays a line of its own: ours starts on the next. */
	line = g_strdup_printf("%s%s\n", last == '\n' ? "" : "\n", json);
	len = strlen(line);
	n = write(fd, line, len);
	err = n < 0 ? errno : 0;
	if (n == (ssize_t)len && fsync(fd) == 0)
		return close(fd);
	if (n == (ssize_t)len)
		err = errno;
	/* Not a record: take back whatever part of the line was written. */
	if (n > 0 && ftruncate(fd, sb.st_size) < 0) {
		mhlError("cannot write record to '%s': %s; and cannot truncate it back to %lld bytes: %s: its last line is torn",
			 path, n != (ssize_t)len ? "short write" : g_strerror(err), (long long)sb.st_size,
			 g_strerror(errno));
		close(fd);
		return -1;
	}
	mhlError("cannot write record to '%s': %s (the file is left as it was, %lld bytes)", path,
		 n >= 0 && n != (ssize_t)len ? "short write (disk full or file size limit)" : g_strerror(err),
		 (long long)sb.st_size);
	close(fd);
	return -1;
}
