#ifndef LR_CMD_OPTIONS_H
#define LR_CMD_OPTIONS_H

/*
 * Every command's options, parsed one way (after git's parse-options, over
 * getopt_long): a command lists its options in a table, each with where its
 * value goes and how it is checked, and cmd_parse_options does the rest:
 * GNU order (options anywhere among the operands, unless the command stops
 * at its first operand, as record does), "--" ends the options, "--opt
 * value" and "--opt=value", -h and --help print the usage (the command's
 * synopsis and description, then every option with its help, generated from
 * the table, so the two cannot drift apart), and every error
 * (unknown option, missing or bad value, wrong number of operands) is one
 * message naming the option and the value, with a hint to -h.
 */

#include <stdint.h>
#include <stdio.h>

#include "base/model.h"

enum cmd_opt_kind {
	CMD_OPT_END,
	CMD_OPT_BOOL,     /* no value: *(int *)value = 1 */
	CMD_OPT_STRING,   /* *(const char **)value = arg (min = 1: not empty) */
	CMD_OPT_INT,      /* *(int *)value, a whole number in [min, max] */
	CMD_OPT_I64,      /* *(int64_t *)value, a whole number in [min, max] */
	CMD_OPT_U64,      /* *(uint64_t *)value, a whole number in [min, max] */
	CMD_OPT_REAL,     /* *(double *)value, a number >= 0 */
	CMD_OPT_LIST,     /* appended to *(struct lr_strlist *)value; repeatable */
	CMD_OPT_CHOICE,   /* *(int *)value = the index of arg in choices */
	CMD_OPT_CALLBACK, /* cb(p, opt, arg): 0, or an exit code after saying why */
	CMD_OPT_HEADING,  /* no option: 'help' heads the options after it in the usage ("Source:") */
};

struct cmd_parse;
struct lr_global;

struct cmd_opt {
	enum cmd_opt_kind kind;
	int short_name;        /* 'n' for -n, or 0 */
	const char *long_name; /* "limit" for --limit, or NULL */
	void *value;
	long long min, max;
	const char *const *choices; /* CMD_OPT_CHOICE: NULL-terminated */
	int (*cb)(const struct cmd_parse *p, const struct cmd_opt *opt, const char *arg);
	int no_arg;       /* CMD_OPT_CALLBACK: takes no value (arg is NULL) */
	const char *argh; /* the value's name in the usage ("REF"), NULL for a flag */
	const char *help; /* what it does, for the usage; '\n' starts a continuation line */
};

/* Each with its usage text last: the value's name (argh) and the help. */
#define CMD_BOOL(s, l, v, text) \
	{ \
		.kind = CMD_OPT_BOOL, .short_name = (s), .long_name = (l), .value = (v), .no_arg = 1, .help = (text) \
	}
/* --progress, the same words in every command that takes it (cmd_progress_begin) */
#define CMD_PROGRESS(v) \
	CMD_BOOL(0, "progress", (v), \
		 "show progress on stderr when it is not a terminal too: a line\n" \
		 "every few seconds (LABRUN_PROGRESS=1 does the same; =0 turns off\n" \
		 "the terminal's)")
#define CMD_STRING(s, l, v, argname, text) \
	{ \
		.kind = CMD_OPT_STRING, .short_name = (s), .long_name = (l), .value = (v), .argh = (argname), \
		.help = (text) \
	}
#define CMD_NONEMPTY(s, l, v, argname, text) \
	{ \
		.kind = CMD_OPT_STRING, .short_name = (s), .long_name = (l), .value = (v), .min = 1, \
		.argh = (argname), .help = (text) \
	}
#define CMD_INT(s, l, v, lo, hi, argname, text) \
	{ \
		.kind = CMD_OPT_INT, .short_name = (s), .long_name = (l), .value = (v), .min = (lo), .max = (hi), \
		.argh = (argname), .help = (text) \
	}
#define CMD_I64(s, l, v, lo, hi, argname, text) \
	{ \
		.kind = CMD_OPT_I64, .short_name = (s), .long_name = (l), .value = (v), .min = (lo), .max = (hi), \
		.argh = (argname), .help = (text) \
	}
#define CMD_U64(s, l, v, lo, hi, argname, text) \
	{ \
		.kind = CMD_OPT_U64, .short_name = (s), .long_name = (l), .value = (v), .min = (lo), .max = (hi), \
		.argh = (argname), .help = (text) \
	}
#define CMD_REAL(s, l, v, argname, text) \
	{ \
		.kind = CMD_OPT_REAL, .short_name = (s), .long_name = (l), .value = (v), .argh = (argname), \
		.help = (text) \
	}
#define CMD_LIST(s, l, v, argname, text) \
	{ \
		.kind = CMD_OPT_LIST, .short_name = (s), .long_name = (l), .value = (v), .argh = (argname), \
		.help = (text) \
	}
#define CMD_CHOICE(s, l, v, names, argname, text) \
	{ \
		.kind = CMD_OPT_CHOICE, .short_name = (s), .long_name = (l), .value = (v), .choices = (names), \
		.argh = (argname), .help = (text) \
	}
#define CMD_CALLBACK(s, l, v, fn, argname, text) \
	{ \
		.kind = CMD_OPT_CALLBACK, .short_name = (s), .long_name = (l), .value = (v), .cb = (fn), \
		.argh = (argname), .help = (text) \
	}
#define CMD_CALLBACK_FLAG(s, l, v, fn, text) \
	{ \
		.kind = CMD_OPT_CALLBACK, .short_name = (s), .long_name = (l), .value = (v), .cb = (fn), .no_arg = 1, \
		.help = (text) \
	}
#define CMD_HEADING(text) \
	{ \
		.kind = CMD_OPT_HEADING, .help = (text) \
	}
#define CMD_END \
	{ \
		.kind = CMD_OPT_END \
	}

struct cmd_parse {
	const char *cmd;      /* "list", for messages */
	const char *usage;    /* the synopsis and description -h and --help print before the options */
	int min, max;         /* operands allowed; max -1: any number */
	const char *operands; /* "IN and OUT": said when the count is wrong */
	int stop_at_operand;  /* options end at the first operand (record) */
	const char *after;    /* printed after the options, or NULL */
};

/* A subcommand ('labrun bench import', 'labrun key trust'): argv[0] of run() is its name. */
struct cmd_sub {
	const char *name;
	int (*run)(const struct lr_global *g, int argc, char **argv);
};

/*
 * Run the subcommand of 'cmd' named by argv[1], from 'subs' (ended by a NULL
 * name). An option as argv[1] (-h included) goes to the first with argv as
 * it is, so its parser prints the usage or names the option; a missing or
 * unknown name is a usage error that lists them ('what': "benchmark",
 * "subcommand").
 */
int cmd_run_sub(const struct lr_global *g, const char *cmd, const char *what, const struct cmd_sub *subs, int argc,
		char **argv);

/* Print the usage of p with its options 'opts' (what -h prints) to f. */
void cmd_print_usage(FILE *f, const struct cmd_parse *p, const struct cmd_opt *opts);

/* Callbacks and choices more than one command uses. */
#define CMD_ISSUE_BUF 256
/* --issue REF normalised (270, owner/repo#827) into the char[CMD_ISSUE_BUF] at opt->value. */
int cmd_opt_issue(const struct cmd_parse *p, const struct cmd_opt *opt, const char *arg);
/* --issue REF, repeatable: checked and appended, normalised, to the struct lr_strlist at opt->value. */
int cmd_opt_issues(const struct cmd_parse *p, const struct cmd_opt *opt, const char *arg);
/* --geometry, --binding, --tool KEY=VALUE (lr_fact_parse) into the struct lr_kvlist at opt->value. */
int cmd_opt_fact(const struct cmd_parse *p, const struct cmd_opt *opt, const char *arg);
/*
 * Where a run ran and with what, the same options in 'record', 'run' and
 * 'replay': into the struct lr_run_facts *f (record/facts.h); 'fact' is
 * cmd_opt_fact.
 */
#define CMD_FACT_OPTS(f, fact) \
	CMD_CALLBACK( \
		0, "geometry", &(f)->geometry, (fact), "K=V", \
		"compiled geometry: model, layers, kv_heads, head_dim, tokens,\nbatch, tp, width... (repeatable)"), \
		CMD_CALLBACK( \
			0, "binding", &(f)->binding, (fact), "K=V", \
			"device binding: device=atom:0, backend=sim... (repeatable;\ncpu_affinity, numa_nodes and thread settings are observed)"), \
		CMD_CALLBACK(0, "tool", &(f)->tools, (fact), "NAME=VERSION", \
			     "a tool version the run depends on (repeatable)"), \
		CMD_LIST( \
			0, "source", &(f)->sources, "PATH", \
			"extra file or directory to hash as a source (e.g. a\ncompiled model outside git) (repeatable)"), \
		CMD_STRING(0, "note", &(f)->note, "TEXT", "free text kept with the run")
/* --fault-flip-bit ARM[@CONDITION] into the struct lr_runopts at opt->value (run, replay). */
int cmd_opt_flip(const struct cmd_parse *p, const struct cmd_opt *opt, const char *arg);
/* DLFloat16 contracts in enum lr_dlf16_contract order, for CMD_CHOICE. */
extern const char *const cmd_contract_choices[];
/* Run statuses in enum lr_status order, for CMD_CHOICE. */
extern const char *const cmd_status_choices[];

/*
 * Parse argv[1..] (argv[0] is the command's name) by the table 'opts'.
 * Returns 0 with *first the index of the first operand; CMD_HELP_SHOWN when
 * the usage was printed for -h/--help (the command returns it, and main exits
 * 0); or an exit code after printing the error.
 */
int cmd_parse_options(const struct cmd_parse *p, const struct cmd_opt *opts, int argc, char **argv, int *first);

/*
 * Parse the options of a command that has only -h: prints 'usage' for -h
 * and returns CMD_HELP_SHOWN, returns an exit code for a bad option or a wrong
 * number of operands, else 0 with *first set to the first operand's index.
 * 'min'/'max' bound the operand count; 'what' describes them for the error.
 */
int cmd_parse_plain(const char *cmd, const char *usage, int argc, char **argv, int min, int max, const char *what,
		    int *first);

/* The same for a command whose one option is --json (*json set to 1 when given; json_help its usage). */
int cmd_parse_plain_json(const char *cmd, const char *usage, int argc, char **argv, int min, int max, const char *what,
			 int *first, int *json, const char *json_help);

/* Append the comma-separated items of an option's value 'arg' to 'out' (blanks around them dropped). */
int cmd_split_list(struct lr_strlist *out, const char *arg);

#endif
