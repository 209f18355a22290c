#include "config.h"
#include "base/system.h"

#include "base/buf.h"
#include "base/error.h"
#include "base/list.h"
#include "record/redact.h"
#include "record/secretlike.h"

/* Substrings of a variable name (upper-cased) that mark it secret. */
/* clang-format off */
static const char *const secret_words[] = {
	"TOKEN", "SECRET", "KEY", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL",
	"AUTH", "PRIVATE", "COOKIE", "SESSION", "SIGNATURE", "PAT",
};
/* clang-format on */

/*
 * What a reproduction needs: thread and affinity settings, device selectors,
 * library paths, interpreter settings, locale. Entries ending in '*' are
 * prefixes.
 */
/* clang-format off */
static const char *const allowlist[] = {
	"OMP_*", "MKL_*", "OPENBLAS_*", "GOMP_*", "KMP_*", "BLIS_*", "NUMEXPR_*", "VECLIB_*",
	"TBB_*", "RAYON_NUM_THREADS", "TOKENIZERS_PARALLELISM",
	"CUDA_*", "NVIDIA_*", "NCCL_*", "HIP_*", "ROCR_*", "HSA_*", "RBLN_*", "REBEL_*",
	"TORCH_*", "PYTORCH_*", "XLA_*", "TF_*", "HF_*", "TRANSFORMERS_*", "VLLM_*",
	"LD_LIBRARY_PATH", "LD_PRELOAD", "LD_BIND_NOW", "PATH", "PYTHON*", "VIRTUAL_ENV",
	"CONDA_PREFIX", "CONDA_DEFAULT_ENV", "LANG", "LC_*", "TZ", "MALLOC_*", "LABRUN_*",
};
/* clang-format on */

/*
 * Whether a variable's name (NAME or NAME=value: the name, however long)
 * holds one of secret_words in any case. The name is upper-cased once
 * (ASCII) and each word found with strstr: toupper() per byte and per word
 * was most of what a record spent looking at its environment.
 */
int lr_env_name_is_secret(const char *name)
{
	size_t n = strcspn(name, "="), i;
	char stack[256], *up = n < sizeof stack ? stack : malloc(n + 1);
	int found = 0;

	if (!up)
		return 1; /* no memory to look: taken for a secret, so its value is not kept */
	for (i = 0; i < n; i++)
		up[i] = name[i] >= 'a' && name[i] <= 'z' ? (char)(name[i] - ('a' - 'A')) : name[i];
	up[n] = '\0';
	for (i = 0; i < sizeof secret_words / sizeof secret_words[0] && !found; i++) {
		const char *w = secret_words[i], *p;

		if (strcmp(w, "PAT")) {
			found = strstr(up, w) != NULL;
			continue;
		}
		/* Only as a word of its own (GITHUB_PAT), not in PATH or PATTERN. */
		for (p = strstr(up, w); p && !found; p = strstr(p + 1, w))
			found = (p == up || p[-1] == '_') && (p[3] == '\0' || p[3] == '_');
	}
	if (up != stack)
		free(up);
	return found;
}

int lr_env_name_is_captured(const char *name)
{
	size_t i, n;

	for (i = 0; i < sizeof allowlist / sizeof allowlist[0]; i++) {
		n = strlen(allowlist[i]);
		if (allowlist[i][n - 1] == '*') {
			if (!strncmp(name, allowlist[i], n - 1))
				return 1;
		} else if (!strcmp(name, allowlist[i])) {
			return 1;
		}
	}
	return 0;
}

static int cmp_kv(const void *a, const void *b)
{
	return strcmp(((const struct lr_kv *)a)->key, ((const struct lr_kv *)b)->key);
}

int lr_env_capture(struct lr_kvlist *out, char *const *envp)
{
	struct lr_buf name = LR_BUF_INIT;
	size_t i;
	int rc = 0;

	for (i = 0; envp && envp[i] && !rc; i++) {
		const char *eq = strchr(envp[i], '=');

		if (!eq || eq == envp[i])
			continue;
		lr_buf_reset(&name);
		lr_buf_add(&name, envp[i], (size_t)(eq - envp[i]));
		if ((rc = lr_buf_error(&name)))
			break;
		if (lr_env_name_is_secret(name.buf))
			rc = lr_kvlist_set(out, name.buf, LR_REDACTED, "redacted");
		else if (lr_env_name_is_captured(name.buf))
			rc = lr_kvlist_set(out, name.buf, eq + 1, NULL);
	}
	lr_buf_release(&name);
	if (!rc)
		qsort(out->v, out->n, sizeof *out->v, cmp_kv);
	return rc;
}

/* Add one secret value to the scrubber (values too short to scrub are skipped). */
static int scrub_add(struct lr_scrub *s, const char *value)
{
	if (strlen(value) < LR_SCRUB_MIN)
		return 0;
	if (LR_ALLOC_GROW(s->secrets, s->n + 1, s->cap) || LR_ALLOC_GROW(s->lens, s->n + 1, s->lcap))
		return LR_ENOMEM;
	if (!(s->secrets[s->n] = strdup(value)))
		return LR_ENOMEM;
	s->lens[s->n] = strlen(value);
	if (s->lens[s->n] > s->maxlen)
		s->maxlen = s->lens[s->n];
	s->n++;
	return 0;
}

int lr_scrub_init_values(struct lr_scrub *s, const struct lr_strlist *values)
{
	size_t i;

	memset(s, 0, sizeof *s);
	for (i = 0; values && i < values->n; i++)
		if (scrub_add(s, values->v[i])) {
			lr_scrub_release(s);
			return lr_error_set(LR_ENOMEM, "out of memory");
		}
	return 0;
}

int lr_env_secrets(struct lr_strlist *out, char *const *envp)
{
	struct lr_scrub s;
	size_t i;
	int rc;

	if ((rc = lr_scrub_init(&s, envp)))
		return rc;
	for (i = 0; i < s.n && !rc; i++)
		if (!lr_strlist_contains(out, s.secrets[i]))
			rc = lr_strlist_add(out, s.secrets[i]);
	lr_scrub_release(&s);
	return rc ? lr_error_set(LR_ENOMEM, "out of memory") : 0;
}

int lr_scrub_init(struct lr_scrub *s, char *const *envp)
{
	size_t i;

	memset(s, 0, sizeof *s);
	for (i = 0; envp && envp[i]; i++) {
		const char *eq = strchr(envp[i], '=');

		/* the name, however long, decides: a long one must not carry a secret into the logs */
		if (eq && lr_env_name_is_secret(envp[i]) && scrub_add(s, eq + 1)) {
			lr_scrub_release(s);
			return lr_error_set(LR_ENOMEM, "out of memory");
		}
	}
	return 0;
}

void lr_scrub_release(struct lr_scrub *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->secrets[i]);
	free(s->secrets);
	free(s->lens);
	free(s->buf);
	memset(s, 0, sizeof *s);
}

/* Earliest occurrence of any secret in p[0..n): its offset and index, or -1. */
static long find_secret(const struct lr_scrub *s, const unsigned char *p, size_t n, size_t *which)
{
	long best = -1;
	size_t i;

	for (i = 0; i < s->n; i++) {
		const unsigned char *m = memmem(p, n, s->secrets[i], s->lens[i]);

		if (m && (best < 0 || m - p < best)) {
			best = m - p;
			*which = i;
		}
	}
	return best;
}

static int emit(lr_sink_fn sink, void *arg, const void *data, size_t len)
{
	return sink && len ? sink(arg, data, len) : 0;
}

int lr_scrub_feed(struct lr_scrub *s, const void *data, size_t len, lr_sink_fn sink, void *arg, int *found)
{
	size_t pos = 0, which = 0, keep, total;
	long at;
	int rc;

	if (!s->n)
		return emit(sink, arg, data, len);
	if (!len) /* nothing new: memcpy and pointer arithmetic on a NULL buffer would be undefined */
		return 0;
	if ((rc = LR_ALLOC_GROW(s->buf, s->nbuf + len, s->capbuf)))
		return rc;
	memcpy(s->buf + s->nbuf, data, len);
	total = s->nbuf + len;
	while ((at = find_secret(s, s->buf + pos, total - pos, &which)) >= 0) {
		if (found)
			*found = 1;
		if ((rc = emit(sink, arg, s->buf + pos, (size_t)at)) ||
		    (rc = emit(sink, arg, LR_REDACTED, strlen(LR_REDACTED))))
			return rc;
		pos += (size_t)at + s->lens[which];
	}
	/* Hold back what could be the start of a secret completed by the next chunk: it stays in buf, which
	 * holds nbuf + len >= keep bytes here (the chunk was appended above), so the window always fits. */
	keep = s->maxlen - 1;
	if (total - pos > keep) {
		if ((rc = emit(sink, arg, s->buf + pos, total - pos - keep)))
			return rc;
		pos = total - keep;
	}
	memmove(s->buf, s->buf + pos, total - pos);
	s->nbuf = total - pos;
	return 0;
}

int lr_scrub_flush(struct lr_scrub *s, lr_sink_fn sink, void *arg)
{
	int rc = emit(sink, arg, s->buf, s->nbuf);

	s->nbuf = 0;
	return rc;
}

/*
 * Each secret scrubbed is at least LR_SCRUB_MIN bytes (shorter values are
 * never scrubbed: scrub_add), so a string of 'len' bytes holds at most
 * len / LR_SCRUB_MIN of them, each replaced by the marker: the bound below.
 */
_Static_assert(LR_SCRUB_MIN > 0, "the scrubbed-string bound divides by LR_SCRUB_MIN");

char *lr_scrub_string(const struct lr_scrub *s, const char *str)
{
	size_t len = strlen(str), pos = 0, which = 0, out = 0, marker = strlen(LR_REDACTED);
	size_t cap = len / LR_SCRUB_MIN * marker + len + 1;
	char *res;
	long at;

	if (!(res = malloc(cap)))
		return NULL;
	while (s->n && (at = find_secret(s, (const unsigned char *)str + pos, len - pos, &which)) >= 0) {
		if (s->lens[which] < LR_SCRUB_MIN || out + (size_t)at + marker + (len - pos) >= cap) {
			free(res); /* the bound above is broken: never write past it */
			return NULL;
		}
		memcpy(res + out, str + pos, (size_t)at);
		out += (size_t)at;
		memcpy(res + out, LR_REDACTED, strlen(LR_REDACTED));
		out += strlen(LR_REDACTED);
		pos += (size_t)at + s->lens[which];
	}
	memcpy(res + out, str + pos, len - pos);
	res[out + len - pos] = '\0';
	return res;
}

/* Replace *p by its scrubbed copy. */
static int scrub_field(const struct lr_scrub *s, char **p)
{
	char *c;

	if (!*p)
		return 0;
	if (!(c = lr_scrub_string(s, *p)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	free(*p);
	*p = c;
	return 0;
}

static int scrub_kvs(const struct lr_scrub *s, struct lr_kvlist *l)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < l->n && !rc; i++)
		if (!(rc = scrub_field(s, &l->v[i].key)))
			rc = scrub_field(s, &l->v[i].value);
	return rc;
}

int lr_run_scrub(struct lr_run *r)
{
	char **fields[] = { &r->experiment,     &r->failure,        &r->cwd,
			    &r->argv_json,      &r->note,           &r->host.hostname,
			    &r->host.os,        &r->host.kernel,    &r->host.arch,
			    &r->host.cpu_model, &r->host.cpu_flags, &r->source.repo_path,
			    &r->source.head,    &r->source.branch };
	struct lr_scrub s;
	size_t i;
	int rc;

	if (!r->secrets.n)
		return 0;
	if ((rc = lr_scrub_init_values(&s, &r->secrets)))
		return rc;
	for (i = 0; i < sizeof fields / sizeof *fields && !rc; i++)
		rc = scrub_field(&s, fields[i]);
	for (i = 0; i < r->nfiles && !rc; i++)
		rc = scrub_field(&s, &r->files[i].path);
	for (i = 0; i < r->issues.n && !rc; i++)
		rc = scrub_field(&s, &r->issues.v[i]);
	for (i = 0; i < r->nartifacts && !rc; i++)
		if (!(rc = scrub_field(&s, &r->artifacts[i].name)))
			rc = scrub_field(&s, &r->artifacts[i].target);
	for (i = 0; i < r->nmeasures && !rc; i++)
		if (!(rc = scrub_field(&s, &r->measures[i].name)))
			rc = scrub_field(&s, &r->measures[i].unit);
	for (i = 0; i < r->nchecks && !rc; i++) /* what the command wrote to $LABRUN_CHECKS */
		if (!(rc = scrub_field(&s, &r->checks[i].name)))
			rc = scrub_field(&s, &r->checks[i].detail);
	if (!rc && !(rc = scrub_kvs(&s, &r->env)) && !(rc = scrub_kvs(&s, &r->binding)) &&
	    !(rc = scrub_kvs(&s, &r->geometry)))
		rc = scrub_kvs(&s, &r->tools);
	lr_scrub_release(&s);
	return rc;
}

int lr_text_holds_secret(const struct lr_strlist *secrets, const char *text, int *found)
{
	struct lr_scrub s;
	char *c;
	int rc;

	*found = 0;
	if (!secrets->n || !text)
		return 0;
	if ((rc = lr_scrub_init_values(&s, secrets)))
		return rc;
	c = lr_scrub_string(&s, text);
	lr_scrub_release(&s);
	if (!c)
		return lr_error_set(LR_ENOMEM, "out of memory");
	*found = strcmp(c, text) != 0;
	free(c);
	return 0;
}

int lr_scrub_refuse(void *s, const void *data, size_t len)
{
	int found = 0, rc = lr_scrub_feed(s, data, len, NULL, NULL, &found);

	return rc ? rc : found ? LR_EREFUSED : 0;
}

struct first_match {
	const char *line, *at;
	size_t len;
};

static int earliest(void *arg, const char *rule, const char *match, size_t len)
{
	struct first_match *f = arg;

	(void)rule;
	if (!f->at || match < f->at) {
		f->at = match;
		f->len = len;
	}
	return 0;
}

void lr_drop_cut_word(char *text)
{
	size_t n = strlen(text);

	while (n > 0 && !strchr(LR_TOKEN_END, text[n - 1]))
		text[--n] = '\0';
}

void lr_cut_redacted(char *text, size_t max)
{
	size_t m = strlen(LR_REDACTED), k;
	char *at;

	if (strlen(text) <= max)
		return;
	text[max] = '\0';
	if (!(at = strrchr(text, '<')))
		return;
	k = max - (size_t)(at - text);
	if (k < m && !strncmp(at, LR_REDACTED, k)) { /* the whole marker over what precedes it, or none */
		if (max >= m)
			memcpy(text + max - m, LR_REDACTED, m + 1);
		else
			*at = '\0';
	}
}

/* Passes of lr_redact_secretlike before it gives up and withholds the whole text. */
#define LR_REDACT_PASSES 64

int lr_redact_secretlike(char *text, size_t size)
{
	struct lr_buf b = LR_BUF_INIT;
	size_t n, k;
	int pass, rc = 0;

	if (!size)
		return 0;
	for (pass = 0; pass < LR_REDACT_PASSES && !rc; pass++) {
		struct first_match f = { text, NULL, 0 };

		if ((rc = lr_secretlike_line(text, earliest, &f)) || !f.at)
			break;
		lr_buf_reset(&b); /* one match a pass: the rules report the first of each, a later one hides */
		lr_buf_add(&b, text, (size_t)(f.at - text));
		lr_buf_adds(&b, LR_REDACTED);
		lr_buf_adds(&b, f.at + f.len);
		if ((rc = lr_buf_error(&b)))
			break;
		snprintf(text, size, "%s", b.buf);
		if (b.len >= size) /* cut: what was cut off may have been a token's start */
			for (n = size - 1; n > 0 && !strchr(LR_TOKEN_END, text[n - 1]); n--)
				text[n - 1] = '\0';
	}
	lr_buf_release(&b);
	if (rc || pass == LR_REDACT_PASSES)
		snprintf(text, size, "%s", LR_REDACTED); /* the rules could not settle: withhold it all */
	n = strlen(text); /* a text ending in a long run of token characters may be a token cut by a cap */
	for (k = n; k > 0 && !strchr(LR_TOKEN_END, text[k - 1]); k--)
		;
	if (n - k >= LR_CUT_TOKEN && n - k + strlen(LR_REDACTED) < size)
		snprintf(text + k, size - k, "%s", LR_REDACTED);
	return rc;
}
