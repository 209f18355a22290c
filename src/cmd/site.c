/*
 * labrun site: the evidence as a static site a reviewer opens from file://,
 * with no server and no network: an index of runs to filter, a page per run
 * (with its diff against the previous run of its kind), and a diff of any two
 * runs drawn by plain JavaScript from data files beside the pages.
 */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "base/jsonbytes.h"
#include "base/progress.h"
#include "base/trust.h"
#include "base/walk.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/site-int.h"
#include "evidence/select.h"
#include "experiment/compare.h"
#include "experiment/report.h"
#include "serving/report.h"
#include "store/ledger.h"
#include "store/runs.h"

static const char usage[] =
	"usage: labrun site [--issue REF | --run ID]... [-o DIR] [--trust FILE]...\n"
	"\n"
	"Write the evidence as a static site in DIR (default 'site'): index.html, a table\n"
	"of the runs to filter and search; run-N.html for each run, with its sources,\n"
	"binding, geometry, environment, logs and artifacts with their hashes, its ledger\n"
	"entries and who signed them (checked against your trusted keys), an experiment's\n"
	"tables and charts, the serving evidence, and what changed since the previous run\n"
	"of its kind; diff.html, any two runs side by side, only what differs. No server,\n"
	"no network: open index.html from the file system. The bytes depend only on the\n"
	"store and your trusted keys. Without --issue or --run, every run. An existing DIR\n"
	"is replaced only when labrun wrote it.\n";

#define MARKER ".labrun-site"

struct prev {			/* the last run of a kind and experiment, for the next one's diff */
	enum lr_run_kind kind;
	char *experiment;
	struct lr_run run;
};

struct site {
	struct lr_store *st;
	struct lr_trust trust;
	char dir[PATH_MAX];	/* the directory being written (DIR.tmp-PID) */
	struct lr_strlist rows;	/* the index's rows, oldest first, until every page is written */
	int64_t entries, signed_entries, trusted_entries;
	struct lr_kvlist signers;	/* fingerprint -> principal, or "" when not trusted */
	struct prev *prev;
	size_t nprev;
};

/* DIR/name for writing; NULL with the error set. */
static FILE *create(const struct site *s, const char *name)
{
	char path[PATH_MAX * 2];
	FILE *f;

	if (lr_path(path, sizeof path, "%s/%s", s->dir, name))
		return NULL;
	if (!(f = fopen(path, "w")))
		lr_error_set(LR_EIO, "cannot write '%s': %s", path, strerror(errno));
	return f;
}

static int finish(FILE *f, const char *name)
{
	if (ferror(f) | (fclose(f) != 0))
		return lr_error_set(LR_EIO, "cannot write '%s': %s", name, strerror(errno));
	return 0;
}

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
		cmd_html_text(f, l->v[i].key);
		fputs("</th><td><code>", f);
		cmd_html_text(f, l->v[i].value ? l->v[i].value : "");
		fputs("</code>", f);
		if (l->v[i].tag && *l->v[i].tag) {
			fputs(" <span class=\"tag\">", f);
			cmd_html_text(f, l->v[i].tag);
			fputs("</span>", f);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void fact(FILE *f, const char *name, const char *value)
{
	fprintf(f, "<tr><th>%s</th><td>", name);
	cmd_html_text(f, value && *value ? value : "-");
	fputs("</td></tr>\n", f);
}

static void summary(FILE *f, const struct lr_run *r)
{
	char buf[256], *cmd = cmd_argv_text(r->argv_json);

	fputs("<table class=\"kv\">\n", f);
	fact(f, "uuid", r->uuid);
	fact(f, "command", cmd ? cmd : r->argv_json);
	fact(f, "directory", r->cwd);
	fact(f, "experiment", r->experiment);
	fputs("<tr><th>issues</th><td>", f);
	for (size_t i = 0; i < r->issues.n; i++) {
		cmd_html_text(f, r->issues.v[i]);
		fputs(i + 1 < r->issues.n ? ", " : "", f);
	}
	fputs(r->issues.n ? "</td></tr>\n" : "-</td></tr>\n", f);
	fact(f, "started", r->started_at);
	fact(f, "ended", r->ended_at);
	if (r->has_exit)
		snprintf(buf, sizeof buf, "exit code %d", r->exit_code);
	else if (r->signal)
		snprintf(buf, sizeof buf, "signal %d", r->signal);
	else
		snprintf(buf, sizeof buf, "none (labrun ran the work itself)");
	fact(f, "outcome", buf);
	fact(f, "failure", r->failure);
	snprintf(buf, sizeof buf, "wall %.3f s, user %.3f s, sys %.3f s, peak RSS %lld KiB", r->wall_s, r->user_s, r->sys_s,
		 (long long)r->peak_rss_kib);
	fact(f, "resources", buf);
	fact(f, "note", r->note);
	fact(f, "labrun", r->labrun_version);
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
	fact(f, "repository", r->source.repo_path);
	fact(f, "HEAD", r->source.head);
	fact(f, "branch", r->source.branch);
	fact(f, "dirty", r->source.dirty ? "yes" : "no");
	fact(f, "diff sha256", r->source.diff_sha256);
	fputs("</table>\n", f);
	if (!r->nfiles)
		return;
	fputs("<table>\n<tr><th>file</th><th>status</th><th>bytes</th><th>sha256</th></tr>\n", f);
	for (size_t i = 0; i < r->nfiles; i++) {
		fputs("<tr><td>", f);
		cmd_html_text(f, r->files[i].path);
		fputs("</td><td>", f);
		cmd_html_text(f, r->files[i].status);
		fprintf(f, "</td><td class=\"n\">%lld</td><td><code>%s</code></td></tr>\n", (long long)r->files[i].size,
			r->files[i].has_content ? r->files[i].sha256 : "-");
	}
	fputs("</table>\n", f);
}

static void artifacts(FILE *f, const struct lr_run *r)
{
	fputs("<h2>Logs and artifacts</h2>\n", f);
	if (!r->nartifacts) {
		fputs("<p>none recorded</p>\n", f);
		return;
	}
	fputs("<table>\n<tr><th>role</th><th>name</th><th>bytes</th><th>sha256</th></tr>\n", f);
	for (size_t i = 0; i < r->nartifacts; i++) {
		const struct lr_artifact *a = &r->artifacts[i];

		fputs("<tr><td>", f);
		cmd_html_text(f, a->role);
		fputs("</td><td>", f);
		cmd_html_text(f, a->name);
		if (a->present)
			fprintf(f, "</td><td class=\"n\">%lld</td><td><code>%s</code></td></tr>\n", (long long)a->size, a->sha256);
		else
			fputs("</td><td class=\"n\">-</td><td>missing when the run ended</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

struct ledger_ctx {
	FILE *f;
	struct site *s;
	int n;
};

static int ledger_row(void *arg, const struct lr_ledger_entry *e)
{
	struct ledger_ctx *c = arg;
	const struct lr_trusted_key *k = e->key_fingerprint ? lr_trust_find(&c->s->trust, e->key_fingerprint) : NULL;

	c->s->entries++;
	c->s->signed_entries += e->key_fingerprint != NULL;
	c->s->trusted_entries += k != NULL;
	if (e->key_fingerprint && !lr_kvlist_find(&c->s->signers, e->key_fingerprint) &&
	    lr_kvlist_add(&c->s->signers, e->key_fingerprint, k ? k->principal : "", NULL))
		return lr_error_set(LR_ENOMEM, "out of memory");

	if (!c->n++)
		fputs("<table>\n<tr><th>entry</th><th>kind</th><th>appended</th><th>digest</th><th>signer</th></tr>\n", c->f);
	fprintf(c->f, "<tr><td class=\"n\">%lld</td><td>", (long long)e->seq);
	cmd_html_text(c->f, e->kind);
	fputs("</td><td>", c->f);
	cmd_html_text(c->f, e->appended_at);
	fprintf(c->f, "</td><td><code>%s</code></td><td>", e->digest);
	if (!e->key_fingerprint) {
		fputs("unsigned", c->f);
	} else {
		fprintf(c->f, "<code>%.16s</code> ", e->key_fingerprint);
		if (k) {
			fputs("<span class=\"ok\">trusted: ", c->f);
			cmd_html_text(c->f, k->principal);
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
	rc = lr_store_ledger_entries(s->st, r->id, ledger_row, &c);
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
		cmd_render_html_runs(f, &rep);
	if (!rc && !(rc = lr_serving_report_build(s->st, &r->id, 1, NULL, 0, &sv)) && sv.nrows) {
		cmd_render_html_serving(f, &sv);
		rc = cmd_site_failing_cases(f, s->st, r->id);
	}
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
	fprintf(f, "<p>Against <a href=\"run-%lld.html\">run %lld</a> (<a href=\"diff.html#%lld,%lld\">side by side</a>): "
		   "%zu difference%s; outputs %s.</p>\n",
		(long long)prev->id, (long long)prev->id, (long long)prev->id, (long long)r->id, cmp.ndrift,
		cmp.ndrift == 1 ? "" : "s", cmp.outputs_match ? "match" : "differ");
	cmd_site_drift_table(f, &cmp, prev->id, r->id);
	lr_comparison_release(&cmp);
	return 0;
}

static int run_page(struct site *s, const struct lr_run *r, const struct lr_run *prev)
{
	char name[64], title[128];
	FILE *f;
	int rc;

	snprintf(name, sizeof name, "run-%lld.html", (long long)r->id);
	if (!(f = create(s, name)))
		return LR_EIO;
	snprintf(title, sizeof title, "run %lld (%s, %s)", (long long)r->id, lr_run_kind_name(r->kind),
		 lr_status_name(r->status));
	cmd_site_head(f, title);
	fprintf(f, "<p><a href=\"index.html\">all runs</a></p>\n<h1 class=\"%s\">", lr_status_name(r->status));
	cmd_html_text(f, title);
	fputs("</h1>\n", f);
	summary(f, r);
	sources(f, r);
	fputs("<h2>Host</h2>\n<table class=\"kv\">\n", f);
	fact(f, "hostname", r->host.hostname);
	fact(f, "CPU", r->host.cpu_model);
	fact(f, "OS", r->host.os);
	fact(f, "kernel", r->host.kernel);
	fputs("</table>\n", f);
	kv_table(f, "Binding", &r->binding);
	kv_table(f, "Geometry", &r->geometry);
	kv_table(f, "Tools", &r->tools);
	kv_table(f, "Environment (secrets withheld)", &r->env);
	artifacts(f, r);
	kv_table(f, "Digests", &r->digests);
	if (!(rc = ledger(f, s, r)) && !(rc = evidence(f, s, r)))
		rc = changes(f, s, prev, r);
	fputs("</body></html>\n", f);
	return finish(f, name) ? LR_EIO : rc;
}

static void add_fact(json_t *facts, const char *what, const char *key, const char *value)
{
	json_array_append_new(facts, json_pack("[s, o, o]", what, lr_json_bytes(key), lr_json_bytes(value ? value : "-")));
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

	lr_run_init(&none); /* every fact of r is a difference from a run that has none */
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
	if (!rc && !(f = create(s, name)))
		rc = LR_EIO;
	if (!rc) {
		json_t *o = json_pack("{s:I, s:s, s:s, s:s?, s:o}", "id", (json_int_t)r->id, "kind", lr_run_kind_name(r->kind),
				      "status", lr_status_name(r->status), "experiment", r->experiment, "facts", facts);

		facts = NULL;
		fputs("labrunRun(", f);
		json_dumpf(o, f, JSON_COMPACT | JSON_ENSURE_ASCII);
		fputs(");\n", f);
		json_decref(o);
		rc = finish(f, name);
	}
	json_decref(facts);
	return rc;
}

/* The previous run of r's kind and experiment, NULL for the first. */
static struct prev *prev_of(struct site *s, const struct lr_run *r)
{
	for (size_t i = 0; i < s->nprev; i++)
		if (s->prev[i].kind == r->kind && !strcmp(s->prev[i].experiment ? s->prev[i].experiment : "",
							  r->experiment ? r->experiment : ""))
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
	cmd_site_index_row(f, r);
	rc = fclose(f) != 0 || !row ? lr_error_set(LR_ENOMEM, "out of memory") : lr_strlist_add(&s->rows, row);
	free(row);
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
		if (!(rc = index_row(s, &r)) && !(rc = run_page(s, &r, p ? &p->run : NULL)) && !(rc = run_data(s, &r)))
			rc = remember(s, &r);
	}
	lr_run_release(&r);
	return rc;
}

static int collect_id(void *arg, const struct lr_run *r)
{
	struct lr_strlist *ids = arg;
	char id[24];

	snprintf(id, sizeof id, "%lld", (long long)r->id);
	return lr_strlist_add(ids, id);
}

/* The runs: those of --run and --issue, else every run; oldest first. */
static int select_all(struct site *s, const struct lr_strlist *runs, const struct lr_strlist *issues, int64_t **ids,
		      int *n)
{
	struct lr_run_filter f = { .status = -1 };
	struct lr_strlist all = { 0 };
	char name[128];
	int rc;

	if (runs->n || issues->n)
		return lr_evidence_select(s->st, runs, issues, "publish", ids, n, name, sizeof name);
	if ((rc = lr_store_run_list(s->st, &f, collect_id, &all)))
		goto out;
	if (!(*ids = malloc((all.n ? all.n : 1) * sizeof **ids))) {
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < all.n; i++) /* listed newest first */
		(*ids)[i] = strtoll(all.v[all.n - 1 - i], NULL, 10);
	*n = (int)all.n;
out:
	lr_strlist_release(&all);
	return rc;
}

/* What the ledger entries of these runs say of their signers, for the index (a static buffer). */
static const char *trust_summary(const struct site *s)
{
	static char text[4096];
	size_t n;

	n = (size_t)snprintf(text, sizeof text, "Ledger: %lld entr%s for these runs, %lld signed, %lld by a key the builder of "
			     "this site trusts", (long long)s->entries, s->entries == 1 ? "y" : "ies",
			     (long long)s->signed_entries, (long long)s->trusted_entries);
	for (size_t i = 0; i < s->signers.n && n < sizeof text; i++)
		n += (size_t)snprintf(text + n, sizeof text - n, "%s%.16s... (%s)", i ? "; " : ". Keys: ",
				      s->signers.v[i].key, *s->signers.v[i].value ? s->signers.v[i].value : "not trusted");
	if (n < sizeof text)
		snprintf(text + n, sizeof text - n, ".");
	return text;
}

/* Every page into s->dir. */
static int write_site(struct site *s, const int64_t *ids, int n)
{
	struct lr_progress *progress = lr_progress_start("wrote", "run pages", n);
	char data[PATH_MAX * 2];
	int rc;

	if ((rc = lr_path(data, sizeof data, "%s/data", s->dir)))
		return rc;
	if (mkdir(data, 0755) != 0)
		return lr_error_set(LR_EIO, "cannot make '%s': %s", data, strerror(errno));
	for (int i = 0; i < n && !rc; i++) {
		rc = one_run(s, ids[i]);
		lr_progress_update(progress, i + 1);
	}
	lr_progress_stop(&progress);
	return rc ? rc : cmd_site_files(s->dir, &s->rows, trust_summary(s));
}

/* DIR.tmp-PID becomes DIR; an old DIR goes only when labrun wrote it (it holds the marker). */
static int publish(const char *tmp, const char *dir)
{
	char marker[PATH_MAX * 2];
	struct stat sb;
	int rc;

	if (lstat(dir, &sb) == 0) {
		if ((rc = lr_path(marker, sizeof marker, "%s/" MARKER, dir)))
			return rc;
		if (!S_ISDIR(sb.st_mode) || access(marker, F_OK) != 0) {
			lr_error_set(LR_EINVAL, "cannot write the site into '%s': it exists and labrun did not write it", dir);
			lr_error_hint("give -o a new directory, or remove '%s' yourself", dir);
			return LR_EINVAL;
		}
		if (lr_remove_tree(dir) != 0)
			return lr_error_set(LR_EIO, "cannot replace '%s': %s", dir, strerror(errno));
	}
	if (rename(tmp, dir) != 0)
		return lr_error_set(LR_EIO, "cannot write the site into '%s': %s", dir, strerror(errno));
	return 0;
}

int cmd_site(const struct lr_global *g, int argc, char **argv)
{
	struct lr_strlist runs = { 0 }, issues = { 0 }, trust_files = { 0 };
	const char *out = "site";
	char outbuf[PATH_MAX];
	struct site s = { 0 };
	int64_t *ids = NULL;
	int rc, first, n = 0, progress = 0;
	const struct cmd_opt opts[] = {
		CMD_LIST(0, "run", &runs, "ID", "this run (a short id, uuid prefix, 'last' or 'last~N'); repeatable"),
		CMD_CALLBACK(0, "issue", &issues, cmd_opt_issues, "REF", "every run that is evidence for REF; repeatable"),
		CMD_NONEMPTY('o', "output", &out, "DIR", "the site's directory (default 'site')"),
		CMD_LIST(0, "trust", &trust_files, "FILE", "also trust the keys of FILE when naming signers (repeatable)"),
		CMD_PROGRESS(&progress),
		CMD_END,
	};
	const struct cmd_parse p = { "site", usage, 0, 0, NULL, 0, NULL };

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		goto done;
	if (strlen(out) >= sizeof outbuf) {
		rc = cmd_usage_error("site", "-o: the path is too long");
		goto done;
	}
	memcpy(outbuf, out, strlen(out) + 1);
	for (size_t len = strlen(outbuf); len > 1 && outbuf[len - 1] == '/';) /* site/ is site: its sibling is written */
		outbuf[--len] = '\0';
	out = outbuf;
	if ((rc = cmd_trust_load(&s.trust, &trust_files, NULL)) ||
	    (rc = lr_path(s.dir, sizeof s.dir, "%s.tmp-%ld", out, (long)getpid()))) {
		rc = cmd_fail(rc);
		goto done;
	}
	if ((rc = cmd_open_store(&s.st, g)))
		goto done;
	cmd_progress_begin("labrun site", progress, 0);
	/* -o reports/site: reports/ is made too */
	if (!(rc = select_all(&s, &runs, &issues, &ids, &n)) && !(rc = lr_mkdir_parents(s.dir, 0755))) {
		if (mkdir(s.dir, 0755) != 0)
			rc = lr_error_set(LR_EIO, "cannot make '%s': %s", s.dir, strerror(errno));
		else if ((rc = write_site(&s, ids, n)) || (rc = publish(s.dir, out)))
			lr_remove_tree(s.dir);
	}
	cmd_progress_end();
	if (!rc)
		printf("wrote the site of %d run%s into '%s': open %s/index.html\n", n, n == 1 ? "" : "s", out, out);
	rc = rc ? cmd_fail(rc) : LR_EXIT_OK;
done:
	for (size_t i = 0; i < s.nprev; i++) {
		free(s.prev[i].experiment);
		lr_run_release(&s.prev[i].run);
	}
	free(s.prev);
	lr_strlist_release(&s.rows);
	lr_kvlist_release(&s.signers);
	free(ids);
	lr_store_free(s.st);
	lr_trust_release(&s.trust);
	lr_strlist_release(&runs);
	lr_strlist_release(&issues);
	lr_strlist_release(&trust_files);
	return rc;
}
