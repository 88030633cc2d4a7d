/*
 * cli.h - what memhp-lab's commands share. A command is an option table, a
 * handler (cli/cmd-<name>.c) and one row of the registry (cli/registry.c), as virsh
 * does; its --help is printed from the table that drives getopt_long.
 */
#ifndef MHL_CLI_H
#define MHL_CLI_H

#include <glib.h>
#include <stdio.h>

#include "mhl-exit.h"

#ifndef MHL_VERSION
#define MHL_VERSION "unknown"	/* the Makefile passes git describe */
#endif

#define MHL_LONG_ONLY 256	/* option values from here on have no short form */

typedef struct {
	const char *name;	/* --name, and its key in the parsed values */
	int has_arg;		/* 1: takes a value (getopt_long's has_arg) */
	int val;		/* the short form, or MHL_LONG_ONLY + a letter for none */
	const char *arg;	/* the value's name in --help; NULL without one; "X...": may be given again (the values joined by newlines) */
	const char *help;
} mhlOpt;

typedef struct {
	const char *name;
	const char *args;	/* "X...": one or more, "X": exactly one, "": none */
	const char *summary;
	const mhlOpt *opts;	/* ends with a NULL name; NULL for no options */
	int (*handler)(int argc, char **argv);	/* argv[0]: the command; returns MHL_EXIT_* */
	const char *exits;	/* what its exit statuses mean: "0 ..., 1 ..., 2 ..." */
} mhlCmd;

/* The commands (cli/cmd-<name>.c): their option tables and handlers. */
extern const mhlOpt mhlCmdRunOpts[];
int mhlCmdRun(int argc, char **argv);
extern const mhlOpt mhlCmdSoakOpts[];
int mhlCmdSoak(int argc, char **argv);
extern const mhlOpt mhlCmdCheckOpts[];
int mhlCmdCheck(int argc, char **argv);
extern const mhlOpt mhlCmdReportOpts[];
int mhlCmdReport(int argc, char **argv);
extern const mhlOpt mhlCmdDoctorOpts[];
int mhlCmdDoctor(int argc, char **argv);
extern const mhlOpt mhlCmdCleanupOpts[];
int mhlCmdCleanup(int argc, char **argv);

/* registry.c: the commands, ending with a NULL name; one by name, or NULL. */
const mhlCmd *mhlCmds(void);
const mhlCmd *mhlCmdFind(const char *name);

/* dispatch.c: the command line after main(): global options, then a command. Returns MHL_EXIT_*. */
int mhlCliMain(int argc, char **argv);

/* usage.c: "usage: memhp-lab NAME [OPTION]... ARGS", the summary, one line per option. */
void mhlCmdUsage(FILE *f, const mhlCmd *c);
/* memhp-lab's own usage: global options, one line per command. */
void mhlCliUsage(FILE *f);
/*
 * A summary or an option's help with its tokens replaced: "{formats}" by the
 * report formats' names (html,junit,...), "{format titles}" by their titles
 * (HTML, JUnit, ...), from their table. Freed by the caller.
 */
char *mhlCliText(const char *text);

/* man.c: memhp-lab.1 (--man) and the bash completion (--bash-completion). */
void mhlCliManPage(FILE *f);
void mhlCliBashCompletion(FILE *f);

/* opts.c: option parsing. */
/*
 * getopt_long over @c's table: each option given goes into @vals (its name ->
 * its value, "" without one). Returns the index of the first argument, or -1
 * + mhlError on an unknown option or a missing value.
 */
int mhlCmdParseOpts(const mhlCmd *c, int argc, char **argv, GHashTable *vals);
/*
 * Common start of a command taking its args (c->args): parse the options into
 * @vals, handle --help, check the argument count. Returns an exit status to
 * return at once, or -1 to go on with argv[*first] as the first argument.
 */
int mhlCmdStart(const char *name, int argc, char **argv, GHashTable *vals, int *first);
/* A table for mhlCmdParseOpts: option name (static) -> value (freed with it). */
GHashTable *mhlCmdValsNew(void);
/*
 * The libvirt URI of a command, as virsh finds it: --uri or -c/--connect,
 * else LIBVIRT_DEFAULT_URI, else NULL (the embedded driver). -1 + mhlError
 * when --uri and --connect disagree.
 */
int mhlCmdUri(GHashTable *vals, const char **uri);

/*
 * cli.c: where this memhp-lab finds its data. Installed (`make install`:
 * <exe dir>/../share/memhp-lab exists) everything is there; run from the
 * checkout (build/memhp-lab) the guest image is next to the binary and
 * domains/, kernel/ are one level up; from a build in a folder of build/
 * (build/asan/memhp-lab, make check-full's leak checks) the image is build/'s
 * and domains/, kernel/ are two levels up.
 */
typedef struct {
	char *bindir;	/* the directory of the executable */
	char *datadir;	/* domains/, kernel/required.list, scenarios/ */
	char *initrd;	/* the default guest image */
	char *tmpl;	/* the default domain template */
	char *cache;	/* $MEMHP_CACHE, else ~/.cache/memhp-lab */
} mhlCliPaths;

/* The paths for an executable in @bindir (NULL: this process's, from /proc/self/exe). */
mhlCliPaths *mhlCliPathsNew(const char *bindir);
void mhlCliPathsFree(mhlCliPaths *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(mhlCliPaths, mhlCliPathsFree)

#endif
