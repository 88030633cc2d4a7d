#include <glib.h>

#include "record/record.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

int mhlRecordAppend(const char *path, json_object *rec)
{
	g_autofree char *line = g_strdup_printf("%s\n",
		json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	size_t len = strlen(line);
	ssize_t n;
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0) {
		mhlError("cannot open record file '%s': %s", path, g_strerror(errno));
		return -1;
	}
	n = write(fd, line, len);
	if (n != (ssize_t)len || fsync(fd) < 0) {
		mhlError("cannot write record to '%s': %s", path,
			 n < 0 ? g_strerror(errno) : "short write");
		close(fd);
		return -1;
	}
	return close(fd);
}
