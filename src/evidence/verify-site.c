/*
 * A crate's site against the one its rows give now: built again, with
 * report/'s own code, from the throwaway store verify loaded the crate into,
 * the ledger's signers held to the key the crate's statement names and each
 * run's entries those of ledger.json, then compared page by page. A page
 * that differs is named with the heading it is under and the words.
 */
#include "config.h"
#include "base/system.h"

#include "base/buf.h"
#include "base/error.h"
#include "base/lines.h"
#include "base/sha256.h"
#include "base/walk.h"
#include "evidence/manifest.h"
#include "evidence/object.h"
#include "evidence/verify.h"
#include "report/report.h"

#define PAGE_MAX (64u << 20) /* a page larger than this is not read */

struct vsite {
	const struct lr_verified *v;
	const char *crate; /* the crate's site/ */
	const char *built; /* the one built again */
	lr_verify_fn fn;
	void *arg;
	int *problems;
	struct lr_strlist seen; /* the crate's pages, relative to site/ */
};

static void say(struct vsite *s, const char *rel, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(struct vsite *s, const char *rel, const char *fmt, ...)
{
	struct lr_buf file = LR_BUF_INIT, msg = LR_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	lr_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	lr_buf_addf(&file, "site/%s", rel);
	(*s->problems)++;
	s->fn(s->arg, file.failed ? "site" : file.buf, msg.failed ? "differs" : msg.buf);
	lr_buf_release(&file);
	lr_buf_release(&msg);
}

/* ledger.json's entries of run r, as the store that wrote the crate had them. */
static int crate_entries(void *arg, const struct lr_run *r, int (*fn)(void *, const struct lr_ledger_entry *),
			 void *fnarg)
{
	const struct lr_verified *v = arg;
	json_t *e;
	size_t i;
	int rc = 0;

	json_array_foreach(v->ledger, i, e) {
		/* clang-format off */
		struct lr_ledger_entry le = {
			.seq = json_integer_value(json_object_get(e, "seq")),
			.run_uuid = json_string_value(json_object_get(e, "run_uuid")),
			.kind = json_string_value(json_object_get(e, "kind")) ?: "",
			.content = json_string_value(json_object_get(e, "content")) ?: "",
			.prev = json_string_value(json_object_get(e, "prev")) ?: "",
			.digest = json_string_value(json_object_get(e, "digest")) ?: "",
			.appended_at = json_string_value(json_object_get(e, "appended_at")) ?: "",
			.key_fingerprint = json_string_value(json_object_get(e, "key_fingerprint")),
			.signature = json_string_value(json_object_get(e, "signature")),
			.public_key = json_string_value(json_object_get(e, "public_key")),
		};
		/* clang-format on */

		if (le.run_uuid && !strcmp(le.run_uuid, r->uuid) && (rc = fn(fnarg, &le)))
			break;
	}
	return rc;
}

/* The heading (h1 to h3) above offset 'at' of an HTML page, its tags left out, into b. */
static void heading_above(struct lr_buf *b, const char *page, size_t at)
{
	const char *h = NULL, *p;

	for (p = page; (p = strstr(p, "<h")) && (size_t)(p - page) < at; p++)
		if (p[2] >= '1' && p[2] <= '3')
			h = p;
	if (!h) {
		lr_buf_adds(b, "the top of the page");
		return;
	}
	lr_buf_addch(b, '"');
	for (p = strchr(h, '>'); p && *++p && strncmp(p, "</h", 3) && b->len < 200;)
		if (*p == '<')
			p = strchr(p, '>') ?: p + strlen(p) - 1;
		else
			lr_buf_addch(b, *p);
	lr_buf_addch(b, '"');
}

/* Page rel differs: the line where it does, the heading it is under, the words of both. */
static void page_diff(struct vsite *s, const char *rel, const char *a, const char *b)
{
	struct lr_buf m = LR_BUF_INIT;
	size_t k = 0, line = 1, from;
	char *la, *lb;

	while (a[k] && a[k] == b[k])
		line += a[k++] == '\n';
	for (from = k; from > 0 && a[from - 1] != '\n';)
		from--;
	la = strndup(a + from, strcspn(a + from, "\n"));
	lb = strndup(b + from, strcspn(b + from, "\n"));
	lr_buf_addf(&m, "line %zu, under ", line);
	heading_above(&m, b, k);
	lr_buf_adds(&m, ": ");
	if (la && lb)
		lr_verify_words(&m, la, lb);
	say(s, rel, "%s", m.failed ? "differs" : m.buf);
	lr_buf_release(&m);
	free(la);
	free(lb);
}

static char *page(const char *dir, const char *rel)
{
	struct lr_buf path = LR_BUF_INIT;
	char *text = NULL;
	size_t len;

	lr_buf_addf(&path, "%s/%s", dir, rel);
	if (path.failed || lr_read_regular_text(rel, path.buf, PAGE_MAX, &text, &len)) {
		lr_error_clear();
		text = NULL;
	}
	lr_buf_release(&path);
	return text;
}

/*
 * A log the site copied (logs/SHA256.txt, as large as a log may be, and
 * not text): the crate's and the one built again hash alike, streamed.
 */
static void crate_log(struct vsite *s, const char *full, const char *rel)
{
	char a[LR_SHA256_HEX], b[LR_SHA256_HEX];
	struct lr_buf built = LR_BUF_INIT;

	lr_buf_addf(&built, "%s/%s", s->built, rel);
	if (built.failed || lr_sha256_file(built.buf, b, NULL))
		say(s, rel, "is not a log its rows give");
	else if (lr_sha256_regular(full, a, NULL))
		say(s, rel, "cannot be read");
	else if (strcmp(a, b))
		say(s, rel, "differs from the log its rows give (sha256 %.12s, theirs %.12s)", a, b);
	lr_error_clear();
	lr_buf_release(&built);
}

/* A page of the crate's site: the one built again must be there, byte for byte. */
static int crate_page(void *arg, const char *full, const char *rel)
{
	struct vsite *s = arg;
	char *a, *b;

	if (lr_strlist_add(&s->seen, rel))
		return LR_ENOMEM;
	if (!strncmp(rel, "logs/", 5)) {
		crate_log(s, full, rel);
		return 0;
	}
	a = page(s->crate, rel);
	b = page(s->built, rel);
	if (!b)
		say(s, rel, "is not a page its rows give");
	else if (!a)
		say(s, rel, "cannot be read");
	else if (strcmp(a, b))
		page_diff(s, rel, a, b);
	free(a);
	free(b);
	return 0;
}

/* The crate's site as lr_walk finds it, no link followed: its regular files only (the rest lr_crate_verify named). */
static int crate_entry(void *arg, const char *full, const char *rel, enum lr_walk_type type)
{
	struct vsite *s = arg;
	char signed_name[PATH_MAX];

	if (type != LR_WALK_FILE)
		return 0;
	snprintf(signed_name, sizeof signed_name, "site/%s", rel);
	if (lr_strlist_contains(&s->v->added, signed_name)) /* named as added, and never read */
		return lr_strlist_add(&s->seen, rel);
	return crate_page(arg, full, rel);
}

/* A page built again that the crate's site lacks. */
static int built_page(void *arg, const char *full, const char *rel)
{
	struct vsite *s = arg;

	(void)full;
	if (!lr_strlist_contains(&s->seen, rel))
		say(s, rel, "is missing, though its rows give it");
	return 0;
}

int lr_verify_site(const char *dir, const struct lr_verified *v, lr_verify_fn fn, void *arg, int *problems)
{
	struct vsite s = { .v = v, .fn = fn, .arg = arg, .problems = problems };
	struct lr_buf crate = LR_BUF_INIT, built = LR_BUF_INIT;
	char tmp[PATH_MAX] = "";
	struct lr_trusted_key k;
	struct lr_trust t;
	struct stat sb;
	int rc;

	lr_buf_addf(&crate, "%s/site", dir);
	if ((rc = lr_buf_error(&crate)) || !v->site ||
	    !v->st) { /* no site, or one of before: its digests were checked */
		lr_buf_release(&crate);
		return rc;
	}
	if (lstat(crate.buf, &sb) || !S_ISDIR(sb.st_mode)) {
		(*problems)++;
		fn(arg, "site", "is missing, though the crate's statement says it holds one");
		lr_buf_release(&crate);
		return 0;
	}
	if ((rc = lr_temp_dir(tmp, sizeof tmp, "labrun-verify-site"))) {
		tmp[0] = '\0';
		goto out;
	}
	lr_buf_addf(&built, "%s/site", tmp);
	if ((rc = lr_buf_error(&built)) || mkdir(built.buf, 0700) != 0) {
		rc = rc ? rc : lr_error_set(LR_EIO, "cannot create '%s': %s", built.buf, strerror(errno));
		goto out;
	}
	lr_crate_site_trust(&t, &k, v->site_signer);
	if ((rc = lr_render_site_with(v->st, &(struct lr_site_opts){ &t, crate_entries, (void *)v, lr_object_save },
				      v->ids, v->nids, built.buf)))
		goto out;
	s.crate = crate.buf;
	s.built = built.buf;
	if (!(rc = lr_walk(crate.buf, crate_entry, &s)))
		rc = lr_walk_files(built.buf, built_page, &s);
out:
	if (tmp[0])
		lr_remove_tree(tmp);
	lr_strlist_release(&s.seen);
	lr_buf_release(&crate);
	lr_buf_release(&built);
	return rc;
}
