#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "base/jsonbytes.h"
#include "base/trust.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "evidence/scan.h"
#include "experiment/runner.h"
#include "record/gitsrc.h"
#include "store/runs.h"

int cmd_fail(int rc)
{
	const char *hint = lr_error_hint_msg();

	fprintf(stderr, "labrun: error: %s\n", lr_error_msg());
	if (hint && *hint)
		fprintf(stderr, "hint: %s\n", hint);
	switch (rc) {
	case LR_EINVAL:
		return LR_EXIT_USAGE;
	case LR_ESTORE:
	case LR_ESCHEMA:
		return LR_EXIT_STORE;
	default:
		return LR_EXIT_FAIL;
	}
}

/* Add the ids of every run of 'issue' to *ids (grown), or fail naming the issue when it has none. */
static int issue_runs(struct lr_store *st, const char *issue, const char *what, int64_t **ids, int *n)
{
	struct lr_run_filter f = { .status = -1, .issue = issue };
	int64_t *more = NULL, *v;
	int k = 0, rc;

	if ((rc = lr_store_run_ids(st, &f, &more, &k)))
		return rc;
	if (!k) {
		free(more);
		lr_error_set(LR_ENOTFOUND, "cannot %s issue %s: no runs reference it", what, issue);
		lr_error_hint("'labrun list --issue %s' shows the runs that do", issue);
		return LR_ENOTFOUND;
	}
	if (!(v = realloc(*ids, (size_t)(*n + k) * sizeof *v))) {
		free(more);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	memcpy(v + *n, more, (size_t)k * sizeof *v);
	*ids = v;
	*n += k;
	free(more);
	return 0;
}

int cmd_evidence_runs(struct lr_store *st, const struct lr_strlist *runs, const struct lr_strlist *issues, const char *what,
		      int64_t **ids, int *n, char *name, size_t len)
{
	size_t i, k;
	int rc = 0;

	*ids = NULL;
	*n = 0;
	if (runs->n && !(*ids = malloc(runs->n * sizeof **ids)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	for (i = 0; i < runs->n && !rc; i++)
		if (!(rc = lr_store_run_resolve(st, runs->v[i], *ids + *n)))
			(*n)++;
	for (i = 0; i < issues->n && !rc; i++)
		rc = issue_runs(st, issues->v[i], what, ids, n);
	if (rc) {
		free(*ids);
		*ids = NULL;
		*n = 0;
		return rc;
	}
	lr_ids_sort_unique(*ids, n); /* oldest first, each once */
	if (runs->n == 1 && !issues->n)
		snprintf(name, len, "run-%lld", (long long)(*ids)[0]);
	else if (issues->n == 1 && !runs->n)
		snprintf(name, len, "issue-%s", issues->v[0]);
	else
		snprintf(name, len, "runs-%lld-to-%lld", (long long)(*ids)[0], (long long)(*ids)[*n - 1]);
	for (k = 0; name[k]; k++)
		if (name[k] == '/' || name[k] == '#')
			name[k] = '-';
	return 0;
}

static int print_new_finding(void *arg, const struct lr_finding *f)
{
	(void)arg;
	if (!f->baselined)
		fprintf(stderr, "%s:%ld: %s %s\n", f->file, f->line, f->rule, f->fingerprint);
	return 0;
}

int cmd_scan_runs(struct lr_store *st, const int64_t *runs, int n, int allow, const char *what)
{
	struct lr_scanner s;
	int i, rc;

	if ((rc = lr_scanner_settle(&s, st, NULL, NULL)))
		return rc;
	for (i = 0; i < n && !rc; i++)
		rc = lr_scan_run(&s, st, runs[i], print_new_finding, NULL);
	if (!rc && s.found > s.baselined) {
		if (allow) {
			fprintf(stderr, "labrun: warning: %ld new scan finding(s) published (--allow-findings)\n",
				s.found - s.baselined);
		} else {
			rc = lr_error_set(LR_EREFUSED, "refusing to %s: the scan has %ld new finding(s), listed above",
					  what, s.found - s.baselined);
			lr_error_hint("remove them, accept them in the baseline (labrun scan --run ID --write-baseline "
				      LR_SCAN_BASELINE "), or pass --allow-findings");
		}
	}
	lr_scanner_release(&s);
	return rc;
}

void cmd_warn_license(const char *license)
{
	fprintf(stderr, "labrun: warning: the evidence declares the licence '%s': a hub cannot tell how it may be reused\n"
			"hint: declare it once for this store (labrun config manifest.license CC-BY-4.0), or pass manifest --license NAME\n",
		license);
}

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("labrun: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nhint: see 'labrun %s -h'\n", cmd);
	return LR_EXIT_USAGE;
}

/* Quote one word for a POSIX shell when it needs it. */
static void quote_word(FILE *f, const char *w)
{
	const char *p;

	if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+=/.,:@%") ==
			  strlen(w)) {
		fputs(w, f);
		return;
	}
	fputc('\'', f);
	for (p = w; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", f);
		else
			fputc(*p, f);
	}
	fputc('\'', f);
}

char *cmd_argv_text(const char *argv_json)
{
	json_t *a = json_loads(argv_json, 0, NULL);
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	if (!a)
		return strdup(argv_json);
	f = open_memstream(&buf, &len);
	if (!f) {
		json_decref(a);
		return NULL;
	}
	for (i = 0; i < json_array_size(a); i++) {
		if (i)
			fputc(' ', f);
		quote_word(f, lr_json_bytes_text(json_array_get(a, i)));
	}
	fclose(f);
	json_decref(a);
	return buf;
}

const char *cmd_human_size(char *buf, size_t len, long long bytes)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, len, "%lld B", bytes);
		return buf;
	}
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", v, unit[u]);
	return buf;
}

atomic_int cmd_cancel_requested;

static void on_cancel(int sig)
{
	(void)sig;
	cmd_cancel_requested = 1;
}

void cmd_cancel_install(struct cmd_cancel *c)
{
	struct sigaction sa = { .sa_handler = on_cancel };

	cmd_cancel_requested = 0;
	sigaction(SIGINT, &sa, &c->old_int);
	sigaction(SIGTERM, &sa, &c->old_term);
}

void cmd_cancel_restore(struct cmd_cancel *c)
{
	sigaction(SIGINT, &c->old_int, NULL);
	sigaction(SIGTERM, &c->old_term, NULL);
}

int cmd_split_list(struct lr_strlist *out, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int rc = 0;

	if (!copy)
		return lr_error_set(LR_ENOMEM, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		if (*tok)
			rc = lr_strlist_add(out, tok);
	}
	free(copy);
	return rc;
}

int cmd_trust_load(struct lr_trust *t, const struct lr_strlist *files, const char *only)
{
	size_t i;
	int rc;

	memset(t, 0, sizeof *t);
	rc = only ? lr_trust_add_file(t, only) : lr_trust_load(t);
	for (i = 0; !rc && i < files->n; i++)
		rc = lr_trust_add_file(t, files->v[i]);
	return rc;
}
