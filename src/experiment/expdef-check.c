/* An experiment definition checked as a whole, after every line was read (expdef.c). */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "experiment/expdef-int.h"
#include "experiment/outputs.h"
#include "experiment/template.h"
#include "import/kvgeom.h"
#include "record/secretlike.h"

/* Register sections before the values arrive: arms in file order, unknown names refused. */
int lr_expdef_check_sections(struct parse *p)
{
	struct lr_expdef *d = p->d;
	int i, j;

	for (i = 0; i < p->nsections; i++) {
		const char *s = p->sections[i];

		for (j = 0; j < i; j++)
			if (!strcmp(p->sections[j], s))
				return lr_expdef_fail(p, p->section_line[i],
						      "section [%s] appears twice (first at line %d)", s,
						      p->section_line[j]);
		if (!strcmp(s, "experiment") || !strcmp(s, "design") || !strcmp(s, "grid") || !strcmp(s, "report") ||
		    !strcmp(s, "record"))
			continue;
		if (!strncmp(s, "arm ", 4) && s[4]) {
			struct lr_exp_arm *a;

			if (d->narms >= LR_EXP_MAXARMS)
				return lr_expdef_fail(p, p->section_line[i], "more than %d arms", LR_EXP_MAXARMS);
			if (strspn(s + 4, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") !=
				    strlen(s + 4) ||
			    strlen(s + 4) >= sizeof a->name)
				return lr_expdef_fail(p, p->section_line[i],
						      "arm name '%s' must be letters, digits, '_', '.' or '-'", s + 4);
			a = &d->arms[d->narms++];
			snprintf(a->name, sizeof a->name, "%s", s + 4);
			snprintf(a->kernel, sizeof a->kernel, "auto");
			a->contract = LR_DLF16_SATURATE;
			a->layout = LR_PATH_STRIDED;
			a->mode = LR_IMPORT_WHOLE;
			a->threads = 1;
			a->line = p->section_line[i];
			continue;
		}
		return lr_expdef_fail(
			p, p->section_line[i],
			"unknown section [%s]; expected [experiment], [design], [arm NAME], [grid], [report] or [record]",
			s);
	}
	return 1;
}

const char *const lr_exp_placeholders[] = { "arm", "rep", "block", "outdir", NULL };

/* A template's placeholders: {arm} {rep} {block} {outdir} and the grid keys. */
static int check_template(struct parse *p, int line, const char *what, const char *tpl)
{
	struct lr_kvlist keys = { 0 };
	int i, rc;

	for (i = 0, rc = 0; i < p->d->ngrid && !rc; i++)
		rc = lr_kvlist_add(&keys, p->d->grid[i].key, "", NULL);
	if (!rc)
		rc = lr_template_check(tpl, lr_exp_placeholders, &keys);
	lr_kvlist_release(&keys);
	if (rc)
		return lr_expdef_fail(p, line,
				      "%s: %s; placeholders are {arm}, {rep}, {block}, {outdir} and the [grid] keys",
				      what, lr_error_msg());
	return 1;
}

/*
 * A 'cwd' without placeholders must be a directory before anything runs (a
 * missing one failed every execution, and was named only then).
 */
static int check_cwd(struct parse *p, const struct lr_exp_arm *arm, int line)
{
	struct stat sb;

	if (!arm->cwd[0] || strchr(arm->cwd, '{'))
		return 1;
	if (stat(arm->cwd, &sb) != 0)
		return lr_expdef_fail(p, line, "[arm %s] 'cwd' is '%s': %s", arm->name, arm->cwd, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return lr_expdef_fail(p, line, "[arm %s] 'cwd' is '%s', which is not a directory", arm->name, arm->cwd);
	return 1;
}

/* The files an arm names inside {outdir} ('outputs', 'responses') under the one path rule (outputs.h). */
static int check_work_names(struct parse *p, const struct lr_exp_arm *arm, const char *key)
{
	struct lr_strlist outs = { 0 }, resp = { 0 };
	char why[PATH_MAX + 200] = "";
	int ok = 1;

	if (lr_words_split(arm->outputs, &outs) || lr_strlist_add(&resp, arm->responses))
		ok = lr_expdef_fail(p, lr_expdef_key_line(p, key, "outputs"), "[arm %s] 'outputs': %s", arm->name,
				    lr_error_msg());
	else if (lr_work_names_check("declared output", &outs, why, sizeof why) || why[0])
		ok = lr_expdef_fail(p, lr_expdef_key_line(p, key, "outputs"), "[arm %s] %s", arm->name,
				    why[0] ? why : lr_error_msg());
	else if (arm->responses[0] && (lr_work_names_check("responses file", &resp, why, sizeof why) || why[0]))
		ok = lr_expdef_fail(p, lr_expdef_key_line(p, key, "responses"), "[arm %s] %s", arm->name,
				    why[0] ? why : lr_error_msg());
	lr_strlist_release(&outs);
	lr_strlist_release(&resp);
	return ok;
}

/* One command arm: a command, none of the built-in keys, known placeholders, outputs to match 'reference'. */
static int check_command_arm(struct parse *p, struct lr_exp_arm *arm, size_t nrefs)
{
	static const char *const builtin[] = { "kernel", "contract", "layout", "mode", "threads", NULL };
	struct lr_strlist words = { 0 };
	char key[160];
	size_t i;
	int ok = 0;

	for (i = 0; builtin[i]; i++) {
		snprintf(key, sizeof key, "arm %s\n%s", arm->name, builtin[i]);
		if (lr_kvlist_find(&p->seen, key))
			return lr_expdef_fail(p, atoi(lr_kvlist_find(&p->seen, key)->value),
					      "[arm %s] sets '%s', which a "
					      "command target does not use",
					      arm->name, builtin[i]);
	}
	if (!arm->command[0])
		return lr_expdef_fail(p, arm->line, "[arm %s] has no 'command' (target = command)", arm->name);
	if (!arm->route[0])
		snprintf(arm->route, sizeof arm->route, "%s", arm->name);
	snprintf(key, sizeof key, "arm %s", arm->name);
	if (lr_words_split(arm->command, &words) || !words.n) {
		lr_expdef_fail(p, lr_expdef_key_line(p, key, "command"), "[arm %s] 'command': %s", arm->name,
			       words.n ? lr_error_msg() : "no words");
		goto out;
	}
	if (!check_template(p, lr_expdef_key_line(p, key, "command"), "'command'", arm->command) ||
	    !check_template(p, lr_expdef_key_line(p, key, "cwd"), "'cwd'", arm->cwd) ||
	    !check_template(p, lr_expdef_key_line(p, key, "outputs"), "'outputs'", arm->outputs) ||
	    !check_template(p, lr_expdef_key_line(p, key, "responses"), "'responses'", arm->responses))
		goto out;
	for (i = 0; i < arm->env.n; i++) {
		char env[80], *assign = NULL;
		const char *rule;
		int line;

		snprintf(env, sizeof env, "env.%s", arm->env.v[i].key);
		line = lr_expdef_key_line(p, key, env);
		if (!check_template(p, line, arm->env.v[i].key, arm->env.v[i].value))
			goto out;
		/* a definition is stored and published as written: a credential in it would be too */
		if (asprintf(&assign, "%s=%s", arm->env.v[i].key, arm->env.v[i].value) < 0) {
			lr_expdef_fail(p, line, "out of memory");
			goto out;
		}
		rule = lr_secretlike(assign);
		free(assign);
		if (rule) {
			lr_expdef_fail(p, line,
				       "[arm %s] '%s' looks like a credential (scan rule %s): a definition is "
				       "stored and published as written; export it in the environment labrun runs in, "
				       "whose secrets are never stored",
				       arm->name, env, rule);
			goto out;
		}
	}
	if (!check_cwd(p, arm, lr_expdef_key_line(p, key, "cwd")) || !check_work_names(p, arm, key))
		goto out;
	lr_strlist_release(&words);
	if (nrefs && (lr_words_split(arm->outputs, &words) || words.n != nrefs)) {
		lr_expdef_fail(p, lr_expdef_key_line(p, key, "outputs"),
			       "[arm %s] declares %zu output(s) but 'reference' "
			       "names %zu file(s)",
			       arm->name, words.n, nrefs);
		goto out;
	}
	ok = 1;
out:
	lr_strlist_release(&words);
	return ok;
}

static int check_command(struct parse *p)
{
	struct lr_expdef *d = p->d;
	struct lr_strlist refs = { 0 };
	int a, ok = 1, line = lr_expdef_key_line(p, "experiment", "reference");
	int64_t n = 1;

	/* 8 keys of 16 values are 2^32 conditions: counted in 64 bits, refused before an int wraps */
	for (a = 0; a < d->ngrid; a++)
		n *= d->grid[a].n;
	if (n > LR_EXP_MAXCONDITIONS)
		return lr_expdef_fail(p, lr_expdef_section_line(p, "grid"),
				      "[grid] gives %lld conditions: an experiment runs at "
				      "most %d; split it into several",
				      (long long)n, LR_EXP_MAXCONDITIONS);
	if (d->reference[0]) {
		if (lr_words_split(d->reference, &refs))
			ok = lr_expdef_fail(p, line, "'reference': %s", lr_error_msg());
		else
			ok = check_template(p, line, "'reference'", d->reference);
	}
	for (a = 0; ok && a < d->narms; a++)
		ok = check_command_arm(p, &d->arms[a], refs.n);
	lr_strlist_release(&refs);
	if (ok && d->reference_route[0]) {
		for (a = 0; a < d->narms; a++)
			if (d->arms[a].responses[0] && !strcmp(d->arms[a].route, d->reference_route))
				break;
		if (a == d->narms)
			ok = lr_expdef_fail(p, lr_expdef_key_line(p, "experiment", "reference_route"),
					    "'reference_route' is '%s', but no arm with 'responses' has that route",
					    d->reference_route);
	}
	if (ok && d->answers[0]) {
		for (a = 0; a < d->narms && !d->arms[a].responses[0]; a++)
			;
		if (a == d->narms)
			ok = lr_expdef_fail(p, lr_expdef_key_line(p, "experiment", "answers"),
					    "'answers' needs an arm that declares 'responses'");
	}
	return ok;
}

/* What only the whole file can tell. */
/* Blocks: enough for the method's interval, or an exploratory design opted into with 2 to 5. */
static int check_blocks(struct parse *p)
{
	const struct lr_expdef *d = p->d;

	if (d->exploratory && (d->blocks < 2 || d->blocks >= LR_MIN_BLOCKS))
		return lr_expdef_fail(p, lr_expdef_key_line(p, "design", "exploratory"),
				      "'exploratory = yes' takes 2 to %d blocks, and 'blocks' is %d%s",
				      LR_MIN_BLOCKS - 1, d->blocks,
				      d->blocks >= LR_MIN_BLOCKS ? ": with that many the design is strict, "
								   "so drop 'exploratory'"
								 : "");
	if (!d->exploratory && d->blocks < LR_MIN_BLOCKS)
		return lr_expdef_fail(
			p, lr_expdef_key_line(p, "design", "blocks"),
			"'blocks' is %d: fewer than %d blocks can never reach a 95%% interval (for a "
			"first look, 'exploratory = yes' reports 2 to %d as timed batches, with no verdict)",
			d->blocks, LR_MIN_BLOCKS, LR_MIN_BLOCKS - 1);
	return 1;
}

int lr_expdef_check_whole(struct parse *p)
{
	struct lr_expdef *d = p->d;
	struct lr_kvgeom g;
	int i, j, last = p->line;

	if (!lr_expdef_section_line(p, "experiment"))
		return lr_expdef_fail(p, 1, "no [experiment] section");
	if (!p->seen_experiment_name)
		return lr_expdef_fail(p, lr_expdef_section_line(p, "experiment"), "[experiment] has no 'name'");
	if (!check_blocks(p) || !lr_expdef_report_check(p) || !lr_expdef_record_check(p))
		return 0;
	if (d->cases[0] && !d->serving)
		return lr_expdef_fail(p, lr_expdef_key_line(p, "experiment", "cases"),
				      "'cases' is for 'target = serving' only");
	if (d->narms < 2)
		return lr_expdef_fail(
			p, d->narms ? d->arms[0].line : last,
			"%d arm(s): an experiment compares at least two [arm NAME] sections (the first is the baseline)",
			d->narms);
	for (i = 0; !d->serving && i < d->narms; i++)
		if (d->arms[i].serving.n) {
			char section[64];

			snprintf(section, sizeof section, "arm %s", d->arms[i].name);
			return lr_expdef_fail(p, lr_expdef_key_line(p, section, d->arms[i].serving.v[0].key),
					      "[arm %s] '%s' is for 'target = serving' only", d->arms[i].name,
					      d->arms[i].serving.v[0].key);
		}
	if (d->serving && !lr_expdef_serving_expand(p))
		return 0;
	if (d->target == LR_TARGET_COMMAND && !d->backend_declared) /* never a silent 'sim' (execute.c) */
		snprintf(d->backend, sizeof d->backend, "%s", d->serving ? "unidentified" : "unstated");
	if (d->target == LR_TARGET_COMMAND)
		return check_command(p);
	for (i = 0; i < d->narms; i++)
		if (d->arms[i].command[0] || d->arms[i].cwd[0] || d->arms[i].env.n || d->arms[i].outputs[0] ||
		    d->arms[i].responses[0] || d->arms[i].route[0] || d->arms[i].timeout_s > 0)
			return lr_expdef_fail(p, d->arms[i].line,
					      "[arm %s] has command keys, which only 'target = command' uses",
					      d->arms[i].name);
	if (d->metric[0] || d->reference[0] || d->answers[0] || d->reference_route[0])
		return lr_expdef_fail(p, lr_expdef_section_line(p, d->metric[0] ? "design" : "experiment"),
				      "'%s' is for 'target = command' only",
				      d->metric[0]      ? "metric"
				      : d->reference[0] ? "reference"
				      : d->answers[0]   ? "answers"
							: "reference_route");
	if (!lr_expdef_section_line(p, "grid"))
		return lr_expdef_fail(p, last, "no [grid] section: the conditions come from it");
	if (!d->nmodels || !d->ntokens)
		return lr_expdef_fail(p, lr_expdef_section_line(p, "grid"), "[grid] needs 'model' and 'tokens'");
	for (i = 0; i < d->nmodels; i++) {
		if (lr_kvgeom_preset(&g, d->models[i]))
			return lr_expdef_fail(p, lr_expdef_section_line(p, "grid"),
					      "'model' has '%s', not a known model", d->models[i]);
		for (j = 0; j < d->nlayers; j++)
			if (d->layers[j] > g.layers)
				return lr_expdef_fail(p, lr_expdef_section_line(p, "grid"),
						      "'layers' has %lld but %s has %d layers", (long long)d->layers[j],
						      d->models[i], g.layers);
	}
	if (d->target == LR_TARGET_ENCODE)
		for (i = 0; i < d->narms; i++)
			if (d->arms[i].layout != LR_PATH_STRIDED || d->arms[i].mode != LR_IMPORT_WHOLE)
				return lr_expdef_fail(p, d->arms[i].line,
						      "[arm %s] sets layout or mode, which only an import target uses",
						      d->arms[i].name);
	return 1;
}
