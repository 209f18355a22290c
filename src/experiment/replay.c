#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "base/jsonbytes.h"
#include "encode/dlf16.h"
#include "encode/ktable.h"
#include "experiment/expdef.h"
#include "experiment/plan.h"
#include "experiment/replay.h"
#include "record/record.h"
#include "store/experiments.h"
#include "store/runs.h"

/*
 * An arm of kernel 'auto' runs the kernel the original resolved it to (the
 * arm rows hold it), not today's measured choice, when this host can run it;
 * otherwise auto picks again, and the replay's arm rows show the difference.
 */
static int same_kernels(struct lr_store *st, int64_t orig, struct lr_expdef *d)
{
	char names[LR_EXP_MAXARMS][32], kernels[LR_EXP_MAXARMS][32];
	const struct lr_dlf16_kernel *k;
	int n, rc;

	if ((rc = lr_store_arm_names(st, orig, names, kernels, LR_EXP_MAXARMS, &n)))
		return rc;
	for (int a = 0; a < d->narms && a < n; a++)
		if (!strcmp(d->arms[a].kernel, "auto") && !strcmp(d->arms[a].name, names[a]) &&
		    !lr_dlf16_kernel_find(&k, kernels[a]))
			snprintf(d->arms[a].kernel, sizeof d->arms[a].kernel, "%s", k->name);
	lr_error_clear();
	return 0;
}

/*
 * What 'orig' stated of where it ran and with what (its geometry, the
 * binding given, the tool versions stated: a probed one is probed again),
 * then the replay's own 'over' (may be NULL) over them.
 */
static int stated_facts(struct lr_run_facts *f, const struct lr_run *orig, const struct lr_run_facts *over)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < orig->geometry.n && !rc; i++)
		rc = lr_kvlist_set(&f->geometry, orig->geometry.v[i].key, orig->geometry.v[i].value, NULL);
	for (i = 0; i < orig->binding.n && !rc; i++)
		if (orig->binding.v[i].tag && !strcmp(orig->binding.v[i].tag, "user"))
			rc = lr_kvlist_set(&f->binding, orig->binding.v[i].key, orig->binding.v[i].value, NULL);
	for (i = 0; i < orig->tools.n && !rc; i++)
		if (!lr_kvlist_find(&orig->probes, orig->tools.v[i].key))
			rc = lr_kvlist_set(&f->tools, orig->tools.v[i].key, orig->tools.v[i].value, NULL);
	return rc || !over ? rc : lr_run_facts_merge(f, over);
}

static int replay_experiment(struct lr_store *st, const struct lr_run *orig, const struct lr_replay_opts *o,
			     struct lr_replay *r)
{
	char *path = NULL, *text = NULL, label[1200];
	struct lr_replay_check *checks = NULL;
	struct lr_run run;
	struct lr_expdef d;
	struct lr_stored_design stored;
	struct lr_run_facts facts = { 0 };
	struct lr_runopts runopts;
	const struct lr_kv *cpu;
	int rc, c;

	memset(&d, 0, sizeof d);
	lr_run_init(&run);
	if ((rc = lr_store_definition(st, orig->id, &path, &text)))
		goto out;
	snprintf(label, sizeof label, "%s (as stored with run %lld)", path, (long long)orig->id);
	/* executing needs the whole definition; today's parse of it must give the design stored with the run */
	if ((rc = lr_expdef_load(&d, label, text)) || (rc = lr_plan_stored(st, orig->id, &stored)) ||
	    (rc = lr_plan_check(&d, &stored, orig->id)))
		goto out;
	if ((rc = same_kernels(st, orig->id, &d)))
		goto out;
	/* the same binding: the CPU the original was pinned to, when this host lets us use it
	 * (otherwise the CPU the runner starts on; the binding rows show the difference) */
	cpu = lr_kvlist_find(&orig->binding, "pinned_cpu");
	if (cpu && lr_cpu_usable(atoi(cpu->value)))
		d.cpu = atoi(cpu->value);
	runopts = *o->run;
	runopts.facts = &facts;
	if ((rc = stated_facts(&facts, orig, o->facts)) ||
	    (rc = lr_experiment_execute(st, &d, o->argv, o->envp, orig->id, &runopts, &run, &r->exp)) ||
	    (rc = lr_store_run_load(st, run.id, &r->run)) || (rc = lr_compare_runs(st, orig, &r->run, &r->cmp)))
		goto out;
	/* what was compared, condition by condition, recorded with the replay */
	if (r->cmp.ncond && !(checks = calloc((size_t)r->cmp.ncond, sizeof *checks))) {
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto out;
	}
	for (c = 0; c < r->cmp.ncond; c++) {
		const struct lr_cond_compare *x = &r->cmp.cond[c];

		snprintf(checks[c].item, sizeof checks[c].item, "condition %d", c);
		checks[c].original = x->a_sha[0] ? x->a_sha : NULL;
		checks[c].replay = x->b_sha[0] ? x->b_sha : NULL;
		checks[c].matches = x->outputs_match;
	}
	if ((rc = lr_store_replay_checks(st, run.id, checks, r->cmp.ncond)))
		goto out;
	r->same = r->cmp.outputs_match && run.status == LR_PASSED;
out:
	free(checks);
	free(path);
	free(text);
	lr_run_facts_release(&facts);
	lr_expdef_release(&d);
	lr_run_release(&run);
	return rc;
}

/* The environment to replay with: 'envp', with every recorded non-secret variable set as it was. */
static char **replay_env(const struct lr_run *orig, char *const *envp)
{
	size_t n = 0, i, k, j;
	char **env;

	while (envp[n])
		n++;
	env = calloc(n + orig->env.n + 1, sizeof *env);
	if (!env)
		return NULL;
	for (i = 0, k = 0; i < n; i++) {
		size_t len = strcspn(envp[i], "=");
		int overridden = 0;

		for (j = 0; j < orig->env.n; j++)
			if (!orig->env.v[j].tag && strlen(orig->env.v[j].key) == len &&
			    !strncmp(envp[i], orig->env.v[j].key, len))
				overridden = 1;
		if (!overridden)
			env[k++] = strdup(envp[i]);
	}
	for (i = 0; i < orig->env.n; i++)
		if (!orig->env.v[i].tag && asprintf(&env[k], "%s=%s", orig->env.v[i].key, orig->env.v[i].value) >= 0)
			k++;
	return env;
}

/* The options that record 'orig' again: its command, facts and declared files. */
static int record_opts(struct lr_record_opts *ro, const struct lr_run *orig, const struct lr_run_facts *over)
{
	size_t i;
	int rc;

	ro->max_output = orig->output_cap; /* a cap the original passed holds for its replay */
	rc = stated_facts(&ro->facts, orig, over);
	for (i = 0; i < orig->issues.n && !rc; i++)
		rc = lr_strlist_add(&ro->issues, orig->issues.v[i]);
	for (i = 0; i < orig->nartifacts && !rc; i++) {
		const struct lr_artifact *x = &orig->artifacts[i];

		if (!strcmp(x->role, "output"))
			rc = lr_strlist_add(&ro->outputs, x->name);
		else if (!strcmp(x->role, "log"))
			rc = lr_strlist_add(&ro->logs, x->name);
		else if (!strcmp(x->role, "input"))
			rc = lr_strlist_add(&ro->inputs, x->name);
		else if (!strcmp(x->role, "reference"))
			rc = lr_strlist_add(&ro->references, x->name);
	}
	return rc;
}

/* Exit code, then every output and log of the original, each against the replay's. */
static int record_checks(const struct lr_run *orig, struct lr_replay *r)
{
	const struct lr_run *b = &r->run;
	size_t i;
	int n = 1;

	r->checks = calloc(orig->nartifacts + 1, sizeof *r->checks);
	if (!r->checks)
		return lr_error_set(LR_ENOMEM, "out of memory");
	snprintf(r->exit_original, sizeof r->exit_original, "%d", orig->has_exit ? orig->exit_code : -1);
	snprintf(r->exit_replay, sizeof r->exit_replay, "%d", b->has_exit ? b->exit_code : -1);
	snprintf(r->checks[0].item, sizeof r->checks[0].item, "exit code");
	r->checks[0].original = r->exit_original;
	r->checks[0].replay = r->exit_replay;
	r->checks[0].matches = !strcmp(r->exit_original, r->exit_replay);
	r->same = r->checks[0].matches;
	for (i = 0; i < orig->nartifacts; i++) {
		const struct lr_artifact *x = &orig->artifacts[i], *y;
		struct lr_replay_check *c = &r->checks[n];

		if (strcmp(x->role, "output") && strcmp(x->role, "log"))
			continue;
		y = lr_run_artifact(b, x->role, x->name);
		snprintf(c->item, sizeof c->item, "%s %s", x->role, x->name);
		c->original = x->present ? x->sha256 : NULL;
		c->replay = y && y->present ? y->sha256 : NULL;
		c->matches = x->present && y && y->present && !strcmp(x->sha256, y->sha256);
		if (!c->matches)
			r->same = 0;
		n++;
	}
	r->nchecks = n;
	/* what the command printed is a log, not its result: said, never part of the verdict */
	for (i = 0; i < 2; i++) {
		const char *role = i ? "stderr" : "stdout";
		const struct lr_artifact *x = lr_run_artifact(orig, role, role), *y = lr_run_artifact(b, role, role);

		if (x && y && x->present && y->present && strcmp(x->sha256, y->sha256))
			snprintf(r->logs_changed + strlen(r->logs_changed),
				 sizeof r->logs_changed - strlen(r->logs_changed), "%s%s",
				 r->logs_changed[0] ? " and " : "", role);
	}
	return 0;
}

static int replay_record(struct lr_store *st, const struct lr_run *orig, const struct lr_replay_opts *o,
			 struct lr_replay *r)
{
	struct lr_record_opts ro = { 0 };
	struct lr_record_result res;
	struct lr_run run;
	char **argv = lr_argv_from_json(orig->argv_json), **env = replay_env(orig, o->envp);
	int rc;

	lr_run_init(&run);
	if (!argv || !env) {
		rc = lr_error_set(LR_EINVAL, "cannot replay run %lld: its command line could not be read back",
				  (long long)orig->id);
		goto out;
	}
	if (chdir(orig->cwd) != 0) {
		rc = lr_error_set(LR_EINVAL, "cannot replay run %lld in '%s': %s", (long long)orig->id, orig->cwd,
				  strerror(errno));
		lr_error_hint("the recorded working directory must exist again");
		goto out;
	}
	ro.argv = argv;
	ro.envp = env;
	ro.experiment = orig->experiment;
	ro.facts.note = orig->note;
	ro.tee_out = o->tee_out;
	ro.tee_err = o->tee_err;
	ro.kill_after_s = 10;
	run.replay_of = orig->id;
	if ((rc = record_opts(&ro, orig, o->facts)) || (rc = lr_record(st, &ro, &run, &res)) ||
	    (rc = lr_store_run_load(st, run.id, &r->run)) || (rc = lr_compare_runs(st, orig, &r->run, &r->cmp)) ||
	    (rc = record_checks(orig, r)))
		goto out;
	rc = lr_store_replay_checks(st, run.id, r->checks, r->nchecks);
out:
	lr_record_opts_release(&ro);
	lr_argv_free(argv);
	lr_argv_free(env);
	lr_run_release(&run);
	return rc;
}

int lr_replay(struct lr_store *st, const struct lr_run *orig, const struct lr_replay_opts *o, struct lr_replay *r)
{
	memset(r, 0, sizeof *r);
	lr_run_init(&r->run);
	switch (orig->kind) {
	case LR_KIND_EXPERIMENT: return replay_experiment(st, orig, o, r);
	case LR_KIND_RECORD: return replay_record(st, orig, o, r);
	default:
		lr_error_set(LR_EINVAL, "cannot replay run %lld: runs of kind '%s' are not replayable yet",
			     (long long)orig->id, lr_run_kind_name(orig->kind));
		lr_error_hint("replay experiment runs (labrun run) and recorded commands (labrun record)");
		return LR_EINVAL;
	}
}

void lr_replay_release(struct lr_replay *r)
{
	lr_run_release(&r->run);
	free(r->exp.cond);
	lr_comparison_release(&r->cmp);
	free(r->checks);
	memset(r, 0, sizeof *r);
}

int lr_replay_execs(struct lr_store *st, const struct lr_run *orig, lr_replay_exec_fn fn, void *arg)
{
	struct lr_replay_exec e = { 0 };
	char *path = NULL, *text = NULL;
	struct lr_expdef d;
	int rc, i;

	if (orig->kind != LR_KIND_EXPERIMENT) {
		e.argv_json = orig->argv_json;
		e.cwd = orig->cwd;
		e.env = &orig->env;
		return fn(arg, &e);
	}
	memset(&d, 0, sizeof d);
	if (!(rc = lr_store_definition(st, orig->id, &path, &text)) && !(rc = lr_expdef_load(&d, path, text)))
		for (i = 0; !rc && d.target == LR_TARGET_COMMAND && i < d.narms; i++) {
			e.arm = d.arms[i].name;
			e.command = d.arms[i].command;
			e.cwd = d.arms[i].cwd;
			e.env = &d.arms[i].env;
			rc = fn(arg, &e);
		}
	lr_expdef_release(&d);
	free(path);
	free(text);
	return rc;
}

int lr_env_changes_start(const char *name)
{
	/* the dynamic loader's, shells' start-up files and options, interpreters' start-up hooks */
	static const char *const prefixes[] = { "LD_", "BASH_FUNC_", "GCONV_", "MALLOC_" };
	/* clang-format off */
	static const char *const names[] = {
		"PATH", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "IFS", "GLIBC_TUNABLES",
		"LOCPATH", "NLSPATH", "HOSTALIASES", "RESOLV_HOST_CONF", "TMPDIR", "PYTHONSTARTUP", "PYTHONPATH",
		"PYTHONHOME", "PYTHONINSPECT", "PYTHONUSERBASE", "PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB",
		"RUBYOPT", "RUBYLIB", "NODE_OPTIONS", "NODE_PATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
		"JDK_JAVA_OPTIONS", "CLASSPATH", "LUA_INIT", "LUA_PATH", "LUA_CPATH", "GIT_EXEC_PATH", "GIT_CONFIG",
		"GIT_CONFIG_GLOBAL", "GIT_SSH", "GIT_SSH_COMMAND", "EDITOR", "VISUAL", "PAGER", "LESSOPEN",
	};
	/* clang-format on */
	size_t i;

	for (i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return 1;
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

char **lr_argv_from_json(const char *json)
{
	json_t *a = json_loads(json, 0, NULL);
	char **argv = NULL;
	size_t i, n;

	if (!a || !json_is_array(a) || !(n = json_array_size(a)))
		goto out;
	argv = calloc(n + 1, sizeof *argv);
	for (i = 0; argv && i < n; i++) {
		argv[i] = lr_json_bytes_value(json_array_get(a, i)); /* the exact bytes, escaped or not */
		if (!argv[i]) {
			lr_argv_free(argv);
			argv = NULL;
		}
	}
out:
	json_decref(a);
	return argv;
}

void lr_argv_free(char **argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}
