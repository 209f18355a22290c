/* Where a run ran and with what: the user's facts, tool probes, the device asked, labrun's own identity. */
#include "config.h"
#include "base/system.h"

#include <ctype.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/child.h"
#include "base/error.h"
#include "base/sha256.h"
#include "record/facts.h"
#include "record/gitsrc.h"
#include "record/redact.h"
#include "record/secretlike.h"
#include "store/hashcache.h"

void lr_run_facts_release(struct lr_run_facts *f)
{
	lr_kvlist_release(&f->geometry);
	lr_kvlist_release(&f->binding);
	lr_kvlist_release(&f->tools);
	lr_kvlist_release(&f->probes);
	lr_strlist_release(&f->sources);
}

int lr_run_facts_merge(struct lr_run_facts *into, const struct lr_run_facts *from)
{
	const struct lr_kvlist *src[] = { &from->geometry, &from->binding, &from->tools, &from->probes };
	struct lr_kvlist *dst[] = { &into->geometry, &into->binding, &into->tools, &into->probes };
	size_t i, k;
	int rc = 0;

	for (k = 0; k < sizeof src / sizeof src[0]; k++)
		for (i = 0; i < src[k]->n && !rc; i++)
			rc = lr_kvlist_set(dst[k], src[k]->v[i].key, src[k]->v[i].value, src[k]->v[i].tag);
	for (i = 0; i < from->sources.n && !rc; i++)
		if (!lr_strlist_contains(&into->sources, from->sources.v[i]))
			rc = lr_strlist_add(&into->sources, from->sources.v[i]);
	if (from->note)
		into->note = from->note;
	return rc;
}

/* ---- running a short query ------------------------------------------------- */

static int keep_output(void *arg, int fd, const void *data, size_t len)
{
	struct lr_buf *b = arg;

	(void)fd;
	if (b->len < LR_PROBE_MAX)
		lr_buf_add(b, data, len < LR_PROBE_MAX - b->len ? len : LR_PROBE_MAX - b->len);
	return 0;
}

/* Run argv (stdout and stderr into 'out', at most LR_PROBE_MAX bytes); *failure: how it failed, or NULL. */
static int query(char *const *argv, char *const *envp, struct lr_buf *out, char **failure)
{
	struct lr_child_opts o = { .argv = argv,
				   .envp = envp,
				   .fd = { LR_CHILD_NULL, LR_CHILD_PIPE, LR_CHILD_PIPE },
				   .on_output = keep_output,
				   .arg = out,
				   .timeout_s = 60,
				   .contain = 1 };
	struct lr_child c;
	int rc;

	*failure = NULL;
	if ((rc = lr_child_run(&o, &c)) || (rc = lr_buf_error(out)))
		return rc;
	*failure = lr_child_failure(&c, argv[0], o.timeout_s);
	return 0;
}

/* The first non-blank line of s, blanks around it removed, into buf. */
static void first_line(const char *s, char *buf, size_t len)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strcspn(s, "\r\n");
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	snprintf(buf, len, "%.*s", (int)n, s);
}

/* ---- tool probes ------------------------------------------------------------ */

/* Length of the UTF-8 sequence at s (of n bytes), 0 when it is none (or a NUL). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t k = s[0] < 0x80                   ? 1
		   : s[0] >= 0xc2 && s[0] < 0xe0 ? 2
		   : s[0] >= 0xe0 && s[0] < 0xf0 ? 3
		   : s[0] >= 0xf0 && s[0] < 0xf5 ? 4
						 : 0;

	if (!s[0] || !k || k > n)
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((k == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))) ||
	    (k == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))))
		return 0; /* overlong, a surrogate, past U+10FFFF */
	return k;
}

/* What a probe printed as text: its UTF-8 kept, every other byte (a NUL included) as \xNN. */
static void text_of(const struct lr_buf *in, struct lr_buf *out)
{
	const unsigned char *s = (const unsigned char *)in->buf;

	for (size_t i = 0, k; i < in->len; i += k ? k : 1)
		if ((k = utf8_len(s + i, in->len - i)))
			lr_buf_add(out, s + i, k);
		else
			lr_buf_addf(out, "\\x%02x", s[i]);
}

struct found {
	size_t at[16][2]; /* offset and length of each match in the line */
	int n;
	const char *line;
};

static int found_secret(void *arg, const char *rule, const char *match, size_t len)
{
	struct found *f = arg;

	(void)rule;
	if (f->n < 16) {
		f->at[f->n][0] = (size_t)(match - f->line);
		f->at[f->n++][1] = len;
	}
	return 0;
}

/* text with what looks like a credential (the rules of 'labrun scan') replaced by <redacted>, line by line. */
static int redact_secretlike(struct lr_buf *text)
{
	struct lr_buf out = LR_BUF_INIT;
	char *line, *save = NULL;
	int rc = 0;

	for (line = strtok_r(text->buf ? text->buf : "", "\n", &save); line && !rc;
	     line = strtok_r(NULL, "\n", &save)) {
		struct found f = { .line = line };
		size_t pos = 0;

		rc = lr_secretlike_line(line, found_secret, &f);
		for (int i = 0; i < f.n; i++) /* matches come rule by rule: an earlier one may cover a later */
			if (f.at[i][0] >= pos) {
				lr_buf_add(&out, line + pos, f.at[i][0] - pos);
				lr_buf_adds(&out, "<redacted>");
				pos = f.at[i][0] + f.at[i][1];
			}
		lr_buf_adds(&out, line + pos);
		lr_buf_addch(&out, '\n');
	}
	lr_buf_release(text);
	*text = out;
	return rc ? rc : lr_buf_error(text);
}

static int probe(struct lr_run *run, const struct lr_kv *p, const struct lr_scrub *scrub, char *const *envp)
{
	char *const argv[] = { "/bin/sh", "-c", p->value, NULL };
	struct lr_buf raw = LR_BUF_INIT, out = LR_BUF_INIT;
	char version[200], *failure = NULL, *kept = NULL;
	int rc;

	if ((rc = query(argv, envp, &raw, &failure)))
		goto out;
	text_of(&raw, &out);
	if ((rc = lr_buf_error(&out)) || (rc = redact_secretlike(&out)))
		goto out;
	first_line(out.buf ? out.buf : "", version, sizeof version);
	if (failure || !version[0]) {
		rc = lr_error_set(LR_EINVAL, "tool probe '%s' (%s) %s%s%s", p->key, p->value,
				  failure ? failure : "printed nothing", version[0] ? ": " : "", version);
		lr_error_hint("fix the command in [record] (it runs as /bin/sh -c COMMAND), or state the version: "
			      "tool.%s = VERSION",
			      p->key);
		goto out;
	}
	free(failure);
	failure = lr_scrub_string(scrub, version);
	kept = lr_scrub_string(scrub, out.buf);
	rc = !failure || !kept ? lr_error_set(LR_ENOMEM, "out of memory") : 0;
	if (!rc && !(rc = lr_kvlist_set(&run->tools, p->key, failure, NULL)))
		rc = lr_kvlist_set(&run->probes, p->key, kept, p->value);
out:
	free(failure);
	free(kept);
	lr_buf_release(&raw);
	lr_buf_release(&out);
	return rc;
}

int lr_run_facts_apply(struct lr_run *run, const struct lr_run_facts *f, char *const *envp)
{
	const struct lr_kv *dev;
	struct lr_scrub scrub;
	size_t i;
	int rc;

	for (i = 0; i < f->sources.n; i++)
		if ((rc = lr_source_add_external(run, f->sources.v[i])))
			return rc;
	if ((rc = lr_scrub_init_values(&scrub, &run->secrets)))
		return rc;
	/* What the user says wins over what labrun observed. */
	for (i = 0; i < f->binding.n && !rc; i++) {
		char *v = lr_scrub_string(&scrub, f->binding.v[i].value);

		rc = v ? lr_kvlist_set(&run->binding, f->binding.v[i].key, v, "user")
		       : lr_error_set(LR_ENOMEM, "out of memory");
		free(v);
	}
	for (i = 0; i < f->geometry.n && !rc; i++)
		rc = lr_kvlist_set(&run->geometry, f->geometry.v[i].key, f->geometry.v[i].value, NULL);
	for (i = 0; i < f->tools.n && !rc; i++)
		rc = lr_kvlist_set(&run->tools, f->tools.v[i].key, f->tools.v[i].value, NULL);
	for (i = 0; i < f->probes.n && !rc; i++)
		rc = probe(run, &f->probes.v[i], &scrub, envp);
	lr_scrub_release(&scrub);
	if (!rc && (dev = lr_kvlist_find(&run->binding, "device")))
		rc = lr_device_identity(&run->binding, "", dev->value, envp);
	return rc;
}

/* ---- asking the device ------------------------------------------------------ */

/* "atom:1" -> rbln-smi and 1; "cuda:0" -> nvidia-smi and 0; NULL when no tool asks that kind. */
static const char *device_tool(const char *device, long *index)
{
	static const struct {
		const char *prefix, *tool;
	} kinds[] = { { "atom:", "rbln-smi" },   { "rbln:", "rbln-smi" },  { "npu:", "rbln-smi" },
		      { "cuda:", "nvidia-smi" }, { "gpu:", "nvidia-smi" }, { "nvidia:", "nvidia-smi" } };
	char *end;

	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		size_t n = strlen(kinds[i].prefix);

		if (strncmp(device, kinds[i].prefix, n) || !isdigit((unsigned char)device[n]))
			continue;
		*index = strtol(device + n, &end, 10);
		return *end ? NULL : kinds[i].tool;
	}
	return NULL;
}

/* Whether 'tool' is an executable in one of PATH's directories. */
static int on_path(const char *tool, char *const *envp)
{
	const char *path = NULL, *p, *e;
	char buf[PATH_MAX];

	for (size_t i = 0; envp && envp[i]; i++)
		if (!strncmp(envp[i], "PATH=", 5))
			path = envp[i] + 5;
	for (p = path; p && *p; p = *e ? e + 1 : e) {
		e = p + strcspn(p, ":");
		if (e > p && snprintf(buf, sizeof buf, "%.*s/%s", (int)(e - p), p, tool) < (int)sizeof buf &&
		    access(buf, X_OK) == 0)
			return 1;
	}
	return 0;
}

/* From "INDEX, SERIAL, FIRMWARE" lines, the fields of the line of 'index' (0: found). */
static int device_line(const char *text, long index, char *serial, char *firmware, size_t len)
{
	char line[512], *f[3], *save = NULL;
	const char *s;

	for (s = text; *s; s += strcspn(s, "\n"), s += *s == '\n') {
		int n = 0;

		snprintf(line, sizeof line, "%.*s", (int)strcspn(s, "\n"), s);
		for (char *t = strtok_r(line, ",", &save); t && n < 3; t = strtok_r(NULL, ",", &save)) {
			char *e;

			while (isspace((unsigned char)*t))
				t++;
			for (e = t + strlen(t); e > t && isspace((unsigned char)e[-1]);)
				*--e = '\0';
			f[n++] = t;
		}
		if (n == 3 && isdigit((unsigned char)f[0][0]) && strtol(f[0], NULL, 10) == index && f[1][0]) {
			snprintf(serial, len, "%s", f[1]);
			snprintf(firmware, len, "%s", f[2]);
			return 0;
		}
	}
	return -1;
}

int lr_device_identity(struct lr_kvlist *binding, const char *prefix, const char *device, char *const *envp)
{
	char *const nvidia[] = { "nvidia-smi", "--query-gpu=index,serial,vbios_version", "--format=csv,noheader",
				 NULL };
	char *const rbln[] = { "rbln-smi", "-q", "-qd", "npu,sid,fw_ver", "--csv", "--noheader", NULL };
	struct lr_buf out = LR_BUF_INIT;
	char serial[128], firmware[128], key[160], *failure = NULL;
	const char *tool;
	long index = 0;
	int rc;

	if (!device || !(tool = device_tool(device, &index)) || !on_path(tool, envp))
		return 0;
	rc = query(tool[0] == 'n' ? nvidia : rbln, envp, &out, &failure);
	if (!rc && !failure && !device_line(out.buf, index, serial, firmware, sizeof serial)) {
		snprintf(key, sizeof key, "%sdevice_serial", prefix);
		if (!(rc = lr_kvlist_set(binding, key, serial, "auto")) && firmware[0]) {
			snprintf(key, sizeof key, "%sdevice_firmware", prefix);
			rc = lr_kvlist_set(binding, key, firmware, "auto");
		}
	}
	free(failure);
	lr_buf_release(&out);
	return rc;
}

/* ---- labrun itself ----------------------------------------------------------- */

int lr_recorder_identity(struct lr_store *st, struct lr_run *run)
{
	static const struct {
		const char *key, *value;
	} build[] = { { "configure", LR_BUILD_CONFIGURE }, { "cc", LR_BUILD_CC }, { "cflags", LR_BUILD_CFLAGS } };
	struct lr_hash_entry e = { 0 };
	char exe[PATH_MAX], size[32];
	ssize_t n;
	int64_t len;
	int rc, cached;

	/* the file the process runs, even when it was replaced since (its name then ends " (deleted)") */
	if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) < 0 || stat("/proc/self/exe", &e.sb))
		return lr_error_set(LR_EIO, "cannot find labrun's own binary: %s", strerror(errno));
	exe[n] = '\0';
	e.path = exe;
	if ((cached = lr_store_hash_cached(st, exe, &e.sb, e.sha256)) < 0)
		return cached;
	if (!cached &&
	    ((rc = lr_sha256_file("/proc/self/exe", e.sha256, &len)) || (rc = lr_store_hash_remember(st, &e, 1))))
		return rc;
	snprintf(size, sizeof size, "%lld", (long long)e.sb.st_size);
	if ((rc = lr_kvlist_set(&run->recorder, "binary_sha256", e.sha256, NULL)) ||
	    (rc = lr_kvlist_set(&run->recorder, "binary_size", size, NULL)))
		return rc;
	for (size_t i = 0; i < sizeof build / sizeof build[0]; i++)
		if ((rc = lr_kvlist_set(&run->recorder, build[i].key, build[i].value, NULL)))
			return rc;
	return 0;
}

/* ---- the cards a run ran on -------------------------------------------------- */

static void card(struct lr_card *c, const struct lr_run *r, const char *who, const char *device, const char *serial)
{
	snprintf(c->who, sizeof c->who, "%s", who);
	snprintf(c->device, sizeof c->device, "%s", device);
	snprintf(c->serial, sizeof c->serial, "%s", serial ? serial : "");
	snprintf(c->host, sizeof c->host, "%s", r->host.hostname ? r->host.hostname : "");
}

int lr_run_cards(const struct lr_run *r, struct lr_card *out, int max)
{
	const struct lr_kv *dev = lr_kvlist_find(&r->binding, "device"),
			   *ser = lr_kvlist_find(&r->binding, "device_serial");
	char key[128];
	int n = 0;

	if (dev && n < max)
		card(&out[n++], r, "", dev->value, ser ? ser->value : NULL);
	for (size_t i = 0; i < r->binding.n && n < max; i++) {
		const char *k = r->binding.v[i].key, *end;
		const struct lr_kv *s;

		if (strncmp(k, "arm:", 4) || !(end = strchr(k + 4, ':')) || strcmp(end, ":device"))
			continue;
		snprintf(key, sizeof key, "%.*s:device_serial", (int)(end - k), k);
		s = lr_kvlist_find(&r->binding, key);
		card(&out[n], r, "", r->binding.v[i].value, s ? s->value : NULL);
		snprintf(out[n++].who, sizeof out[0].who, "%.*s", (int)(end - k - 4), k + 4);
	}
	return n;
}

int lr_cards_differ(const struct lr_card *a, const struct lr_card *b)
{
	if (a->serial[0] && b->serial[0])
		return strcmp(a->serial, b->serial) != 0;
	return strcmp(a->device, b->device) || strcmp(a->host, b->host);
}

void lr_run_cards_said(const struct lr_run *r, char *buf, size_t len)
{
	struct lr_card c[LR_MAXCARDS];
	int n = lr_run_cards(r, c, LR_MAXCARDS), first, differ = 0;
	size_t off;

	buf[0] = '\0';
	if (n < 2)
		return;
	first = c[0].who[0] ? 0 : 1; /* arms without a binding of their own ran on the run's card, c[0] */
	for (int i = 1; i < n; i++)
		differ |= lr_cards_differ(&c[0], &c[i]);
	if (!differ)
		return;
	off = (size_t)snprintf(buf, len, "the arms ran on different cards:");
	for (int i = first; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s arm %s on %s%s%s", i > first ? "," : "", c[i].who,
					c[i].device, c[i].serial[0] ? " serial " : "", c[i].serial);
	if (first && off < len)
		snprintf(buf + off, len - off, "; the run is bound to %s%s%s", c[0].device,
			 c[0].serial[0] ? " serial " : "", c[0].serial);
}

const char *lr_run_backend(const struct lr_run *r, const char *fallback)
{
	const struct lr_kv *b = lr_kvlist_find(&r->binding, "backend");

	return b ? b->value : fallback;
}
