/*
 * kmod.c - a kernel's modules and packages as data (kmod.h): modules.dep
 * parsed here, never by a sed or shell program built from its text (issue
 * 30: a path holding "|...|e" ran a command as root); a package's archive
 * checked member by member before dpkg-deb extracts it; files opened below a
 * directory one component at a time with O_NOFOLLOW.
 */
#include <glib.h>

#include "host/kmod.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

const mhlKmodWant mhlKmodWanted[] = {
	{ "VIRTIO_PCI", "virtio_pci" },
	{ "VIRTIO_CONSOLE", "virtio_console" },
	{ "VIRTIO_MEM", "virtio_mem" },
	{ "VFIO", "vfio" },
	{ "VFIO_IOMMU_TYPE1", "vfio_iommu_type1" },
	{ "VFIO_PCI", "vfio-pci" },
	/* the rdma workload's soft-RoCE (Debian's generic kernels: modules); rxe
	 * asks the crypto API for "crc32" when a link is made, which only a
	 * modprobe could load on demand: the guest has none, so it comes first */
	{ "CRYPTO_CRC32", "crc32_generic" },
	{ "DUMMY", "dummy" },
	{ "INFINIBAND_USER_ACCESS", "ib_uverbs" },
	{ "RDMA_RXE", "rdma_rxe" },
};
const size_t mhlKmodNWanted = G_N_ELEMENTS(mhlKmodWanted);

/* Paths, names and link targets: at most this long (PATH_MAX, its NUL included). */
#define KMOD_PATH_MAX 4095

char mhlKconfigValue(const char *config, const char *opt)
{
	g_autofree char *want = g_strdup_printf("CONFIG_%s=", opt);
	size_t n = strlen(want);
	const char *p;

	for (p = config; (p = strstr(p, want)); p += n)
		if ((p == config || p[-1] == '\n') && (p[n] == 'y' || p[n] == 'm') &&
		    (p[n + 1] == '\n' || !p[n + 1]))
			return p[n];
	return 0;
}

GPtrArray *mhlKmodWantedBy(const char *config)
{
	GPtrArray *names = g_ptr_array_new();
	size_t i;

	for (i = 0; i < mhlKmodNWanted; i++)
		if (mhlKconfigValue(config, mhlKmodWanted[i].opt) == 'm')
			g_ptr_array_add(names, (gpointer)mhlKmodWanted[i].module);
	return names;
}

static const char pathChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-";

/*
 * A relative path of pathChars components, none empty, '.', '..' or
 * starting with '-' (no tool takes it for an option); with @module, a
 * module's file name at its end.
 */
static bool relPathOk(const char *p, size_t len, bool module, const char **why)
{
	const char *c = p, *end = p + len, *slash;
	const char *dummy;

	why = why ? why : &dummy;
	if (!len) {
		*why = "an empty path";
		return false;
	}
	if (len > KMOD_PATH_MAX) {
		*why = "a path over 4095 bytes";
		return false;
	}
	if (*p == '/') {
		*why = "an absolute path (modules.dep names paths under its own directory)";
		return false;
	}
	for (; c < end; c = slash + 1) {
		size_t n;

		slash = memchr(c, '/', (size_t)(end - c));
		slash = slash ? slash : end;
		n = (size_t)(slash - c);
		if (!n) {
			*why = "an empty component ('//' or a '/' at its end)";
			return false;
		}
		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.')) {
			*why = "a '.' or '..' component";
			return false;
		}
		if (c[0] == '-') {
			*why = "a component that starts with '-'";
			return false;
		}
		while (n--)
			if (!c[n] || !strchr(pathChars, c[n])) {
				*why = "a character other than letters, digits, '.', '_', '+', '-' and '/'";
				return false;
			}
		if (slash == end)
			break;
	}
	if (module) {
		static const char *const ext[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz" };
		size_t i, base = (size_t)(c - p);

		for (i = 0; i < G_N_ELEMENTS(ext); i++) {
			size_t e = strlen(ext[i]);

			if (len - base > e && !memcmp(end - e, ext[i], e))
				return true;
		}
		*why = "no module file name (NAME.ko, .ko.xz, .ko.zst or .ko.gz)";
		return false;
	}
	return true;
}

bool mhlKmodPathOk(const char *p, const char **why)
{
	return relPathOk(p, strlen(p), true, why);
}

/* ---- modules.dep ---- */

typedef struct {
	char *path;
	int line;
	GPtrArray *deps;	/* char *, owned */
} modEntry;

struct mhlModDep {
	GPtrArray *entries;	/* modEntry *, in the file's order */
	GHashTable *byPath;	/* path -> modEntry * */
};

static void modEntryFree(gpointer p)
{
	modEntry *e = p;

	g_free(e->path);
	g_ptr_array_unref(e->deps);
	g_free(e);
}

void mhlModDepFree(mhlModDep *d)
{
	if (!d)
		return;
	g_hash_table_unref(d->byPath);
	g_ptr_array_unref(d->entries);
	g_free(d);
}

/* @n bytes of @s quoted for a message: at most 80 of them, escaped (no control character reaches a terminal). */
static char *quoted(const char *s, size_t n)
{
	g_autofree char *cut = g_strndup(s, MIN(n, 80));
	g_autofree char *esc = g_strescape(cut, NULL);

	return g_strdup_printf("'%s'%s", esc, n > 80 ? "..." : "");
}

/* The maximum number of lines of a modules.dep (Debian's has about 4000). */
#define MODDEP_MAX_LINES 1000000

mhlModDep *mhlModDepParse(const char *text, size_t len, const char *what)
{
	g_autoptr(mhlModDep) d = g_new0(mhlModDep, 1);
	const char *p = text, *end = text + len;
	int line = 0;

	d->entries = g_ptr_array_new_with_free_func(modEntryFree);
	d->byPath = g_hash_table_new(g_str_hash, g_str_equal);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
		const char *colon = memchr(p, ':', (size_t)(eol - p)), *q, *why = NULL;
		modEntry *e, *dup;

		if (++line > MODDEP_MAX_LINES) {
			mhlError("%s: more than %d lines", what, MODDEP_MAX_LINES);
			return NULL;
		}
		if (eol == p) {	/* an empty line */
			p = eol + 1;
			continue;
		}
		if (!colon) {
			g_autofree char *q1 = quoted(p, (size_t)(eol - p));

			mhlError("%s:%d: %s is no 'PATH: DEPENDENCIES' line", what, line, q1);
			return NULL;
		}
		if (!relPathOk(p, (size_t)(colon - p), true, &why)) {
			g_autofree char *q1 = quoted(p, (size_t)(colon - p));

			mhlError("%s:%d: module path %s: %s", what, line, q1, why);
			return NULL;
		}
		e = g_new0(modEntry, 1);
		e->path = g_strndup(p, (size_t)(colon - p));
		e->line = line;
		e->deps = g_ptr_array_new_with_free_func(g_free);
		g_ptr_array_add(d->entries, e);
		if ((dup = g_hash_table_lookup(d->byPath, e->path))) {
			mhlError("%s:%d: module path '%s' again (line %d has it)", what, line, e->path, dup->line);
			return NULL;
		}
		g_hash_table_insert(d->byPath, e->path, e);
		for (q = colon + 1; q < eol;) {
			const char *w;

			if (*q == ' ' || *q == '\t') {
				q++;
				continue;
			}
			for (w = q; w < eol && *w != ' ' && *w != '\t'; w++)
				;
			if (!relPathOk(q, (size_t)(w - q), true, &why)) {
				g_autofree char *q1 = quoted(q, (size_t)(w - q));

				mhlError("%s:%d: dependency %s of '%s': %s", what, line, q1, e->path, why);
				return NULL;
			}
			g_ptr_array_add(e->deps, g_strndup(q, (size_t)(w - q)));
			q = w;
		}
		p = nl ? nl + 1 : end;
	}
	return g_steal_pointer(&d);
}

/* Whether the file name of @path is @name.ko[.xz|.zst|.gz], '-' and '_' the same. */
static bool modNamed(const char *path, const char *name)
{
	const char *base = strrchr(path, '/'), *ko;
	size_t n = strlen(name), i;

	base = base ? base + 1 : path;
	if (!(ko = strstr(base, ".ko")) || (size_t)(ko - base) != n)
		return false;
	for (i = 0; i < n; i++) {
		char a = base[i] == '-' ? '_' : base[i], b = name[i] == '-' ? '_' : name[i];

		if (a != b)
			return false;
	}
	return true;
}

/* A module on the way down: its path and the next of its dependencies to visit. */
typedef struct {
	const char *path;
	guint next;
} modFrame;

GPtrArray *mhlModDepOrder(const mhlModDep *d, const char *const *names, size_t n, const char *what)
{
	g_autoptr(GPtrArray) order = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
	/* depth first without recursion: a chain of a million dependencies is data, not a stack overflow */
	g_autoptr(GArray) stack = g_array_new(FALSE, FALSE, sizeof(modFrame));
	size_t k;
	guint i;

	for (k = 0; k < n; k++) {
		modFrame f = { NULL, 0 };

		for (i = 0; i < d->entries->len && !f.path; i++)
			if (modNamed(((modEntry *)d->entries->pdata[i])->path, names[k]))
				f.path = ((modEntry *)d->entries->pdata[i])->path;
		if (!f.path) {
			mhlError("%s: the kernel's config says module %s, but it lists no %s.ko", what, names[k], names[k]);
			return NULL;
		}
		if (!g_hash_table_add(seen, (gpointer)f.path))
			continue;
		g_array_append_val(stack, f);
		while (stack->len) {
			modFrame *top = &g_array_index(stack, modFrame, stack->len - 1);
			modEntry *e = g_hash_table_lookup(d->byPath, top->path);

			if (e && top->next < e->deps->len) {
				modFrame g = { e->deps->pdata[top->next++], 0 };

				if (g_hash_table_add(seen, (gpointer)g.path))
					g_array_append_val(stack, g);
				continue;
			}
			g_ptr_array_add(order, g_strdup(top->path));
			g_array_set_size(stack, stack->len - 1);
		}
	}
	return g_steal_pointer(&order);
}

/* ---- a package's archive ---- */

#define TAR_BLOCK 512
/* A GNU long name or pax header's data: at most this much (tar's own names are PATH_MAX). */
#define TAR_META_MAX 65536
#define TAR_MAX_MEMBERS 1000000
/* A member's data: at most 1 TiB (a kernel package holds a few hundred MiB). */
#define TAR_SIZE_MAX (UINT64_C(1) << 40)

typedef enum { TAR_HEADER, TAR_DATA, TAR_META, TAR_END } tarState;

struct mhlTarCheck {
	char *who;
	tarState state;
	uint8_t block[TAR_BLOCK];
	size_t have;		/* bytes of block gathered */
	uint64_t skip;		/* TAR_DATA: bytes of the member's data (padded) left */
	GString *meta;		/* TAR_META: the long name or pax data gathered */
	uint64_t meta_size;	/* its size; then padding to the block */
	char meta_type;		/* 'L', 'K', 'x' or 'g' */
	char *name, *link;	/* the next member's, from a long name or pax header */
	char meta_seen[4];	/* the types of those headers before it ('L', 'K', 'x') */
	int64_t size;		/* the next member's size from a pax header; -1 */
	uint64_t pos;		/* bytes of the archive read before this piece's */
	uint64_t header_at;	/* where the header being checked begins */
	unsigned int members;
	GHashTable *files;	/* the regular files so far (a hard link may name one) */
};

mhlTarCheck *mhlTarCheckNew(const char *who)
{
	mhlTarCheck *t = g_new0(mhlTarCheck, 1);

	t->who = g_strdup(who);
	t->meta = g_string_new(NULL);
	t->size = -1;
	t->files = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	return t;
}

void mhlTarCheckFree(mhlTarCheck *t)
{
	if (!t)
		return;
	g_free(t->who);
	g_string_free(t->meta, TRUE);
	g_free(t->name);
	g_free(t->link);
	g_hash_table_unref(t->files);
	g_free(t);
}

unsigned int mhlTarCheckMembers(const mhlTarCheck *t)
{
	return t->members;
}

/*
 * A number field as GNU tar reads it: octal digits after optional spaces,
 * then only spaces or NULs; or base-256 (the first byte 0x80). Anything
 * else, or over @max: -1, and the archive is refused (tar would read
 * something else, or nothing).
 */
static int tarNumber(const uint8_t *f, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	bool digits = false;

	if (f[0] == 0x80) {
		for (i = 1; i < n; i++) {
			if (v > (max >> 8))
				return -1;
			v = (v << 8) | f[i];
		}
		if (v > max)
			return -1;
		*out = v;
		return 0;
	}
	while (i < n && f[i] == ' ')
		i++;
	for (; i < n && f[i] >= '0' && f[i] <= '7'; i++, digits = true) {
		if (v > (max >> 3))
			return -1;
		v = (v << 3) | (uint64_t)(f[i] - '0');
	}
	for (; i < n; i++)
		if (f[i] != ' ' && f[i] != '\0')
			return -1;
	if (!digits || v > max)
		return -1;
	*out = v;
	return 0;
}

/* A NUL-terminated field of at most @n bytes. */
static char *tarString(const uint8_t *f, size_t n)
{
	return g_strndup((const char *)f, strnlen((const char *)f, n));
}

static bool hasControl(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return true;
	return false;
}

/*
 * A member's name as extracted under the root: without "./" and empty or
 * '.' components ("" for the root itself); NULL with @why when it is
 * absolute, has a '..' component or a control character.
 */
static char *tarPath(const char *raw, size_t n, const char **why)
{
	g_autoptr(GString) out = g_string_new(NULL);
	const char *c = raw, *end = raw + n, *slash;

	if (n > KMOD_PATH_MAX) {
		*why = "a name over 4095 bytes";
		return NULL;
	}
	if (hasControl(raw, n)) {
		*why = "a control character in its name";
		return NULL;
	}
	if (n && raw[0] == '/') {
		*why = "an absolute name";
		return NULL;
	}
	for (; c < end; c = slash + 1) {
		size_t len;

		slash = memchr(c, '/', (size_t)(end - c));
		slash = slash ? slash : end;
		len = (size_t)(slash - c);
		if (len == 2 && c[0] == '.' && c[1] == '.') {
			*why = "a '..' component in its name";
			return NULL;
		}
		if (len && !(len == 1 && c[0] == '.')) {
			if (out->len)
				g_string_append_c(out, '/');
			g_string_append_len(out, c, (gssize)len);
		}
		if (slash == end)
			break;
	}
	return g_string_free(g_steal_pointer(&out), FALSE);
}

/* A symbolic link's target: relative and never '..', so no link nor chain of links leaves the root. */
static bool tarLinkOk(const char *target, const char **why)
{
	size_t n = strlen(target);
	const char *c, *slash;

	if (!n) {
		*why = "a symbolic link to nothing";
		return false;
	}
	if (n > KMOD_PATH_MAX || hasControl(target, n)) {
		*why = "a symbolic link whose target is over 4095 bytes or has a control character";
		return false;
	}
	if (target[0] == '/') {
		*why = "a symbolic link to an absolute path (out of the package)";
		return false;
	}
	for (c = target; *c; c = slash + 1) {
		slash = strchr(c, '/');
		slash = slash ? slash : c + strlen(c);
		if (slash - c == 2 && c[0] == '.' && c[1] == '.') {
			*why = "a symbolic link with a '..' component (it may lead out of the package)";
			return false;
		}
		if (!*slash)
			break;
	}
	return true;
}

char *mhlTarNameOk(const char *raw, const char **why)
{
	const char *ignored;

	return tarPath(raw, strlen(raw), why ? why : &ignored);
}

bool mhlTarLinkOk(const char *target, const char **why)
{
	const char *ignored;

	return tarLinkOk(target, why ? why : &ignored);
}

/* Refuse the member: its name (escaped, at most 80 bytes) and why. -1. */
static int tarRefuse(const mhlTarCheck *t, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int tarRefuse(const mhlTarCheck *t, const char *name, const char *fmt, ...)
{
	g_autofree char *why = NULL, *q = quoted(name, strlen(name));
	va_list ap;

	va_start(ap, fmt);
	why = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	mhlError("%s: member %s (header at byte %" G_GUINT64_FORMAT "): %s; refused before anything is extracted",
		 t->who, q, t->header_at, why);
	return -1;
}

/*
 * A pax header's records ("LEN key=value\n"): path, linkpath and size for
 * the next member ('x'); a global one ('g') may set none of them. Sparse
 * files (GNU.sparse.*) are refused: tar would read their data differently.
 */
static int tarPax(mhlTarCheck *t)
{
	const char *p = t->meta->str, *end = p + t->meta->len;

	while (p < end) {
		const char *sp, *eq, *rec = p;
		uint64_t len = 0;
		size_t klen;

		for (sp = p; sp < end && *sp >= '0' && *sp <= '9' && len <= TAR_META_MAX; sp++)
			len = len * 10 + (uint64_t)(*sp - '0');
		/* LEN counts the whole record: its digits, the space, key=value and the newline */
		if (sp == p || sp >= end || *sp != ' ' || len > (uint64_t)(end - rec) ||
		    (uint64_t)(sp - rec) + 2 >= len || rec[len - 1] != '\n' ||
		    !(eq = memchr(sp + 1, '=', (size_t)(rec + len - 1 - (sp + 1)))))
			return tarRefuse(t, "(pax header)", "a pax header record that is not 'LEN key=value'");
		klen = (size_t)(eq - (sp + 1));
		p = rec + len;
		if (klen >= 10 && !strncmp(sp + 1, "GNU.sparse", 10))
			return tarRefuse(t, "(pax header)", "a sparse file");
		if ((klen == 4 && !strncmp(sp + 1, "path", 4)) || (klen == 8 && !strncmp(sp + 1, "linkpath", 8)) ||
		    (klen == 4 && !strncmp(sp + 1, "size", 4))) {
			g_autofree char *val = g_strndup(eq + 1, (size_t)(p - 1 - (eq + 1)));

			if (t->meta_type == 'g')
				return tarRefuse(t, "(global pax header)", "a global path, linkpath or size");
			if ((size_t)(p - 1 - (eq + 1)) != strlen(val))
				return tarRefuse(t, "(pax header)", "a NUL in a path, link or size");
			if (sp[1] == 's') {
				uint64_t v = 0;
				const char *c;

				for (c = val; *c >= '0' && *c <= '9' && v <= TAR_SIZE_MAX; c++)
					v = v * 10 + (uint64_t)(*c - '0');
				if (c == val || *c || v > TAR_SIZE_MAX)
					return tarRefuse(t, "(pax header)", "a size that is not a number of at most 1 TiB");
				t->size = (int64_t)v;
			} else {
				char **dst = sp[1] == 'p' ? &t->name : &t->link;

				if (*dst)
					return tarRefuse(t, val, "a second long name or link for one member");
				*dst = g_steal_pointer(&val);
			}
		}
	}
	return 0;
}

/* The long name or pax data is complete. */
static int tarMetaDone(mhlTarCheck *t)
{
	if (t->meta_type == 'x' || t->meta_type == 'g')
		return tarPax(t);
	{
		char **dst = t->meta_type == 'L' ? &t->name : &t->link;

		if (*dst)
			return tarRefuse(t, *dst, "a second long name or link for one member");
		/* GNU tar takes the data up to its first NUL */
		*dst = g_strndup(t->meta->str, strnlen(t->meta->str, t->meta->len));
	}
	return 0;
}

/* Which kind a type flag is, for a refusal. */
static const char *tarTypeName(char type)
{
	switch (type) {
	case '3':
		return "a character device";
	case '4':
		return "a block device";
	case '6':
		return "a FIFO";
	case 'S':
		return "a GNU sparse file";
	case 'D':
		return "a GNU dump directory";
	case 'M':
	case 'V':
		return "a multi-volume or volume header";
	default:
		return "a member of an unknown type";
	}
}

/*
 * A header's checksum (tar's unsigned sum or the old signed one), magic and
 * size field (*size; *posix: a ustar header, else GNU's): 0, 1 when it is
 * the archive's end, or -1.
 */
static int tarHeaderVerify(mhlTarCheck *t, bool *posix, uint64_t *size)
{
	const uint8_t *h = t->block;
	uint64_t sum = 0, want;
	int64_t ssum = 0;
	bool gnu = !memcmp(h + 257, "ustar  \0", 8);
	size_t i;

	*posix = !memcmp(h + 257, "ustar\0" "00", 8);
	for (i = 0; i < TAR_BLOCK; i++) {
		uint8_t b = i >= 148 && i < 156 ? ' ' : h[i];

		sum += b;
		ssum += (int8_t)b;
	}
	if (sum == 8 * ' ') {	/* all zero but the checksum field: the end, as tar reads it */
		if (t->name || t->link || t->size >= 0)
			return tarRefuse(t, t->name ? t->name : "(long name)", "a long name or pax header with no member after it");
		t->state = TAR_END;
		return 1;
	}
	if (!*posix && !gnu)
		return tarRefuse(t, "?", "no ustar or GNU tar header here (magic)");
	if (tarNumber(h + 148, 8, UINT64_MAX >> 1, &want) < 0 || (want != sum && (int64_t)want != ssum))
		return tarRefuse(t, "?", "a header whose checksum is wrong (tar would skip ahead to something else)");
	if (tarNumber(h + 124, 12, TAR_SIZE_MAX, size) < 0)
		return tarRefuse(t, "?", "a size field that is not a number of at most 1 TiB");
	return 0;
}

/* A long name or link ('L', 'K') or a pax header ('x', 'g') of @size bytes: its data comes next. */
static int tarMetaHeader(mhlTarCheck *t, char type, uint64_t size)
{
	if (!size || size > TAR_META_MAX)
		return tarRefuse(t, "(long name or pax header)", "%" G_GUINT64_FORMAT " bytes of long name or pax data (1 to %d)",
				 size, TAR_META_MAX);
	if (type != 'g' && strchr(t->meta_seen, type))
		return tarRefuse(t, t->name ? t->name : "(long name or pax header)",
				 "a second '%c' header for one member", type);
	if (type != 'g')
		t->meta_seen[strlen(t->meta_seen)] = type;
	t->meta_type = type;
	t->meta_size = size;
	g_string_truncate(t->meta, 0);
	t->state = TAR_META;
	return 0;
}

/* A member's name: from a long name or pax header, else the header's (after a ustar prefix). */
static char *tarMemberName(mhlTarCheck *t, bool posix)
{
	const uint8_t *h = t->block;

	if (t->name)
		return g_steal_pointer(&t->name);
	if (posix && h[345]) {
		g_autofree char *prefix = tarString(h + 345, 155), *base = tarString(h, 100);

		return g_strconcat(prefix, "/", base, NULL);
	}
	return tarString(h, 100);
}

/* A member @raw of @type and @size bytes (@link: its link's target): a file, directory or link. */
static int tarMember(mhlTarCheck *t, char type, const char *raw, const char *link, uint64_t size)
{
	g_autofree char *name = NULL;
	const char *why = NULL;

	if (!(name = tarPath(raw, strlen(raw), &why)))
		return tarRefuse(t, raw, "%s", why);
	/*
	 * GNU tar (dpkg-deb -x runs it) reads a regular file whose name ends in
	 * '/' as a directory, and its data as the next headers: a member this
	 * check never saw (issue 48: './lib/' hid './lib/modules -> /any/dir').
	 */
	if ((type == '0' || type == '\0' || type == '7') && raw[0] && raw[strlen(raw) - 1] == '/')
		return tarRefuse(t, raw, "a regular file whose name ends in '/': tar would read it as a directory and its %" G_GUINT64_FORMAT " bytes of data as further members",
				 size);
	if (!*name && type != '5')
		return tarRefuse(t, raw, "something other than a directory in place of the root");
	if (type != '0' && type != '\0' && type != '7')
		g_hash_table_remove(t->files, name);	/* a link or directory replaces a file of that name */
	switch (type) {
	case '0':
	case '\0':
	case '7':
		g_hash_table_add(t->files, g_steal_pointer(&name));
		t->skip = (size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
		t->state = t->skip ? TAR_DATA : TAR_HEADER;
		return 0;
	case '1': {
		g_autofree char *target = tarPath(link, strlen(link), &why), *q = quoted(link, strlen(link));

		if (!target)
			return tarRefuse(t, raw, "a hard link to %s: %s", q, why);
		if (!g_hash_table_contains(t->files, target))
			return tarRefuse(t, raw, "a hard link to '%s', which is no earlier file of the package", target);
		break;
	}
	case '2':
		if (!tarLinkOk(link, &why))
			return tarRefuse(t, raw, "%s", why);
		break;
	case '5':
		break;
	default:
		return tarRefuse(t, raw, "%s (type '%c'): a kernel package holds files, directories and links",
				 tarTypeName(type), g_ascii_isprint(type) ? type : '?');
	}
	if (size)	/* tar would read data after a link or directory that we would take for headers */
		return tarRefuse(t, raw, "a link or directory with %" G_GUINT64_FORMAT " bytes of data", size);
	return 0;
}

/* One 512-byte header: 0, 1 (the archive's end), or -1. */
static int tarHeader(mhlTarCheck *t)
{
	g_autofree char *raw = NULL, *link = NULL;
	char type = (char)t->block[156];
	uint64_t size;
	bool posix;
	int rc;

	if ((rc = tarHeaderVerify(t, &posix, &size)) != 0)
		return rc;
	if (type == 'L' || type == 'K' || type == 'x' || type == 'g')
		return tarMetaHeader(t, type, size);
	raw = tarMemberName(t, posix);
	link = t->link ? g_steal_pointer(&t->link) : tarString(t->block + 157, 100);
	if (t->size >= 0)	/* a pax header's size */
		size = (uint64_t)t->size;
	t->size = -1;
	memset(t->meta_seen, 0, sizeof(t->meta_seen));
	if (++t->members > TAR_MAX_MEMBERS)
		return tarRefuse(t, raw, "more than %d members", TAR_MAX_MEMBERS);
	return tarMember(t, type, raw, link, size);
}

int mhlTarCheckFeed(mhlTarCheck *t, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	while (n) {
		size_t take;
		int rc;

		switch (t->state) {
		case TAR_END:
			return 1;
		case TAR_DATA:
			take = (size_t)MIN((uint64_t)n, t->skip);
			t->skip -= take;
			if (!t->skip)
				t->state = TAR_HEADER;
			break;
		case TAR_META:
			/* the data, then its padding to the block */
			take = MIN(n, (size_t)(t->meta_size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK - t->have);
			if (t->have < t->meta_size)
				g_string_append_len(t->meta, (const char *)p,
						    (gssize)MIN(take, (size_t)t->meta_size - t->have));
			t->have += take;
			if (t->have == (t->meta_size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK) {
				t->have = 0;
				t->state = TAR_HEADER;
				if (tarMetaDone(t) < 0)
					return -1;
			}
			break;
		default:
			take = MIN(n, TAR_BLOCK - t->have);
			memcpy(t->block + t->have, p, take);
			t->have += take;
			if (t->have == TAR_BLOCK) {
				t->have = 0;
				t->header_at = t->pos + take - TAR_BLOCK;
				if ((rc = tarHeader(t))) {
					t->pos += take;
					return rc;
				}
			}
			break;
		}
		t->pos += take;
		p += take;
		n -= take;
	}
	return t->state == TAR_END ? 1 : 0;
}

int mhlTarCheckFinish(mhlTarCheck *t)
{
	if (t->state == TAR_END || (t->state == TAR_HEADER && !t->have && !t->name && !t->link && t->size < 0))
		return 0;
	mhlError("%s: the archive ends within a member (%u members read): truncated, refused", t->who, t->members);
	return -1;
}

/* ---- files under a directory ---- */

int mhlKmodOpenBeneath(const char *dir, const char *rel)
{
	g_auto(GStrv) parts = NULL;
	const char *why = NULL;
	struct stat st;
	int fd, next;
	size_t i;

	if (!relPathOk(rel, strlen(rel), false, &why)) {
		g_autofree char *q = quoted(rel, strlen(rel));

		mhlError("'%s': %s: %s", dir, q, why);
		return -1;
	}
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		mhlError("cannot open directory '%s': %s", dir, g_strerror(errno));
		return -1;
	}
	parts = g_strsplit(rel, "/", -1);
	for (i = 0; parts[i]; i++) {
		bool last = !parts[i + 1];

		/* O_NONBLOCK: a FIFO in its place must not hang us before fstat says what it is */
		next = openat(fd, parts[i], O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
			      (last ? O_NONBLOCK : O_DIRECTORY));
		if (next < 0) {
			int e = errno;

			close(fd);
			mhlError("'%s/%s': %s", dir, rel,
				 e == ELOOP ? "a symbolic link (no link below the directory is followed)" :
				 e == ENOTDIR ? "a component is not a directory (or is a symbolic link)" : g_strerror(e));
			return -1;
		}
		close(fd);
		fd = next;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		mhlError("'%s/%s': not a regular file (only regular files are copied)", dir, rel);
		return -1;
	}
	/* back to blocking reads */
	if (fcntl(fd, F_SETFL, 0) < 0) {
		close(fd);
		mhlError("'%s/%s': %s", dir, rel, g_strerror(errno));
		return -1;
	}
	return fd;
}
