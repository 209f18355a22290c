/* One collected pass: cases, requests, the client, the stored set (collect.h). */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include <jansson.h>

#include "base/error.h"
#include "base/jsonscan.h"
#include "record/redact.h"
#include "serving/client.h"
#include "serving/collect-int.h"
#include "serving/engine.h"
#include "serving/passes.h"
#include "serving/passfile.h"
#include "serving/serving.h"
#include "store/collect.h"

#define LR_EVENT_MAX ((size_t)1 << 20) /* bytes of one streamed event at most */

/* ---- the pass, stored -------------------------------------------------------------------- */

struct pass {
	const struct lr_collect_opts *o;
	struct lr_cases cases;
	struct lr_request *req;
	char **bodies;
	struct lr_result *res;
	char *url;
	struct lr_engine_answers said; /* what the server said of itself */
	double start;
	int cancelled;
	struct lr_store_request *rows;
	char **itl;
	struct lr_gauge_sample *samples; /* the server's gauges during the pass */
	size_t nsamples;
	int concurrency;          /* in flight at most: the option's, or every case */
	struct lr_pass_stats fig; /* the pass's figures and verdict */
	char **cut;               /* a failed request's received token ids, JSON */
};

static void pass_release(struct pass *p)
{
	for (size_t i = 0; i < p->cases.n; i++) {
		free(p->bodies ? p->bodies[i] : NULL);
		if (p->res)
			lr_result_release(&p->res[i]);
		free(p->itl ? p->itl[i] : NULL);
		free(p->cut ? p->cut[i] : NULL);
	}
	free(p->cut);
	free(p->fig.occupancy);
	free(p->fig.gauge_occupancy);
	lr_cases_release(&p->cases);
	free(p->req);
	free(p->bodies);
	free(p->res);
	free(p->rows);
	free(p->itl);
	free(p->url);
	free(p->samples);
	lr_engine_answers_release(&p->said);
}

static int prepare(struct pass *p, const struct lr_collect_opts *o)
{
	size_t n;
	int rc;

	memset(p, 0, sizeof *p);
	p->o = o;
	if ((rc = lr_cases_read(o->cases, o->chat, &p->cases)))
		return rc;
	n = p->cases.n ? p->cases.n : 1;
	p->req = calloc(n, sizeof *p->req);
	p->bodies = calloc(n, sizeof *p->bodies);
	p->res = calloc(n, sizeof *p->res);
	p->rows = calloc(n, sizeof *p->rows);
	p->itl = calloc(n, sizeof *p->itl);
	p->cut = calloc(n, sizeof *p->cut);
	p->concurrency = o->concurrency > 0 ? o->concurrency : (int)(p->cases.n ? p->cases.n : 1);
	if (!p->req || !p->bodies || !p->res || !p->rows || !p->itl || !p->cut ||
	    asprintf(&p->url, "%s/%s", o->endpoint, o->chat ? "chat/completions" : "completions") < 0)
		return lr_error_set(LR_ENOMEM, "out of memory");
	for (size_t i = 0; i < p->cases.n; i++) {
		if (!(p->bodies[i] = lr_case_body(o, p->cases.v[i])))
			return lr_error_set(LR_ENOMEM, "out of memory");
		p->req[i].url = p->url;
		p->req[i].body = p->bodies[i];
	}
	lr_arrivals(o, p->req, p->cases.n);
	return 0;
}

static const char *case_id(const struct pass *p, size_t i)
{
	return json_string_value(json_object_get(p->cases.v[i], "case_id"));
}

/*
 * The milliseconds from sending request i to its first content event; for
 * a stream that carried no content (a completion of no token), to the event
 * that carried its finish, its first and only answer (docs/serving.md);
 * NAN when neither came.
 */
static double ttft_ms(const struct pass *p, size_t i)
{
	const struct lr_result *r = &p->res[i];
	double at = r->s.events ? r->s.first_s : r->s.finishes ? r->s.finish_s : NAN;

	return (at - p->start - r->sent_s) * 1e3;
}

/* The output tokens counted: those received when the server sent ids (TEST06), else its usage; -1: neither. */
static int64_t output_tokens(const struct lr_result *r)
{
	return r->s.source != LR_TOKENS_NONE ? (int64_t)r->s.ntokens : r->s.completion_tokens;
}

/*
 * One response line, as 'labrun ingest' reads it, for each completed
 * request. Written by hand, not built as a jansson tree and dumped: at a
 * line per request of 128 tokens that was a tenth of the client's time.
 */
static int write_responses(const struct pass *p, FILE *f)
{
	for (size_t i = 0; i < p->cases.n; i++) {
		const struct lr_result *r = &p->res[i];

		if (r->s.failure[0])
			continue;
		fputs("{\"case_id\":", f);
		lr_json_put_string(f, case_id(p, i), strlen(case_id(p, i)));
		fputs(",\"tokens\":[", f);
		for (size_t k = 0; k < r->s.ntokens; k++)
			fprintf(f, k ? ",%lld" : "%lld", (long long)r->s.tokens[k]);
		fputs("],\"text\":", f);
		lr_json_put_string(f, r->s.text ? r->s.text : "", r->s.text_len);
		lr_json_put_member(f, "finish_reason", r->s.finish[0] ? r->s.finish : "unknown");
		fputs(",\"latency_ms\":", f);
		lr_json_put_real(f, (r->end_s - r->sent_s) * 1e3);
		fputs(",\"ttft_ms\":", f);
		if (!isnan(ttft_ms(p, i)))
			lr_json_put_real(f, ttft_ms(p, i));
		else
			fputs("null", f);
		lr_json_put_member(f, "token_source", lr_token_source_name(r->s.source));
		if (r->s.prompt_tokens >= 0)
			fprintf(f, ",\"input_tokens\":%lld", (long long)r->s.prompt_tokens);
		if (output_tokens(r) >= 0)
			fprintf(f, ",\"output_tokens\":%lld", (long long)output_tokens(r));
		if (p->o->model)
			lr_json_put_member(f, "model", p->o->model);
		if (fputs("}\n", f) == EOF)
			break;
	}
	return fflush(f) || ferror(f)
		       ? lr_error_set(LR_EIO, "cannot write the collected responses: %s", strerror(errno))
		       : 0;
}

/*
 * A gap in ms with four decimals, as "%.4f" gives it: one a token, so not
 * through printf. Gaps come from a monotonic clock: never below 0, and
 * taken to be under 10^12 ms (the cap; 30 years).
 */
static size_t put_ms(char *s, double ms)
{
	uint64_t v, whole;
	char digits[24];
	size_t n = 0;
	int k = 0;

	ms = ms > 0 ? fmin(ms, 1e12) : 0;
	v = (uint64_t)llround(ms * 1e4);
	whole = v / 10000;
	do
		digits[k++] = (char)('0' + whole % 10);
	while (whole /= 10);
	while (k)
		s[n++] = digits[--k];
	s[n++] = '.';
	for (int d = 1000, f = (int)(v % 10000); d; d /= 10)
		s[n++] = (char)('0' + f / d % 10);
	return n;
}

/* A failed request's received token ids as JSON (NULL when it received nothing): a cut stream keeps its tokens. */
static int cut_tokens(const struct lr_result *r, char **out)
{
	char *s;
	size_t off = 0;

	*out = NULL;
	if (!r->s.failure[0] || (!r->s.ntokens && !r->s.text_len))
		return 0;
	if (!(s = malloc(3 + r->s.ntokens * 21)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	s[off++] = '[';
	for (size_t k = 0; k < r->s.ntokens; k++)
		off += (size_t)snprintf(s + off, 22, k ? ",%lld" : "%lld", (long long)r->s.tokens[k]);
	s[off++] = ']';
	s[off] = '\0';
	*out = s;
	return 0;
}

/* What the client checked of request i (TEST06, its schedule), into its row. */
static void fill_check(const struct pass *p, size_t i, struct lr_store_request *w)
{
	const struct lr_result *r = &p->res[i];

	w->scheduled_ms = p->req[i].at_s * 1e3;
	w->received_tokens = r->s.source != LR_TOKENS_NONE ? (int64_t)r->s.ntokens : -1;
	w->finishes = r->s.finishes;
	w->first_ok = !r->s.events   ? -1
		      : r->s.ntokens ? r->s.first_ntokens > 0 /* the first timed event carried the first id */
				     : r->s.first_text_len > 0;
	w->cut_tokens = p->cut[i];
	w->cut_text = p->cut[i] ? r->s.text : NULL;
	w->cut_text_len = p->cut[i] ? r->s.text_len : 0;
}

/* Each request's row; the gaps as a JSON array. */
static int fill_rows(struct pass *p)
{
	for (size_t i = 0; i < p->cases.n; i++) {
		const struct lr_result *r = &p->res[i];
		struct lr_store_request *w = &p->rows[i];
		size_t off = 0;
		char *s = malloc(3 + r->s.nitl * 19); /* a gap: at most 13 digits, '.', 4 decimals, ',' */

		/* a server's error body is stored and published: no token of it (docs/design.md) */
		if (!s || lr_redact_secretlike(p->res[i].s.failure, sizeof p->res[i].s.failure) ||
		    cut_tokens(r, &p->cut[i])) {
			free(s);
			return lr_error_set(LR_ENOMEM, "out of memory");
		}
		s[off++] = '[';
		for (size_t k = 0; k < r->s.nitl; k++) {
			if (k)
				s[off++] = ',';
			off += put_ms(s + off, r->s.itl_ms[k]);
		}
		s[off++] = ']';
		s[off] = '\0';
		p->itl[i] = s;
		*w = (struct lr_store_request){
			.case_id = case_id(p, i),
			.body = p->bodies[i],
			.sent = r->sent,
			.sent_ms = r->sent_s * 1e3,
			.end_ms = r->end_s * 1e3,
			.status = r->status,
			.failure = r->s.failure[0] ? r->s.failure : NULL,
			.ttft_ms = ttft_ms(p, i),
			.e2el_ms = r->sent && !r->s.failure[0] ? (r->end_s - r->sent_s) * 1e3 : NAN,
			.itl_json = r->sent ? s : NULL,
			.token_source = r->s.events || !r->s.failure[0] ? lr_token_source_name(r->s.source) : NULL,
			.prompt_tokens = r->s.prompt_tokens,
			.completion_tokens = r->s.completion_tokens,
			.inflight = r->inflight_at_send,
		};
		fill_check(p, i, w);
	}
	return 0;
}

/* The pass's own row, as the store and the pass file keep it. */
static void pass_row(const struct pass *p, struct lr_store_pass *sp)
{
	double end = 0;

	for (size_t i = 0; i < p->cases.n; i++)
		end = fmax(end, p->res[i].end_s);
	*sp = (struct lr_store_pass){
		.endpoint = p->url,
		.api = p->o->chat ? "chat" : "completions",
		.model = p->o->model,
		.concurrency = p->concurrency,
		.rate = p->o->rate,
		.burstiness = p->o->burstiness,
		.has_seed = p->o->has_seed,
		.seed = p->o->seed,
		.server = p->said.server,
		.models = p->said.models,
		.version = p->said.version,
		.props = p->said.props,
		.duration_s = end,
		.cancelled = p->cancelled,
		.metrics_url = p->o->metrics_url,
		.samples = p->samples,
		.nsamples = p->nsamples,
		.slo_ms = { p->o->slo_ms[0], p->o->slo_ms[1], p->o->slo_ms[2] },
		.min_duration_s = p->fig.rules.min_duration_s,
		.min_requests = p->fig.rules.min_requests,
		.ttft_limit_ms = p->fig.rules.ttft_ms,
		.tpot_limit_ms = p->fig.rules.tpot_ms,
		.percentile = p->fig.rules.percentile,
		.linear = p->fig.rules.linear,
		.early = p->fig.rules.early,
		.little_n = p->fig.little_n,
		.little_xr = p->fig.little_xr,
		.valid = p->fig.valid,
		.failed = p->fig.invalid,
	};
}

static int store_rows(void *arg, struct lr_set_writer *w)
{
	struct pass *p = arg;
	struct lr_store_pass sp;

	pass_row(p, &sp);
	return lr_store_collect(w, &sp, p->rows, p->cases.n);
}

/* 1 when 's' holds the value of a secret of 'scrub'; -1 when out of memory. */
static int holds_secret(struct lr_scrub *scrub, const char *s)
{
	char *t = lr_scrub_string(scrub, s);
	int r = t ? strcmp(t, s) != 0 : -1;

	free(t);
	return r;
}

/* The secrets of the environment are in no request: the bodies are stored, and the model and URL with them. */
static int check_secrets(const struct pass *p, char *const *envp)
{
	struct lr_scrub scrub;
	const char *opt[] = { "--model", p->o->model, "--endpoint", p->o->endpoint };
	int rc = lr_scrub_init(&scrub, envp), h;

	for (size_t i = 0; !rc && scrub.n && i < 4; i += 2)
		if (opt[i + 1] && (h = holds_secret(&scrub, opt[i + 1]))) {
			rc = h < 0 ? lr_error_set(LR_ENOMEM, "out of memory")
				   : lr_error_set(LR_EREFUSED,
						  "refusing %s: its value holds the value of a secret environment "
						  "variable, and it goes into every request, which is stored",
						  opt[i]);
			if (h > 0)
				lr_error_hint("secrets never reach the store; give %s without it", opt[i]);
		}
	for (size_t i = 0; !rc && scrub.n && i < p->cases.n; i++)
		if ((h = holds_secret(&scrub, p->bodies[i]))) {
			rc = h < 0 ? lr_error_set(LR_ENOMEM, "out of memory")
				   : lr_error_set(LR_EREFUSED,
						  "refusing to send case '%s': it holds the value of a secret "
						  "environment variable, and every request is stored",
						  case_id(p, i));
			if (h > 0)
				lr_error_hint("secrets never reach the store; remove the value from the cases file");
		}
	lr_scrub_release(&scrub);
	return rc;
}

/* The pass's figures, as the report computes them from the stored rows. */
static int pass_figures(const struct pass *p, struct lr_pass_stats *st)
{
	struct lr_pass_acc a;
	int rc = 0;

	memset(st, 0, sizeof *st);
	st->concurrency = p->concurrency;
	st->rate = p->o->rate;
	memcpy(st->slo_ms, p->o->slo_ms, sizeof st->slo_ms);
	st->rules = p->o->rules;
	if (!(st->rules.percentile > 0))
		st->rules.percentile = 99;
	lr_pass_begin(&a, st);
	for (size_t i = 0; i < p->cases.n && !rc; i++) {
		const struct lr_store_request *w = &p->rows[i];
		struct lr_collect_row r = {
			.failed = w->failure != NULL,
			.sent = w->sent,
			.sent_ms = w->sent_ms,
			.end_ms = w->end_ms,
			.ttft_ms = w->ttft_ms,
			.e2el_ms = w->e2el_ms,
			.itl_json = w->itl_json,
			.prompt_tokens = w->prompt_tokens,
			.output_tokens = output_tokens(&p->res[i]),
			.lag_ms = w->sent ? w->sent_ms - w->scheduled_ms : NAN,
			.usage_tokens = w->completion_tokens,
			.received_tokens = w->received_tokens,
			.first_ok = w->first_ok,
		};

		rc = lr_pass_add(&a, &r);
	}
	if ((rc = lr_pass_end(&a, rc)) || (rc = lr_pass_gauges(st, p->samples, p->nsamples)))
		return rc;
	lr_pass_verdict(st);
	return 0;
}

/* Send the pass: everything up to the rows, nothing stored. */
static int run_pass(struct pass *p, const struct lr_collect_opts *o)
{
	struct lr_client_opts co = { 0,           o->timeout_s,   o->stall_s,       LR_EVENT_MAX,
				     o->cancel,   o->metrics_url, o->gauge_running, o->gauge_waiting,
				     o->sample_s, &p->samples,    &p->nsamples };
	int rc;

	if ((rc = prepare(p, o)) || (rc = check_secrets(p, o->envp)))
		return rc;
	lr_engine_ask(o->endpoint, o->timeout_s > 0 ? fmin(o->timeout_s, 30) : 30, &p->said);
	co.concurrency = p->concurrency;
	if ((rc = lr_client_run(&co, p->req, p->cases.n, p->res, &p->start, &p->cancelled)) || (rc = fill_rows(p)))
		return rc;
	return pass_figures(p, &p->fig);
}

static void count(const struct pass *p, struct lr_collect_result *out)
{
	out->cases = (int64_t)p->cases.n;
	out->cancelled = p->cancelled;
	for (size_t i = 0; i < p->cases.n; i++) {
		out->unsent += !p->res[i].sent;
		out->completed += !p->res[i].s.failure[0];
		out->duration_s = fmax(out->duration_s, p->res[i].end_s);
	}
	out->failed = out->cases - out->completed - out->unsent;
	snprintf(out->server, sizeof out->server, "%s", p->said.server ? p->said.server : "");
	out->valid = p->fig.valid;
	snprintf(out->invalid, sizeof out->invalid, "%s", p->fig.invalid);
	out->failed_scrapes = p->fig.gauge_failed;
	lr_engine_identify(&(struct lr_engine_said){ p->said.server, p->said.models, p->said.version, p->said.props },
			   out->engine, sizeof out->engine, out->engine_version, sizeof out->engine_version);
}

int lr_collect(struct lr_store *st, int64_t run, int cond, const struct lr_collect_opts *o,
	       struct lr_collect_result *out)
{
	const char *dir = getenv("TMPDIR");
	char path[64], tmpl[PATH_MAX];
	int64_t stored = 0;
	struct pass p;
	FILE *f = NULL;
	int rc, fd = -1;

	memset(out, 0, sizeof *out);
	if ((rc = run_pass(&p, o)))
		goto out;
	/* the responses go through ingest from a file no one else can see, gone when it is closed */
	snprintf(tmpl, sizeof tmpl, "%s/labrun-collect-XXXXXX", dir && *dir ? dir : "/tmp");
	if ((fd = mkstemp(tmpl)) < 0 || unlink(tmpl) || !(f = fdopen(fd, "w+"))) {
		rc = lr_error_set(LR_EIO, "cannot make a temporary file for the responses: %s", strerror(errno));
		goto out;
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	if (!(rc = write_responses(&p, f)))
		rc = lr_responses_ingest_with(st, run, o->route, cond, -1, path, p.url, o->envp, store_rows, &p,
					      &out->set, &stored);
	count(&p, out);
out:
	if (f)
		fclose(f);
	else if (fd >= 0)
		close(fd);
	pass_release(&p);
	return rc;
}

/* The figures a serving experiment can compare, as $LABRUN_METRICS lines. */
static int write_metrics(const struct lr_pass_stats *s, const char *path)
{
	const struct lr_dist4 *d[] = { &s->ttft_ms, &s->tpot_ms, &s->itl_ms, &s->e2el_ms };
	static const char *const dn[] = { "ttft", "tpot", "itl", "e2el" };
	FILE *f = fopen(path, "a");
	int rc = 0;

	if (!f)
		return lr_error_set(LR_EIO, "cannot append the pass's metrics to '%s': %s", path, strerror(errno));
	fprintf(f, "{\"name\": \"output_throughput\", \"value\": %.17g, \"unit\": \"tok/s\", \"better\": \"higher\"}\n",
		s->output_rate);
	fprintf(f, "{\"name\": \"total_throughput\", \"value\": %.17g, \"unit\": \"tok/s\", \"better\": \"higher\"}\n",
		s->total_rate);
	fprintf(f,
		"{\"name\": \"request_throughput\", \"value\": %.17g, \"unit\": \"req/s\", \"better\": \"higher\"}\n",
		s->request_rate);
	if (s->slo_ms[0] > 0 || s->slo_ms[1] > 0 || s->slo_ms[2] > 0)
		fprintf(f, "{\"name\": \"goodput\", \"value\": %.17g, \"unit\": \"req/s\", \"better\": \"higher\"}\n",
			s->goodput);
	fprintf(f, "{\"name\": \"mean_inflight\", \"value\": %.17g, \"unit\": \"requests\", \"better\": \"higher\"}\n",
		s->mean_inflight);
	for (int m = 0; m < 4; m++)
		if (d[m]->n)
			fprintf(f,
				"{\"name\": \"%s_mean\", \"value\": %.17g, \"unit\": \"ms\", \"better\": \"lower\"}\n"
				"{\"name\": \"%s_median\", \"value\": %.17g, \"unit\": \"ms\", \"better\": \"lower\"}\n"
				"{\"name\": \"%s_p99\", \"value\": %.17g, \"unit\": \"ms\", \"better\": \"lower\"}\n",
				dn[m], d[m]->mean, dn[m], d[m]->median, dn[m], d[m]->p99);
	if (ferror(f) | fclose(f))
		rc = lr_error_set(LR_EIO, "cannot append the pass's metrics to '%s'", path);
	return rc;
}

/* Every request's row as a JSON line: in an experiment, the execution's stored stdout keeps them. */
static int log_requests(const struct pass *p, FILE *log)
{
	for (size_t i = 0; i < p->cases.n; i++) {
		const struct lr_store_request *w = &p->rows[i];
		json_t *o = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "case_id", w->case_id, "sent_ms",
				      w->sent ? json_real(w->sent_ms) : json_null(), "end_ms",
				      w->sent ? json_real(w->end_ms) : json_null(), "status",
				      w->status ? json_integer(w->status) : json_null(), "failure",
				      w->failure ? json_string(w->failure) : json_null(), "ttft_ms",
				      isnan(w->ttft_ms) ? json_null() : json_real(w->ttft_ms), "e2el_ms",
				      isnan(w->e2el_ms) ? json_null() : json_real(w->e2el_ms), "itl_ms",
				      w->itl_json ? json_loads(w->itl_json, 0, NULL) : json_null());
		int rc = o ? json_dumpf(o, log, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) : -1;

		json_decref(o);
		if (rc || fputc('\n', log) == EOF)
			return lr_error_set(LR_EIO, "cannot write the requests' log");
	}
	return 0;
}

/* The pass and every request as a file (serving/passfile.h), for the experiment that ran this pass. */
static int write_pass_file(const struct pass *p, const char *path)
{
	struct lr_store_pass sp;
	FILE *f = fopen(path, "wx");
	int rc;

	if (!f) {
		lr_error_set(LR_EIO, "cannot create '%s': %s", path, strerror(errno));
		lr_error_hint("--pass names a file that does not exist yet");
		return LR_EIO;
	}
	pass_row(p, &sp);
	rc = lr_passfile_write(f, &sp, p->rows, p->cases.n);
	if (fclose(f) && !rc)
		rc = lr_error_set(LR_EIO, "cannot write '%s': %s", path, strerror(errno));
	return rc;
}

int lr_collect_file(const struct lr_collect_opts *o, const char *out_path, const char *pass_path,
		    const char *metrics_path, FILE *log, struct lr_collect_result *out)
{
	struct pass p;
	FILE *f = NULL;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = run_pass(&p, o)))
		goto out;
	if (!(f = fopen(out_path, "wx"))) {
		rc = lr_error_set(LR_EIO, "cannot create '%s': %s", out_path, strerror(errno));
		lr_error_hint("--out names a file that does not exist yet");
		goto out;
	}
	if (!(rc = write_responses(&p, f)) && pass_path)
		rc = write_pass_file(&p, pass_path);
	if (!rc && metrics_path)
		rc = write_metrics(&p.fig, metrics_path);
	if (!rc && log)
		rc = log_requests(&p, log);
	count(&p, out);
out:
	if (f && fclose(f) && !rc)
		rc = lr_error_set(LR_EIO, "cannot write '%s': %s", out_path, strerror(errno));
	pass_release(&p);
	return rc;
}
