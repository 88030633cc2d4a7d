/*
 * man.c - memhp-lab.1 (--man) and the bash completion (--bash-completion),
 * printed from the registry, the option tables and the tables of the closed
 * sets (make install installs both).
 */
#include <glib.h>

#include "cli/cli.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "reports/report.h"
#include "scenario/names.h"

/* The environment memhp-lab (and its Makefile) reads: the man page's ENVIRONMENT, docs/cli.md. */
static const struct {
	const char *name;
	const char *help;
} envVars[] = {
	{ "MEMHP_CACHE", "where the guest kernels and the KVM probe's answer are cached (default ~/.cache/memhp-lab)" },
	{ "MEMHP_ACCEL", "kvm or tcg: skip the KVM probe and use this accelerator" },
	{ "MEMHP_KVM_DEVICE", "the device node the KVM probe opens first (default /dev/kvm; for tests)" },
	{ "MEMHP_KVM_PROBE_EMULATOR", "the program the KVM probe boots in place of QEMU (for tests: one that never answers stands for a /dev/kvm that hangs QEMU)" },
	{ "MEMHP_GUEST_BUDGET", "each trial's memory budget on its QEMU (a memory cgroup under the embedded driver), a size of 16 MiB or more, instead of the fit's count" },
	{ "MEMHP_CONSOLE_MAX", "a console log's cap, a size of 4 KiB or more (default 64M); past it the log keeps its head and the guest's last lines (a quarter of the cap, 1 MiB at most), the bytes between dropped and counted (console_truncated)" },
	{ "MEMHP_ARTIFACT_URL", "where CI publishes the run directory (report --artifact-url's default): KCIDB log_url and JUnit's console-log lines point under it" },
	{ "MEMHP_GNUPLOT", "the gnuplot binary the HTML report runs (default gnuplot from PATH)" },
	{ "LIBVIRT_DEFAULT_URI", "the libvirt URI of run, soak, doctor and cleanup when neither --uri nor -c is given (as virsh; memhp-lab -c URI sets it for every command); unset: the embedded driver" },
	{ "LIBVIRT_LOG_OUTPUTS", "libvirt's log outputs; unset, memhp-lab logs to RUN_DIR/libvirt.log" },
	{ "CI_NODE_INDEX", "run --shard auto in a GitLab CI parallel: job: this job's shard, from 1" },
	{ "CI_NODE_TOTAL", "run --shard auto in a GitLab CI parallel: job: the number of shards" },
	{ "SLURM_ARRAY_TASK_ID", "run --shard auto in a Slurm job array: this task's id" },
	{ "SLURM_ARRAY_TASK_MIN", "run --shard auto in a Slurm job array: the first id (default 0)" },
	{ "SLURM_ARRAY_TASK_COUNT", "run --shard auto in a Slurm job array: the number of shards" },
	{ "JOB_COMPLETION_INDEX", "run --shard auto in a Kubernetes Indexed Job: this pod's shard, from 0" },
	{ "MEMHP_SHARDS", "run --shard auto in a Kubernetes Indexed Job: the number of shards (the Job's completions)" },
	{ "SUDO_UID", "as root: the user sudo ran memhp-lab for, who may own the run or soak directory and what a resumed run loads besides root" },
	{ NULL, NULL }
};

/* report --format's values: each format, and all of them as one list. */
static char *complFormats(void)
{
	g_autofree char *words = mhlReportFormatsJoin(offsetof(mhlReportFormatDesc, name), " ", " ");
	g_autofree char *all = mhlReportFormatsJoin(offsetof(mhlReportFormatDesc, name), ",", ",");

	return g_strdup_printf("-W '%s %s'", words, all);
}

/* --kernel's and --pin-policy's values: the kernel forms and pin policies (scenario/names.h). */
static char *complKernels(void)
{
	g_autofree char *words = mhlNamesJoin(MHL_ROWS(mhlKernelForms), " ");

	return g_strdup_printf("-W '%s'", words);
}

static char *complStacks(void)
{
	g_autofree char *words = mhlNamesJoin(MHL_ROWS(mhlStacks), " ");

	return g_strdup_printf("-W '%s'", words);
}

static char *complPolicies(void)
{
	g_autofree char *words = mhlNamesJoin(MHL_ROWS(mhlPinPolicies), " ");

	return g_strdup_printf("-W '%s'", words);
}

/*
 * How bash completes an option's value, by the value's name in the table
 * (mhlOpt.arg): a compgen action, or a function making one from a closed
 * set's table; unnamed ones complete nothing.
 */
static const struct {
	const char *arg;
	const char *compgen;
	char *(*make)(void);
} complArgs[] = {
	{ "DIR", "-d", NULL },
	{ "RUN_DIR", "-d", NULL },
	{ "OTHER_RUN", "-d", NULL },
	{ "FILE", "-f", NULL },
	{ "KVER", NULL, complKernels },
	{ "POLICY", NULL, complPolicies },
	{ "STACK", NULL, complStacks },
	/* report --format's own name: soak --seeds' LIST is no list of formats (issue 48) */
	{ "FORMATS", NULL, complFormats },
	{ NULL, NULL, NULL }
};

/* @s for roff: backslashes and hyphens escaped, a leading dot or quote made literal. */
static char *manEscape(const char *s)
{
	GString *g = g_string_new(NULL);

	if (*s == '.' || *s == '\'')
		g_string_append(g, "\\&");
	for (; *s; s++) {
		if (*s == '\\')
			g_string_append(g, "\\e");
		else if (*s == '-')
			g_string_append(g, "\\-");
		else
			g_string_append_c(g, *s);
	}
	return g_string_free(g, FALSE);
}

/* @text with its tokens replaced (mhlCliText), for roff. */
static char *manText(const char *text)
{
	g_autofree char *t = mhlCliText(text);

	return manEscape(t);
}

/* The COMMANDS section: per command its synopsis, summary, options and exit status. */
static void manCommands(FILE *f)
{
	const mhlCmd *c;

	fprintf(f, ".SH COMMANDS\n");
	for (c = mhlCmds(); c->name; c++) {
		const mhlOpt *o;
		g_autofree char *sum = manText(c->summary), *ex = manEscape(c->exits);

		fprintf(f, ".SS \"memhp\\-lab %s [OPTION]... %s\"\n%s.\n", c->name, c->args, sum);
		for (o = c->opts; o && o->name; o++) {
			g_autofree char *help = manText(o->help);

			fprintf(f, ".TP\n");
			if (o->val < MHL_LONG_ONLY)
				fprintf(f, "\\fB\\-%c\\fR, ", o->val);
			fprintf(f, "\\fB\\-\\-%s\\fR%s%s%s\n%s\n", o->name, o->arg ? " \\fI" : "",
				o->arg ? o->arg : "", o->arg ? "\\fR" : "", help);
		}
		fprintf(f, ".PP\nExit status: %s.\n", ex);
	}
}

void mhlCliManPage(FILE *f)
{
	g_autofree char *titles = mhlReportFormatsJoin(offsetof(mhlReportFormatDesc, title), ", ", " and ");
	g_autofree char *files = mhlReportFormatsJoin(offsetof(mhlReportFormatDesc, file), ", ", ", ");
	int i;

	fprintf(f, ".\\\" memhp-lab.1 - generated by 'memhp-lab --man' from the option tables; do not edit\n");
	fprintf(f, ".TH MEMHP\\-LAB 1 \"\" \"memhp-lab %s\" \"User Commands\"\n", MHL_VERSION);
	fprintf(f, ".SH NAME\nmemhp\\-lab \\- boot NUMA QEMU guests with virtio\\-mem, long\\-term pin their memory, unplug it, record what happened\n");
	fprintf(f, ".SH SYNOPSIS\n.B memhp\\-lab\n.I COMMAND\n[\\fIOPTION\\fR]... [\\fIARG\\fR]...\n.br\n"
		   ".B memhp\\-lab\n.BR \\-\\-version \" | \" \\-\\-help \" | \" \\-\\-man \" | \" \\-\\-bash\\-completion\n");
	fprintf(f, ".SH DESCRIPTION\nmemhp\\-lab boots one libvirt QEMU guest per trial of a scenario (YAML), "
		   "long\\-term pins guest memory as RDMA, VFIO and io_uring do, asks the host to take the "
		   "virtio\\-mem memory back and appends one JSON record per trial to RUN_DIR/trials.jsonl, "
		   "rendered as %s reports. Without a libvirt URI it runs the embedded "
		   "QEMU driver in a private root, no daemon needed.\n", titles);
	manCommands(f);
	fprintf(f, ".SH EXIT STATUS\nThe same meaning for every command: 0 success (every trial passed), "
		   "1 something failed (a trial, a check, a regression), 2 usage or setup error (nothing was run); "
		   "what each means per command is listed with it above.\n");
	fprintf(f, ".SH ENVIRONMENT\n");
	for (i = 0; envVars[i].name; i++) {
		g_autofree char *help = manEscape(envVars[i].help);

		fprintf(f, ".TP\n.B %s\n%s\n", envVars[i].name, help);
	}
	fprintf(f, ".SH FILES\n.TP\n.I RUN_DIR/trials.jsonl\none JSON record per trial (docs/record.md)\n"
		   ".TP\n.I RUN_DIR/report/\n%s\n"
		   ".TP\n.I PREFIX/share/memhp\\-lab/\nthe guest image, domains/, kernel/, scenarios/, docs/ (docs/cli.md: JSON outputs and their schemas)\n",
		files);
	fprintf(f, ".SH SEE ALSO\n.BR virsh (1),\n.BR qemu\\-system\\-x86_64 (1)\n");
}

/* One option's value completion: its compgen action, or none. */
static void complOptValue(FILE *f, const mhlOpt *o)
{
	g_autofree char *made = NULL;
	const char *act = "";
	int i;

	for (i = 0; complArgs[i].arg; i++)
		if (!strcmp(complArgs[i].arg, o->arg))
			act = complArgs[i].make ? (made = complArgs[i].make()) : complArgs[i].compgen;
	if (o->val < MHL_LONG_ONLY)
		fprintf(f, "\t\t-%c|", o->val);
	else
		fprintf(f, "\t\t");
	if (*act)
		fprintf(f, "--%s) COMPREPLY=($(compgen %s -- \"$cur\")); return;;\n", o->name, act);
	else
		fprintf(f, "--%s) COMPREPLY=(); return;;\n", o->name);
}

/* One command's case: its options, their values, what its arguments are. */
static void complCommand(FILE *f, const mhlCmd *c)
{
	const mhlOpt *o;

	fprintf(f, "\t%s)\n\t\topts='", c->name);
	for (o = c->opts; o && o->name; o++) {
		if (o->val < MHL_LONG_ONLY)
			fprintf(f, "-%c ", o->val);
		fprintf(f, "--%s ", o->name);
	}
	fprintf(f, "'\n\t\tcase $prev in\n");
	for (o = c->opts; o && o->name; o++)
		if (o->arg)
			complOptValue(f, o);
	fprintf(f, "\t\tesac\n");
	if (g_str_has_prefix(c->args, "SCENARIO"))
		fprintf(f, "\t\targs=scenario;;\n");
	else if (g_str_has_prefix(c->args, "RUN_DIR"))
		fprintf(f, "\t\targs=dir;;\n");
	else if (!strcmp(c->args, "[COMMAND]"))
		fprintf(f, "\t\targs=command;;\n");
	else
		fprintf(f, "\t\t;;\n");
}

void mhlCliBashCompletion(FILE *f)
{
	const mhlCmd *c;

	fprintf(f, "# bash completion for memhp-lab - generated by 'memhp-lab --bash-completion'"
		   " from the option tables; do not edit\n");
	fprintf(f, "_memhp_lab()\n{\n\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}"
		   " cmd=${COMP_WORDS[1]} opts= args=\n");
	fprintf(f, "\tif [ \"$COMP_CWORD\" = 1 ]; then\n\t\tCOMPREPLY=($(compgen -W '");
	for (c = mhlCmds(); c->name; c++)
		fprintf(f, "%s ", c->name);
	fprintf(f, "--help --version' -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase $cmd in\n");
	for (c = mhlCmds(); c->name; c++)
		complCommand(f, c);
	fprintf(f, "\tesac\n");
	fprintf(f, "\tif [[ $cur == -* ]]; then\n\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n");
	fprintf(f, "\telif [ \"$args\" = scenario ]; then\n"
		   "\t\t# scenario files (*.yaml, *.yml) and directories to descend into\n"
		   "\t\tcompopt -o filenames 2>/dev/null\n"
		   "\t\tCOMPREPLY=($(compgen -d -- \"$cur\") $(compgen -f -X '!*.yaml' -- \"$cur\")"
		   " $(compgen -f -X '!*.yml' -- \"$cur\"))\n");
	fprintf(f, "\telif [ \"$args\" = dir ]; then\n\t\tcompopt -o filenames 2>/dev/null\n"
		   "\t\tCOMPREPLY=($(compgen -d -- \"$cur\"))\n");
	fprintf(f, "\telif [ \"$args\" = command ]; then\n\t\tCOMPREPLY=($(compgen -W '");
	for (c = mhlCmds(); c->name; c++)
		fprintf(f, "%s ", c->name);
	fprintf(f, "' -- \"$cur\"))\n\tfi\n}\ncomplete -F _memhp_lab memhp-lab\n");
}
