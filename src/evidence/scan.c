/* The sensitive-content scan: rules, fingerprints, baselines, and what it reads. */
#include "config.h"
#include "base/system.h"

#include <sys/mman.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/sha256.h"
#include "base/walk.h"
#include "encode/npy.h"
#include "evidence/object.h"
#include "evidence/scan.h"
#include "record/checks.h"
#include "record/runjson.h"
#include "record/secretlike.h"
#include "store/collect.h"
#include "store/experiments.h"
#include "store/ledger.h"
#include "store/objects.h"
#include "store/remote.h"
#include "store/runs.h"

/* Files that are credentials by their name alone. */
static const char *const credential_files[] = { ".netrc", "_netrc", ".git-credentials", ".pgpass",    "credentials",
						"id_rsa", "id_dsa", "id_ecdsa",         "id_ed25519", ".htpasswd",
						NULL };

int lr_scanner_init(struct lr_scanner *s, const struct lr_strlist *internal, const char *baseline)
{
	char line[512];
	size_t i;
	FILE *f;
	int rc;

	memset(s, 0, sizeof *s);
	if (internal && internal->n) {
		if (!(s->internal = calloc(internal->n, sizeof *s->internal)))
			return lr_error_set(LR_ENOMEM, "out of memory");
		for (i = 0; i < internal->n; i++, s->ninternal++) {
			if ((rc = regcomp(&s->internal[i], internal->v[i], REG_EXTENDED))) {
				char why[128];

				regerror(rc, &s->internal[i], why, sizeof why);
				lr_scanner_release(s);
				rc = lr_error_set(LR_EINVAL, "cannot use internal pattern '%s': %s", internal->v[i],
						  why);
				lr_error_hint(
					"patterns are POSIX extended regular expressions, e.g. '10\\.1\\.[0-9]+\\.[0-9]+'");
				return rc;
			}
		}
	}
	if (!baseline)
		return 0;
	if ((rc = lr_fopen_input("baseline", baseline, (size_t)64 << 20, &f))) { /* never a FIFO waited on */
		lr_scanner_release(s);
		return rc;
	}
	while (!rc && fgets(line, sizeof line, f)) {
		size_t n = strspn(line, "0123456789abcdef");

		if (n == 16 && (line[16] == 0 || strchr(" \t\r\n#", line[16]))) {
			line[16] = 0;
			rc = lr_strlist_add(&s->baseline, line);
		}
	}
	fclose(f);
	if (rc) {
		lr_scanner_release(s);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	return 0;
}

int lr_scanner_settle(struct lr_scanner *s, struct lr_store *st, const struct lr_strlist *internal,
		      const char *baseline)
{
	struct lr_strlist all = { 0 };
	char *patterns = NULL, *base = NULL, *tok, *save = NULL;
	size_t i;
	int rc = 0;

	for (i = 0; internal && i < internal->n && !rc; i++)
		rc = lr_strlist_add(&all, internal->v[i]);
	if (!rc && st && !(rc = lr_store_setting_get(st, "scan.internal", &patterns)) && patterns)
		for (tok = strtok_r(patterns, " \t\n", &save); tok && !rc; tok = strtok_r(NULL, " \t\n", &save))
			rc = lr_strlist_add(&all, tok);
	if (!rc && !baseline && st && !(rc = lr_store_setting_get(st, "scan.baseline", &base)) && base)
		baseline = base;
	if (!rc && !baseline && access(LR_SCAN_BASELINE, F_OK) == 0)
		baseline = LR_SCAN_BASELINE;
	if (!rc)
		rc = lr_scanner_init(s, &all, baseline);
	lr_strlist_release(&all);
	free(patterns);
	free(base);
	return rc;
}

void lr_scanner_release(struct lr_scanner *s)
{
	size_t i;

	for (i = 0; i < s->ninternal; i++)
		regfree(&s->internal[i]);
	free(s->internal);
	lr_strlist_release(&s->baseline);
	lr_strlist_release(&s->seen);
	free(s->last);
	memset(s, 0, sizeof *s);
}

/* Under lr_scan_run: 1 when the finding was reported for the run already (seen_mode 2), else 0; or LR_ENOMEM. */
static int seen(struct lr_scanner *s, const char *rule, const char *match, size_t mlen)
{
	char hex[LR_SHA256_HEX];
	struct lr_sha256 h;
	int rc;

	if ((rc = lr_sha256_init(&h)))
		return rc;
	lr_sha256_update(&h, rule, strlen(rule) + 1);
	lr_sha256_update(&h, match, mlen);
	lr_sha256_final(&h, hex);
	lr_sha256_release(&h);
	if (s->seen_mode == 2)
		return lr_strlist_contains(&s->seen, hex);
	return lr_strlist_contains(&s->seen, hex) ? 0
	       : lr_strlist_add(&s->seen, hex)    ? lr_error_set(LR_ENOMEM, "out of memory")
						  : 0;
}

static int report(struct lr_scanner *s, const char *file, long line, const char *rule, const char *match, size_t mlen,
		  lr_finding_fn fn, void *arg)
{
	struct lr_finding f = { NULL, line, rule, { 0 }, 0 };
	char hex[LR_SHA256_HEX];
	struct lr_sha256 h;
	int rc;

	if (s->seen_mode && (rc = seen(s, rule, match, mlen)))
		return rc < 0 ? rc : 0;          /* 1: reported for this run already */
	while (file[0] == '.' && file[1] == '/') /* "./x" and "x" are the same file */
		for (file += 2; *file == '/'; file++)
			;
	f.file = file;
	if ((rc = lr_sha256_init(&h)))
		return rc;
	lr_sha256_update(&h, "labrun-scan-1", 14);
	lr_sha256_update(&h, rule, strlen(rule) + 1);
	lr_sha256_update(&h, file, strlen(file) + 1);
	lr_sha256_update(&h, match, mlen);
	lr_sha256_final(&h, hex);
	lr_sha256_release(&h);
	memcpy(f.fingerprint, hex, 16);
	f.baselined = lr_strlist_contains(&s->baseline, f.fingerprint);
	s->found++;
	s->baselined += f.baselined;
	if (!s->last || strcmp(s->last, file)) { /* a file's findings come together */
		free(s->last);
		if (!(s->last = strdup(file)))
			return lr_error_set(LR_ENOMEM, "out of memory");
		s->found_files++;
	}
	return fn(arg, &f);
}

struct line_ctx {
	struct lr_scanner *s;
	const char *name;
	long lineno;
	lr_finding_fn fn;
	void *arg;
};

static int rule_found(void *arg, const char *rule, const char *match, size_t len)
{
	struct line_ctx *c = arg;

	return report(c->s, c->name, c->lineno, rule, match, len, c->fn, c->arg);
}

/* Every rule (record/secretlike.c) and internal pattern over one NUL-terminated line. */
static int scan_line(struct lr_scanner *s, const char *name, long lineno, const char *line, lr_finding_fn fn, void *arg)
{
	struct line_ctx c = { s, name, lineno, fn, arg };
	regmatch_t m;
	size_t i;
	int rc = lr_secretlike_line(line, rule_found, &c);

	for (i = 0; i < s->ninternal && !rc; i++)
		if (!regexec(&s->internal[i], line, 1, &m, 0))
			rc = report(s, name, lineno, "internal-address", line + m.rm_so, (size_t)(m.rm_eo - m.rm_so),
				    fn, arg);
	return rc;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

int lr_scan_buffer(struct lr_scanner *s, const char *name, const void *data, size_t len, lr_finding_fn fn, void *arg)
{
	const char *p = data, *end = p ? p + len : p; /* an empty file maps to NULL */
	char *line = NULL;
	size_t cap = 0, i;
	long lineno = 0;
	int rc = 0;

	for (i = 0; credential_files[i]; i++)
		if (!strcmp(base_name(name), credential_files[i]))
			return report(s, name, 1, "credential-file", name, strlen(name), fn, arg);
	if (len && memchr(data, 0, len < 8192 ? len : 8192)) {
		s->skipped++;
		return 0;
	}
	s->files++;
	while (!rc && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		lineno++;
		if (n + 1 > cap) {
			char *b = realloc(line, n + 1);

			if (!b) {
				rc = lr_error_set(LR_ENOMEM, "out of memory");
				break;
			}
			line = b;
			cap = n + 1;
		}
		memcpy(line, p, n);
		line[n] = 0;
		if (!memchr(line, 0, n)) /* a NUL past the first 8 KiB: the line is not text */
			rc = scan_line(s, name, lineno, line, fn, arg);
		p += n + 1;
	}
	free(line);
	return rc;
}

struct path_ctx {
	struct lr_scanner *s;
	lr_finding_fn fn;
	void *arg;
};

static int scan_file(void *arg, const char *full, const char *rel, enum lr_walk_type type)
{
	struct path_ctx *c = arg;
	struct lr_mapped m;
	int rc;

	(void)rel;
	if (type != LR_WALK_FILE) { /* links are scanned where they point, if at all */
		c->s->skipped += type != LR_WALK_EMPTY_DIR;
		return 0;
	}
	if (lr_map_file(&m, full)) {
		lr_error_clear();
		c->s->skipped++;
		return 0;
	}
	rc = lr_scan_buffer(c->s, full, m.addr, m.len, c->fn, c->arg);
	lr_unmap(&m);
	return rc;
}

int lr_scan_path(struct lr_scanner *s, const char *path, lr_finding_fn fn, void *arg)
{
	struct path_ctx c = { s, fn, arg };
	struct stat sb;

	if (lstat(path, &sb))
		return lr_error_set(LR_ENOTFOUND, "cannot scan '%s': %s", path, strerror(errno));
	return lr_walk(path, scan_file, &c);
}

struct run_ctx {
	struct lr_scanner *s;
	struct lr_store *st;
	int64_t run;
	lr_finding_fn fn;
	void *arg;
};

/* One stored object of the run: from objects/, or from the archive it was pruned into. */
static int scan_object(void *arg, const char *name, const char *sha256, int input)
{
	struct run_ctx *c = arg;
	struct lr_object o;
	struct lr_mapped m = { 0 };
	char label[4096];
	int rc;

	(void)input;
	snprintf(label, sizeof label, "run-%lld/%s", (long long)c->run, name);
	if (!(rc = lr_object_find(c->st, sha256, LR_OBJECT_FETCH, &o)) && !(rc = lr_object_map(&o, &m))) {
		rc = lr_scan_buffer(c->s, label, m.addr, m.len, c->fn, c->arg);
		lr_unmap(&m);
	}
	lr_object_release(&o);
	return rc;
}

/* One line of run-ID/collect_request.failure: set, route and case, and why the request failed. */
static int failure_line(void *arg, const struct lr_collect_failure *f)
{
	lr_buf_addf(arg, "set %lld route %s case %s: %s\n", (long long)f->set, f->route, f->case_id, f->failure);
	return lr_buf_error(arg);
}

/*
 * What a crate publishes of a run beside its files: the definition as
 * stored, the failures of its requests (in its report), and the bundle of its rows (none for a run still running), read
 * for what the files did not show.
 */
static int scan_rows(struct lr_scanner *s, struct lr_store *st, int64_t id, lr_finding_fn fn, void *arg)
{
	char label[64], *path = NULL, *text = NULL;
	struct lr_buf fails = LR_BUF_INIT;
	struct lr_bundle b;
	int rc = 0;

	memset(&b, 0, sizeof b);
	if (!lr_store_definition(st, id, &path, &text)) {
		snprintf(label, sizeof label, "run-%lld/definition.ini", (long long)id);
		rc = lr_scan_buffer(s, label, text, strlen(text), fn, arg);
	}
	lr_error_clear(); /* a run without a definition */
	if (!rc && !(rc = lr_store_collect_failures(st, id, failure_line, &fails)) && fails.len) {
		snprintf(label, sizeof label, "run-%lld/collect_request.failure", (long long)id);
		rc = lr_scan_buffer(s, label, fails.buf, fails.len, fn, arg); /* in its report, sealed or not */
	}
	if (!rc && !(rc = lr_store_run_bundle_here(st, id, &b))) {
		snprintf(label, sizeof label, "run-%lld/bundle.json", (long long)id);
		s->seen_mode = 2;
		rc = lr_scan_buffer(s, label, b.text, strlen(b.text), fn, arg);
	} else if (rc == LR_EINVAL) { /* still running, or never sealed: no bundle */
		lr_error_clear();
		rc = 0;
	}
	lr_bundle_release(&b);
	lr_buf_release(&fails);
	free(path);
	free(text);
	return rc;
}

int lr_scan_run(struct lr_scanner *s, struct lr_store *st, int64_t id, lr_finding_fn fn, void *arg)
{
	struct run_ctx c = { s, st, id, fn, arg };
	char label[64], *text = NULL;
	struct lr_run run;
	size_t i;
	json_t *j;
	int rc;

	lr_run_init(&run);
	lr_strlist_release(&s->seen);
	s->seen_mode = 1;
	if ((rc = lr_store_run_load(st, id, &run)))
		goto out;
	if (!(j = lr_run_json(&run, 1)) || !(text = json_dumps(j, JSON_INDENT(1) | JSON_SORT_KEYS))) {
		json_decref(j);
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto out;
	}
	json_decref(j);
	snprintf(label, sizeof label, "run-%lld/run.json", (long long)id);
	rc = lr_scan_buffer(s, label, text, strlen(text), fn, arg);
	for (i = 0; i < run.nartifacts && !rc; i++) {
		const struct lr_artifact *a = &run.artifacts[i];
		char name[4096];

		if (!a->sha256[0])
			continue; /* declared but missing */
		if (!strcmp(a->role, a->name))
			snprintf(name, sizeof name, "%s", a->name);
		else
			snprintf(name, sizeof name, "%s/%s", a->role, a->name);
		rc = scan_object(&c, name, a->sha256, 0);
	}
	if (!rc)
		rc = lr_store_run_evidence_objects(st, id, scan_object, &c);
	if (!rc)
		rc = scan_rows(s, st, id, fn, arg);
out:
	s->seen_mode = 0;
	lr_strlist_release(&s->seen);
	free(text);
	lr_run_release(&run);
	return rc;
}

/* "N WORD" or "N WORDs". */
static void count(struct lr_buf *b, long n, const char *word)
{
	lr_buf_addf(b, "%ld %s%s", n, word, n == 1 ? "" : "s");
}

int lr_scan_check(const struct lr_scanner *s, const char *scope, struct lr_check *c)
{
	struct lr_buf name = LR_BUF_INIT, detail = LR_BUF_INIT;

	memset(c, 0, sizeof *c);
	lr_buf_adds(&name, "sensitive scan");
	if (scope)
		lr_buf_addf(&name, " (%s)", scope);
	if (!s->found) {
		lr_buf_adds(&detail, "no findings");
	} else {
		count(&detail, s->found, "finding");
		lr_buf_adds(&detail, " in ");
		count(&detail, s->found_files, "file");
		if (s->found == s->baselined)
			lr_buf_adds(&detail, ", all in the baseline");
		else
			lr_buf_addf(&detail, ": %ld new, %ld in the baseline", s->found - s->baselined, s->baselined);
	}
	lr_buf_adds(&detail, "; ");
	count(&detail, s->files, "file");
	lr_buf_adds(&detail, " scanned");
	c->passed = s->baselined;
	c->total = s->found;
	c->name = lr_buf_detach(&name, NULL);
	c->detail = lr_buf_detach(&detail, NULL);
	if (c->name && c->detail)
		return 0;
	lr_check_release(c);
	return lr_error_set(LR_ENOMEM, "out of memory");
}
