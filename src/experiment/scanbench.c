/* 'labrun bench scan': scan and manifest of one long line beside cat and grep of it (scanbench.h). */
#include "config.h"
#include "base/system.h"

#include "base/buf.h"
#include "base/child.h"
#include "base/error.h"
#include "base/walk.h"
#include "experiment/scanbench.h"
#include "experiment/spawn.h"

static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/* n bytes of the line: lower-case letters and digits (alnum's last 36), the same for the same length. */
static void filler(char *p, size_t n, uint64_t *s)
{
	for (size_t i = 0; i < n; i++)
		p[i] = alnum[26 + lr_bench_splitmix(s) % 36];
}

/*
 * The line without the token into 'clean' (o->bytes bytes), and with it into
 * 'dirty' (the same first bytes, then the token); each ends in a newline. The
 * token is made up here, from the time and the process id.
 */
static int write_lines(const struct lr_scanbench_opts *o, const char *clean, const char *dirty, struct lr_bench *b)
{
	FILE *f = fopen(clean, "w"), *g = fopen(dirty, "w");
	uint64_t s = 205, t = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
	char chunk[65536], token[LR_SCANBENCH_TOKEN + 1] = "ghp_";
	int64_t left = o->bytes - LR_SCANBENCH_TOKEN;
	int rc = 0;

	for (int i = 4; i < LR_SCANBENCH_TOKEN; i++)
		token[i] = alnum[lr_bench_splitmix(&t) % 62];
	token[LR_SCANBENCH_TOKEN] = '\0';
	for (int64_t n; f && g && left > 0; left -= n) {
		n = left < (int64_t)sizeof chunk ? left : (int64_t)sizeof chunk;
		filler(chunk, (size_t)n, &s);
		fwrite(chunk, 1, (size_t)n, f);
		fwrite(chunk, 1, (size_t)n, g);
	}
	if (f && g) {
		filler(chunk, LR_SCANBENCH_TOKEN, &s);
		fprintf(f, "%.*s\n", LR_SCANBENCH_TOKEN, chunk);
		fprintf(g, "%s\n", token);
	}
	if (!f || ferror(f) | fclose(f))
		rc = lr_error_set(LR_EIO, "cannot write '%s': %s", clean, strerror(errno));
	if (!g || ferror(g) | fclose(g))
		rc = rc ? rc : lr_error_set(LR_EIO, "cannot write '%s': %s", dirty, strerror(errno));
	return rc ? rc : lr_bench_add(b, "line", "file", 0, (double)o->bytes, "B");
}

static int keep(void *arg, int fd, const void *data, size_t len)
{
	(void)fd;
	lr_buf_add(arg, data, len);
	return lr_buf_error(arg);
}

/* How a command must end: its exit status, and a text its stdout or stderr holds (may be NULL). */
struct expect {
	const char *what; /* as the reader knows it */
	int exit_code;
	const char *needle;
	int quiet; /* its stdout to /dev/null */
};

/*
 * argv run in 'dir', its stdout (unless quiet) and stderr kept, its wall time
 * into *wall; LR_EIO, naming it and saying what it did instead, unless it
 * ended as 'e' says.
 */
static int run_expect(const struct lr_scanbench_opts *o, const char *dir, char *const *argv, const struct expect *e,
		      double *wall)
{
	struct lr_buf got = LR_BUF_INIT;
	struct lr_child_opts co = { .argv = argv,
				    .envp = o->envp,
				    .cwd = dir,
				    .fd = { LR_CHILD_NULL, e->quiet ? LR_CHILD_NULL : LR_CHILD_PIPE, LR_CHILD_PIPE },
				    .on_output = keep,
				    .arg = &got };
	struct lr_child c;
	int rc = lr_child_run(&co, &c);

	if (!rc && (c.exec_errno || !c.has_exit || c.exit_code != e->exit_code ||
		    (e->needle && !strstr(got.buf, e->needle)))) {
		char *why = lr_child_failure(&c, argv[0], 0);

		rc = lr_error_set(LR_EIO, "%s: %s; expected exit %d%s%s%s", e->what,
				  why           ? why
				  : c.exit_code ? "failed"
						: "exited 0",
				  e->exit_code, e->needle ? " and '" : "", e->needle ? e->needle : "",
				  e->needle ? "' in its output" : "");
		lr_error_hint("run it by hand in a directory of your own: %s ...", argv[0]);
		free(why);
	}
	lr_buf_release(&got);
	*wall = rc ? 0 : c.wall_s;
	return rc;
}

int lr_scanbench_peer(struct lr_scanbench_opts *o)
{
	char *argv[] = { "grep", "--version", NULL }, *out = NULL;
	struct lr_child c;
	int rc;

	if ((rc = lr_bench_run_ok("'grep', the peer,", argv, o->envp, ".", &out, &c)) == LR_EIO) {
		char msg[4400];

		snprintf(msg, sizeof msg, "%s", lr_error_msg());
		lr_error_set(LR_EINVAL, "%s", msg); /* the machine's setting: a usage error */
		lr_error_hint("install GNU grep, or put it first in PATH");
		return LR_EINVAL;
	}
	if (rc)
		return rc;
	snprintf(o->grep, sizeof o->grep, "%.*s", (int)strcspn(out, "\n"), out);
	free(out);
	return 0;
}

/* The peers over the line: cat to /dev/null, and grep's count of the token's regex. */
static int peers(const struct lr_bench_pass *p, int rep, struct lr_bench *b)
{
	const struct lr_scanbench_opts *o = p->opts;
	const char *dir = p->dir, *file = p->file;
	char *cat[] = { "cat", (char *)file, NULL };
	char *grep[] = { "grep", "-c", "-E", "ghp_[A-Za-z0-9]{36}", (char *)file, NULL };
	const struct expect ec = { "cat of the line (the peer)", 0, NULL, 1 };
	const struct expect eg = { "grep of the token's regex (the peer)", 0, "1", 0 };
	double cat_s, grep_s;
	int rc;

	if ((rc = run_expect(o, dir, cat, &ec, &cat_s)) || (rc = run_expect(o, dir, grep, &eg, &grep_s)) ||
	    (rc = lr_bench_add(b, "line", "cat", rep, cat_s, "s")))
		return rc;
	return lr_bench_add(b, "line", "grep", rep, grep_s, "s");
}

/* An output directory that must not exist after a refusal: LR_EIO when it does. */
static int left_nothing(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0)
		return lr_error_set(LR_EIO, "the refused 'labrun manifest' wrote '%s'", path);
	return 0;
}

/* labrun over the line: scan of the file, manifest of the run refused, then written, into fresh directories. */
static int labrun_pass(const struct lr_bench_pass *p, int rep, struct lr_bench *b)
{
	const struct lr_scanbench_opts *o = p->opts;
	const char *dir = p->dir, *store = p->store, *file = p->file;
	char refused[4096], crate[4096];
	char *scan[] = { (char *)o->self, "--store", (char *)store, "scan", (char *)file, NULL };
	char *mr[] = { (char *)o->self, "--store", (char *)store, "manifest", "--run", "last", "-o", refused, NULL };
	char *mw[] = { (char *)o->self, "--store", (char *)store, "manifest",         "--run",
		       "last",          "-o",      crate,         "--allow-findings", NULL };
	const struct expect es = { "'labrun scan' of the line with the token", 1, "github-token", 0 };
	const struct expect er = { "'labrun manifest' of the run", 1, "github-token", 0 };
	const struct expect ew = { "'labrun manifest --allow-findings' of the run", 0, "written", 0 };
	double scan_s, refused_s, written_s;
	int rc;

	if ((rc = lr_path(refused, sizeof refused, "%s/refused-%d", dir, rep)) ||
	    (rc = lr_path(crate, sizeof crate, "%s/crate-%d", dir, rep)) ||
	    (rc = run_expect(o, dir, scan, &es, &scan_s)) || (rc = run_expect(o, dir, mr, &er, &refused_s)) ||
	    (rc = left_nothing(refused)) || (rc = run_expect(o, dir, mw, &ew, &written_s)) ||
	    (rc = lr_bench_add(b, "line", "scan", rep, scan_s, "s")) ||
	    (rc = lr_bench_add(b, "line", "manifest refused", rep, refused_s, "s")))
		return rc;
	return lr_bench_add(b, "line", "manifest written", rep, written_s, "s");
}

/*
 * Before anything is timed: the run holding the line recorded, and the clean
 * line scanned clean. Every labrun command runs on the throwaway store, so a
 * user's scan.internal or scan.baseline setting neither adds to what is timed
 * nor hides the token.
 */
static int setup(const struct lr_scanbench_opts *o, const char *dir, const char *store, const char *clean,
		 const char *file)
{
	char *scan[] = { (char *)o->self, "--store", (char *)store, "scan", (char *)clean, NULL };
	char *rec[] = { (char *)o->self, "--store", (char *)store, "record", "-q", "--", "cat", (char *)file, NULL };
	const struct expect es = { "'labrun scan' of the line without the token", 0, "; 0 finding(s)", 0 };
	const struct expect er = { "'labrun record -- cat' of the line", 0, NULL, 0 };
	double untimed;
	int rc;

	if ((rc = run_expect(o, dir, rec, &er, &untimed)))
		return rc;
	if ((rc = run_expect(o, dir, scan, &es, &untimed)))
		lr_error_hint("the filler matches a rule by itself: the benchmark would not measure a clean line");
	return rc;
}

/* The lines written and checked in the scratch directory, then the repetitions, who goes first swapping every time. */
static int measure_in(void *opts, const char *dir, struct lr_bench_job *j)
{
	const struct lr_scanbench_opts *o = opts;
	char clean[4096], file[4096], store[4096];
	int rc;

	if ((rc = lr_path(clean, sizeof clean, "%s/clean.txt", dir)) ||
	    (rc = lr_path(file, sizeof file, "%s/line.txt", dir)) ||
	    (rc = lr_path(store, sizeof store, "%s/store", dir)) || (rc = write_lines(o, clean, file, &j->bench)) ||
	    (rc = setup(o, dir, store, clean, file)))
		return rc;
	return lr_bench_alternate(j, o->reps, labrun_pass, peers,
				  &(struct lr_bench_pass){ .opts = o, .dir = dir, .store = store, .file = file });
}

static int measure(void *opts, struct lr_bench_job *j)
{
	const struct lr_scanbench_opts *o = opts;

	if (o->reps < 2 || o->reps > LR_SCANBENCH_MAXREPS || o->bytes <= LR_SCANBENCH_TOKEN)
		return lr_error_set(LR_EINVAL, "repetitions must be between 2 and %d, bytes above %d",
				    LR_SCANBENCH_MAXREPS, LR_SCANBENCH_TOKEN);
	return lr_bench_in_scratch(j, o->dir, "scan", measure_in, opts);
}

static int bind(struct lr_run *run, const void *opts)
{
	const struct lr_scanbench_opts *o = opts;
	int rc;

	if ((rc = lr_bench_bind(run, "bytes", o->bytes)) || (rc = lr_bench_bind(run, "reps", o->reps)))
		return rc;
	return lr_kvlist_set(&run->binding, "grep", o->grep, "user");
}

const struct lr_bench_ops lr_scanbench_ops = { LR_BENCHMARK_SCAN, NULL, bind, measure };
