/*
 * kmod.h - a kernel's modules and packages as data (issue 30): the modules
 * the guest's init loads, a modules.dep read into their load order, the
 * members of a package's archive checked before anything is extracted, and a
 * file opened under a directory without following a link. kernel/package.sh
 * reaches them through build/memhp-kmod (kernel/memhp-kmod.c); nothing here
 * runs a program, and no byte of the input becomes a program's text.
 */
#ifndef MHL_KMOD_H
#define MHL_KMOD_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * What a modular kernel may have as modules, each with the module the
 * guest's init loads for it (kernel/package.sh puts it into the cpio); the
 * rest of the required list must be built in.
 */
typedef struct {
	const char *opt;	/* without CONFIG_ */
	const char *module;	/* its file name without .ko; '-' and '_' are the same */
} mhlKmodWant;

extern const mhlKmodWant mhlKmodWanted[];
extern const size_t mhlKmodNWanted;

/* @opt's value in @config (without CONFIG_): 'y', 'm', or 0 when not set. */
char mhlKconfigValue(const char *config, const char *opt);

/*
 * Whether @p is a module path as modules.dep holds one: relative, components
 * of [A-Za-z0-9._+-] that are not '.' or '..' and start with no '-', ending
 * in .ko, .ko.xz, .ko.zst or .ko.gz, at most 4095 bytes. With @why, what is
 * wrong (static text) when it is not.
 */
bool mhlKmodPathOk(const char *p, const char **why);

/* A modules.dep: each module's path and the paths it depends on. */
typedef struct mhlModDep mhlModDep;

/*
 * @len bytes of a modules.dep (@what names it in messages): every line
 * "PATH:" or "PATH: DEP DEP...", every path mhlKmodPathOk, no path twice.
 * NULL + mhlError("WHAT:LINE: ...") otherwise: a line that is not of that
 * shape refuses the whole file, whether or not the guest needs its module.
 */
mhlModDep *mhlModDepParse(const char *text, size_t len, const char *what);
void mhlModDepFree(mhlModDep *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(mhlModDep, mhlModDepFree)

/*
 * The modules named @names (without .ko; '-' and '_' the same), each after
 * its dependencies, every path once: the first line whose file is NAME.ko
 * (or .ko.xz, .ko.zst, .ko.gz) names it. A GPtrArray of paths (relative, as
 * modules.dep has them); NULL + mhlError naming a module it lacks.
 */
GPtrArray *mhlModDepOrder(const mhlModDep *d, const char *const *names, size_t n, const char *what);

/* The modules the kernel of @config has as modules (=m) of mhlKmodWanted, in its order. */
GPtrArray *mhlKmodWantedBy(const char *config);

/*
 * The members of a package's filesystem archive (dpkg-deb --fsys-tarfile:
 * ustar or GNU tar, with GNU long names and pax headers), checked as a
 * stream before anything is extracted. Refused, naming the member: a name
 * that is absolute, has a '..' component or a control character; a symbolic
 * link whose target is absolute or has a '..' component (so no link, nor a
 * chain of them, leads out of the extraction root); a hard link to anything
 * but an earlier regular file of the archive; a device node, FIFO, sparse
 * file or any type but file, directory and link; a header whose checksum,
 * size or magic is not what tar reads (so tar sees the members checked here).
 */
typedef struct mhlTarCheck mhlTarCheck;

mhlTarCheck *mhlTarCheckNew(const char *who);
/*
 * The rules of a member's name and a link's target, for another reader of
 * the same archive (kernel/kmod-extract.c): the name as extracted under the
 * root ("./" and empty components gone; "" the root), NULL when refused;
 * whether a symbolic link's target stays in the root. @why: static text.
 */
char *mhlTarNameOk(const char *raw, const char **why);
bool mhlTarLinkOk(const char *target, const char **why);
void mhlTarCheckFree(mhlTarCheck *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(mhlTarCheck, mhlTarCheckFree)

/* The next @n bytes of the archive: 0 (go on), 1 (its end: the rest is not read), -1 + mhlError. */
int mhlTarCheckFeed(mhlTarCheck *t, const void *buf, size_t n);

/* At the end of the input: 0 when it ended between members, -1 + mhlError when within one. */
int mhlTarCheckFinish(mhlTarCheck *t);

/* The members seen so far (long-name and pax headers not counted). */
unsigned int mhlTarCheckMembers(const mhlTarCheck *t);

/*
 * @rel (mhlKmodPathOk's characters, no '..', relative) under the directory
 * @dir, opened for reading without following a link below @dir (@dir itself
 * may be one): a regular file's descriptor, or -1 + mhlError when a component
 * is a link, is missing, or the file is not a regular one.
 */
int mhlKmodOpenBeneath(const char *dir, const char *rel);

#endif
