#include "config.h"
#include "base/system.h"

#include <ctype.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>

#include <jansson.h>
#include <uuid/uuid.h>

#include "base/child.h"
#include "base/error.h"
#include "record/gitsrc.h"
#include "record/hostinfo.h"
#include "record/capture.h"
#include "record/checks.h"
#include "record/record.h"
#include "record/artifacts.h"
#include "record/redact.h"
#include "record/session.h"
#include "record/spool.h"
#include "store/objects.h"
#include "base/jsonbytes.h"

void lr_record_opts_release(struct lr_record_opts *o)
{
	lr_strlist_release(&o->issues);
	lr_run_facts_release(&o->facts);
	lr_strlist_release(&o->outputs);
	lr_strlist_release(&o->inputs);
	lr_strlist_release(&o->references);
	lr_strlist_release(&o->logs);
}

/* ---- validating user facts ----------------------------------------------- */

/* Geometry fields that must be positive integers. */
/* clang-format off */
static const char *const numeric_geometry[] = {
	"layers", "kv_heads", "heads", "head_dim", "tokens", "batch", "tp", "width",
	"block_size", "blocks", "window", "hidden", "max_positions",
};
/* clang-format on */

int lr_fact_parse(struct lr_kvlist *l, const char *opt, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char key[128];
	size_t n, i;

	n = eq ? (size_t)(eq - arg) : 0;
	if (!eq || n == 0 || n >= sizeof key || !eq[1]) {
		lr_error_set(LR_EINVAL, "invalid %s '%s': expected KEY=VALUE with both parts non-empty", opt, arg);
		lr_error_hint("e.g. %s model=qwen3-4b", opt);
		return LR_EINVAL;
	}
	memcpy(key, arg, n);
	key[n] = '\0';
	if (strspn(key, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") != n) {
		lr_error_set(LR_EINVAL, "invalid %s key '%s': use letters, digits, '_', '.' and '-'", opt, key);
		lr_error_hint("e.g. %s kv_heads=8", opt);
		return LR_EINVAL;
	}
	if (lr_kvlist_find(l, key)) {
		lr_error_set(LR_EINVAL, "invalid %s '%s': key '%s' is given twice", opt, arg, key);
		lr_error_hint("give each key once");
		return LR_EINVAL;
	}
	if (!strcmp(opt, "--geometry")) {
		for (i = 0; i < sizeof numeric_geometry / sizeof numeric_geometry[0]; i++) {
			char *end;
			long long v;

			if (strcmp(key, numeric_geometry[i]))
				continue;
			errno = 0;
			v = strtoll(eq + 1, &end, 10);
			if (errno || *end || v <= 0 || !isdigit((unsigned char)eq[1])) {
				lr_error_set(LR_EINVAL, "invalid --geometry '%s': '%s' must be a positive integer", arg,
					     key);
				lr_error_hint("e.g. --geometry %s=8", key);
				return LR_EINVAL;
			}
		}
	}
	return lr_kvlist_add(l, key, eq + 1, NULL);
}

/* ---- preparing the run ----------------------------------------------------- */

static char *argv_json(char *const *argv, const struct lr_scrub *scrub)
{
	json_t *a = json_array();
	char *s, *out = NULL;
	size_t i;

	if (!a)
		return NULL;
	for (i = 0; argv[i]; i++) {
		s = lr_scrub_string(scrub, argv[i]);
		/* an argument that is not UTF-8 is kept, escaped reversibly (base/jsonbytes.h) */
		if (!s || json_array_append_new(a, lr_json_bytes(s)) != 0) {
			free(s);
			goto out;
		}
		free(s);
	}
	out = json_dumps(a, JSON_COMPACT | JSON_ENSURE_ASCII);
out:
	json_decref(a);
	return out;
}

static int check_exists(const struct lr_strlist *l, const char *opt)
{
	struct stat st;
	size_t i;

	for (i = 0; i < l->n; i++)
		if (stat(l->v[i], &st) != 0) {
			lr_error_set(LR_EINVAL, "cannot record %s '%s': %s", opt, l->v[i], strerror(errno));
			lr_error_hint("%s files are hashed before the command starts, so they must exist", opt);
			return LR_EINVAL;
		}
	return 0;
}

int lr_run_capture(struct lr_store *st, struct lr_run *run, enum lr_run_kind kind, char *const *argv, char *const *envp,
		   const char *experiment, const char *note, const struct lr_strlist *issues)
{
	char cwd[PATH_MAX], norm[256];
	struct lr_scrub scrub;
	uuid_t u;
	size_t i;
	int rc;

	if (!getcwd(cwd, sizeof cwd))
		return lr_error_set(LR_EIO, "cannot read the working directory: %s", strerror(errno));
	if ((rc = lr_scrub_init(&scrub, envp)))
		return rc;
	uuid_generate_random(u);
	uuid_unparse_lower(u, run->uuid);
	run->kind = kind;
	run->cwd = strdup(cwd);
	run->labrun_version = strdup(PACKAGE_VERSION);
	run->experiment = lr_strdup0(experiment);
	run->note = note ? lr_scrub_string(&scrub, note) : NULL;
	run->argv_json = argv_json(argv, &scrub);
	lr_scrub_release(&scrub);
	if (!run->cwd || !run->labrun_version || !run->argv_json || (experiment && !run->experiment) ||
	    (note && !run->note))
		return lr_error_set(LR_ENOMEM, "out of memory");
	for (i = 0; issues && i < issues->n; i++) {
		if ((rc = lr_issue_normalize(issues->v[i], norm, sizeof norm)))
			return rc;
		if (!lr_strlist_contains(&run->issues, norm) && (rc = lr_strlist_add(&run->issues, norm)))
			return rc;
	}
	if ((rc = lr_env_secrets(&run->secrets, envp)) || (rc = lr_host_probe(&run->host)))
		return rc;
	if ((rc = lr_git_capture(run, st, cwd, lr_store_dir(st))))
		return rc;
	if ((rc = lr_env_capture(&run->env, envp)) || (st && (rc = lr_recorder_identity(st, run))))
		return rc;
	return lr_binding_probe(&run->binding, envp, "/sys");
}

/* Everything known before the command runs; nothing is stored on failure but objects. */
static int prepare_run(struct lr_store *st, const struct lr_record_opts *o, struct lr_run *run, struct lr_scrub *scrub)
{
	size_t i;
	int rc, missing = 0;

	if ((rc = check_exists(&o->inputs, "--input")) || (rc = check_exists(&o->references, "--reference")))
		return rc;
	if ((rc = lr_run_capture(st, run, LR_KIND_RECORD, o->argv, o->envp, o->experiment, o->facts.note,
				 &o->issues)) ||
	    (rc = lr_run_facts_apply(run, &o->facts, o->envp)))
		return rc;
	for (i = 0; i < o->inputs.n; i++)
		if ((rc = lr_artifact_put(run, lr_store_dir(st), "input", o->inputs.v[i], scrub, o->follow_links,
					  &missing)))
			return rc;
	for (i = 0; i < o->references.n; i++)
		if ((rc = lr_artifact_put(run, lr_store_dir(st), "reference", o->references.v[i], scrub,
					  o->follow_links, &missing)))
			return rc;
	return 0;
}

/* ---- running the command --------------------------------------------------- */

struct stream {
	int tee_fd;            /* our stdout/stderr, -1 when not teeing or broken */
	struct lr_capture cap; /* into the spool writer, scrubbed, capped by --max-output */
};

/* What the command wrote on stream fd (1, 2): tee it, scrub it, spool it. */
static int on_output(void *arg, int fd, const void *data, size_t len)
{
	struct stream *s = (struct stream *)arg + (fd - 1);
	const unsigned char *p = data;
	size_t left = len;
	ssize_t k;
	int rc;

	while (s->tee_fd >= 0 && left > 0) {
		k = write(s->tee_fd, p, left);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			s->tee_fd = -1; /* our reader went away: keep recording */
			break;
		}
		p += k;
		left -= (size_t)k;
	}
	if ((rc = lr_capture_write(&s->cap, data, len)))
		return rc;
	/* Reach the kernel now so a killed recorder still leaves the log so far. */
	return lr_objw_flush(s->cap.w);
}

static int on_eof(void *arg, int fd)
{
	struct stream *s = (struct stream *)arg + (fd - 1);

	return lr_capture_end(&s->cap);
}

/* Discard what arrived of 'set' while it was blocked (the command's SIGCHLD, a late Ctrl-C). */
static void drop_pending(const sigset_t *set)
{
	struct timespec zero = { 0, 0 };

	while (sigtimedwait(set, NULL, &zero) > 0)
		;
}

/*
 * Run the command to its end with environment 'envp', streaming its output
 * into s[0] and s[1]. The signals of lr_child_signals() must be blocked by
 * the caller ('old' is the mask to give the command). Returns 0 or an error.
 */
static int run_command(const struct lr_record_opts *o, char *const *envp, struct stream *s, struct lr_child *c,
		       const sigset_t *old)
{
	const struct lr_child_opts co = {
		.argv = o->argv,
		.envp = envp,
		.fd = { LR_CHILD_INHERIT, LR_CHILD_PIPE, LR_CHILD_PIPE },
		.on_output = on_output,
		.on_eof = on_eof,
		.arg = s,
		.timeout_s = o->timeout_s,
		.kill_after_s = o->kill_after_s,
		.forward_signals = 1,
		.child_mask = old,
		.leftovers = 1,
	};

	return lr_child_run(&co, c);
}

/* ---- finishing ------------------------------------------------------------- */

/* What the command left running in its group, into run, scrubbed like every text of it. */
static int keep_leftovers(struct lr_run *run, const struct lr_child *c, const struct lr_scrub *scrub)
{
	int rc = 0;

	for (size_t i = 0; i < c->left.n && !rc; i++) {
		char *argv = lr_scrub_string(scrub, c->left.v[i].argv);

		rc = argv ? lr_leftovers_add(&run->left, -1, -1, c->left.v[i].pid, argv)
			  : lr_error_set(LR_ENOMEM, "out of memory");
		free(argv);
	}
	return rc;
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/*
 * Decide status, failure text and labrun's exit status from how it ended:
 * a declared artifact missing or refused, or a checks file refused ('bad'),
 * fails a run whose command passed, and labrun exits 125 for it.
 */
static void judge(struct lr_run *run, const struct lr_child *c, const struct lr_record_opts *o, const char *missing,
		  const char *refused, const char *bad, struct lr_record_result *res)
{
	res->exit_status = lr_child_exit_status(c);
	res->exec_failed = c->exec_errno != 0;
	run->timed_out = c->timed_out;
	run->has_exit = c->has_exit || c->exec_errno;
	run->exit_code = c->exec_errno ? res->exit_status : c->exit_code;
	run->signal = c->signal;
	run->failure = lr_child_failure(c, o->argv[0], o->timeout_s);
	run->status = c->cancelled && !c->exec_errno ? LR_CANCELLED : run->failure ? LR_FAILED : LR_PASSED;
	res->artifacts_failed = missing || refused;
	res->checks_failed = bad != NULL;
	if (run->status == LR_PASSED && (missing || refused || bad)) {
		run->status = LR_FAILED;
		res->exit_status = LR_EXIT_LABRUN;
	}
	if (missing || refused || bad) {
		char *f = fmt("%s%s%s%s%s%s%s", run->failure ? run->failure : "", run->failure ? "; " : "",
			      missing ? missing : "", missing && (refused || bad) ? "; " : "", refused ? refused : "",
			      refused && bad ? "; " : "", bad ? bad : "");

		free(run->failure);
		run->failure = f;
	}
}

/* Store declared outputs and logs after the run; describe what is missing or refused. */
static int collect_outputs(struct lr_run *run, const char *dir, const struct lr_record_opts *o, struct lr_scrub *scrub,
			   char **missing, char **refused)
{
	size_t i, k;
	int rc = 0, miss = 0;

	for (k = 0; k < 2 && !rc; k++) {
		const struct lr_strlist *l = k ? &o->logs : &o->outputs;

		for (i = 0; i < l->n; i++) {
			miss = 0;
			rc = lr_artifact_put(run, dir, k ? "log" : "output", l->v[i], scrub, o->follow_links, &miss);
			if (rc == LR_EREFUSED) {
				char *r = fmt("%s%s%s", *refused ? *refused : "", *refused ? "; " : "", lr_error_msg());

				free(*refused);
				*refused = r;
				rc = lr_run_add_artifact(run, k ? "log" : "output", l->v[i], NULL, 0);
			} else if (!rc && miss) {
				char *m = fmt("%s%sdeclared artifact '%s' is missing", *missing ? *missing : "",
					      *missing ? "; " : "", l->v[i]);

				free(*missing);
				*missing = m;
			}
			if (rc)
				break;
		}
	}
	return rc;
}

/* The spool files the command's stdout and stderr stream into while it runs; teeing as asked. */
static int open_spool(const char *dir, const struct lr_record_opts *o, const struct lr_run *run, struct stream *s)
{
	char *path;
	int i, rc = 0, tee;

	for (i = 0; i < 2 && !rc; i++) {
		if (!(path = lr_spool_path(dir, run->uuid, i ? "stderr" : "stdout")))
			return lr_error_set(LR_ENOMEM, "out of memory");
		if (!(rc = lr_objw_open(&s[i].cap.w, dir, path)))
			lr_objw_keep_tmp(s[i].cap.w);
		free(path);
		tee = i ? o->tee_err : o->tee_out;
		s[i].tee_fd = tee > 0 ? tee : -1;
	}
	return rc;
}

/* The command's times and its two logs, committed as objects, into the run. */
static int keep_logs(struct lr_run *run, const struct lr_child *c, struct stream *s)
{
	int i, rc = 0;

	run->wall_s = c->wall_s;
	run->user_s = c->ru.ru_utime.tv_sec + c->ru.ru_utime.tv_usec / 1e6;
	run->sys_s = c->ru.ru_stime.tv_sec + c->ru.ru_stime.tv_usec / 1e6;
	run->peak_rss_kib = c->ru.ru_maxrss;
	for (i = 0; i < 2 && !rc; i++) {
		char sha[LR_SHA256_HEX];
		int64_t size = 0;

		rc = lr_objw_commit(s[i].cap.w, sha, &size);
		s[i].cap.w = NULL;
		run->dropped[i] = s[i].cap.dropped;
		if (!rc)
			rc = lr_run_add_artifact(run, i ? "stderr" : "stdout", i ? "stderr" : "stdout", sha, size);
	}
	return rc;
}

/*
 * The run's $LABRUN_CHECKS: its file in the spool, and the command's
 * environment naming it. The command makes the file: it never exists
 * without the run's row, so a recorder killed before the row leaves none.
 */
struct checks_file {
	char *path, *var;
	char **envp;
};

static int checks_open(const char *dir, const struct lr_run *run, char *const *envp, struct checks_file *cf)
{
	if (!(cf->path = lr_spool_path(dir, run->uuid, "checks")))
		return lr_error_set(LR_ENOMEM, "out of memory");
	return lr_checks_env(envp, cf->path, &cf->envp, &cf->var);
}

static void checks_close(struct checks_file *cf)
{
	free(cf->path);
	free(cf->var);
	free(cf->envp);
}

/* The error of a run that could not be made final: the cause's own advice (free space, raise a limit), then what became of it. */
static void not_finalised(int64_t id)
{
	const char *cause = lr_error_hint_msg();
	char hint[512];

	lr_fmt_cut(hint, sizeof hint,
		   "%s%sits logs so far are kept in the spool; the next labrun command marks it "
		   "abandoned",
		   cause && *cause ? cause : "", cause && *cause ? "; " : "");
	lr_error_wrap("cannot finalise run %lld", (long long)id);
	lr_error_hint("%s", hint);
}

int lr_record(struct lr_store *st, const struct lr_record_opts *o, struct lr_run *run, struct lr_record_result *res)
{
	const char *dir = lr_store_dir(st);
	struct stream s[2] = { { .tee_fd = -1 }, { .tee_fd = -1 } };
	struct lr_session ss = { 0 };
	struct checks_file cf = { 0 };
	struct lr_child c;
	struct lr_scrub scrub;
	char *missing = NULL, *refused = NULL, *bad = NULL;
	sigset_t handled, old;
	size_t nbefore, i;
	int rc;

	memset(res, 0, sizeof *res);
	res->exit_status = LR_EXIT_LABRUN;
	memset(&c, 0, sizeof c);
	if ((rc = lr_scrub_init(&scrub, o->envp)))
		return rc;
	if ((rc = lr_capture_init(&s[0].cap, o->envp, o->max_output)) ||
	    (rc = lr_capture_init(&s[1].cap, o->envp, o->max_output)))
		goto out;
	run->output_cap = o->max_output;
	if ((rc = prepare_run(st, o, run, &scrub)))
		goto out;

	if ((rc = lr_session_lock(&ss, st, run)) || (rc = open_spool(dir, o, run, s)) ||
	    (rc = checks_open(dir, run, o->envp, &cf)))
		goto out;
	nbefore = run->nartifacts;
	/*
	 * Signals stay blocked from before the run row exists until it is final:
	 * while the command runs they are read from a signalfd and forwarded, and
	 * one arriving while artifacts are hashed must not turn a complete run
	 * into an abandoned one.
	 */
	lr_child_signals(&handled);
	sigprocmask(SIG_BLOCK, &handled, &old);
	if ((rc = lr_session_begin(&ss)))
		goto unblock;

	/* From here on the run exists: whatever happens, it is finalised or abandoned. */
	if ((rc = run_command(o, cf.envp, s, &c, &old)) || (rc = keep_logs(run, &c, s)) ||
	    (rc = keep_leftovers(run, &c, &scrub)))
		goto unblock;
	/* An artifact that cannot be collected (a directory cycle, a full disk) fails the run with
	 * the reason; the run is still finalised with its status, times and logs, never abandoned. */
	if ((rc = collect_outputs(run, dir, o, &scrub, &missing, &refused))) {
		char *why = fmt("%s%slabrun could not collect the declared artifacts: %s", refused ? refused : "",
				refused ? "; " : "", lr_error_msg());

		if (!why)
			goto unblock;
		free(refused);
		refused = why;
		lr_error_clear();
		rc = 0;
	}
	if ((rc = lr_checks_read(cf.path, run, &bad)))
		goto unblock;
	judge(run, &c, o, missing, refused, bad, res);
	rc = lr_session_end(&ss, nbefore);
unblock:
	drop_pending(&handled);
	sigprocmask(SIG_SETMASK, &old, NULL);
out:
	if (rc && run->id)
		not_finalised(run->id);
	lr_session_release(&ss); /* after a row exists, the spool stays for recovery */
	for (i = 0; i < 2; i++) {
		lr_objw_abort(s[i].cap.w); /* spool files stay for recovery or go with the lock */
		lr_capture_release(&s[i].cap);
	}
	free(missing);
	free(refused);
	free(bad);
	lr_child_release(&c);
	checks_close(&cf);
	lr_scrub_release(&scrub);
	return rc;
}
