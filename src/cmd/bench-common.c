/* What every 'labrun bench' benchmark shares: its directory, this executable, and running it, printed as it goes. */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "cmd/bench-int.h"
#include "report/report.h"

int cmd_bench_progress;

int cmd_bench_dirs(const char **dir, const char *why, char *self, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;
	ssize_t len;

	if (!*dir)
		*dir = tmp && *tmp ? tmp : "/tmp";
	if (stat(*dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(*dir, W_OK | X_OK) != 0)
		return cmd_usage_error("bench", "--dir '%s': not a directory this process can write into%s", *dir, why);
	if (!self)
		return 0;
	if ((len = readlink("/proc/self/exe", self, size - 1)) < 0)
		return cmd_fail(lr_error_set(LR_EIO, "cannot find this labrun's executable (/proc/self/exe)"));
	self[len] = '\0';
	return 0;
}

int cmd_bench_parse(const char *usage, const struct cmd_opt *opts, int argc, char **argv, const char **dir,
		    const char *why, char *self, size_t size)
{
	const struct cmd_parse p = { .cmd = "bench", .usage = usage };
	int first, exit_code = cmd_parse_options(&p, opts, argc, argv, &first);

	return exit_code ? exit_code : cmd_bench_dirs(dir, why, self, size);
}

/* How much of the document is printed: its blocks, and the rows of the last one when it is a table. */
struct shown {
	size_t blocks, rows;
};

/* What is new in d since s, for a terminal: a table's new rows, the blocks after it (a heading after a blank line). */
static int print_new(const struct lr_doc *d, struct shown *s)
{
	int rc = 0;

	for (size_t i = s->blocks ? s->blocks - 1 : 0; i < d->n && !rc; i++) {
		const struct lr_doc_block *b = &d->v[i];
		int table = b->kind == LR_BLOCK_TABLE && !b->missing;

		if (i < s->blocks) { /* the last one printed: a table may have grown */
			if (table && b->table.nrows > s->rows)
				rc = lr_render_table_text(stdout, &b->table, 2, s->rows);
		} else if (table) {
			rc = lr_render_table_text(stdout, &b->table, 2, 0);
		} else {
			if (b->kind == LR_BLOCK_HEADING && i)
				putchar('\n');
			rc = lr_doc_write_block(stdout, d, i, LR_FORMAT_TEXT);
		}
		s->rows = table ? b->table.nrows : 0;
	}
	s->blocks = d->n;
	fflush(stdout);
	return rc;
}

/* The run's document as it stands: what is new printed (j->on_step). */
static int show(void *arg, const struct lr_bench_job *j)
{
	struct lr_doc d;
	int rc;

	lr_doc_init(&d);
	if (!(rc = lr_render_bench_doc(&d, &j->run, &j->bench, 1))) {
		cmd_progress_clear();
		rc = print_new(&d, arg);
	}
	lr_doc_release(&d);
	return rc;
}

/* End the run: stored as passed, or as failed when rc is an error (which it reports). 0, or the exit code. */
static int finish(struct lr_bench_job *job, int rc)
{
	cmd_progress_end();
	if ((rc = lr_bench_job_end(job, rc != 0)) || job->run.status != LR_PASSED) {
		if (!rc)
			lr_error_set(LR_EIO, "%s", job->run.failure);
		lr_error_hint("'labrun show %lld' has what was stored", (long long)job->run.id);
		return cmd_fail(rc ? rc : LR_EIO);
	}
	return 0;
}

int cmd_bench_run(const struct lr_global *g, const struct lr_bench_ops *ops, void *opts, int json,
		  void (*after)(void *opts, int json))
{
	struct shown shown = { 0, 0 };
	struct lr_store *st = NULL;
	struct lr_bench_job job;
	int rc, exit_code;

	lr_bench_job_init(&job, ops->which);
	job.on_step = json ? NULL : show;
	job.arg = &shown;
	if ((exit_code = cmd_store(&st, g)))
		goto out;
	cmd_progress_begin("labrun bench", cmd_bench_progress, 0);
	if ((rc = lr_bench_job_begin(&job, st, ops, opts, g->argv, environ))) {
		cmd_progress_end();
		exit_code = cmd_fail(rc);
		goto out;
	}
	if (!(rc = lr_bench_job_step(&job))) /* what runs, before it does */
		rc = ops->measure(opts, &job);
	if ((exit_code = finish(&job, rc)))
		goto out;
	if (!json && !(rc = show(&shown, &job)) && after)
		after(opts, json);
	if (json && after)
		after(opts, json);
	if (json)
		rc = lr_render_bench(stdout, &job.run, &job.bench, LR_FORMAT_JSON);
	else if (!rc)
		printf("recorded run %lld (passed); 'labrun report --run %lld' prints %s again\n",
		       (long long)job.run.id, (long long)job.run.id,
		       ops->which == LR_BENCHMARK_ENCODER ? "these tables" : "this table");
	exit_code = rc ? cmd_fail(rc) : 0;
out:
	lr_bench_job_release(&job);
	return exit_code;
}
