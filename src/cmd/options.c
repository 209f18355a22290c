#include "config.h"
#include "base/system.h"

#include <getopt.h>

#include "base/issueref.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "experiment/runner.h"
#include "record/record.h"

#define MAX_OPTS  64
#define LONG_BASE 256 /* getopt_long's value for opts[i] without a short name: LONG_BASE + i */

/*
 * Option 'opt' of 'cmd': a whole decimal number in [min, max], with no sign
 * tricks, overflow or trailing text ("4294967296" never becomes 0). Returns
 * 0, or reports the usage error and returns LR_EXIT_USAGE.
 */
static int parse_int(const char *cmd, const char *opt, const char *arg, long long min, long long max, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || *out < min || *out > max)
		return cmd_usage_error(cmd, "invalid %s '%s': expected a whole number from %lld to %lld", opt, arg, min,
				       max);
	return 0;
}

/* --fault-flip-bit ARM[@CONDITION] into ro; an exit code (usage) on a bad value, else 0. */
static int parse_flip(const char *cmd, const char *arg, struct lr_runopts *ro)
{
	char *end;
	long a, c = -1;

	errno = 0;
	a = strtol(arg, &end, 10);
	if (*end == '@' && end != arg)
		c = strtol(end + 1, &end, 10);
	if (errno || *end || end == arg || a < 0 || a > 1000 || (c != -1 && (c < 0 || c > 100000)))
		return cmd_usage_error(cmd, "invalid --fault-flip-bit '%s': expected ARM or ARM@CONDITION", arg);
	ro->flip_arm = (int)a;
	if (c != -1)
		ro->flip_condition = (int)c;
	return 0;
}

/* getopt's complaint about argv[optind - 1] for 'cmd'. */
static int bad_option(const char *cmd, char **argv, int opt)
{
	extern int optind, optopt;
	const char *arg = argv[optind - 1];

	if (opt == ':')
		return cmd_usage_error(cmd, "option '%s' of 'labrun %s' needs a value", arg, cmd);
	if (optopt && arg[0] == '-' && arg[1] != '-')
		return cmd_usage_error(cmd, "unknown option '-%c' for 'labrun %s'", optopt, cmd);
	return cmd_usage_error(cmd, "unknown option '%s' for 'labrun %s'", arg, cmd);
}

/* The getopt_long tables for 'opts'; -h and --help always. */
static void build(const struct cmd_opt *opts, const struct cmd_parse *p, struct option *lo, char *so)
{
	int i, n = 0;
	char *s = so;

	if (p->stop_at_operand)
		*s++ = '+';
	*s++ = ':';
	*s++ = 'h';
	for (i = 0; opts[i].kind != CMD_OPT_END && i < MAX_OPTS; i++) {
		int has_arg;

		if (opts[i].kind == CMD_OPT_HEADING)
			continue;
		has_arg = opts[i].kind == CMD_OPT_BOOL || opts[i].no_arg ? no_argument : required_argument;

		if (opts[i].short_name) {
			*s++ = (char)opts[i].short_name;
			if (has_arg == required_argument)
				*s++ = ':';
		}
		if (opts[i].long_name)
			lo[n++] = (struct option){ opts[i].long_name, has_arg, NULL,
						   opts[i].short_name ? opts[i].short_name : LONG_BASE + i };
	}
	lo[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
	*s = '\0';
}

/* "--limit" or "-n": the option as the user may have written it, for messages. */
static const char *spelled(const struct cmd_opt *o, char *buf, size_t len)
{
	if (o->long_name)
		snprintf(buf, len, "--%s", o->long_name);
	else
		snprintf(buf, len, "-%c", o->short_name);
	return buf;
}

static int choice(const struct cmd_parse *p, const struct cmd_opt *o, const char *arg, const char *name)
{
	char expected[256] = "";
	size_t len = 0;
	int i;

	for (i = 0; o->choices[i]; i++) {
		if (!strcmp(arg, o->choices[i])) {
			*(int *)o->value = i;
			return 0;
		}
		len += (size_t)snprintf(expected + len, len < sizeof expected ? sizeof expected - len : 0, "%s%s",
					i == 0              ? ""
					: o->choices[i + 1] ? ", "
							    : " or ",
					o->choices[i]);
	}
	return cmd_usage_error(p->cmd, "invalid %s '%s': expected %s", name, arg, expected);
}

/* One option's value, checked and stored. */
static int take(const struct cmd_parse *p, const struct cmd_opt *o, const char *arg)
{
	char name[64];
	long long v;
	char *end;
	int rc;

	spelled(o, name, sizeof name);
	switch (o->kind) {
	case CMD_OPT_BOOL: *(int *)o->value = 1; return 0;
	case CMD_OPT_STRING:
		if (o->min && !*arg)
			return cmd_usage_error(p->cmd, "%s needs a non-empty value", name);
		*(const char **)o->value = arg;
		return 0;
	case CMD_OPT_INT:
	case CMD_OPT_I64:
	case CMD_OPT_U64:
		if (parse_int(p->cmd, name, arg, o->min, o->max, &v))
			return LR_EXIT_USAGE;
		if (o->kind == CMD_OPT_INT)
			*(int *)o->value = (int)v;
		else if (o->kind == CMD_OPT_I64)
			*(int64_t *)o->value = v;
		else
			*(uint64_t *)o->value = (uint64_t)v;
		return 0;
	case CMD_OPT_REAL:
		errno = 0;
		*(double *)o->value = strtod(arg, &end);
		if (errno || end == arg || *end || !(*(double *)o->value >= 0))
			return cmd_usage_error(p->cmd, "invalid %s '%s': expected a number >= 0", name, arg);
		return 0;
	case CMD_OPT_LIST: return (rc = lr_strlist_add(o->value, arg)) ? cmd_fail(rc) : 0;
	case CMD_OPT_CHOICE: return choice(p, o, arg, name);
	case CMD_OPT_CALLBACK: return o->cb(p, o, arg);
	case CMD_OPT_HEADING:
	case CMD_OPT_END: break;
	}
	return cmd_usage_error(p->cmd, "%s: unknown kind of option", name);
}

const char *const cmd_contract_choices[] = { "saturate", "ninf", NULL };
const char *const cmd_status_choices[] = { "running", "passed", "failed", "cancelled", "abandoned", NULL };

int cmd_opt_issue(const struct cmd_parse *p, const struct cmd_opt *opt, const char *arg)
{
	(void)p;
	return lr_issue_normalize(arg, opt->value, CMD_ISSUE_BUF) ? cmd_fail(LR_EINVAL) : 0;
}

int cmd_opt_issues(const struct cmd_parse *p, const struct cmd_opt *opt, const char *arg)
{
	char norm[CMD_ISSUE_BUF];
	int rc;

	(void)p;
	if (lr_issue_normalize(arg, norm, sizeof norm))
		return cmd_fail(LR_EINVAL);
	return (rc = lr_strlist_add(opt->value, norm)) ? cmd_fail(rc) : 0;
}

int cmd_opt_fact(const struct cmd_parse *p, const struct cmd_opt *opt, const char *arg)
{
	char name[32];
	int rc;

	(void)p;
	snprintf(name, sizeof name, "--%s", opt->long_name);
	return (rc = lr_fact_parse(opt->value, name, arg)) ? cmd_fail(rc) : 0;
}

int cmd_opt_flip(const struct cmd_parse *p, const struct cmd_opt *opt, const char *arg)
{
	return parse_flip(p->cmd, arg, opt->value);
}

int cmd_parse_options(const struct cmd_parse *p, const struct cmd_opt *opts, int argc, char **argv, int *first)
{
	struct option lo[MAX_OPTS + 2];
	char so[3 + 3 * MAX_OPTS + 1];
	int c, i, n, rc;

	build(opts, p, lo, so);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		const struct cmd_opt *o = NULL;

		if (c == 'h') {
			cmd_print_usage(stdout, p, opts);
			return CMD_HELP_SHOWN;
		}
		if (c >= LONG_BASE && c < LONG_BASE + MAX_OPTS)
			o = &opts[c - LONG_BASE];
		for (i = 0; !o && c != '?' && c != ':' && opts[i].kind != CMD_OPT_END; i++)
			if (opts[i].kind != CMD_OPT_HEADING && opts[i].short_name == c)
				o = &opts[i];
		if (!o)
			return bad_option(p->cmd, argv, c);
		if ((rc = take(p, o, optarg)))
			return rc;
	}
	n = argc - optind;
	if (n < p->min || (p->max >= 0 && n > p->max)) {
		if (p->max == 0 || (p->max > 0 && n > p->max && !p->operands))
			return cmd_usage_error(p->cmd, "unexpected argument '%s'",
					       argv[optind + (p->max > 0 ? p->max : 0)]);
		return cmd_usage_error(p->cmd, "'labrun %s' takes %s", p->cmd, p->operands);
	}
	*first = optind;
	return 0;
}

/* "-n, --limit N": how the usage names an option. */
static void option_left(const struct cmd_opt *o, char *buf, size_t len)
{
	const char *sep = o->argh ? " " : "", *arg = o->argh ? o->argh : "";

	if (o->short_name && o->long_name)
		snprintf(buf, len, "-%c, --%s%s%s", o->short_name, o->long_name, sep, arg);
	else if (o->short_name)
		snprintf(buf, len, "-%c%s%s", o->short_name, sep, arg);
	else
		snprintf(buf, len, "--%s%s%s", o->long_name, sep, arg);
}

/* One option line and its continuations, the help at column 'col'. */
static void print_option(FILE *f, const char *left, const char *help, int col)
{
	const char *line = help ? help : "", *nl;
	int n = fprintf(f, "  %s", left);

	if (n >= col) {
		fputc('\n', f);
		n = 0;
	}
	for (;;) {
		nl = strchr(line, '\n');
		fprintf(f, "%*s%.*s\n", col - n, "", nl ? (int)(nl - line) : (int)strlen(line), line);
		if (!nl)
			break;
		n = 0;
		line = nl + 1;
	}
}

void cmd_print_usage(FILE *f, const struct cmd_parse *p, const struct cmd_opt *opts)
{
	char left[128];
	int i, col = 0;

	fputs(p->usage, f);
	for (i = 0; opts[i].kind != CMD_OPT_END; i++) {
		int n;

		if (opts[i].kind == CMD_OPT_HEADING)
			continue;
		option_left(&opts[i], left, sizeof left);
		n = (int)strlen(left) + 4;
		if (n > col && n <= 26)
			col = n;
	}
	if (col < 14)
		col = 14;
	fputc('\n', f);
	for (i = 0; opts[i].kind != CMD_OPT_END; i++) {
		if (opts[i].kind == CMD_OPT_HEADING) {
			fprintf(f, "%s\n", opts[i].help);
			continue;
		}
		option_left(&opts[i], left, sizeof left);
		print_option(f, left, opts[i].help, col);
	}
	print_option(f, "-h, --help", "show this help", col);
	if (p->after)
		fprintf(f, "\n%s", p->after);
}

int cmd_run_sub(const struct lr_global *g, const char *cmd, const char *what, const struct cmd_sub *subs, int argc,
		char **argv)
{
	char names[256] = "";
	size_t len = 0;
	int i;

	if (argc > 1 && argv[1][0] == '-')
		return subs[0].run(g, argc, argv); /* its parser prints the usage, or names the option */
	for (i = 0; argc > 1 && subs[i].name; i++)
		if (!strcmp(argv[1], subs[i].name))
			return subs[i].run(g, argc - 1, argv + 1);
	for (i = 0; subs[i].name; i++)
		len += (size_t)snprintf(names + len, len < sizeof names ? sizeof names - len : 0, "%s'%s'",
					i == 0             ? ""
					: subs[i + 1].name ? ", "
							   : " or ",
					subs[i].name);
	if (argc < 2)
		return cmd_usage_error(cmd, "which %s? 'labrun %s NAME', NAME one of %s", what, cmd, names);
	return cmd_usage_error(cmd, "unknown %s '%s': expected %s", what, argv[1], names);
}

int cmd_parse_plain(const char *cmd, const char *usage, int argc, char **argv, int min, int max, const char *what,
		    int *first)
{
	return cmd_parse_plain_json(cmd, usage, argc, argv, min, max, what, first, NULL, NULL);
}

int cmd_parse_plain_json(const char *cmd, const char *usage, int argc, char **argv, int min, int max, const char *what,
			 int *first, int *json, const char *json_help)
{
	const struct cmd_parse p = { .cmd = cmd, .usage = usage, .min = min, .max = max, .operands = what };
	const struct cmd_opt with_json[] = { CMD_BOOL(0, "json", json, json_help), CMD_END }, none[] = { CMD_END };

	return cmd_parse_options(&p, json ? with_json : none, argc, argv, first);
}

int cmd_split_list(struct lr_strlist *out, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int rc = 0;

	if (!copy)
		return lr_error_set(LR_ENOMEM, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		if (*tok)
			rc = lr_strlist_add(out, tok);
	}
	free(copy);
	return rc;
}
