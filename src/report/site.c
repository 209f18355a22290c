/*
 * The evidence as a static site a reviewer opens from file://, with no server
 * and no network: an index of runs to filter, a page per run (with its diff
 * against the previous run of its kind), and a diff of any two runs drawn by
 * plain JavaScript from data files beside the pages. 'labrun site' writes it
 * on its own, 'labrun manifest --site' into a crate.
 */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "base/jsonbytes.h"
#include "base/progress.h"
#include "base/trust.h"
#include "base/walk.h"
#include "report/report.h"
#include "report/text.h"
#include "report/render-int.h"
#include "report/site-int.h"
#include "experiment/compare.h"
#include "experiment/report.h"
#include "serving/report.h"
#include "store/ledger.h"
#include "store/runs.h"

struct prev { /* the last run of a kind and experiment, for the next one's diff */
	enum lr_run_kind kind;
	char *experiment;
	struct lr_run run;
};

struct issue { /* an issue the site's runs are evidence for, and those runs */
	char *ref;
	int64_t *ids;
	struct lr_strlist what; /* a few words on each run, for the issue's page */
	size_t n, cap;
};

struct site {
	struct lr_store *st;
	const struct lr_trust *trust;
	const struct lr_site_opts *o;
	char dir[PATH_MAX];     /* the directory being written */
	struct lr_strlist rows; /* the index's rows, oldest first, until every page is written */
	int64_t entries, signed_entries, trusted_entries;
	struct lr_kvlist signers; /* fingerprint -> principal, or "" when not trusted */
	struct prev *prev;
	size_t nprev;
	struct issue *issues; /* in the order the runs name them */
	size_t nissues, capissues;
};

static void kv_table(FILE *f, const char *heading, const struct lr_kvlist *l)
{
	fprintf(f, "<h2>%s</h2>\n", heading);
	if (!l->n) {
		fputs("<p>none recorded</p>\n", f);
		return;
	}
	fputs("<table class=\"kv\">\n", f);
	for (size_t i = 0; i < l->n; i++) {
		fputs("<tr><th>", f);
		lr_html_text(f, l->v[i].key);
		fputs("</th><td><code>", f);
		lr_html_text(f, l->v[i].value ? l->v[i].value : "");
		fputs("</code>", f);
		if (l->v[i].tag && *l->v[i].tag) {
			fputs(" <span class=\"tag\">", f);
			lr_html_text(f, l->v[i].tag);
			fputs("</span>", f);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void summary(FILE *f, const struct lr_run *r)
{
	char buf[256], page[1024], *cmd = lr_argv_text(r->argv_json);

	fputs("<table class=\"kv\">\n", f);
	lr_render_site_fact(f, "uuid", r->uuid);
	lr_render_site_fact(f, "command", cmd ? cmd : r->argv_json);
	lr_render_site_fact(f, "directory", r->cwd);
	lr_render_site_fact(f, "experiment", r->experiment);
	fputs("<tr><th>issues</th><td>", f);
	for (size_t i = 0; i < r->issues.n; i++) { /* each links to its page, which this site always has */
		fprintf(f, "<a href=\"%s\">", lr_site_issue_page(page, sizeof page, r->issues.v[i]));
		lr_html_text(f, r->issues.v[i]);
		fputs(i + 1 < r->issues.n ? "</a>, " : "</a>", f);
	}
	fputs(r->issues.n ? "</td></tr>\n" : "-</td></tr>\n", f);
	lr_render_site_fact(f, "started", r->started_at);
	lr_render_site_fact(f, "ended", r->ended_at);
	if (r->has_exit)
		snprintf(buf, sizeof buf, "exit code %d", r->exit_code);
	else if (r->signal)
		snprintf(buf, sizeof buf, "signal %d", r->signal);
	else
		snprintf(buf, sizeof buf, "none (labrun ran the work itself)");
	lr_render_site_fact(f, "outcome", buf);
	lr_render_site_fact(f, "failure", r->failure);
	snprintf(buf, sizeof buf, "wall %.3f s, user %.3f s, sys %.3f s, peak RSS %lld KiB", r->wall_s, r->user_s,
		 r->sys_s, (long long)r->peak_rss_kib);
	lr_render_site_fact(f, "resources", buf);
	lr_render_site_fact(f, "note", r->note);
	lr_render_site_fact(f, "labrun", r->labrun_version);
	fputs("</table>\n", f);
	free(cmd);
}

static void sources(FILE *f, const struct lr_run *r)
{
	fputs("<h2>Sources</h2>\n", f);
	if (!r->source.present) {
		fputs("<p>not inside a git work tree</p>\n", f);
		return;
	}
	fputs("<table class=\"kv\">\n", f);
	lr_render_site_fact(f, "repository", r->source.repo_path);
	lr_render_site_fact(f, "HEAD", r->source.head);
	lr_render_site_fact(f, "branch", r->source.branch);
	lr_render_site_fact(f, "dirty", r->source.dirty ? "yes" : "no");
	lr_render_site_fact(f, "diff sha256", r->source.diff_sha256);
	fputs("</table>\n", f);
	if (!r->nfiles)
		return;
	fputs("<table>\n<tr><th>file</th><th>status</th><th>bytes</th><th>sha256</th></tr>\n", f);
	for (size_t i = 0; i < r->nfiles; i++) {
		fputs("<tr><td>", f);
		lr_html_text(f, r->files[i].path);
		fputs("</td><td>", f);
		lr_html_text(f, r->files[i].status);
		fprintf(f, "</td><td class=\"n\">%lld</td><td><code>%s</code></td></tr>\n", (long long)r->files[i].size,
			r->files[i].has_content ? r->files[i].sha256 : "-");
	}
	fputs("</table>\n", f);
}

/* The run's artifacts; its own stdout and stderr (a recorded command's) copied into the site and linked. */
static int artifact_table(FILE *f, struct site *s, const struct lr_run *r)
{
	int rc = 0;

	fputs("<table>\n<tr><th>role</th><th>name</th><th>bytes</th><th>sha256</th></tr>\n", f);
	for (size_t i = 0; i < r->nartifacts && !rc; i++) {
		const struct lr_artifact *a = &r->artifacts[i];

		fputs("<tr><td>", f);
		lr_html_text(f, a->role);
		fputs("</td><td>", f);
		if (a->present && (!strcmp(a->role, "stdout") || !strcmp(a->role, "stderr")))
			rc = lr_site_log_link(f, s->st, s->dir, s->o->object, a->name, a->sha256, 0);
		else
			lr_html_text(f, a->name);
		if (a->present)
			fprintf(f, "</td><td class=\"n\">%lld</td><td><code>%s</code></td></tr>\n", (long long)a->size,
				a->sha256);
		else
			fputs("</td><td class=\"n\">-</td><td>missing when the run ended</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	return rc;
}

/* The run's logs and artifacts, and an experiment's executions with their logs (site-logs.c). */
static int artifacts(FILE *f, struct site *s, const struct lr_run *r)
{
	int rc, execs = 0;

	fputs("<h2 id=\"logs\">Logs and artifacts</h2>\n", f);
	rc = lr_site_exec_logs(f, s->st, r->id, s->dir, s->o->object, &execs);
	if (!rc && r->nartifacts)
		rc = artifact_table(f, s, r);
	else if (!rc && !execs)
		fputs("<p>none recorded</p>\n", f);
	return rc;
}

struct ledger_ctx {
	FILE *f;
	struct site *s;
	int n;
};

static int ledger_row(void *arg, const struct lr_ledger_entry *e)
{
	struct ledger_ctx *c = arg;
	const struct lr_trusted_key *k = e->key_fingerprint ? lr_trust_find(c->s->trust, e->key_fingerprint) : NULL;

	c->s->entries++;
	c->s->signed_entries += e->key_fingerprint != NULL;
	c->s->trusted_entries += k != NULL;
	if (e->key_fingerprint && !lr_kvlist_find(&c->s->signers, e->key_fingerprint) &&
	    lr_kvlist_add(&c->s->signers, e->key_fingerprint, k ? k->principal : "", NULL))
		return lr_error_set(LR_ENOMEM, "out of memory");

	if (!c->n++)
		fputs("<table>\n<tr><th>entry</th><th>kind</th><th>appended</th><th>digest</th><th>signer</th></tr>\n",
		      c->f);
	fprintf(c->f, "<tr><td class=\"n\">%lld</td><td>", (long long)e->seq);
	lr_html_text(c->f, e->kind);
	fputs("</td><td>", c->f);
	lr_html_text(c->f, e->appended_at);
	fprintf(c->f, "</td><td><code>%s</code></td><td>", e->digest);
	if (!e->key_fingerprint) {
		fputs("unsigned", c->f);
	} else {
		fprintf(c->f, "<code>%.16s</code> ", e->key_fingerprint);
		if (k) {
			fputs("<span class=\"ok\">trusted: ", c->f);
			lr_html_text(c->f, k->principal);
			fputs("</span>", c->f);
		} else {
			fputs("<span class=\"bad\">not among the trusted keys</span>", c->f);
		}
	}
	fputs("</td></tr>\n", c->f);
	return 0;
}

static int ledger(FILE *f, struct site *s, const struct lr_run *r)
{
	struct ledger_ctx c = { f, s, 0 };
	int rc;

	fputs("<h2>Ledger</h2>\n", f);
	rc = s->o->ledger ? s->o->ledger(s->o->arg, r, ledger_row, &c)
			  : lr_store_ledger_entries(s->st, r->id, ledger_row, &c);
	fputs(c.n ? "</table>\n<p>The signer is held to the trusted keys of whoever built this site (their "
		    "configuration and <code>--trust</code>); <code>labrun audit</code> and <code>labrun verify</code> "
		    "check the signatures themselves.</p>\n"
		  : "<p>no ledger entry: the run is not final</p>\n",
	      f);
	return rc;
}

/* The experiment's tables and charts, and the serving evidence, as 'labrun report --run' has them. */
static int evidence(FILE *f, struct site *s, const struct lr_run *r)
{
	struct lr_serving_report sv = { 0 };
	struct lr_report rep = { 0 };
	int rc = 0;

	if (r->kind == LR_KIND_EXPERIMENT && !(rc = lr_report_build(s->st, NULL, r->id, &rep)))
		rc = lr_render_html_runs(f, &rep);
	for (int i = 0; !rc && i < rep.nruns; i++) /* beside the tables' drift: each arm over the blocks */
		rc = lr_site_arm_blocks(f, s->st, &rep.runs[i]);
	if (!rc && !(rc = lr_serving_report_build(s->st, &r->id, 1, NULL, 0, &sv)) && sv.nrows &&
	    !(rc = lr_render_html_serving(f, &sv)) && !(rc = lr_render_site_failing_cases(f, s->st, r->id)))
		rc = lr_site_occupancy(f, s->st, r->id);
	lr_serving_report_release(&sv);
	lr_report_release(&rep);
	return rc;
}

/* What changed since the previous run of the same kind and experiment: the diff without JavaScript. */
static int changes(FILE *f, struct site *s, const struct lr_run *prev, const struct lr_run *r)
{
	struct lr_comparison cmp = { 0 };
	int rc;

	fputs("<h2>Since the previous run of its kind</h2>\n", f);
	if (!prev) {
		fputs("<p>the first run of its kind and experiment here</p>\n", f);
		return 0;
	}
	if ((rc = lr_compare_runs(s->st, prev, r, &cmp))) {
		lr_comparison_release(&cmp);
		return rc;
	}
	fprintf(f,
		"<p>Against <a href=\"run-%lld.html\">run %lld</a> (<a href=\"diff.html#%lld,%lld\">side by side</a>): "
		"%zu difference%s; outputs %s.</p>\n",
		(long long)prev->id, (long long)prev->id, (long long)prev->id, (long long)r->id, cmp.ndrift,
		cmp.ndrift == 1 ? "" : "s", cmp.outputs_match ? "match" : "differ");
	lr_render_site_drift_table(f, &cmp, prev->id, r->id);
	lr_comparison_release(&cmp);
	return 0;
}

static int run_page(struct site *s, const struct lr_run *r, const struct lr_run *prev)
{
	char name[64], title[128];
	FILE *f;
	int rc;

	snprintf(name, sizeof name, "run-%lld.html", (long long)r->id);
	if ((rc = lr_render_site_create(&f, s->dir, name)))
		return rc;
	snprintf(title, sizeof title, "run %lld (%s, %s)", (long long)r->id, lr_run_kind_name(r->kind),
		 lr_status_name(r->status));
	lr_render_site_head(f, title);
	fprintf(f, "<p><a href=\"index.html\">all runs</a></p>\n<h1 class=\"%s\">", lr_status_name(r->status));
	lr_html_text(f, title);
	fputs("</h1>\n", f);
	summary(f, r);
	sources(f, r);
	fputs("<h2>Host</h2>\n<table class=\"kv\">\n", f);
	lr_render_site_fact(f, "hostname", r->host.hostname);
	lr_render_site_fact(f, "CPU", r->host.cpu_model);
	lr_render_site_fact(f, "OS", r->host.os);
	lr_render_site_fact(f, "kernel", r->host.kernel);
	fputs("</table>\n", f);
	kv_table(f, "Binding", &r->binding);
	kv_table(f, "Geometry", &r->geometry);
	kv_table(f, "Tools", &r->tools);
	kv_table(f, "Environment (secrets withheld)", &r->env);
	rc = artifacts(f, s, r);
	kv_table(f, "Digests", &r->digests);
	if (!rc && !(rc = ledger(f, s, r)) && !(rc = evidence(f, s, r)))
		rc = changes(f, s, prev, r);
	fputs("</body></html>\n", f);
	return lr_render_site_close(f, name) ? LR_EIO : rc;
}

static void add_fact(json_t *facts, const char *what, const char *key, const char *value)
{
	json_array_append_new(facts,
			      json_pack("[s, o, o]", what, lr_json_bytes(key), lr_json_bytes(value ? value : "-")));
}

/* data/run-N.js: every fact of the run, for diff.html's JavaScript (browsers fetch nothing from file://). */
static int run_data(struct site *s, const struct lr_run *r)
{
	struct lr_comparison all = { 0 };
	struct lr_run none;
	char name[64];
	json_t *facts = json_array();
	FILE *f;
	int rc;

	lr_run_init(&none);         /* every fact of r is a difference from a run that has none */
	none.kind = LR_KIND_RECORD; /* never two experiments: that compare needs both definitions */
	rc = lr_compare_runs(s->st, &none, r, &all);
	if (r->source.present) { /* the drift from a run without sources says only that r has them */
		add_fact(facts, "source", "HEAD", r->source.head);
		add_fact(facts, "source", "branch", r->source.branch);
		add_fact(facts, "source", "dirty", r->source.dirty ? "yes" : "no");
		add_fact(facts, "source", "diff sha256", r->source.diff_sha256);
	}
	for (size_t i = 0; !rc && i < all.ndrift; i++)
		add_fact(facts, all.drift[i].what, all.drift[i].key, all.drift[i].b);
	lr_comparison_release(&all);
	lr_run_release(&none);
	snprintf(name, sizeof name, "data/run-%lld.js", (long long)r->id);
	if (!rc)
		rc = lr_render_site_create(&f, s->dir, name);
	if (!rc) {
		json_t *o = json_pack("{s:I, s:s, s:s, s:s?, s:o}", "id", (json_int_t)r->id, "kind",
				      lr_run_kind_name(r->kind), "status", lr_status_name(r->status), "experiment",
				      r->experiment, "facts", facts);

		facts = NULL;
		fputs("labrunRun(", f);
		json_dumpf(o, f, JSON_COMPACT | JSON_ENSURE_ASCII);
		fputs(");\n", f);
		json_decref(o);
		rc = lr_render_site_close(f, name);
	}
	json_decref(facts);
	return rc;
}

/* The previous run of r's kind and experiment, NULL for the first. */
static struct prev *prev_of(struct site *s, const struct lr_run *r)
{
	for (size_t i = 0; i < s->nprev; i++)
		if (s->prev[i].kind == r->kind &&
		    !strcmp(s->prev[i].experiment ? s->prev[i].experiment : "", r->experiment ? r->experiment : ""))
			return &s->prev[i];
	return NULL;
}

/* r becomes the previous run of its kind (its contents move; r is left empty). */
static int remember(struct site *s, struct lr_run *r)
{
	struct prev *p = prev_of(s, r), *grown;

	if (!p) {
		if (!(grown = realloc(s->prev, (s->nprev + 1) * sizeof *grown)))
			return lr_error_set(LR_ENOMEM, "out of memory");
		s->prev = grown;
		p = &s->prev[s->nprev++];
		p->kind = r->kind;
		if (!(p->experiment = r->experiment ? strdup(r->experiment) : NULL) && r->experiment)
			return lr_error_set(LR_ENOMEM, "out of memory");
		lr_run_init(&p->run);
	}
	lr_run_release(&p->run);
	p->run = *r;
	lr_run_init(r);
	return 0;
}

static int index_row(struct site *s, const struct lr_run *r)
{
	char *row = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&row, &len);
	int rc;

	if (!f)
		return lr_error_set(LR_ENOMEM, "out of memory");
	lr_render_site_index_row(f, r);
	rc = fclose(f) != 0 || !row ? lr_error_set(LR_ENOMEM, "out of memory") : lr_strlist_add(&s->rows, row);
	free(row);
	return rc;
}

/* r is evidence for each issue it names: its id and a few words on it go to each issue's page. */
static int note_issues(struct site *s, const struct lr_run *r)
{
	char what[256];
	int rc = 0;

	snprintf(what, sizeof what, "%s%s%s, %s", lr_run_kind_name(r->kind), r->experiment ? " " : "",
		 r->experiment ? r->experiment : "", lr_status_name(r->status));
	for (size_t k = 0; k < r->issues.n && !rc; k++) {
		struct issue *i;
		size_t at = 0;

		while (at < s->nissues && strcmp(s->issues[at].ref, r->issues.v[k]))
			at++;
		if (at < s->nissues) {
			i = &s->issues[at];
		} else {
			if (LR_ALLOC_GROW(s->issues, s->nissues + 1, s->capissues))
				return lr_error_set(LR_ENOMEM, "out of memory");
			i = memset(&s->issues[s->nissues++], 0, sizeof *i);
			if (!(i->ref = strdup(r->issues.v[k])))
				return lr_error_set(LR_ENOMEM, "out of memory");
		}
		if (LR_ALLOC_GROW(i->ids, i->n + 1, i->cap))
			return lr_error_set(LR_ENOMEM, "out of memory");
		if (!(rc = lr_strlist_add(&i->what, what)))
			i->ids[i->n++] = r->id;
	}
	return rc;
}

/* A page per issue, and its name and count of runs for the index (key ref, value page, tag "N runs"). */
static int issue_pages(struct site *s, struct lr_kvlist *pages)
{
	char name[1024], count[32];
	int rc = 0;

	for (size_t k = 0; k < s->nissues && !rc; k++) {
		const struct issue *i = &s->issues[k];
		struct lr_site_issue page = { i->ref, i->ids, (const char *const *)i->what.v, (int)i->n };

		snprintf(count, sizeof count, "%zu run%s", i->n, i->n == 1 ? "" : "s");
		if (!(rc = lr_site_issue_write(s->st, s->dir, &page)))
			rc = lr_kvlist_add(pages, i->ref, lr_site_issue_page(name, sizeof name, i->ref), count);
	}
	return rc;
}

static int one_run(struct site *s, int64_t id)
{
	struct prev *p;
	struct lr_run r;
	int rc;

	lr_run_init(&r);
	if (!(rc = lr_store_run_load(s->st, id, &r))) {
		p = prev_of(s, &r);
		if (!(rc = index_row(s, &r)) && !(rc = run_page(s, &r, p ? &p->run : NULL)) &&
		    !(rc = run_data(s, &r)) && !(rc = note_issues(s, &r)))
			rc = remember(s, &r);
	}
	lr_run_release(&r);
	return rc;
}

/* What the ledger entries of these runs say of their signers, for the index (a static buffer). */
static const char *trust_summary(const struct site *s)
{
	static char text[4096];
	size_t n;

	n = (size_t)snprintf(text, sizeof text,
			     "Ledger: %lld entr%s for these runs, %lld signed, %lld by a key the builder of "
			     "this site trusts",
			     (long long)s->entries, s->entries == 1 ? "y" : "ies", (long long)s->signed_entries,
			     (long long)s->trusted_entries);
	for (size_t i = 0; i < s->signers.n && n < sizeof text; i++)
		n += (size_t)snprintf(text + n, sizeof text - n, "%s%.16s... (%s)",
				      i ? "; " : ". Keys: ", s->signers.v[i].key,
				      *s->signers.v[i].value ? s->signers.v[i].value : "not trusted");
	if (n < sizeof text)
		snprintf(text + n, sizeof text - n, ".");
	return text;
}

int lr_render_site_with(struct lr_store *st, const struct lr_site_opts *o, const int64_t *ids, int n, const char *dir)
{
	struct site site = { .st = st, .trust = o->trust, .o = o }, *s = &site;
	struct lr_kvlist issues = { 0 };
	struct lr_progress *progress = NULL;
	char data[PATH_MAX * 2];
	int rc;

	if (!(rc = lr_path(s->dir, sizeof s->dir, "%s", dir)) && !(rc = lr_path(data, sizeof data, "%s/data", dir)) &&
	    mkdir(data, 0755) != 0)
		rc = lr_error_set(LR_EIO, "cannot make '%s': %s", data, strerror(errno));
	if (!rc)
		progress = lr_progress_start("wrote", "run pages", n);
	for (int i = 0; i < n && !rc; i++) {
		rc = one_run(s, ids[i]);
		lr_progress_update(progress, i + 1);
	}
	lr_progress_stop(&progress);
	if (!rc && !(rc = issue_pages(s, &issues)))
		rc = lr_render_site_files(dir, &s->rows, trust_summary(s), &issues);
	for (size_t i = 0; i < s->nissues; i++) {
		free(s->issues[i].ref);
		free(s->issues[i].ids);
		lr_strlist_release(&s->issues[i].what);
	}
	free(s->issues);
	lr_kvlist_release(&issues);
	for (size_t i = 0; i < s->nprev; i++) {
		free(s->prev[i].experiment);
		lr_run_release(&s->prev[i].run);
	}
	free(s->prev);
	lr_strlist_release(&s->rows);
	lr_kvlist_release(&s->signers);
	return rc;
}
