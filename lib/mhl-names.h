/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mhl-names.h - closed sets of names as tables, shared by the orchestrator
 * and the workloads (systemd's string-table.h, lsmem's coldescs[]). A table
 * is an array of rows whose first member is the name (a `const char *`): a
 * plain `const char *const names[]`, or a struct row that carries the name's
 * properties after it. One lookup and one list builder serve every table, so
 * that every "known: a, b, c", usage line and docs list is made from the
 * rows and no list of a table's names is spelled twice. Plain C (no glib):
 * memhp-pin is static and runs in the guest.
 */
#ifndef MHL_NAMES_H
#define MHL_NAMES_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Row @i of a table of @stride-byte rows: its name (NULL ends a table early). */
static inline const char *mhl_row_name(const void *rows, size_t stride, size_t i)
{
	return *(const char *const *)(const void *)((const char *)rows + i * stride);
}

/* The index of the row named @name among @n rows, or -1. */
static inline int mhl_name_index_(const void *rows, size_t n, size_t stride, const char *name)
{
	size_t i;

	for (i = 0; name && i < n && mhl_row_name(rows, stride, i); i++)
		if (!strcmp(mhl_row_name(rows, stride, i), name))
			return (int)i;
	return -1;
}

/*
 * The rows' names joined by @sep ("a, b, c" with ", "; "a|b|c" with "|") into
 * @buf of @len bytes (NULL, 0: nothing written); returns the length of the
 * whole list, as snprintf does, so a caller can size a buffer.
 */
static inline size_t mhl_names_join_(char *buf, size_t len, const void *rows, size_t n, size_t stride,
				     const char *sep)
{
	size_t i, at = 0;

	if (buf && len)
		buf[0] = '\0';
	for (i = 0; i < n && mhl_row_name(rows, stride, i); i++) {
		const char *name = mhl_row_name(rows, stride, i);
		int w = snprintf(buf && at < len ? buf + at : NULL, buf && at < len ? len - at : 0, "%s%s",
				 i ? sep : "", name);

		at += w > 0 ? (size_t)w : 0;
	}
	return at;
}

/* The same for an array @rows (its size known here): index, and join. */
#define MHL_ROWS(rows) (rows), sizeof(rows) / sizeof((rows)[0]), sizeof((rows)[0])
#define mhl_name_index(rows, name) mhl_name_index_(MHL_ROWS(rows), (name))
#define mhl_names_join(buf, len, rows, sep) mhl_names_join_((buf), (len), MHL_ROWS(rows), (sep))

#endif
