#include "config.h"
#include "base/system.h"

#include <math.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/child.h"
#include "base/error.h"
#include "base/lines.h"
#include "base/list.h"
#include "base/sha256.h"
#include "base/walk.h"
#include "experiment/command.h"
#include "experiment/outputs.h"
#include "experiment/template.h"
#include "record/capture.h"
#include "record/checks.h"
#include "record/redact.h"
#include "serving/passfile.h"
#include "serving/serving.h"
#include "store/experiments.h"
#include "store/objects.h"
#include "store/serving.h"

/* ---- running one command ----------------------------------------------------- */

/*
 * The environment of an execution: envp, then the arm's env.NAME values, then LABRUN_METRICS.
 * Without LABRUN_CHECKS: a repetition's checks have no row (its figures are metrics), and one
 * inherited from a 'labrun record' around 'labrun run' would collect every repetition's checks in
 * that run. Nor LABRUN_PROGRESS (this labrun's): a serving pass's 'labrun collect' printed its
 * progress into the stderr log stored (a definition may set no LABRUN_ variable: expdef.c).
 */
static char **exec_env(char *const *envp, const struct lr_kvlist *set)
{
	size_t n = 0, i, k = 0, j;
	char **env;

	while (envp[n])
		n++;
	if (!(env = calloc(n + set->n + 1, sizeof *env)))
		return NULL;
	for (i = 0; i < n; i++) {
		size_t len = strcspn(envp[i], "=");
		int replaced = (len == strlen(LR_CHECKS_ENV) && !strncmp(envp[i], LR_CHECKS_ENV, len)) ||
			       (len == strlen("LABRUN_PROGRESS") && !strncmp(envp[i], "LABRUN_PROGRESS", len));

		for (j = 0; j < set->n; j++)
			replaced |= strlen(set->v[j].key) == len && !strncmp(envp[i], set->v[j].key, len);
		if (!replaced)
			env[k++] = strdup(envp[i]);
	}
	for (j = 0; j < set->n; j++)
		if (asprintf(&env[k], "%s=%s", set->v[j].key, set->v[j].value) >= 0)
			k++;
	return env;
}

static int on_output(void *arg, int fd, const void *data, size_t len)
{
	return lr_capture_write((struct lr_capture *)arg + (fd - 1), data, len);
}

static int on_eof(void *arg, int fd)
{
	return lr_capture_end((struct lr_capture *)arg + (fd - 1));
}

/*
 * Run one execution: stdin /dev/null; stdout and stderr streamed, scrubbed and capped, straight
 * into objects (no scratch copy); SIGTERM at the timeout or on cancel; what it leaves is noted, killed.
 */
static int run_child(struct lr_command_ctx *c, char *const *argv, char *const *env, const char *cwd, double timeout_s,
		     struct lr_capture cap[2], struct lr_child *ch)
{
	struct lr_child_opts o = { .argv = argv,
				   .envp = env,
				   .cwd = cwd,
				   .fd = { LR_CHILD_NULL, LR_CHILD_PIPE, LR_CHILD_PIPE },
				   .on_output = on_output,
				   .on_eof = on_eof,
				   .arg = cap,
				   .timeout_s = timeout_s,
				   .cancel = c->cancel,
				   .contain = 1,
				   .leftovers = 1 };
	int rc = 0, i;

	for (i = 0; i < 2 && !rc; i++)
		if (!(rc = lr_capture_init(&cap[i], c->envp, c->d->output_cap)))
			rc = lr_objw_open(&cap[i].w, lr_store_dir(c->st), NULL);
	return rc ? rc : lr_child_run(&o, ch);
}

/* Commit the two logs of execution 'e' as objects, with what passed the cap; e takes what ch left running. */
static int keep_logs(struct lr_capture cap[2], struct lr_child *ch, struct lr_store_exec *e)
{
	int rc = 0, i;

	e->left = ch->left; /* stored under e's condition and seq */
	memset(&ch->left, 0, sizeof ch->left);

	for (i = 0; i < 2 && !rc; i++) {
		rc = lr_objw_commit(cap[i].w, i ? e->stderr_sha256 : e->stdout_sha256, NULL);
		cap[i].w = NULL;
		e->dropped[i] = cap[i].dropped;
	}
	e->output_cap = cap[0].cap;
	return rc;
}

/* $LABRUN_METRICS: one {"name", "value", "unit", "better"} a line. A bad line fails the execution. */
static int read_metrics(const char *path, struct lr_store_exec *e, char *why, size_t len)
{
	struct lr_lines lines;
	char *buf;
	size_t n;
	int rc;

	if (access(path, F_OK) != 0)
		return 0; /* the command reported none */
	if ((rc = lr_lines_open(&lines, "metrics", path, LR_LINE_MAX, LR_LINES_FILE_MAX)))
		return rc;
	while ((rc = lr_lines_next(&lines, &buf, &n)) > 0) {
		json_t *o = json_loadb(buf, n, JSON_REJECT_DUPLICATES, NULL), *name, *value, *unit, *better;
		struct lr_store_metric *m;

		name = json_object_get(o, "name");
		value = json_object_get(o, "value");
		unit = json_object_get(o, "unit");
		better = json_object_get(o, "better");
		if (!json_is_object(o) || !json_is_string(name) || !json_is_number(value) ||
		    (unit && !json_is_string(unit)) ||
		    (better && (!json_is_string(better) || (strcmp(json_string_value(better), "higher") &&
							    strcmp(json_string_value(better), "lower")))) ||
		    !isfinite(json_number_value(value))) {
			snprintf(why, len,
				 "$LABRUN_METRICS line %lld: expected {\"name\": \"...\", \"value\": number, "
				 "\"unit\": \"...\", \"better\": \"higher\"|\"lower\"}",
				 lines.line);
			json_decref(o);
			break;
		}
		if (!(m = realloc(e->metrics, (size_t)(e->nmetrics + 1) * sizeof *m))) {
			json_decref(o);
			rc = lr_error_set(LR_ENOMEM, "out of memory");
			break;
		}
		e->metrics = m;
		m = &e->metrics[e->nmetrics++];
		m->name = strdup(json_string_value(name));
		m->unit = strdup(unit ? json_string_value(unit) : "");
		m->value = json_number_value(value);
		m->higher = better && !strcmp(json_string_value(better), "higher");
		json_decref(o);
		if (!m->name || !m->unit) {
			rc = lr_error_set(LR_ENOMEM, "out of memory");
			break;
		}
	}
	if (rc == LR_EINVAL && !why[0]) /* a line past the bound: the execution fails, saying so */
		snprintf(why, len, "$LABRUN_METRICS: %s", lr_error_msg());
	lr_lines_close(&lines);
	return rc == LR_EINVAL ? 0 : rc < 0 ? rc : 0;
}

/* ---- the condition's executions ---------------------------------------------- */

int lr_command_setup(struct lr_command_ctx *c, const struct lr_expdef *d, struct lr_store *st, int64_t run, int cond,
		     const struct lr_kvlist *params, char *const *envp, atomic_int *cancel)
{
	char **refs = NULL, missing[PATH_MAX] = "";
	struct lr_strlist list = { 0 };
	size_t i;
	int rc;

	memset(c, 0, sizeof *c);
	c->d = d;
	c->st = st;
	c->run = run;
	c->cond = cond;
	c->envp = envp;
	c->cancel = cancel;
	if ((rc = lr_scrub_init(&c->scrub, envp)))
		return rc;
	if ((rc = lr_temp_dir(c->scratch, sizeof c->scratch, "labrun-exec"))) {
		c->scratch[0] = '\0';
		return rc;
	}
	for (i = 0; i < params->n; i++) /* the plan's, for this condition */
		if ((rc = lr_kvlist_add(&c->params, params->v[i].key, params->v[i].value, NULL)))
			return rc;
	if (!d->reference[0])
		return 0;
	/* the reference files, expanded for this condition */
	if (!(refs = lr_template_words(d->reference, &c->params))) {
		lr_error_wrap("%s: 'reference'",
			      d->path); /* the message is in lr_error's buffer: never format it into itself */
		return LR_EINVAL;
	}
	for (i = 0; refs[i] && !rc; i++)
		rc = lr_strlist_add(&list, refs[i]);
	if (!rc &&
	    !(rc = lr_outputs_digest(&list, NULL, c->reference, NULL, NULL, NULL, NULL, missing, sizeof missing)) &&
	    missing[0])
		rc = lr_error_set(LR_EINVAL, "%s", missing);
	lr_words_free(refs);
	lr_strlist_release(&list);
	return rc;
}

/* The next record in c->execs. */
static struct lr_store_exec *next_exec(struct lr_command_ctx *c)
{
	if (LR_ALLOC_GROW(c->execs, (size_t)c->nexecs + 1, c->cap))
		return NULL;
	memset(&c->execs[c->nexecs], 0, sizeof c->execs[0]);
	return &c->execs[c->nexecs++];
}

/*
 * Describe how the command ended, with the end of its stderr (as stored: scrubbed), and a full
 * scratch file system named as such (it showed as "exited with status 1"); NULL when it passed.
 * When there is no memory for the whole text, what lr_child_failure said ("failed" at least).
 */
static char *judge(const struct lr_child *ch, const char *cmd, const struct lr_capture *err, double timeout_s,
		   const char *scratch)
{
	char *s = lr_child_failure(ch, cmd, timeout_s), *t;
	struct lr_buf b = LR_BUF_INIT;
	struct statvfs fs;
	size_t n, i;

	if (!s)
		return NULL;
	lr_buf_adds(&b, s);
	if (!statvfs(scratch, &fs) && fs.f_bavail == 0)
		lr_buf_addf(&b, "; the file system of its scratch directory '%s' ($TMPDIR) is full", scratch);
	for (n = strnlen(err->tail, sizeof err->tail); n && (err->tail[n - 1] == '\n' || err->tail[n - 1] == '\r'); n--)
		;
	if (n)
		lr_buf_adds(&b, "; stderr ends: ");
	for (i = 0; i < n; i++) /* one line */
		lr_buf_addch(&b, err->tail[i] == '\n' || err->tail[i] == '\t' ? ' ' : err->tail[i]);
	if (!(t = lr_buf_detach(&b, NULL)))
		return s;
	free(s);
	return t;
}

/* Variables of one execution: the grid values, then {arm} {rep} {block} {outdir}. */
static int exec_vars(struct lr_command_ctx *c, const struct lr_exp_arm *arm, int seq, int block, const char *outdir,
		     struct lr_kvlist *vars)
{
	char num[32];
	size_t i;
	int rc = 0;

	for (i = 0; i < c->params.n && !rc; i++)
		rc = lr_kvlist_add(vars, c->params.v[i].key, c->params.v[i].value, NULL);
	snprintf(num, sizeof num, "%d", seq);
	if (!rc && !(rc = lr_kvlist_add(vars, "arm", arm->name, NULL)) &&
	    !(rc = lr_kvlist_add(vars, "rep", num, NULL))) {
		if (block >= 0)
			snprintf(num, sizeof num, "%d", block);
		rc = lr_kvlist_add(vars, "block", block >= 0 ? num : "parity", NULL);
	}
	return rc ? rc : lr_kvlist_add(vars, "outdir", outdir, NULL);
}

/*
 * A serving arm's responses with its pass (collect --pass): the pass's rows are stored in the
 * set's transaction, as collect stores its own. No pass file beside them is the execution's fault.
 */
static int ingest_pass(struct lr_command_ctx *c, const struct lr_exp_arm *arm, const struct lr_store_exec *e,
		       const char *outdir, const char *responses, int64_t *set, int64_t *cases)
{
	struct lr_passfile pf;
	char path[PATH_MAX];
	int rc;

	if ((rc = lr_path(path, sizeof path, "%s/%s", outdir, LR_PASS_FILE)))
		return rc;
	if ((rc = lr_passfile_read(path, &c->scrub, &pf)) == LR_ENOTFOUND || rc == LR_EIO)
		rc = LR_EINVAL; /* not there, or not readable: collect did not write it whole */
	else if (!rc)
		rc = lr_responses_ingest_with(c->st, c->run, arm->route, c->cond, e->seq, responses, responses, c->envp,
					      lr_passfile_store, &pf, set, cases);
	lr_passfile_release(&pf);
	return rc;
}

/* After the command: logs, outputs, metrics and responses of execution 'e' (a problem fails it). */
static int collect(struct lr_command_ctx *c, const struct lr_exp_arm *arm, const struct lr_kvlist *vars,
		   const char *outdir, const char *base, struct lr_store_exec *e)
{
	const char *dir = lr_store_dir(c->st);
	char path[PATH_MAX * 2], missing[PATH_MAX] = "", why[300] = "";
	struct lr_buf responses = LR_BUF_INIT;
	struct lr_strlist outs = { 0 };
	char **words = NULL, *resp = NULL;
	int64_t set, cases;
	int rc, i;

	snprintf(path, sizeof path, "%s.metrics", base);
	if ((rc = read_metrics(path, e, why, sizeof why)))
		return rc;
	if (arm->outputs[0]) {
		if (!(words = lr_template_words(arm->outputs, vars)))
			return lr_error_set(LR_ENOMEM, "out of memory");
		for (i = 0; words[i] && !rc; i++)
			rc = lr_strlist_add(&outs, words[i]);
		if (!rc && !(e->outputs = calloc(outs.n, sizeof *e->outputs)))
			rc = lr_error_set(LR_ENOMEM, "out of memory");
		if (!rc)
			rc = lr_outputs_digest(&outs, outdir, e->outputs_sha256, e->outputs, &e->noutputs, dir,
					       &c->scrub, missing, sizeof missing);
		lr_words_free(words);
		lr_strlist_release(&outs);
		if (rc)
			return rc;
	}
	/* a failure that cannot be kept is an error, never a passed execution */
	if (!e->failure && (missing[0] || why[0]) && !(e->failure = strdup(missing[0] ? missing : why)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	if (e->failure || !arm->responses[0])
		return 0;
	if (!(resp = lr_template_expand(arm->responses, vars)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	lr_buf_addf(&responses, "%s/%s", outdir, resp); /* the user's file name, whole: never cut to another */
	if ((rc = lr_buf_error(&responses)) || access(responses.buf, F_OK) != 0)
		goto out; /* none: the route is uncollected here, which the report shows */
	if ((rc = lr_work_file(outdir, "responses file", resp, missing, why, sizeof why)) || why[0])
		rc = rc ? rc : lr_error_set(LR_EREFUSED, "%s", why); /* the one path rule (outputs.h) */
	else if (arm->serving.n) /* a serving arm's pass: its rows go into the responses' set */
		rc = ingest_pass(c, arm, e, outdir, responses.buf, &set, &cases);
	else
		rc = lr_responses_ingest(c->st, c->run, arm->route, c->cond, e->seq, responses.buf, c->envp, &set,
					 &cases);
	if (rc == LR_EINVAL || rc == LR_EDATA || rc == LR_EREFUSED) { /* the harness's fault: the execution failed */
		e->failure = strdup(lr_error_msg());
		rc = 0;
	}
out:
	free(resp);
	lr_buf_release(&responses);
	return rc;
}

/* Replace *s by its scrubbed copy; 0 or LR_ENOMEM. */
static int scrub_field(const struct lr_scrub *scrub, char **s)
{
	char *t;

	if (!*s || !scrub->n)
		return 0;
	if (!(t = lr_scrub_string(scrub, *s)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	free(*s);
	*s = t;
	return 0;
}

/*
 * The one scrubber over what an execution stores as text: its command line, its failure (the end
 * of its stderr comes from the raw log), the names and units of its metrics, as record scrubs a run.
 */
static int scrub_exec(const struct lr_scrub *scrub, struct lr_store_exec *e)
{
	int rc = scrub_field(scrub, &e->argv_json), i;

	if (!rc)
		rc = scrub_field(scrub, &e->failure);
	for (i = 0; !rc && i < e->nmetrics; i++)
		if (!(rc = scrub_field(scrub, &e->metrics[i].name)))
			rc = scrub_field(scrub, &e->metrics[i].unit);
	for (size_t k = 0; !rc && k < e->left.n; k++)
		rc = scrub_field(scrub, &e->left.v[k].argv);
	return rc;
}

int lr_command_exec(struct lr_command_ctx *c, int a, int block, int slot, struct lr_store_exec **out)
{
	const struct lr_exp_arm *arm = &c->d->arms[a];
	struct lr_kvlist vars = { 0 }, env = { 0 };
	char outdir[PATH_MAX], base[PATH_MAX], metrics[PATH_MAX + 16];
	struct lr_capture cap[2] = { 0 };
	char **argv = NULL, **envv = NULL, *cwd = NULL;
	struct lr_store_exec *e = next_exec(c);
	struct lr_child ch = { .pid = -1 };
	json_t *jargv = NULL;
	size_t i;
	int rc;

	*out = e;
	if (!e)
		return lr_error_set(LR_ENOMEM, "out of memory");
	e->seq = c->nexecs - 1;
	e->arm = a;
	e->block = block;
	e->slot = block >= 0 ? slot : -1;
	if ((rc = lr_path(base, sizeof base, "%s/%d", c->scratch, e->seq)) ||
	    (rc = lr_path(outdir, sizeof outdir, "%s.d", base)) ||
	    (rc = lr_path(metrics, sizeof metrics, "%s.metrics", base)))
		goto out;
	if (mkdir(outdir, 0700) != 0) {
		rc = lr_error_set(LR_EIO, "cannot create '%s': %s", outdir, strerror(errno));
		goto out;
	}
	if ((rc = exec_vars(c, arm, e->seq, block, outdir, &vars)))
		goto out;
	for (i = 0; i < arm->env.n && !rc; i++) {
		char *v = lr_template_expand(arm->env.v[i].value, &vars);

		rc = v ? lr_kvlist_add(&env, arm->env.v[i].key, v, NULL) : LR_ENOMEM;
		free(v);
	}
	if (rc || (rc = lr_kvlist_add(&env, "LABRUN_METRICS", metrics, NULL)))
		goto out;
	argv = lr_template_words(arm->command, &vars);
	envv = exec_env(c->envp, &env);
	cwd = arm->cwd[0] ? lr_template_expand(arm->cwd, &vars) : NULL;
	jargv = json_array();
	for (i = 0; argv && argv[i]; i++)
		json_array_append_new(jargv, json_string(argv[i]));
	e->argv_json = json_dumps(jargv, JSON_COMPACT | JSON_ENSURE_ASCII);
	if (!argv || !envv || (arm->cwd[0] && !cwd) || !e->argv_json) {
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = run_child(c, argv, envv, cwd, arm->timeout_s, cap, &ch)) || (rc = keep_logs(cap, &ch, e)))
		goto out;
	e->has_exit = ch.has_exit && !ch.exec_errno;
	e->exit_code = ch.exit_code;
	e->signal = ch.signal;
	e->timed_out = ch.timed_out;
	e->wall_s = ch.wall_s;
	e->user_s = (double)ch.ru.ru_utime.tv_sec + ch.ru.ru_utime.tv_usec / 1e6;
	e->sys_s = (double)ch.ru.ru_stime.tv_sec + ch.ru.ru_stime.tv_usec / 1e6;
	e->peak_rss_kib = ch.ru.ru_maxrss;
	e->failure = judge(&ch, argv[0], &cap[1], arm->timeout_s, c->scratch);
	rc = collect(c, arm, &vars, outdir, base, e);
out:
	for (i = 0; i < 2; i++) {
		lr_objw_abort(cap[i].w);
		lr_capture_release(&cap[i]);
	}
	lr_child_release(&ch);
	json_decref(jargv);
	lr_words_free(argv);
	lr_words_free(envv);
	free(cwd);
	lr_kvlist_release(&vars);
	lr_kvlist_release(&env);
	if (!e->argv_json && !(e->argv_json = strdup("[]")) && !rc)
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	if (!rc)
		rc = scrub_exec(&c->scrub, e);
	return rc;
}

int lr_command_value(const struct lr_store_exec *e, const char *name, double *value, int *higher)
{
	int i;

	if (!name || !*name) {
		*value = e->wall_s;
		*higher = 0;
		return 1;
	}
	for (i = 0; i < e->nmetrics; i++)
		if (!strcmp(e->metrics[i].name, name)) {
			*value = e->metrics[i].value;
			*higher = e->metrics[i].higher;
			return 1;
		}
	return 0;
}

struct route_sets {
	int cond;
	int64_t first;
	struct lr_store *st;
	int64_t run;
	int rc;
	int within; /* compare later sets with the first; else only note the first */
};

/* Two empty sets are not compared: the matrix then shows them as collected but never compared. */
static int not_compared(int rc)
{
	if (rc != LR_EINVAL)
		return rc;
	lr_error_clear();
	return 0;
}

static int compare_later(void *arg, const struct lr_response_set *s)
{
	struct route_sets *r = arg;
	struct lr_compare_counts k;
	int64_t id;

	if (s->cond != r->cond)
		return 0;
	if (!r->first) {
		r->first = s->id;
		return 0;
	}
	if (!r->within)
		return 0;
	return not_compared(lr_compare_sets(r->st, r->run, "within-route", r->first, s->id, &k, &id));
}

/* The first set of 'route' in this condition (0 when it collected none). */
static int first_set(struct lr_command_ctx *c, const char *route, int64_t *set)
{
	struct route_sets r = { .cond = c->cond, .st = c->st, .run = c->run };
	int rc = lr_store_sets(c->st, c->run, route, compare_later, &r);

	*set = r.first;
	return rc;
}

/* Each route's first set against the reference route's, and through the answer key. */
static int cross_and_gate(struct lr_command_ctx *c, const struct lr_exp_arm *arm)
{
	struct lr_compare_counts k;
	struct lr_gate_counts g;
	int64_t set, ref, id;
	int rc;

	if ((rc = first_set(c, arm->route, &set)) || !set)
		return rc;
	if (c->d->reference_route[0] && strcmp(arm->route, c->d->reference_route)) {
		if ((rc = first_set(c, c->d->reference_route, &ref)))
			return rc;
		if (ref && (rc = not_compared(lr_compare_sets(c->st, c->run, "cross-route", ref, set, &k, &id))))
			return rc;
	}
	if (c->d->answers[0] && (rc = lr_gate_score(c->st, c->run, set, c->d->answers, &g, &id)))
		return rc;
	return 0;
}

int lr_command_compare_routes(struct lr_command_ctx *c)
{
	int a, b, rc = 0;

	for (a = 0; a < c->d->narms && !rc; a++) {
		struct route_sets r = { .cond = c->cond, .st = c->st, .run = c->run, .within = 1 };

		if (!c->d->arms[a].responses[0])
			continue;
		for (b = 0; b < a; b++) /* a route shared by several arms is compared once */
			if (c->d->arms[b].responses[0] && !strcmp(c->d->arms[b].route, c->d->arms[a].route))
				break;
		if (b < a)
			continue;
		if (!(rc = lr_store_sets(c->st, c->run, c->d->arms[a].route, compare_later, &r)))
			rc = cross_and_gate(c, &c->d->arms[a]);
	}
	return rc;
}

void lr_command_teardown(struct lr_command_ctx *c)
{
	int i, k;

	if (c->scratch[0])
		lr_remove_tree(c->scratch);
	lr_scrub_release(&c->scrub);
	for (i = 0; i < c->nexecs; i++) {
		struct lr_store_exec *e = &c->execs[i];

		free(e->argv_json);
		free(e->failure);
		for (k = 0; k < e->noutputs; k++)
			free(e->outputs[k].path);
		free(e->outputs);
		for (k = 0; k < e->nmetrics; k++) {
			free(e->metrics[k].name);
			free(e->metrics[k].unit);
		}
		free(e->metrics);
		lr_leftovers_release(&e->left);
	}
	free(c->execs);
	lr_kvlist_release(&c->params);
	memset(c, 0, sizeof *c);
}
