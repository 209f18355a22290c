/*
 * labrun site: an experiment run's executions with their logs. Each
 * execution's stdout and stderr are stored objects; the site copies each
 * distinct one once, as logs/SHA256.txt (a browser shows a .txt as text and
 * runs nothing in it), and the run's page lists the executions condition by
 * condition, folded, each with its outcome and links to its two logs.
 */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/list.h"
#include "base/walk.h"
#include "experiment/expdef.h"
#include "report/site-int.h"
#include "report/text.h"
#include "store/experiments.h"

struct execs {
	struct lr_store_exec_row *v;
	size_t n, cap;
};

static int keep(void *arg, const struct lr_store_exec_row *e)
{
	struct execs *x = arg;

	if (LR_ALLOC_GROW(x->v, x->n + 1, x->cap))
		return lr_error_set(LR_ENOMEM, "out of memory");
	x->v[x->n] = *e;
	if (e->failure && !(x->v[x->n].failure = strdup(e->failure)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	x->n++;
	return 0;
}

struct logs {
	FILE *f;
	struct lr_store *st;
	const char *dir;
	int (*save)(struct lr_store *, const char *, const char *);
};

int lr_site_log_link(FILE *f, struct lr_store *st, const char *dir,
		     int (*save)(struct lr_store *, const char *, const char *), const char *name, const char *sha,
		     int sized)
{
	char path[PATH_MAX * 2], size[32];
	struct stat sb;
	int rc;

	if (!save) { /* nowhere to copy it from: its hash names it */
		lr_html_text(f, name);
		fprintf(f, " <code>%.12s</code>", sha);
		return 0;
	}
	if ((rc = lr_path(path, sizeof path, "%s/logs/%s.txt", dir, sha)))
		return rc;
	if (stat(path, &sb) != 0) { /* copied once, however many executions wrote the same bytes */
		if ((rc = save(st, sha, path)) == LR_ENOTFOUND) {
			lr_error_clear();
			lr_html_text(f, name);
			fprintf(f, " not in this store (<code>%.12s</code>)", sha);
			return 0;
		}
		if (rc || stat(path, &sb) != 0)
			return rc ? rc : lr_error_set(LR_EIO, "cannot read '%s': %s", path, strerror(errno));
	}
	if (!sb.st_size) {
		lr_html_text(f, name);
		fputs(sized ? " empty" : "", f);
		return 0;
	}
	fprintf(f, "<a href=\"logs/%s.txt\">", sha);
	lr_html_text(f, name);
	fprintf(f, "</a>%s%s", sized ? " " : "", sized ? lr_human_size(size, sizeof size, (long long)sb.st_size) : "");
	return 0;
}

/* One log's cell: a link to its copy in the site with its size, "empty", or why it is not there. */
static int log_cell(struct logs *l, const char *name, const char *sha)
{
	int rc = 0;

	fputs("<td>", l->f);
	if (*sha)
		rc = lr_site_log_link(l->f, l->st, l->dir, l->save, name, sha, 1);
	else
		fputs("-", l->f);
	fputs("</td>", l->f);
	return rc;
}

/* How an execution ended, in a few words. */
static void ended(FILE *f, const struct lr_store_exec_row *e)
{
	if (e->timed_out)
		fputs("timed out", f);
	else if (e->has_exit)
		fprintf(f, "exit %d", e->exit_code);
	else if (e->signal)
		fprintf(f, "signal %d", e->signal);
	else
		fputs("never started", f);
	if (e->failure) {
		fputs(": ", f);
		lr_html_text(f, e->failure);
	}
}

/* The executions of condition c (v[0..n)): a folded table, open when one of them failed or it is the only one. */
static int condition(struct logs *l, const struct lr_store_exec_row *v, size_t n, int64_t run, char (*arms)[32],
		     int narm, int only)
{
	struct lr_kvlist params = { 0 };
	size_t failed = 0;
	int rc;

	for (size_t i = 0; i < n; i++)
		failed += v[i].failure != NULL;
	if ((rc = lr_store_condition_params(l->st, run, v[0].cond, &params)))
		return rc;
	fprintf(l->f, "<details%s><summary>condition %d", failed || only ? " open" : "", v[0].cond);
	for (size_t k = 0; k < params.n; k++) {
		fputs(k ? " " : " (", l->f);
		lr_html_text(l->f, params.v[k].key);
		fputs("=", l->f);
		lr_html_text(l->f, params.v[k].value);
		fputs(k + 1 == params.n ? ")" : "", l->f);
	}
	lr_kvlist_release(&params);
	fprintf(l->f,
		": %zu execution%s, %zu failed</summary>\n<table class=\"execs\">\n<tr><th>seq</th><th>arm</th>"
		"<th>block/slot</th><th>ended</th><th>wall s</th><th>stdout</th><th>stderr</th></tr>\n",
		n, n == 1 ? "" : "s", failed);
	for (size_t i = 0; i < n && !rc; i++) {
		const struct lr_store_exec_row *e = &v[i];

		fprintf(l->f, "<tr%s><td class=\"n\">%d</td><td>", e->failure ? " class=\"bad\"" : "", e->seq);
		lr_html_text(l->f, e->arm >= 0 && e->arm < narm ? arms[e->arm] : "?");
		if (e->block < 0)
			fputs("</td><td>parity</td><td>", l->f);
		else
			fprintf(l->f, "</td><td>%d/%d</td><td>", e->block, e->slot);
		ended(l->f, e);
		fprintf(l->f, "</td><td class=\"n\">%.3f</td>", e->wall_s);
		if (!(rc = log_cell(l, "stdout", e->stdout_sha256)))
			rc = log_cell(l, "stderr", e->stderr_sha256);
		fputs("</tr>\n", l->f);
	}
	fputs("</table></details>\n", l->f);
	return rc;
}

int lr_site_exec_logs(FILE *f, struct lr_store *st, int64_t run, const char *dir,
		      int (*save)(struct lr_store *, const char *, const char *), int *n)
{
	struct logs l = { f, st, dir, save };
	struct execs x = { 0 };
	char arms[LR_EXP_MAXARMS][32], kernels[LR_EXP_MAXARMS][32];
	int narm = 0, rc;

	*n = 0;
	if ((rc = lr_store_executions(st, run, keep, &x)) || !x.n ||
	    (rc = lr_store_arm_names(st, run, arms, kernels, LR_EXP_MAXARMS, &narm)))
		goto out;
	fprintf(f, "<p>Each execution's standard output and error, as stored (one file in logs/ for each distinct "
		   "content), by condition:</p>\n");
	for (size_t i = 0, j; i < x.n && !rc; i = j) {
		for (j = i; j < x.n && x.v[j].cond == x.v[i].cond; j++)
			;
		rc = condition(&l, &x.v[i], j - i, run, arms, narm, i == 0 && j == x.n);
	}
	*n = (int)x.n;
out:
	for (size_t i = 0; i < x.n; i++)
		free((char *)x.v[i].failure);
	free(x.v);
	return rc;
}
