/* kernel.h - which guest kernel a trial boots, and whether it can do the job. */
#ifndef MHL_KERNEL_H
#define MHL_KERNEL_H

#include <glib.h>
#include <json-c/json.h>

#include "host/kmod.h"
#include "scenario/scenario.h"

/*
 * The CONFIG_ names listed in @required (one per line, without CONFIG_, '#'
 * comments) that @config does not set to =y, space-separated; NULL if none.
 */
char *mhlKconfigMissing(const char *config, const char *required);

/*
 * Resolve the scenario's kernel: an artifact of kernel/build.sh (a kernel
 * form of scenario/names.h, from $MEMHP_CACHE/kernel/<kver>/current, or
 * @kernel_dir if given) or a
 * prebuilt bzImage with its .config, or a Debian kernel package fetched and
 * unpacked by @srcdir/kernel/package.sh (cached in $MEMHP_CACHE/kernel/pkg/;
 * its modules as a cpio the run appends to the initramfs: identity "kind":
 * "package"). A package's config may have the virtio and vfio drivers as
 * modules. A package or a prebuilt kernel may lack a capability (GUP_TEST,
 * IO_URING, the series' counters, ...): with @skips, *skips gets one entry
 * per step, NULL or why that step is skipped ("CODE: reason", codes in
 * docs/record.md); without it, a step that needs one is an error. Checks
 * the config against
 * @srcdir/kernel/required.list, plus CONFIG_GUP_LONGTERM_PIN_IN_PLACE under
 * pin_policy baseline. Returns the bzImage path and fills *identity (for the
 * record); NULL + mhlError naming the file and the missing options otherwise.
 */
char *mhlKernelResolve(const mhlScenario *s, const char *cache, const char *kernel_dir,
		       const char *srcdir, json_object **identity, GPtrArray **skips);

/*
 * The artifact directory of the lab's kernel @kver that the pointer file
 * $@cache/kernel/@kver/@pointer names ("current": the default build, or a
 * flavour's name; kernel/build.sh writes them), stripped; NULL when the
 * file cannot be read. *@path (when not NULL): the pointer file's path.
 */
char *mhlKernelPointer(const char *cache, const char *kver, const char *pointer, char **path);

/*
 * The guest image a trial of @s boots with the kernel of @identity: @base
 * (the lab's initramfs), or for guest: debian initramfs-debian.cpio.gz
 * beside it; for a modular kernel (identity's modules_cpio_dir: a Debian
 * package, a user's modules tree, a flavour with modules) that image with the
 * kernel's modules.cpio.gz appended (concatenated compressed cpio archives
 * are one initramfs to the kernel), written once per kernel into @outdir.
 * The path (@base itself when nothing is added); NULL + mhlError.
 */
char *mhlInitrdFor(const mhlScenario *s, json_object *identity, const char *base, const char *outdir);

#endif
