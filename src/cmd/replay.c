#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "base/error.h"
#include "experiment/expdef.h"
#include "record/record.h"
#include "experiment/replay.h"
#include "experiment/runner.h"

extern char **environ;

static const char usage[] =
	"usage: labrun replay [--quiet] [--fault-flip-bit ARM[@CONDITION]] RUN\n"
	"\n"
	"Re-execute RUN from what the store holds and compare. An experiment run is run\n"
	"again from its stored definition text (not today's file), with the same seed and\n"
	"pinned CPU; each condition's outputs are compared with the original's. A recorded\n"
	"command is run again in its recorded working directory with its recorded\n"
	"(non-secret) environment; its exit code and declared artifacts are compared by\n"
	"sha256. The replay is recorded as a new run with replay_of set, and prints what\n"
	"drifted between the two runs. Exit 0 when the outputs match, 1 when not.\n"
	"\n"
	"  -q, --quiet                 no progress on the terminal\n"
	"  --fault-flip-bit ARM[@C]    test fault (experiments): flip one output bit of arm\n"
	"                              ARM in condition C of the replay\n";

static int replay_experiment(struct lr_store *st, const struct lr_run *orig, char **argv,
			     const struct lr_runopts *ro, int *same)
{
	char *path = NULL, *text = NULL, label[1200];
	struct lr_run_result res;
	struct lr_run run, loaded;
	struct lr_expdef d;
	const struct lr_kv *cpu;
	int rc;

	memset(&res, 0, sizeof res);
	memset(&d, 0, sizeof d);
	lr_run_init(&run);
	lr_run_init(&loaded);
	if ((rc = lr_store_definition(st, orig->id, &path, &text)))
		goto out;
	snprintf(label, sizeof label, "%s (as stored with run %lld)", path, (long long)orig->id);
	if ((rc = lr_expdef_load(&d, label, text)))
		goto out;
	/* the same binding: the CPU the original was pinned to */
	cpu = lr_kvlist_find(&orig->binding, "pinned_cpu");
	if (cpu)
		d.cpu = atoi(cpu->value);
	if ((rc = cmd_experiment_execute(st, &d, argv, orig->id, ro, &run, &res)))
		goto out;
	printf("replay of run %lld recorded as run %lld (%s); its own parity: %d of %d condition(s) failed or missing\n",
	       (long long)orig->id, (long long)run.id, lr_status_name(run.status), res.failed, res.nconditions);
	if ((rc = lr_store_run_load(st, run.id, &loaded)))
		goto out;
	rc = cmd_print_comparison(st, orig, &loaded, same, run.id);
	if (run.status != LR_PASSED)
		*same = 0;
out:
	free(res.cond);
	free(path);
	free(text);
	lr_expdef_release(&d);
	lr_run_release(&run);
	lr_run_release(&loaded);
	return rc;
}

/* The environment to replay with: ours, with every recorded non-secret variable set as it was. */
static char **replay_env(const struct lr_run *orig)
{
	size_t n = 0, i, k;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + orig->env.n + 1, sizeof *env);
	if (!env)
		return NULL;
	for (i = 0, k = 0; i < n; i++) {
		size_t len = strcspn(environ[i], "=");
		size_t j;
		int overridden = 0;

		for (j = 0; j < orig->env.n; j++)
			if (!orig->env.v[j].tag && strlen(orig->env.v[j].key) == len &&
			    !strncmp(environ[i], orig->env.v[j].key, len))
				overridden = 1;
		if (!overridden)
			env[k++] = strdup(environ[i]);
	}
	for (i = 0; i < orig->env.n; i++)
		if (!orig->env.v[i].tag && asprintf(&env[k], "%s=%s", orig->env.v[i].key, orig->env.v[i].value) >= 0)
			k++;
	return env;
}

static const struct lr_artifact *find_artifact(const struct lr_run *r, const char *role, const char *name)
{
	size_t i;

	for (i = 0; i < r->nartifacts; i++)
		if (!strcmp(r->artifacts[i].role, role) && !strcmp(r->artifacts[i].name, name))
			return &r->artifacts[i];
	return NULL;
}

static int replay_record(struct lr_store *st, const struct lr_run *orig, int *same)
{
	struct lr_record_opts o;
	struct lr_record_result res;
	struct lr_run run, loaded;
	char **argv = lr_argv_from_json(orig->argv_json), **env = replay_env(orig), a[32], b[32];
	size_t i;
	int rc = 0, ok;

	memset(&o, 0, sizeof o);
	lr_run_init(&run);
	lr_run_init(&loaded);
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
	o.argv = argv;
	o.envp = env;
	o.experiment = orig->experiment;
	o.note = orig->note;
	o.tee_out = STDOUT_FILENO;
	o.tee_err = STDERR_FILENO;
	o.kill_after_s = 10;
	for (i = 0; i < orig->issues.n; i++)
		lr_strlist_add(&o.issues, orig->issues.v[i]);
	for (i = 0; i < orig->geometry.n; i++)
		lr_kvlist_add(&o.geometry, orig->geometry.v[i].key, orig->geometry.v[i].value, NULL);
	for (i = 0; i < orig->binding.n; i++)
		if (orig->binding.v[i].tag && !strcmp(orig->binding.v[i].tag, "user"))
			lr_kvlist_add(&o.binding, orig->binding.v[i].key, orig->binding.v[i].value, NULL);
	for (i = 0; i < orig->tools.n; i++)
		lr_kvlist_add(&o.tools, orig->tools.v[i].key, orig->tools.v[i].value, NULL);
	for (i = 0; i < orig->nartifacts; i++) {
		const struct lr_artifact *x = &orig->artifacts[i];

		if (!strcmp(x->role, "output"))
			lr_strlist_add(&o.outputs, x->name);
		else if (!strcmp(x->role, "log"))
			lr_strlist_add(&o.logs, x->name);
		else if (!strcmp(x->role, "input"))
			lr_strlist_add(&o.inputs, x->name);
		else if (!strcmp(x->role, "reference"))
			lr_strlist_add(&o.references, x->name);
	}
	run.replay_of = orig->id;
	if ((rc = lr_record(st, &o, &run, &res)))
		goto out;
	if ((rc = lr_store_run_load(st, run.id, &loaded)) || (rc = cmd_print_comparison(st, orig, &loaded, same, 0)))
		goto out;
	printf("checks against run %lld:\n", (long long)orig->id);
	snprintf(a, sizeof a, "%d", orig->has_exit ? orig->exit_code : -1);
	snprintf(b, sizeof b, "%d", loaded.has_exit ? loaded.exit_code : -1);
	ok = !strcmp(a, b);
	printf("  exit code %s -> %s: %s\n", a, b, ok ? "same" : "DIFFERENT");
	*same = ok;
	if ((rc = lr_store_replay_check(st, run.id, "exit code", a, b, ok)))
		goto out;
	for (i = 0; i < orig->nartifacts; i++) {
		const struct lr_artifact *x = &orig->artifacts[i], *y;
		char item[1100];

		if (strcmp(x->role, "output") && strcmp(x->role, "log"))
			continue;
		y = find_artifact(&loaded, x->role, x->name);
		ok = x->present && y && y->present && !strcmp(x->sha256, y->sha256);
		printf("  %s '%s' %.12s -> %.12s: %s\n", x->role, x->name, x->present ? x->sha256 : "missing",
		       y && y->present ? y->sha256 : "missing", ok ? "same" : "DIFFERENT");
		if (!ok)
			*same = 0;
		snprintf(item, sizeof item, "%s %s", x->role, x->name);
		if ((rc = lr_store_replay_check(st, run.id, item, x->present ? x->sha256 : NULL,
						y && y->present ? y->sha256 : NULL, ok)))
			goto out;
	}
out:
	lr_record_opts_release(&o);
	lr_argv_free(argv);
	lr_argv_free(env);
	lr_run_release(&run);
	lr_run_release(&loaded);
	return rc;
}

int cmd_replay(const struct lr_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "fault-flip-bit", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lr_runopts ro = { NULL, cmd_run_progress, NULL, -1, -1 };
	struct lr_store *st = NULL;
	struct lr_run orig;
	int64_t id = 0;
	int c, rc, same = 0, quiet = 0;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			quiet = 1;
			break;
		case 'f':
			if ((rc = cmd_parse_flip("replay", optarg, &ro)))
				return rc;
			break;
		case 'h':
			fputs(usage, stdout);
			return LR_EXIT_OK;
		default:
			return cmd_bad_option("replay", argv, c);
		}
	}
	if (optind + 1 != argc)
		return cmd_usage_error("replay", "'labrun replay' takes one RUN");
	if (quiet || !isatty(STDERR_FILENO))
		ro.progress = NULL;
	if ((rc = cmd_open_store(&st, g, 1)))
		return rc;
	lr_run_init(&orig);
	if (!(rc = lr_store_run_resolve(st, argv[optind], &id)) && !(rc = lr_store_run_load(st, id, &orig))) {
		if (!strcmp(orig.kind, "experiment"))
			rc = replay_experiment(st, &orig, g->argv, &ro, &same);
		else if (!strcmp(orig.kind, "record"))
			rc = replay_record(st, &orig, &same);
		else {
			rc = lr_error_set(LR_EINVAL, "cannot replay run %lld: runs of kind '%s' are not replayable yet",
					  (long long)id, orig.kind);
			lr_error_hint("replay experiment runs (labrun run) and recorded commands (labrun record)");
		}
	}
	if (!rc)
		printf("replay %s\n", same ? "PASSED: outputs identical" : "FAILED: outputs differ");
	lr_run_release(&orig);
	lr_store_free(st);
	if (rc)
		return cmd_fail(rc);
	return same ? LR_EXIT_OK : LR_EXIT_FAIL;
}
