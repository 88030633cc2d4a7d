/* tests/unit/size.c - size strings (lib/mhl-size.h): parsing and formatting. */
#include <glib.h>

#include <string.h>

#include "mhl-size.h"
#include "unit.h"

static const struct sizeParse {
	const char *in;
	int rc;			/* 0: parses, to @want; -1: refused */
	uint64_t want;
} parses[] = {
	{ "4096", 0, 4096 }, { "64k", 0, 64 << 10 }, { "256M", 0, 256ULL << 20 },
	{ "256MiB", 0, 256ULL << 20 }, { "1G", 0, 1ULL << 30 }, { "1GiB", 0, 1ULL << 30 },
	{ "2MB", 0, 2ULL << 20 }, { "0", 0, 0 }, { "-1", -1, 0 }, { "", -1, 0 },
	{ "12Q", -1, 0 }, { "1GiBx", -1, 0 }, { "99999999999T", -1, 0 }, { "M", -1, 0 },
	/*
	 * The overflow guard at its edge, in each unit: the largest count that
	 * fits in 64 bits (UINT64_MAX >> 10, 20, 30, 40: 2^54 - 1 K ... 2^24 - 1 T)
	 * and the first that does not (which << shift would wrap: 16777216T is 0).
	 */
	{ "18446744073709551615", 0, UINT64_MAX }, { "18446744073709551616", -1, 0 },
	{ "18014398509481983K", 0, UINT64_MAX - 1023 }, { "18014398509481984K", -1, 0 },
	{ "17592186044415M", 0, UINT64_MAX - ((1ULL << 20) - 1) }, { "17592186044416M", -1, 0 },
	{ "17179869183G", 0, UINT64_MAX - ((1ULL << 30) - 1) }, { "17179869184G", -1, 0 },
	{ "16777215T", 0, UINT64_MAX - ((1ULL << 40) - 1) }, { "16777216T", -1, 0 },
	{ "16777215TiB", 0, 16777215ULL << 40 }, { "1t", 0, 1ULL << 40 },
};

static bool sizeParseJudge(const void *row, GString *desc)
{
	const struct sizeParse *c = row;
	uint64_t got = 0;
	char buf[32];
	int rc;

	g_string_printf(desc, "size '%s' parses to %s", c->in,
			c->rc ? "an error" : mhl_size_format(c->want, buf, sizeof(buf)));
	if (unitListing)
		return true;
	rc = mhl_size_parse(c->in, &got);
	if (rc != c->rc || (!rc && got != c->want))
		unitDiag("got rc %d, %" G_GUINT64_FORMAT, rc, got);
	return unitExpect(rc == c->rc && (rc || got == c->want));
}

static const struct sizeFormat {
	const char *what;
	uint64_t bytes;
	const char *want;
} formats[] = {
	{ "256 MiB", 256ULL << 20, "256MiB" },
	{ "4097", 4097, "4097B" },
	{ "0", 0, "0B" },
	{ "1 TiB", 1ULL << 40, "1TiB" },
	{ "1024 TiB (no larger unit)", 1ULL << 50, "1024TiB" },
	{ "1 GiB + 1 KiB", (1ULL << 30) + 1024, "1048577KiB" },
	{ "the largest size", UINT64_MAX, "18446744073709551615B" },
};

static bool sizeFormatJudge(const void *row, GString *desc)
{
	const struct sizeFormat *c = row;
	char buf[32];
	const char *got;

	g_string_printf(desc, "%s formats as %s", c->what, c->want);
	if (unitListing)
		return true;
	got = mhl_size_format(c->bytes, buf, sizeof(buf));
	if (strcmp(got, c->want))
		unitDiag("got %s", got);
	return unitExpect(!strcmp(got, c->want));
}

static const unitTable tables[] = {
	UNIT_TABLE(parses, sizeParseJudge),
	UNIT_TABLE(formats, sizeFormatJudge),
};

const unitModule unitSize = UNIT_MODULE("size", NULL, NULL, tables);
