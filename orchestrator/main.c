/*
 * memhp-lab - the memory-hotplug lab orchestrator: main() sets the
 * allocator up and hands the command line to cli/ (cli/dispatch.c: global
 * options, the registry's commands, --help, --man, --bash-completion).
 */
#include <malloc.h>

#include "cli/cli.h"

/*
 * glibc's allocator, set for a process that runs for days (issue 29): by
 * default a freed mmap'ed block raises the mmap threshold to its size (the
 * console scan's 1 MiB read buffer, an agent reply, a slabinfo), so later
 * big buffers come from the heap among long-lived small ones and the heap
 * grows in steps it never trims, and every thread that allocates may get an
 * arena of its own. A 20-minute soak here grew 25.9 -> 26.5 MiB of RSS (621
 * B/cycle, significant) with a live heap that did not grow (ASan's heap
 * profile, cycles 10 to 40); with these three settings (as GLIBC_TUNABLES)
 * the same soak held 24.8 MiB flat from cycle 26 to its end, slope 0.
 * Before any thread starts.
 */
static void mallocSettings(void)
{
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);	/* fixed: blocks this big are mmap'ed and unmapped at free */
	mallopt(M_TRIM_THRESHOLD, 256 * 1024);	/* fixed: free memory at the heap's top goes back beyond it */
	mallopt(M_ARENA_MAX, 1);		/* one arena: the threads mostly wait on libvirt and the guest */
}

int main(int argc, char **argv)
{
	mallocSettings();
	return mhlCliMain(argc, argv);
}
