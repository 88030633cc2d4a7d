/* capscache.h - libvirt's QEMU capabilities cache, kept across embedded roots. */
#ifndef MHL_HOST_CAPSCACHE_H
#define MHL_HOST_CAPSCACHE_H

/*
 * Before the first connection to qemu:///embed?root=@root: copy the
 * capabilities files saved in @cache_dir ($MEMHP_CACHE) into the root, so
 * that libvirt need not probe QEMU again. Silent; NULL arguments do nothing.
 */
void mhlCapsCacheSeed(const char *root, const char *cache_dir);
/* After the connection closed: save the root's capabilities files that are new or changed. */
void mhlCapsCacheSave(const char *root, const char *cache_dir);

#endif
