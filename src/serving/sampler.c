/* The server's gauges sampled during a pass (sampler.h). */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/error.h"
#include "base/list.h"
#include "serving/sampler.h"

#define LR_GAUGE_BODY ((size_t)1 << 20) /* bytes of one /metrics answer at most */

struct lr_sampler {
	CURLM *multi;
	CURL *easy; /* the GET in flight, or NULL */
	char *url, *running, *waiting;
	double period, start, due; /* due: lr_monotonic_s of the next GET */
	double sent;
	struct lr_buf body; /* the answer to the GET in flight */
	int overflow;
	struct lr_gauge_sample *v;
	size_t n, cap;
};

/* The '}' closing the label set that opens at v, quoted values skipped; NULL when its line ends first. */
static const char *labels_end(const char *v)
{
	int quoted = 0;

	for (v++; *v && *v != '\n'; v++)
		if (quoted && *v == '\\' && v[1] && v[1] != '\n')
			v++; /* an escape inside a value: \" \\ \n */
		else if (*v == '"')
			quoted = !quoted;
		else if (!quoted && *v == '}')
			return v;
	return NULL;
}

/*
 * Each sample is read from its own line: a label set or a value that the
 * line does not hold is no sample. It was read across lines: strchr found
 * the next line's '}' (tests/fuzz/fuzz-prom.c's first run) and strtod,
 * which skips newlines, the next line's number.
 */
int lr_prom_gauge(const char *text, const char *name, double *value)
{
	size_t nl = strlen(name);
	int found = 0;

	*value = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *v;
		char *end, *line;
		double x;

		if (*l == '#' || strncmp(l, name, nl) || (l[nl] != '{' && l[nl] != ' '))
			continue;
		v = l + nl;
		if (*v == '{' && !(v = labels_end(v)))
			continue;
		for (v++; *v == ' ' || *v == '\t';)
			v++;
		if (!*v || *v == '\n')
			continue;
		/* read within its line: strtod skips any white space first, a form feed or a newline too */
		if (!(line = strndup(v, strcspn(v, "\n"))))
			return found;
		x = strtod(line, &end); /* a timestamp after the value, if any, is not read */
		if (end != line) {
			*value += x;
			found = 1;
		}
		free(line);
	}
	return found;
}

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct lr_sampler *s = arg;
	size_t len = size * n;

	if (s->body.len + len <= LR_GAUGE_BODY)
		lr_buf_add(&s->body, data, len);
	else
		s->overflow = 1;
	if (s->overflow || s->body.failed) {
		s->overflow = 1; /* the sample is lost, as a failed GET loses one */
		return 0;
	}
	return len;
}

int lr_sampler_start(struct lr_sampler **out, CURLM *multi, const char *url, const char *running, const char *waiting,
		     double period_s, double start)
{
	struct lr_sampler *s = calloc(1, sizeof *s);

	*out = NULL;
	if (!s || !(s->url = strdup(url)) || !(s->running = strdup(running)) || !(s->waiting = strdup(waiting))) {
		if (s) {
			free(s->url);
			free(s->running);
		}
		free(s);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	lr_buf_init(&s->body, 0);
	s->multi = multi;
	s->period = period_s;
	s->start = s->due = start;
	*out = s;
	return 0;
}

void lr_sampler_tick(struct lr_sampler *s, double now)
{
	if (s->easy || now < s->due || !(s->easy = curl_easy_init()))
		return;
	if (s->body.failed)
		lr_buf_release(&s->body); /* that sample is lost; the next one starts afresh */
	lr_buf_reset(&s->body);           /* an empty answer must not read as the last one */
	s->overflow = 0;
	s->sent = now;
	curl_easy_setopt(s->easy, CURLOPT_URL, s->url);
	curl_easy_setopt(s->easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(s->easy, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(s->easy, CURLOPT_PRIVATE, NULL);
	curl_easy_setopt(s->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(s->easy, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(s->easy, CURLOPT_TIMEOUT_MS, (long)fmax(1000, s->period * 1e3 * 10));
	if (curl_multi_add_handle(s->multi, s->easy) != CURLM_OK) {
		curl_easy_cleanup(s->easy);
		s->easy = NULL;
	}
	s->due = now + s->period;
}

int lr_sampler_done(struct lr_sampler *s, CURL *easy, CURLcode code, double now)
{
	long status = 0;

	if (!s || easy != s->easy)
		return 0;
	curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
	curl_multi_remove_handle(s->multi, easy);
	curl_easy_cleanup(easy);
	s->easy = NULL;
	if (LR_ALLOC_GROW(s->v, s->n + 1, s->cap))
		return 1; /* a sample lost: out of memory */
	/* the sample is when the answer came: the server read its gauges between sending and then */
	s->v[s->n] = (struct lr_gauge_sample){ (now + s->sent) / 2 - s->start, NAN, NAN, NULL };
	if (code != CURLE_OK || status != 200 || s->overflow || !s->body.len) { /* a gap, recorded as one */
		s->v[s->n++].failed = code != CURLE_OK ? curl_easy_strerror(code)
				      : status != 200  ? "an HTTP status other than 200"
				      : s->overflow    ? "an answer longer than the sampler takes"
						       : "an empty answer";
		return 1;
	}
	if (!lr_prom_gauge(s->body.buf, s->running, &s->v[s->n].running))
		s->v[s->n].running = NAN;
	if (!lr_prom_gauge(s->body.buf, s->waiting, &s->v[s->n].waiting))
		s->v[s->n].waiting = NAN;
	s->n++;
	return 1;
}

double lr_sampler_wait(const struct lr_sampler *s, double now)
{
	return s->easy ? s->period : fmax(0, s->due - now);
}

void lr_sampler_stop(struct lr_sampler *s, struct lr_gauge_sample **samples, size_t *n)
{
	*samples = NULL;
	*n = 0;
	if (!s)
		return;
	if (s->easy) {
		curl_multi_remove_handle(s->multi, s->easy);
		curl_easy_cleanup(s->easy);
	}
	*samples = s->v;
	*n = s->n;
	free(s->url);
	free(s->running);
	free(s->waiting);
	lr_buf_release(&s->body);
	free(s);
}
