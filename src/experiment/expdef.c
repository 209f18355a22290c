#include "config.h"
#include "base/system.h"

#include <ctype.h>

#include <ini.h>

#include "base/clock.h"
#include "base/error.h"
#include "base/issueref.h"
#include "base/lines.h"
#include "base/size.h"
#include "experiment/expdef.h"
#include "experiment/expdef-int.h"
#include "experiment/template.h"
#include "import/kvgeom.h"

/*
 * What inih would take otherwise than it reads, refused at its line: a line
 * longer than its buffer (the rest would be read as the next line), and a
 * ';' after a blank in a value (an inline comment: 'command = a ; b' would
 * run 'a'). Whole-line comments and section headers are inih's own.
 */
static void check_line(struct parse *p, const char *s, size_t n)
{
	size_t len = n && s[n - 1] == '\n' ? n - 1 : n, i, v;

	if (len > LR_EXP_MAXLINE) {
		lr_expdef_fail(p, p->line, "the line is %zu characters long; lines are limited to %d", len,
			       LR_EXP_MAXLINE);
		return;
	}
	for (i = 0; i < len && (s[i] == ' ' || s[i] == '\t'); i++)
		;
	if (i == len || s[i] == ';' || s[i] == '#' || s[i] == '[')
		return;
	v = i + strcspn(s + i, "=:");
	for (i = v + 1; i < len; i++)
		if (s[i] == ';' && isspace((unsigned char)s[i - 1])) {
			lr_expdef_fail(p, p->line,
				       "';' after a blank would end the value here and start a comment; "
				       "inline comments are refused (put a comment on its own line, or write ';' "
				       "with no blank before it)");
			return;
		}
}

/* inih's reader: fgets over the text, counting lines and noting section headers. */
static char *reader(char *str, int num, void *stream)
{
	struct parse *p = stream;
	const char *s = p->pos, *nl;
	size_t n;

	if (!*s)
		return NULL;
	nl = strchr(s, '\n');
	n = nl ? (size_t)(nl - s + 1) : strlen(s);
	if (p->collecting && !p->err[0]) {
		p->line++;
		check_line(p, s, n);
		p->line--;
	}
	if (n > (size_t)num - 1)
		n = (size_t)num - 1;
	memcpy(str, s, n);
	str[n] = '\0';
	p->pos = s + n;
	p->line++;
	while (*s == ' ' || *s == '\t')
		s++;
	if (p->collecting && *s == '[' && p->nsections < 32) {
		const char *end = strchr(s, ']');

		if (end && end - s - 1 < 64) {
			snprintf(p->sections[p->nsections], sizeof p->sections[0], "%.*s", (int)(end - s - 1), s + 1);
			p->section_line[p->nsections++] = p->line;
		}
	}
	return str;
}

/* The next item of a comma-separated list (strtok_r over s, then NULL), blanks around it removed. */
static char *list_item(char *s, char **save)
{
	char *tok = strtok_r(s, ",", save), *e;

	if (!tok)
		return NULL;
	while (isspace((unsigned char)*tok))
		tok++;
	for (e = tok + strlen(tok); e > tok && isspace((unsigned char)e[-1]);)
		*--e = '\0';
	return tok;
}

static int parse_int(const char *v, long long min, long long max, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(v, &end, 10);
	return !errno && end != v && !*end && *out >= min && *out <= max;
}

/* A comma-separated list of integers. */
static int parse_ints(struct parse *p, const char *key, const char *v, int64_t *out, int *n, long long min)
{
	char buf[512], *tok, *save = NULL;
	long long x;

	snprintf(buf, sizeof buf, "%s", v);
	*n = 0;
	for (tok = list_item(buf, &save); tok; tok = list_item(NULL, &save)) {
		if (*n >= LR_EXP_MAXLIST)
			return lr_expdef_fail(p, p->line, "'%s' lists more than %d values", key, LR_EXP_MAXLIST);
		if (!parse_int(tok, min, 1LL << 40, &x))
			return lr_expdef_fail(p, p->line, "'%s' has '%s', not a whole number >= %lld", key, tok, min);
		out[(*n)++] = x;
	}
	if (!*n)
		return lr_expdef_fail(p, p->line, "'%s' is an empty list", key);
	return 1;
}

/*
 * A value that must be one of the names in e (an enum's, whose value is the
 * place): that place, with the name copied to out when out is set; else -1
 * after the error, which names them all.
 */
static int word(struct parse *p, const char *key, const char *v, const struct lr_enum_names *e, char *out, size_t len)
{
	char list[128] = "";
	size_t off = 0, i;
	int x;

	if (!lr_enum_parse(e, v, &x)) {
		if (out)
			snprintf(out, len, "%s", v);
		return x;
	}
	for (i = 0; i < e->n && off < sizeof list; i++)
		off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", off ? ", " : "", e->names[i]);
	lr_expdef_fail(p, p->line, "'%s' is '%s'; expected one of %s", key, v, list);
	return -1;
}

static const char *const kernel_names[] = { "lookup", "scalar", "avx2", "avx512", "avx2-pages", "avx512-pages", "auto" };
static const struct lr_enum_names kernels = LR_ENUM_NAMES("kernel", kernel_names);

static int experiment_key(struct parse *p, const char *k, const char *v)
{
	struct lr_expdef *d = p->d;
	char buf[512], *tok, *save = NULL, norm[256];
	char target[16];
	long long x;
	int named;

	if (!strcmp(k, "name")) {
		if (!*v ||
		    strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") != strlen(v) ||
		    strlen(v) >= sizeof d->name)
			return lr_expdef_fail(p, p->line, "'name' must be letters, digits, '_', '.' or '-' (up to 63)");
		snprintf(d->name, sizeof d->name, "%s", v);
		p->seen_experiment_name = 1;
	} else if (!strcmp(k, "title")) {
		snprintf(d->title, sizeof d->title, "%s", v);
	} else if (!strcmp(k, "issues")) {
		snprintf(buf, sizeof buf, "%s", v);
		for (tok = list_item(buf, &save); tok; tok = list_item(NULL, &save)) {
			if (lr_issue_normalize(tok, norm, sizeof norm))
				return lr_expdef_fail(p, p->line,
						      "'issues' has '%s', not a number or owner/repo#number", tok);
			if (!lr_strlist_contains(&d->issues, norm) && lr_strlist_add(&d->issues, norm))
				return LR_ENOMEM;
		}
	} else if (!strcmp(k, "backend")) {
		/* a command target names what its commands run on; built-in ones sim or atom (lr_expdef_record_check) */
		if (!*v || strlen(v) >= sizeof d->backend ||
		    strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") != strlen(v))
			return lr_expdef_fail(p, p->line,
					      "'backend' is '%s'; expected a name such as sim, atom or vllm", v);
		snprintf(d->backend, sizeof d->backend, "%s", v);
		d->backend_declared = 1;
	} else if (!strcmp(k, "seed")) {
		if (!parse_int(v, 0, (1LL << 62), &x))
			return lr_expdef_fail(p, p->line, "'seed' is '%s', not a whole number", v);
		d->seed = (uint64_t)x;
	} else if (!strcmp(k, "target")) {
		static const char *const target_words[] = { "encode", "import", "command", "serving" };
		static const struct lr_enum_names targets = LR_ENUM_NAMES("target", target_words);

		if (word(p, k, v, &targets, target, sizeof target) < 0)
			return 0;
		d->serving = !strcmp(target, "serving"); /* command arms that run labrun collect */
		if (lr_enum_parse(&lr_exp_targets, d->serving ? "command" : target, &named))
			return lr_expdef_fail(p, p->line, "%s", lr_error_msg());
		d->target = (enum lr_exp_target)named;
	} else if (!strcmp(k, "reference_route") || !strcmp(k, "answers")) {
		char *dst = k[0] == 'a' ? d->answers : d->reference_route;
		size_t len = k[0] == 'a' ? sizeof d->answers : sizeof d->reference_route;

		if (!*v || strlen(v) >= len)
			return lr_expdef_fail(p, p->line, "'%s' is empty or longer than %zu characters", k, len - 1);
		snprintf(dst, len, "%s", v);
	} else if (!strcmp(k, "cases")) {
		if (!*v || strlen(v) >= sizeof d->cases)
			return lr_expdef_fail(p, p->line, "'cases' is empty or longer than %zu characters",
					      sizeof d->cases - 1);
		snprintf(d->cases, sizeof d->cases, "%s", v);
	} else if (!strcmp(k, "reference")) {
		if (strlen(v) >= sizeof d->reference)
			return lr_expdef_fail(p, p->line, "'reference' is longer than %zu characters",
					      sizeof d->reference - 1);
		snprintf(d->reference, sizeof d->reference, "%s", v);
	} else {
		return lr_expdef_fail(p, p->line, "unknown key '%s' in [experiment]", k);
	}
	return 1;
}

static int design_key(struct parse *p, const char *k, const char *v)
{
	struct lr_expdef *d = p->d;
	long long x;
	char *end;
	int o;

	if (!strcmp(k, "order")) {
		if (lr_enum_parse(&lr_exp_orders, v, &o))
			return lr_expdef_fail(p, p->line, "'order' is '%s'; expected abba or random", v);
		d->order = (enum lr_exp_order)o;
	} else if (!strcmp(k, "blocks")) {
		if (!parse_int(v, 1, 100000, &x))
			return lr_expdef_fail(p, p->line, "'blocks' is '%s', not a whole number >= 1", v);
		d->blocks = (int)x; /* below LR_MIN_BLOCKS only in an exploratory design: lr_expdef_check_whole */
	} else if (!strcmp(k, "exploratory")) {
		if (strcmp(v, "yes") && strcmp(v, "no"))
			return lr_expdef_fail(p, p->line, "'exploratory' is '%s'; expected yes or no", v);
		d->exploratory = !strcmp(v, "yes");
	} else if (!strcmp(k, "warmup")) {
		if (!parse_int(v, 0, 1000, &x))
			return lr_expdef_fail(p, p->line, "'warmup' is '%s', not a whole number >= 0", v);
		d->warmup = (int)x;
	} else if (!strcmp(k, "margin")) {
		double m = strtod(v, &end);

		if (end != v && *end == '%' && !end[1])
			m /= 100, end++;
		if (end == v || *end || !(m > 0 && m < 1))
			return lr_expdef_fail(
				p, p->line, "'margin' is '%s'; expected a fraction like 0.02 or a percentage like 2%%",
				v);
		if (m < LR_EXP_MIN_MARGIN) /* a subnormal, or a difference no timer resolves */
			return lr_expdef_fail(p, p->line,
					      "'margin' is '%s', below 0.0001%% (1e-6): no measurement resolves "
					      "a difference that small; write a fraction like 0.02 or a percentage "
					      "like 2%%",
					      v);
		d->margin = m;
	} else if (!strcmp(k, "metric")) {
		if (!*v || strlen(v) >= sizeof d->metric ||
		    strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-/") != strlen(v))
			return lr_expdef_fail(p, p->line, "'metric' is '%s'; expected a metric name such as throughput",
					      v);
		snprintf(d->metric, sizeof d->metric, "%s", v);
	} else if (!strcmp(k, "output_cap")) {
		int64_t cap = strcmp(v, "0") ? lr_size_parse(v) : 0;

		if (cap < 0)
			return lr_expdef_fail(p, p->line,
					      "'output_cap' is '%s'; expected a size such as 64M or 2G, or 0 for none",
					      v);
		d->output_cap = cap;
	} else if (!strcmp(k, "cpu")) {
		if (!parse_int(v, 0, 4095, &x))
			return lr_expdef_fail(p, p->line, "'cpu' is '%s', not a CPU number", v);
		d->cpu = (int)x;
	} else {
		return lr_expdef_fail(p, p->line, "unknown key '%s' in [design]", k);
	}
	return 1;
}

/* The string keys of a command arm. */
static int command_key(struct parse *p, struct lr_exp_arm *a, const char *k, const char *v)
{
	char *dst = !strcmp(k, "command")     ? a->command
		    : !strcmp(k, "cwd")       ? a->cwd
		    : !strcmp(k, "outputs")   ? a->outputs
		    : !strcmp(k, "responses") ? a->responses
					      : a->route;
	size_t len = !strcmp(k, "route") ? sizeof a->route : sizeof a->command;

	if (!*v)
		return lr_expdef_fail(p, p->line, "'%s' is empty", k);
	if (strlen(v) >= len)
		return lr_expdef_fail(p, p->line, "'%s' is longer than %zu characters", k, len - 1);
	if (!strcmp(k, "route") &&
	    strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.->") != strlen(v))
		return lr_expdef_fail(p, p->line, "'route' is '%s'; use letters, digits, '_', '.', '-' and '>'", v);
	snprintf(dst, len, "%s", v);
	return 1;
}

static int arm_key(struct parse *p, struct lr_exp_arm *a, const char *k, const char *v)
{
	long long x;
	int e;

	if (!strcmp(k, "kernel"))
		return word(p, k, v, &kernels, a->kernel, sizeof a->kernel) >= 0;
	/* parsed once, here, by the tables the store writes them with: the runner and the store take the enums */
	if (!strcmp(k, "contract")) {
		if ((e = word(p, k, v, &lr_dlf16_contracts, NULL, 0)) < 0)
			return 0;
		a->contract = (enum lr_dlf16_contract)e;
		return 1;
	}
	if (!strcmp(k, "layout")) {
		if ((e = word(p, k, v, &lr_import_paths, NULL, 0)) < 0)
			return 0;
		a->layout = (enum lr_import_path)e;
		return 1;
	}
	if (!strcmp(k, "mode")) {
		if ((e = word(p, k, v, &lr_import_modes, NULL, 0)) < 0)
			return 0;
		a->mode = (enum lr_import_mode)e;
		return 1;
	}
	if (!strcmp(k, "command") || !strcmp(k, "cwd") || !strcmp(k, "outputs") || !strcmp(k, "responses") ||
	    !strcmp(k, "route"))
		return command_key(p, a, k, v);
	if (!strncmp(k, "binding.", 8))
		return lr_expdef_arm_binding(p, a, k, v);
	if (lr_expdef_serving_key(k))
		return lr_kvlist_add(&a->serving, k, v, NULL) ? lr_expdef_fail(p, p->line, "out of memory") : 1;
	if (!strncmp(k, "env.", 4)) {
		if (!k[4] ||
		    strspn(k + 4, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != strlen(k + 4))
			return lr_expdef_fail(
				p, p->line,
				"'%s': an environment variable name after 'env.' is letters, digits and '_'", k);
		if (!strncmp(k + 4, "LABRUN_", 7))
			return lr_expdef_fail(p, p->line,
					      "'%s': labrun sets the LABRUN_ variables of an execution itself "
					      "(LABRUN_METRICS, LABRUN_PROGRESS, ...) and a definition may not "
					      "replace them; use a name of your own",
					      k);
		if (lr_kvlist_add(&a->env, k + 4, v, NULL))
			return lr_expdef_fail(p, p->line, "out of memory");
		return 1;
	}
	if (!strcmp(k, "timeout")) {
		double t = lr_duration_parse(v); /* the same durations as record --timeout */

		if (t < 0 || t > LR_EXP_MAX_TIMEOUT)
			return lr_expdef_fail(p, p->line,
					      "'timeout' is '%s'; expected a positive duration such as 90, 90s, 5m or "
					      "2h, at most %.0f s (nanoseconds in 64 bits)",
					      v, LR_EXP_MAX_TIMEOUT);
		a->timeout_s = t;
		return 1;
	}
	if (!strcmp(k, "threads")) {
		if (!parse_int(v, 1, 64, &x))
			return lr_expdef_fail(p, p->line, "'threads' is '%s'; expected 1 to 64", v);
		a->threads = (int)x;
		return 1;
	}
	return lr_expdef_fail(p, p->line, "unknown key '%s' in [arm %s]", k, a->name);
}

/* Every [grid] key as written: a comma-separated list of values. */
static int grid_store(struct parse *p, const char *k, const char *v)
{
	struct lr_expdef *d = p->d;
	struct lr_exp_grid *gr;
	char buf[512], *tok, *save = NULL;
	int i;

	if (d->ngrid >= LR_EXP_MAXGRID)
		return lr_expdef_fail(p, p->line, "more than %d [grid] keys", LR_EXP_MAXGRID);
	if (strlen(k) >= sizeof gr->key ||
	    strspn(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(k))
		return lr_expdef_fail(p, p->line, "[grid] key '%s': use letters, digits, '_' and '-'", k);
	for (i = 0; lr_exp_placeholders[i]; i++)
		if (!strcmp(k, lr_exp_placeholders[i]))
			return lr_expdef_fail(p, p->line,
					      "[grid] key '%s' is a placeholder labrun fills itself ({arm}, {rep}, "
					      "{block}, {outdir}): as a key it would replace it; rename the key",
					      k);
	gr = &d->grid[d->ngrid];
	memset(gr, 0, sizeof *gr);
	snprintf(gr->key, sizeof gr->key, "%s", k);
	gr->line = p->line;
	snprintf(buf, sizeof buf, "%s", v);
	for (tok = list_item(buf, &save); tok; tok = list_item(NULL, &save)) {
		if (gr->n >= LR_EXP_MAXLIST)
			return lr_expdef_fail(p, p->line, "'%s' lists more than %d values", k, LR_EXP_MAXLIST);
		if (!*tok || strlen(tok) >= sizeof gr->values[0])
			return lr_expdef_fail(p, p->line, "'%s' has an empty or over-long value", k);
		for (i = 0; i < gr->n; i++)
			if (!strcmp(gr->values[i], tok))
				return lr_expdef_fail(p, p->line,
						      "'%s' lists '%s' twice: the two would be identical conditions; "
						      "give each value once (blocks repeat a condition)",
						      k, tok);
		snprintf(gr->values[gr->n++], sizeof gr->values[0], "%s", tok);
	}
	if (!gr->n)
		return lr_expdef_fail(p, p->line, "'%s' is an empty list", k);
	d->ngrid++;
	return 1;
}

static int grid_key(struct parse *p, const char *k, const char *v)
{
	struct lr_expdef *d = p->d;
	char buf[512], *tok, *save = NULL;
	struct lr_kvgeom g;

	if (!grid_store(p, k, v))
		return 0;
	if (d->target == LR_TARGET_COMMAND)
		return 1; /* the user's own keys */

	if (!strcmp(k, "model")) {
		snprintf(buf, sizeof buf, "%s", v);
		d->nmodels = 0;
		for (tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
			if (lr_kvgeom_preset(&g, tok))
				return lr_expdef_fail(
					p, p->line,
					"'model' has '%s'; presets are qwen3-0.6b, qwen3-4b, gemma3-1b, koni-8b", tok);
			if (d->nmodels >= LR_EXP_MAXLIST)
				return lr_expdef_fail(p, p->line, "'model' lists more than %d values", LR_EXP_MAXLIST);
			snprintf(d->models[d->nmodels++], sizeof d->models[0], "%s", tok);
		}
		if (!d->nmodels)
			return lr_expdef_fail(p, p->line, "'model' is an empty list");
		return 1;
	}
	if (!strcmp(k, "layers"))
		return parse_ints(p, k, v, d->layers, &d->nlayers, 1);
	if (!strcmp(k, "tokens"))
		return parse_ints(p, k, v, d->tokens, &d->ntokens, 1);
	return lr_expdef_fail(p, p->line, "unknown key '%s' in [grid]", k);
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse *p = user;
	struct lr_expdef *d = p->d;
	const struct lr_kv *first;
	char key[160], line[16];
	int i;

	if (p->err[0])
		return 0;

	snprintf(key, sizeof key, "%s\n%s", section, name);
	if ((first = lr_kvlist_find(&p->seen, key)))
		return lr_expdef_fail(p, p->line, "'%s' is given twice in [%s] (first at line %s)", name, section,
				      first->value);
	snprintf(line, sizeof line, "%d", p->line);
	if (lr_kvlist_add(&p->seen, key, line, NULL))
		return lr_expdef_fail(p, p->line, "out of memory");
	if (!strcmp(section, "experiment"))
		return experiment_key(p, name, value);
	if (!strcmp(section, "design"))
		return design_key(p, name, value);
	if (!strcmp(section, "grid"))
		return grid_key(p, name, value);
	if (!strcmp(section, "report"))
		return lr_expdef_report_key(p, &d->report, name, value);
	if (!strcmp(section, "record"))
		return lr_expdef_record_key(p, name, value);
	if (!strncmp(section, "arm ", 4)) {
		for (i = 0; i < d->narms; i++)
			if (!strcmp(d->arms[i].name, section + 4))
				return arm_key(p, &d->arms[i], name, value);
		return 0; /* every arm section was registered from the reader's list */
	}
	return lr_expdef_fail(p, p->line, "unknown section [%s]", section);
}

static const char *const target_names[] = {
	[LR_TARGET_ENCODE] = "encode", [LR_TARGET_IMPORT] = "import", [LR_TARGET_COMMAND] = "command"
};
static const char *const order_names[] = { [LR_ORDER_ABBA] = "abba", [LR_ORDER_RANDOM] = "random" };
const struct lr_enum_names lr_exp_targets = LR_ENUM_NAMES("target", target_names);
const struct lr_enum_names lr_exp_orders = LR_ENUM_NAMES("order", order_names);

const char *lr_exp_target_name(enum lr_exp_target t)
{
	return lr_enum_name(&lr_exp_targets, (int)t);
}

const char *lr_exp_order_name(enum lr_exp_order o)
{
	return lr_enum_name(&lr_exp_orders, (int)o);
}

int lr_expdef_load(struct lr_expdef *d, const char *path, const char *text)
{
	struct parse p;
	size_t len = 0;
	int rc;

	memset(d, 0, sizeof *d);
	memset(&p, 0, sizeof p);
	snprintf(d->path, sizeof d->path, "%s", path);
	if (text && !(d->text = strdup(text)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	if (!text && (rc = lr_read_text("experiment", path, LR_EXP_MAXTEXT, &d->text, &len))) {
		if (rc != LR_ENOMEM)
			lr_error_hint("experiment definitions live in experiments/*.ini");
		return rc == LR_ENOMEM ? rc : LR_EINVAL;
	}
	if (!text && strlen(d->text) != len) {
		lr_error_set(LR_EINVAL, "cannot read experiment '%s': it holds a NUL byte, which no text file does",
			     path);
		lr_error_hint("experiment definitions are INI text files");
		return LR_EINVAL;
	}
	if ((rc = lr_sha256_buf(d->text, strlen(d->text), d->sha256)))
		return rc;
	snprintf(d->backend, sizeof d->backend, "sim");
	d->seed = 1;
	d->blocks = 10;
	d->warmup = 1;
	d->margin = 0.02;
	d->cpu = -1;
	d->output_cap = LR_EXP_OUTPUT_CAP;
	p.d = d;
	p.text = p.pos = d->text;
	/* a first pass collects the section headers (inih does not report empty sections) */
	{
		char line[1024];

		p.collecting = 1;
		while (reader(line, sizeof line, &p))
			;
		p.collecting = 0;
		p.pos = d->text;
		p.line = 0;
	}
	if (!p.err[0] && lr_expdef_check_sections(&p)) {
		rc = ini_parse_stream(reader, &p, handler, &p);
		if (rc > 0 && !p.err[0])
			lr_expdef_fail(&p, rc, "not an INI line (expected [section], key = value, or a ; comment)");
		if (!p.err[0])
			lr_expdef_check_whole(&p);
	}
	lr_kvlist_release(&p.seen);
	if (p.err[0]) {
		lr_error_set(LR_EINVAL, "%s:%d: %s", path, p.err_line, p.err);
		lr_error_hint("docs/experiments.md describes the format");
		return LR_EINVAL;
	}
	return 0;
}

void lr_expdef_release(struct lr_expdef *d)
{
	int a;

	for (a = 0; a < LR_EXP_MAXARMS; a++) {
		lr_kvlist_release(&d->arms[a].env);
		lr_kvlist_release(&d->arms[a].serving);
		lr_kvlist_release(&d->arms[a].binding);
	}
	lr_run_facts_release(&d->record);
	free(d->text);
	lr_strlist_release(&d->issues);
	memset(d, 0, sizeof *d);
}
