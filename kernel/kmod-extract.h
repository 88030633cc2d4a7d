/*
 * kmod-extract.h - a package's filesystem archive unpacked by the parser
 * that checks it (kernel/kmod-extract.c; `memhp-kmod extract`).
 */
#ifndef MHL_KMOD_EXTRACT_H
#define MHL_KMOD_EXTRACT_H

/*
 * Read the tar stream on @in_fd once: each block through mhlTarCheck, then
 * libarchive, which unpacks every entry into @dir (an empty directory of
 * the caller's) after checking it as it reads it; then walk @dir with lstat:
 * only what the archive listed, of its type. 0, or -1 + mhlError naming
 * @who and the member or path refused (@dir then holds part of the
 * package: the caller removes it).
 */
int mhlTarExtract(const char *who, int in_fd, const char *dir);

#endif
