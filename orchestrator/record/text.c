/*
 * text.c - text from outside made fit for a record and for every format
 * rendered from one: the guest's console and output (the guest runs the
 * kernel under test and may print anything) and record files from elsewhere.
 * Valid UTF-8, escape sequences and control characters dropped, cut only
 * between two characters. One helper, applied where such text enters a
 * record (guest/) and where a record from elsewhere is read (load.c).
 */
#include <glib.h>

#include "record/record.h"

#include <string.h>

#define REPLACEMENT "\xef\xbf\xbd"	/* U+FFFD */

/*
 * The end of the escape sequence whose ESC is just before @p (ECMA-48):
 * CSI (ESC [ parameters intermediates final), a control string (OSC, DCS,
 * SOS, PM, APC: up to BEL or ST, never past a newline), or ESC, intermediates
 * and a final byte. A sequence cut short ends where its bytes stop fitting.
 */
static const char *escapeEnd(const char *p, const char *end)
{
	if (p >= end)
		return p;
	switch (*p) {
	case '[':
		for (p++; p < end; p++) {
			unsigned char c = *p;

			if (c >= 0x40 && c <= 0x7e)
				return p + 1;
			if (c < 0x20 || c > 0x7e)
				return p;
		}
		return p;
	case ']': case 'P': case 'X': case '^': case '_':
		for (p++; p < end; p++) {
			if (*p == '\a')
				return p + 1;
			if (*p == '\x1b')
				return p + 1 < end && p[1] == '\\' ? p + 2 : p;
			if (*p == '\n')
				return p;
		}
		return p;
	default:
		while (p < end && (unsigned char)*p >= 0x20 && (unsigned char)*p <= 0x2f)
			p++;
		if (p < end && (unsigned char)*p >= 0x30 && (unsigned char)*p <= 0x7e)
			p++;
		return p;
	}
}

/* Printable ASCII only (and '\n', '\t' when @multiline): nothing to clean. */
static bool textPlain(const char *s, size_t len, bool multiline)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if ((c < 0x20 || c > 0x7e) && !(multiline && (c == '\n' || c == '\t')))
			return false;
	}
	return true;
}

int mhlTextCutLen(const char *s, int max)
{
	int len, lead;

	if (!s || max <= 0)
		return 0;
	len = (int)strnlen(s, (size_t)max + 1);
	if (len <= max)
		return len;
	/* s[max] is the first byte dropped: back to the start of its character (at most 3 bytes) */
	for (lead = max; lead > 0 && max - lead < 3 && ((unsigned char)s[lead] & 0xc0) == 0x80; lead--)
		;
	/* that character ends before s[max] (it was no sequence: bytes that are not UTF-8) */
	if (lead == max || lead + g_utf8_skip[(unsigned char)s[lead]] <= max)
		return max;
	return lead;
}

/* Cut valid UTF-8 @out to at most @max bytes between two characters, "..." at the end. */
static void textCut(GString *out, gsize max)
{
	const char *ellipsis = max > 3 ? "..." : "";

	if (out->len <= max)
		return;
	g_string_truncate(out, (gsize)mhlTextCutLen(out->str, (int)MIN(max - strlen(ellipsis), G_MAXINT)));
	g_string_append(out, ellipsis);
}

char *mhlTextClean(const char *s, gssize len, gsize max, bool multiline)
{
	const char *p, *end;
	GString *out;

	if (!s)
		return g_strdup("");
	if (len < 0)
		len = (gssize)strlen(s);
	if (textPlain(s, (size_t)len, multiline) && (!max || (gsize)len <= max))
		return g_strndup(s, (gsize)len);
	end = s + len;
	out = g_string_sized_new((gsize)len + 1);
	for (p = s; p < end;) {
		unsigned char c = *p;
		gunichar u;

		if (c == 0x1b) {
			p = escapeEnd(p + 1, end);
			continue;
		}
		if (c < 0x80) {
			if (c == '\n' || c == '\t')
				g_string_append_c(out, multiline ? (char)c : ' ');
			else if (c >= 0x20 && c != 0x7f)
				g_string_append_c(out, (char)c);
			p++;
			continue;
		}
		u = g_utf8_get_char_validated(p, end - p);
		if (u == (gunichar)-1 || u == (gunichar)-2) {
			g_string_append(out, REPLACEMENT);	/* one per byte that is not UTF-8 */
			p++;
			continue;
		}
		if ((u & 0xfffe) == 0xfffe)	/* U+FFFE, U+FFFF (and their kin): not characters, not XML */
			g_string_append(out, REPLACEMENT);
		else if (u >= 0xa0)	/* below: the C1 controls, dropped */
			g_string_append_len(out, p, g_utf8_next_char(p) - p);
		p = g_utf8_next_char(p);
	}
	if (max)
		textCut(out, max);
	return g_string_free(out, FALSE);
}

void mhlJSONClean(json_object *o, bool multiline)
{
	size_t i;

	switch (json_object_get_type(o)) {
	case json_type_string: {
		const char *s = json_object_get_string(o);
		int len = json_object_get_string_len(o);
		g_autofree char *clean = NULL;

		if (textPlain(s, (size_t)len, multiline))
			return;
		clean = mhlTextClean(s, len, 0, multiline);
		if (strlen(clean) != (size_t)len || memcmp(clean, s, (size_t)len))
			json_object_set_string(o, clean);
		return;
	}
	case json_type_array:
		for (i = 0; i < json_object_array_length(o); i++)
			mhlJSONClean(json_object_array_get_idx(o, i), multiline);
		return;
	case json_type_object: {
		g_autoptr(GPtrArray) dirty = g_ptr_array_new_with_free_func(g_free);

		json_object_object_foreach(o, key, val) {
			mhlJSONClean(val, multiline);
			if (!textPlain(key, strlen(key), false))
				g_ptr_array_add(dirty, g_strdup(key));
		}
		/* keys: one line each; a key that cleans to another key's name replaces it */
		for (i = 0; i < dirty->len; i++) {
			json_object *val = json_object_get(json_object_object_get(o, dirty->pdata[i]));
			g_autofree char *clean = mhlTextClean(dirty->pdata[i], -1, 0, false);

			json_object_object_del(o, dirty->pdata[i]);
			json_object_object_add(o, clean, val);
		}
		return;
	}
	default:
		return;
	}
}
