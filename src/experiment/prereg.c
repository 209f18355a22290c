/* A design registered before the data: the run's design entry and design head, and what a report says of them. */
#include "config.h"
#include "base/system.h"

#include <fcntl.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/walk.h"
#include "experiment/prereg.h"
#include "store/experiments.h"
#include "store/ledger.h"

/* Write 'text' to 'path' (created or replaced) and fsync it before returning. */
static int write_synced(const char *path, const char *text)
{
	size_t len = strlen(text), off = 0;
	ssize_t n;
	int fd, rc;

	if ((rc = lr_output_replaceable(path)))
		return rc;
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		return lr_error_set(LR_EIO, "cannot write the design head to '%s': %s", path, strerror(errno));
	while (off < len && (n = write(fd, text + off, len - off)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		off += (size_t)n;
	}
	if (off < len || fsync(fd))
		rc = lr_error_set(LR_EIO, "cannot write the design head to '%s': %s", path, strerror(errno));
	if (close(fd) && !rc)
		rc = lr_error_set(LR_EIO, "cannot write the design head to '%s': %s", path, strerror(errno));
	return rc;
}

int lr_prereg_register(struct lr_store *st, int64_t run_id, const struct lr_expdef *d, const char *head_path)
{
	char cases[LR_SHA256_HEX], sha[LR_SHA256_HEX], *env = NULL, *text = NULL;
	int has_cases = 0, rc;
	int64_t seq;

	/* a case set that cannot be read here fails its first execution, which says why */
	if (d->serving && d->cases[0])
		has_cases = !lr_sha256_file(d->cases, cases, NULL) || (lr_error_clear(), 0);
	if ((rc = lr_store_design_register(st, run_id, has_cases ? cases : NULL, &seq)) || !head_path)
		return rc;
	if ((rc = lr_store_head_statement(st, &env)))
		return rc;
	if (asprintf(&text, "%s\n", env) < 0) {
		free(env);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	if (!(rc = write_synced(head_path, text)) && !(rc = lr_sha256_buf(text, strlen(text), sha))) {
		char *abs = realpath(head_path, NULL); /* where it is, as the report shows a definition's path */

		rc = lr_store_design_head_add(st, run_id, abs ? abs : head_path, sha, seq);
		free(abs);
	}
	if (rc)
		lr_error_hint(
			"the design head is written before the first block; check the path given to --design-head");
	free(text);
	free(env);
	return rc;
}

static const char *part(const struct lr_kvlist *l, const char *name)
{
	const struct lr_kv *kv = lr_kvlist_find(l, name);

	return kv ? kv->value : "";
}

/* What differs between two stored designs, field by field, then part by part ("margin 2% -> 5%"). */
static int describe(struct lr_store *st, int64_t was, int64_t now, struct lr_buf *b)
{
	static const char *const parts[][2] = {
		{ "arm", "arms" },
		{ "arm_command", "arm commands" },
		{ "condition", "grid" },
		{ "condition_param", "grid values" },
		{ "serving_cases", "case set" },
	};
	struct lr_store_design x, y;
	struct lr_kvlist px = { 0 }, py = { 0 };
	char d1[LR_SHA256_HEX], d2[LR_SHA256_HEX];
	size_t i;
	int rc;

	if ((rc = lr_store_design(st, was, &x)) || (rc = lr_store_design(st, now, &y)) ||
	    (rc = lr_store_design_digest(st, was, d1, &px)) || (rc = lr_store_design_digest(st, now, d2, &py)))
		goto out;
	if (x.margin != y.margin)
		lr_buf_addf(b, "; margin %g%% -> %g%%", x.margin * 100, y.margin * 100);
	if (x.blocks != y.blocks || x.warmup != y.warmup)
		lr_buf_addf(b, "; blocks %d after %d warm-up -> %d after %d", x.blocks, x.warmup, y.blocks, y.warmup);
	if (strcmp(x.order, y.order))
		lr_buf_addf(b, "; order %s -> %s", x.order, y.order);
	if (x.seed != y.seed)
		lr_buf_addf(b, "; seed %llu -> %llu", (unsigned long long)x.seed, (unsigned long long)y.seed);
	if (strcmp(x.metric, y.metric))
		lr_buf_addf(b, "; metric '%s' -> '%s'", x.metric, y.metric);
	if (strcmp(x.target, y.target) || strcmp(x.backend, y.backend))
		lr_buf_addf(b, "; target %s/%s -> %s/%s", x.target, x.backend, y.target, y.backend);
	for (i = 0; i < sizeof parts / sizeof *parts; i++)
		if (strcmp(part(&px, parts[i][0]), part(&py, parts[i][0])))
			lr_buf_addf(b, "; %s", parts[i][1]);
	if (!b->len) /* the rows agree: only the definition's text differs (a rule, a comment) */
		lr_buf_adds(b, "; the definition's text");
	rc = lr_buf_error(b);
out:
	lr_kvlist_release(&px);
	lr_kvlist_release(&py);
	return rc;
}

int lr_prereg_read(struct lr_store *st, int64_t run_id, struct lr_prereg *out)
{
	struct lr_design_reg was;
	struct lr_buf b = LR_BUF_INIT;
	int64_t earlier;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = lr_store_design_reg(st, run_id, &out->reg)) || !out->reg.seq ||
	    (rc = lr_store_design_earlier(st, run_id, &earlier)) || !earlier ||
	    (rc = lr_store_design_reg(st, earlier, &was)) || !strcmp(was.content, out->reg.content))
		return rc;
	out->earlier = earlier;
	if (!(rc = describe(st, earlier, run_id, &b)))
		lr_fmt_cut(out->changes, sizeof out->changes, "%s", b.buf + 2);
	lr_buf_release(&b);
	return rc;
}
