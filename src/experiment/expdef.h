#ifndef LR_EXPDEF_H
#define LR_EXPDEF_H

/*
 * Experiment definitions (the .ini files in experiments/), parsed with inih and validated
 * strictly. Every error names the file, the line and the reason; nothing is
 * guessed. Format: docs/experiments.md.
 */

#include "base/enumname.h"
#include "base/error.h"
#include <stdint.h>

#include "base/model.h"
#include "base/sha256.h"
#include "base/stats.h"
#include "encode/dlf16.h"
#include "import/import.h"
#include "record/facts.h"

#define LR_EXP_MAXARMS       8
#define LR_EXP_MAXLIST       16
#define LR_EXP_MAXGRID       8
#define LR_EXP_MAXCONDITIONS 4096                /* a grid's product, checked before anything runs */
#define LR_EXP_MAXTEXT       ((size_t)1 << 20)   /* a definition file: 1 MiB */
#define LR_EXP_OUTPUT_CAP    ((int64_t)64 << 20) /* [design] output_cap by default: 64 MiB a log */
#define LR_EXP_MAXLINE       199                 /* characters in a line, inih's buffer; longer ones are refused */
#define LR_EXP_MIN_MARGIN    1e-6         /* [design] margin: below it, a subnormal or no measurable difference */
#define LR_EXP_MAX_TIMEOUT   9223372036.0 /* an arm's timeout in seconds: nanoseconds in 64 bits */

/*
 * The placeholders labrun fills in every execution, NULL-terminated: {arm}
 * {rep} {block} {outdir}. A [grid] key may not take one of these names.
 */
extern const char *const lr_exp_placeholders[];

enum lr_exp_target { LR_TARGET_ENCODE, LR_TARGET_IMPORT, LR_TARGET_COMMAND };
enum lr_exp_order { LR_ORDER_ABBA, LR_ORDER_RANDOM };

/*
 * The names a definition and a stored design give them, one table each
 * (base/enumname.h), read both ways: "encode", "import" or "command";
 * "abba" or "random". lr_enum_parse refuses any other name.
 */
extern const struct lr_enum_names lr_exp_targets, lr_exp_orders;
const char *lr_exp_target_name(enum lr_exp_target t);
const char *lr_exp_order_name(enum lr_exp_order o);

/*
 * [report]: what a report of the run shows beyond the design's own table
 * (experiment/expdef-report.c). Presentation only: no figure depends on it.
 */
#define LR_EXP_MAXMETRICS 16
enum lr_exp_form {
	LR_FORM_RATIO = 1, /* the paired ratio as 1.89x beside the change */
	LR_FORM_RANGE = 2, /* under each table, the paired estimate's range over its conditions */
	LR_FORM_MEAN = 4,  /* each arm's mean beside its median */
};
struct lr_exp_report {
	char metrics[LR_EXP_MAXMETRICS][64]; /* 'metrics = a, b': further metrics, each a table per arm pair */
	int nmetrics;
	int all_metrics; /* 'metrics = all': every metric the run's executions wrote */
	unsigned forms;  /* 'forms = ratio, range, mean': LR_FORM_* */
};

/*
 * The [report] section of a stored definition's text, read alone (the rest
 * of the text was checked when it ran): LR_EINVAL naming the definition
 * when the section holds what this labrun does not know (a newer labrun
 * wrote it). *out is zeroed first: no section, nothing asked.
 */
LR_MUST_CHECK int lr_expdef_report_read(const char *path, const char *text, struct lr_exp_report *out);

struct lr_exp_arm {
	char name[32];
	char kernel[16]; /* lookup, scalar, avx2, avx512, auto */
	enum lr_dlf16_contract contract;
	enum lr_import_path layout; /* import only */
	enum lr_import_mode mode;   /* import only */
	int threads;
	/* target = command */
	char command[2048];       /* argv template, split as a shell splits words (a serving arm's is built) */
	char cwd[200];            /* "": the directory labrun runs in */
	double timeout_s;         /* 0: none */
	struct lr_kvlist env;     /* env.NAME = template */
	char outputs[200];        /* space-separated paths relative to {outdir} */
	char responses[200];      /* path relative to {outdir}, "" for none */
	char route[64];           /* responses are ingested under it (default: the arm's name) */
	struct lr_kvlist serving; /* target = serving: endpoint, model, concurrency, ... as written */
	struct lr_kvlist binding; /* binding.KEY = VALUE: where this arm runs (device = atom:1) */
	int line;                 /* where its section starts */
};

struct lr_expdef {
	char path[1024];
	char *text;                 /* the file as read (owned) */
	char sha256[LR_SHA256_HEX]; /* of 'text' */
	/* [experiment] */
	char name[64];
	char title[256];
	struct lr_strlist issues; /* normalised references */
	char backend[16];         /* sim, atom; a command target's: any name it states (vllm, llama.cpp) */
	int backend_declared;     /* 'backend' was given (else a command target's is unstated) */
	uint64_t seed;
	enum lr_exp_target target; /* target = serving runs as a command experiment: serving is set */
	int serving;
	char cases[200]; /* serving: the cases file every pass sends */
	/* [design] */
	enum lr_exp_order order;
	int blocks;               /* timed blocks: >= LR_MIN_BLOCKS, or 2 to 5 when exploratory */
	int exploratory;          /* [design] exploratory = yes: too few blocks for an interval, no verdict */
	int warmup;               /* blocks run first and flagged warm-up */
	double margin;            /* practical margin, 0.02 for 2% */
	int cpu;                  /* CPU to pin, -1: the one the runner starts on */
	int64_t output_cap;       /* command: bytes of each execution's stdout, stderr kept at most; 0: all */
	char metric[64];          /* command: the primary metric, "" for wall time */
	char reference[200];      /* command: reference output files (templates), "" for none */
	char reference_route[64]; /* command: every route's responses compared with this route's */
	char answers[200];        /* command: frozen answer key every route's responses are gated with */
	/* [report] */
	struct lr_exp_report report;
	/* [record]: where it ran and with what (record/facts.h); its note apart, the facts hold no pointer */
	struct lr_run_facts record;
	char note[LR_EXP_MAXLINE + 1];
	/* [arm NAME], in file order; the first is the baseline */
	struct lr_exp_arm arms[LR_EXP_MAXARMS];
	int narms;
	/* [grid]: the conditions are the cartesian product */
	char models[LR_EXP_MAXLIST][32];
	int nmodels;
	int64_t layers[LR_EXP_MAXLIST]; /* the model's first N layers; empty: all */
	int nlayers;
	int64_t tokens[LR_EXP_MAXLIST];
	int ntokens;
	/* [grid] as written, every target: key and values, in file order */
	struct lr_exp_grid {
		char key[32];
		char values[LR_EXP_MAXLIST][64];
		int n, line;
	} grid[LR_EXP_MAXGRID];
	int ngrid;
};

/* One condition of the grid. */
struct lr_exp_condition {
	char model[32]; /* built-in targets */
	int64_t layers;
	int64_t tokens;
	char label[256]; /* for reports: "qwen3-4b 28/2048", or "route=a size=2" (command) */
};

/*
 * Parse and validate a definition file (or, with 'text' non-NULL, that text
 * under the name 'path', as replay does with a stored definition). LR_EINVAL
 * with "FILE:LINE: reason" on the first problem. 'd' is released with
 * lr_expdef_release() either way.
 */
LR_MUST_CHECK int lr_expdef_load(struct lr_expdef *d, const char *path, const char *text);
void lr_expdef_release(struct lr_expdef *d);

/* Number of conditions, and condition i in grid order (model, layers, tokens). */
LR_MUST_CHECK int lr_expdef_conditions(const struct lr_expdef *d);
void lr_expdef_condition(const struct lr_expdef *d, int i, struct lr_exp_condition *c);

/* A condition's label: "route=a size=2" from its grid values ("all" for none), or "qwen3-4b 28/2048". */
void lr_exp_params_label(const struct lr_kvlist *params, char *buf, size_t len);
void lr_exp_geometry_label(const char *model, int64_t layers, int64_t tokens, char *buf, size_t len);

/*
 * The facts a run of d records: its [record] section, then 'cli' (the
 * command line's --binding, --tool, ...; may be NULL) over them. *out is
 * released with lr_run_facts_release; its note may point into d.
 */
LR_MUST_CHECK int lr_expdef_record_facts(const struct lr_expdef *d, const struct lr_run_facts *cli,
					 struct lr_run_facts *out);

/* Condition i's grid values (key -> value in [grid] order), for any target. */
LR_MUST_CHECK int lr_expdef_condition_params(const struct lr_expdef *d, int i, struct lr_kvlist *out);

#endif
