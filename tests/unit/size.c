/* tests/unit/size.c - size strings (lib/mhl-size.h): parsing and formatting. */
#include <glib.h>

#include <errno.h>
#include <string.h>

#include "mhl-size.h"
#include "unit.h"

static const struct sizeParse {
	const char *in;
	int rc;			/* 0: parses, to @want; -1: refused */
	uint64_t want;
	int err;		/* refused: with this errno (0: either) */
} parses[] = {
	{ "4096", 0, 4096, 0 }, { "64k", 0, 64 << 10, 0 }, { "256M", 0, 256ULL << 20, 0 },
	{ "256MiB", 0, 256ULL << 20, 0 }, { "1G", 0, 1ULL << 30, 0 }, { "1GiB", 0, 1ULL << 30, 0 },
	{ "0", 0, 0, 0 }, { "-1", -1, 0, EINVAL }, { "", -1, 0, EINVAL },
	{ "12Q", -1, 0, EINVAL }, { "1GiBx", -1, 0, EINVAL }, { "99999999999T", -1, 0, ERANGE },
	{ "M", -1, 0, EINVAL },
	/*
	 * The overflow guard at its edge, in each unit: the largest count that
	 * fits in 64 bits (UINT64_MAX >> 10, 20, 30, 40: 2^54 - 1 K ... 2^24 - 1 T)
	 * and the first that does not (which the multiplication would wrap:
	 * 16777216T is 0).
	 */
	{ "18446744073709551615", 0, UINT64_MAX, 0 }, { "18446744073709551616", -1, 0, ERANGE },
	{ "18014398509481983K", 0, UINT64_MAX - 1023, 0 }, { "18014398509481984K", -1, 0, ERANGE },
	{ "17592186044415M", 0, UINT64_MAX - ((1ULL << 20) - 1), 0 }, { "17592186044416M", -1, 0, ERANGE },
	{ "17179869183G", 0, UINT64_MAX - ((1ULL << 30) - 1), 0 }, { "17179869184G", -1, 0, ERANGE },
	{ "16777215T", 0, UINT64_MAX - ((1ULL << 40) - 1), 0 }, { "16777216T", -1, 0, ERANGE },
	{ "16777215TiB", 0, 16777215ULL << 40, 0 }, { "1t", 0, 1ULL << 40, 0 },
	/*
	 * As virsh reads a size (libvirt's virScaleInteger), case aside: a unit
	 * letter alone or with "iB" is a power of 1024, with "B" a power of
	 * 1000; "b", "byte", "bytes" are bytes (what mhl_size_format writes for
	 * a size that is no whole KiB parses back).
	 */
	{ "2MB", 0, 2000000, 0 }, { "2GB", 0, 2000000000, 0 }, { "1000MB", 0, 1000000000, 0 },
	{ "1kb", 0, 1000, 0 }, { "1KB", 0, 1000, 0 }, { "3TB", 0, 3000000000000ULL, 0 },
	{ "2g", 0, 2ULL << 30, 0 }, { "1kib", 0, 1024, 0 }, { "1MIB", 0, 1ULL << 20, 0 },
	{ "4097B", 0, 4097, 0 }, { "0b", 0, 0, 0 }, { "5byte", 0, 5, 0 }, { "7Bytes", 0, 7, 0 },
	{ "1P", 0, 1ULL << 50, 0 }, { "1PB", 0, 1000000000000000ULL, 0 }, { "15EiB", 0, 15ULL << 60, 0 },
	{ "1iB", -1, 0, EINVAL }, { "1MiBB", -1, 0, EINVAL }, { "1MBi", -1, 0, EINVAL },
	{ "1 G", -1, 0, EINVAL }, { "1G ", -1, 0, EINVAL }, { "1Gbit", -1, 0, EINVAL },
	{ "1.5G", -1, 0, EINVAL },
	/* the overflow guard for the powers of 1000 too, and the largest unit */
	{ "18446744073709551KB", 0, 18446744073709551000ULL, 0 }, { "18446744073709552KB", -1, 0, ERANGE },
	{ "18446744TB", 0, 18446744000000000000ULL, 0 }, { "18446745TB", -1, 0, ERANGE },
	{ "18EB", 0, 18000000000000000000ULL, 0 }, { "19EB", -1, 0, ERANGE }, { "16E", -1, 0, ERANGE },
};

static bool sizeParseJudge(const void *row, GString *desc)
{
	const struct sizeParse *c = row;
	uint64_t got = 0;
	char buf[32];
	int rc, err;

	if (c->rc)
		g_string_printf(desc, "size '%s' parses to an error%s", c->in,
				c->err == ERANGE ? " (too large)" : c->err == EINVAL ? " (unparsable)" : "");
	else
		g_string_printf(desc, "size '%s' parses to %s (%" G_GUINT64_FORMAT " bytes)", c->in,
				mhl_size_format(c->want, buf, sizeof(buf)), c->want);
	if (unitListing)
		return true;
	errno = 0;
	rc = mhl_size_parse(c->in, &got);
	err = errno;
	if (rc != c->rc || (!rc && got != c->want) || (rc && c->err && err != c->err))
		unitDiag("got rc %d, %" G_GUINT64_FORMAT ", errno %d", rc, got, err);
	return unitExpect(rc == c->rc && (rc ? !c->err || err == c->err : got == c->want));
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
