#include "config.h"
#include "base/system.h"

#include <sched.h>

#include "base/error.h"
#include "experiment/runner.h"
#include "record/record.h"
#include "record/redact.h"
#include "record/session.h"
#include "serving/engine.h"
#include "store/collect.h"
#include "store/runs.h"

int lr_cpu_usable(int cpu)
{
	cpu_set_t set;

	return cpu >= 0 && cpu < CPU_SETSIZE && !sched_getaffinity(0, sizeof set, &set) && CPU_ISSET(cpu, &set);
}

/* The CPUs this process may run on, as "0-3,6" (for messages). */
static void cpu_allowed(char *buf, size_t n)
{
	cpu_set_t set;
	size_t len = 0;
	int c, first = -1;

	buf[0] = 0;
	if (sched_getaffinity(0, sizeof set, &set))
		return;
	for (c = 0; c <= CPU_SETSIZE && len < n; c++) {
		int in = c < CPU_SETSIZE && CPU_ISSET(c, &set);

		if (in && first < 0)
			first = c;
		if (!in && first >= 0) {
			len += (size_t)snprintf(buf + len, n - len, first == c - 1 ? "%s%d" : "%s%d-%d", len ? "," : "",
						first, c - 1);
			first = -1;
		}
	}
}

/* Each arm's binding.KEY as the run's binding 'arm:NAME:KEY', its device asked as the run's is. */
static int arm_bindings(struct lr_run *run, const struct lr_expdef *d, char *const *envp)
{
	char key[128], prefix[64];
	int rc = 0;

	for (int a = 0; a < d->narms && !rc; a++)
		for (size_t i = 0; i < d->arms[a].binding.n && !rc; i++) {
			const struct lr_kv *kv = &d->arms[a].binding.v[i];

			snprintf(prefix, sizeof prefix, "arm:%s:", d->arms[a].name);
			snprintf(key, sizeof key, "%s%s", prefix, kv->key);
			if (!(rc = lr_kvlist_set(&run->binding, key, kv->value, "user")) && !strcmp(kv->key, "device"))
				rc = lr_device_identity(&run->binding, prefix, kv->value, envp);
		}
	return rc;
}

/*
 * The backend a run states: the binding's (--binding or [record]), else the
 * definition's 'backend'; a command target that states none is 'unstated'
 * (a serving one's is replaced by the engine its passes identified), never a
 * silent 'sim'.
 */
static int backend(struct lr_run *run, const struct lr_expdef *d)
{
	const struct lr_kv *b = lr_kvlist_find(&run->binding, "backend");

	if (b)
		return 0;
	if (d->target != LR_TARGET_COMMAND || d->backend_declared)
		return lr_kvlist_set(&run->binding, "backend", d->backend, "user");
	return lr_kvlist_set(&run->binding, "backend", d->serving ? "unidentified" : "unstated", "auto");
}

/* Everything known before the run row is written; nothing is stored on failure. */
static int capture(struct lr_store *st, struct lr_expdef *d, char *const *argv, char *const *envp,
		   const struct lr_runopts *ro, struct lr_run *run)
{
	struct lr_run_facts facts = { 0 };
	char num[32];
	int rc, found;

	if ((rc = lr_expdef_record_facts(d, ro->facts, &facts)) ||
	    (rc = lr_run_capture(st, run, LR_KIND_EXPERIMENT, argv, envp, d->name, facts.note, &d->issues)) ||
	    (rc = lr_run_facts_apply(run, &facts, envp)) || (rc = arm_bindings(run, d, envp)))
		goto out;
	/* the definition is stored verbatim (its sha256 proves it), so one holding a secret is refused */
	if ((rc = lr_text_holds_secret(&run->secrets, d->text, &found)) ||
	    (!found && (rc = lr_text_holds_secret(&run->secrets, d->path, &found))))
		goto out;
	if (found) {
		rc = lr_error_set(LR_EREFUSED,
				  "refusing to store definition '%s': it holds the value of a secret variable",
				  d->path);
		lr_error_hint("take the value out of the definition; labrun records secret variables by name only");
		goto out;
	}
	if (d->cpu < 0)
		d->cpu = sched_getcpu();
	snprintf(num, sizeof num, "%d", d->cpu);
	if (!(rc = lr_kvlist_set(&run->binding, "pinned_cpu", num, "auto")) && !(rc = backend(run, d)))
		rc = lr_kvlist_set(&run->geometry, "target", lr_exp_target_name(d->target), NULL);
out:
	lr_run_facts_release(&facts);
	return rc;
}

/* The engines a serving run's passes reached, as they said (serving/engine.h): "llama.cpp", or each route's. */
struct engines {
	char engine[64], version[128], all[256];
	int mixed, identified;
};

static int engine_of(void *arg, const struct lr_identity_row *r)
{
	struct engines *e = arg;
	const struct lr_engine_said said = { r->server, r->models, r->version, r->props };
	char engine[64], version[128];

	e->identified += lr_engine_identify(&said, engine, sizeof engine, version, sizeof version);
	if (!e->engine[0]) {
		snprintf(e->engine, sizeof e->engine, "%s", engine);
		snprintf(e->version, sizeof e->version, "%s", version);
	} else if (strcmp(e->engine, engine) || strcmp(e->version, version)) {
		e->mixed = 1;
	}
	if (!strstr(e->all, engine))
		snprintf(e->all + strlen(e->all), sizeof e->all - strlen(e->all), "%s%s", e->all[0] ? ", " : "",
			 engine);
	return 0;
}

/* A serving run's backend is the engine its passes reached, never what the definition assumed. */
static int engines(struct lr_store *st, struct lr_run *run)
{
	struct engines e = { 0 };
	int rc;

	if ((rc = lr_store_collect_identities(st, run->id, engine_of, &e)) || !e.engine[0])
		return rc;
	if ((rc = lr_store_binding_set(st, run->id, "backend", e.mixed ? e.all : e.engine, "auto")) ||
	    (rc = lr_kvlist_set(&run->binding, "backend", e.mixed ? e.all : e.engine, "auto")) || e.mixed ||
	    !e.version[0])
		return rc;
	if ((rc = lr_store_binding_set(st, run->id, "backend_version", e.version, "auto")))
		return rc;
	return lr_kvlist_set(&run->binding, "backend_version", e.version, "auto");
}

int lr_experiment_execute(struct lr_store *st, struct lr_expdef *d, char *const *argv, char *const *envp,
			  int64_t replay_of, const struct lr_runopts *ro, struct lr_run *run, struct lr_run_result *res)
{
	struct lr_session ss = { 0 };
	char failure[128];
	int rc;

	if (d->cpu >= 0 && !lr_cpu_usable(d->cpu)) {
		char allowed[128];

		cpu_allowed(allowed, sizeof allowed);
		rc = lr_error_set(LR_EINVAL,
				  "%s: cpu = %d in [design]: this process may not run on CPU %d (it may use %s)",
				  d->path, d->cpu, d->cpu, allowed[0] ? allowed : "none it can list");
		lr_error_hint("set 'cpu' to one of those, or remove it to pin to the CPU the runner starts on");
		return rc;
	}
	if ((rc = capture(st, d, argv, envp, ro, run)))
		return rc;
	run->replay_of = replay_of;
	if ((rc = lr_session_start(&ss, st, run)))
		goto out;
	/* On an error the run stays 'running' and is marked abandoned with what was stored. */
	if ((rc = lr_experiment_run(st, run->id, d, ro, res)) || (d->serving && (rc = engines(st, run))))
		goto out;
	run->status = res->cancelled ? LR_CANCELLED : res->failed ? LR_FAILED : LR_PASSED;
	if (run->status != LR_PASSED) {
		snprintf(failure, sizeof failure, "%d of %d condition(s) failed or missing%s", res->failed,
			 res->nconditions, res->cancelled ? "; cancelled" : "");
		run->failure = strdup(failure);
	}
	rc = lr_session_end(&ss, 0);
out:
	lr_session_release(&ss);
	return rc;
}
