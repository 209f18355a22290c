#include "config.h"
#include "base/system.h"

#include "base/clock.h"
#include "base/error.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/progress.h"
#include "record/record.h"
#include "record/session.h"
#include "serving/client.h"
#include "serving/collect.h"
#include "serving/passes.h"
#include "store/runs.h"

extern char **environ;

static const char usage[] = "usage: labrun collect --endpoint URL --route NAME --cases FILE [options]\n"
			    "\n"
			    "Send every case of FILE (JSON lines: case_id, and prompt, prompt_token_ids or\n"
			    "messages, optionally max_tokens) to an OpenAI-compatible server (vLLM,\n"
			    "llama.cpp's llama-server), streamed, temperature 0 unless told otherwise, and\n"
			    "store the route's responses as 'labrun ingest' does, with every request: its\n"
			    "body, status, token ids, text, finish reason, TTFT, every inter-token gap, the\n"
			    "end-to-end latency and usage. A request that fails (refused, timed out,\n"
			    "stalled, an HTTP error, a malformed or cut stream) is stored as a named\n"
			    "failure and the pass goes on. Without --run the pass is a run of its own.\n";

struct opts {
	const char *run_ref, *note, *out, *pass;
	struct lr_strlist issues;
	struct lr_collect_opts c;
	const char *timeout, *stall, *sample, *gauges, *goodput, *validity;
	char gauge_buf[256];
	int progress;
};

/* The options' values, checked together and turned into what the client takes. */
static int check(struct opts *o)
{
	if (!o->c.endpoint || !o->c.route || !o->c.cases)
		return cmd_usage_error("collect", "--endpoint, --route and --cases are required");
	if (lr_url_problem(o->c.endpoint))
		return cmd_usage_error("collect", "--endpoint is %s", lr_url_problem(o->c.endpoint));
	if (o->c.metrics_url && lr_url_problem(o->c.metrics_url))
		return cmd_usage_error("collect", "--metrics-url is %s", lr_url_problem(o->c.metrics_url));
	if (o->c.rate < 0 || !(o->c.burstiness > 0) || o->c.temperature < 0)
		return cmd_usage_error("collect", "--rate >= 0, --burstiness > 0 and --temperature >= 0");
	if ((o->c.timeout_s = lr_duration_parse(o->timeout)) < 0 || (o->c.stall_s = lr_duration_parse(o->stall)) < 0)
		return cmd_usage_error("collect", "--timeout and --stall are durations such as 600, 90s or 5m");
	if (o->goodput && lr_pass_slos(o->goodput, o->c.slo_ms))
		return cmd_fail(LR_EINVAL);
	if (o->validity && lr_valid_rules_parse(o->validity, &o->c.rules))
		return cmd_fail(LR_EINVAL);
	if (!o->c.concurrency && !(o->c.rate > 0)) /* all at once: one at a time unless told; a rate has no cap */
		o->c.concurrency = 1;
	if ((o->c.sample_s = lr_duration_parse(o->sample)) < 0.001)
		return cmd_usage_error("collect", "--sample is a duration of at least 1 ms, such as 0.1s");
	if (!strchr(o->gauges, ',') || strchr(o->gauges, ',') == o->gauges || !strchr(o->gauges, ',')[1] ||
	    strlen(o->gauges) >= sizeof o->gauge_buf)
		return cmd_usage_error("collect", "--gauges is two names, RUNNING,WAITING");
	snprintf(o->gauge_buf, sizeof o->gauge_buf, "%s", o->gauges);
	*strchr(o->gauge_buf, ',') = '\0';
	o->c.gauge_running = o->gauge_buf;
	o->c.gauge_waiting = o->gauge_buf + strlen(o->gauge_buf) + 1;
	if ((o->run_ref || o->out) && (o->issues.n || o->note))
		return cmd_usage_error("collect",
				       "--issue and --note describe a run of its own: not with --run or --out");
	if (o->run_ref && o->out)
		return cmd_usage_error("collect",
				       "--run stores the responses, --out writes them to a file: one of them");
	if (o->pass && !o->out)
		return cmd_usage_error("collect",
				       "--pass goes with --out: a pass collected into the store keeps its rows there");
	return 0;
}

static int parse(struct opts *o, int argc, char **argv, int *first)
{
	static const char *const token_modes[] = { "vllm", "logprobs", "llama.cpp", "none", NULL };
	int mode = 0, rc;
	const struct cmd_opt opts[] = {
		CMD_NONEMPTY(0, "endpoint", &o->c.endpoint, "URL", "the API's base URL, e.g. http://127.0.0.1:8000/v1"),
		CMD_NONEMPTY(0, "route", &o->c.route, "NAME", "the route the responses belong to, e.g. native-gpu"),
		CMD_NONEMPTY(0, "cases", &o->c.cases, "FILE", "the cases, JSON lines"),
		CMD_NONEMPTY(0, "model", &o->c.model, "M", "the model to ask for (default: none named)"),
		CMD_BOOL(0, "chat", &o->c.chat, "POST /chat/completions with each case's 'messages'"),
		CMD_INT(0, "concurrency", &o->c.concurrency, 1, 4096, "N",
			"requests in flight at most (default 1; with --rate, no cap)"),
		CMD_REAL(0, "rate", &o->c.rate, "R", "requests per second, Poisson arrivals (default: all at once)"),
		CMD_REAL(0, "burstiness", &o->c.burstiness, "B",
			 "the gamma shape of the arrival gaps (default 1: Poisson)"),
		CMD_I64(0, "max-tokens", &o->c.max_tokens, 1, 1 << 24, "N",
			"tokens to generate for cases without max_tokens (default 16)"),
		CMD_BOOL(0, "ignore-eos", &o->c.ignore_eos, "ask the server to go on past EOS (vLLM's ignore_eos)"),
		CMD_I64(0, "seed", &o->c.seed, INT64_MIN, INT64_MAX, "N",
			"the server's sampling seed, and the arrivals'"),
		CMD_REAL(0, "temperature", &o->c.temperature, "T", "sampling temperature (default 0)"),
		CMD_STRING(0, "timeout", &o->timeout, "S", "a request's whole time at most (default 600s)"),
		CMD_STRING(0, "stall", &o->stall, "S", "no byte for this long ends a stream (default 60s)"),
		CMD_NONEMPTY(
			0, "metrics-url", &o->c.metrics_url, "URL",
			"sample the server's Prometheus gauges during the pass,\ne.g. http://127.0.0.1:8000/metrics"),
		CMD_NONEMPTY(0, "gauges", &o->gauges, "RUNNING,WAITING",
			     "the gauges' names (default\nvllm:num_requests_running,vllm:num_requests_waiting)"),
		CMD_STRING(0, "sample", &o->sample, "S", "the sampling period (default 0.1s)"),
		CMD_NONEMPTY(0, "goodput", &o->goodput, "SLOS",
			     "goodput's SLOs, e.g. 'ttft:200 tpot:50 e2el:2000' (ms)"),
		CMD_NONEMPTY(0, "validity", &o->validity, "RULES",
			     "the pass's validity rules, e.g. 'duration:600 requests:1000\nttft:2000 tpot:100 "
			     "percentile:99 convention:nearest-rank'"),
		CMD_CHOICE(0, "token-ids", &mode, token_modes, "HOW",
			   "how to ask for token ids: vllm (return_token_ids), logprobs, llama.cpp or none"),
		CMD_STRING(0, "run", &o->run_ref, "ID",
			   "store the responses as evidence of run ID instead of a run of their own"),
		CMD_NONEMPTY(
			0, "out", &o->out, "FILE",
			"write the responses to FILE instead of a store, the pass's figures to\n$LABRUN_METRICS and every request to stdout (a serving experiment's executions)"),
		CMD_NONEMPTY(
			0, "pass", &o->pass, "FILE",
			"with --out: the pass and every request to FILE, as the store keeps\nthem (the experiment that runs this stores them with the responses)"),
		CMD_CALLBACK(0, "issue", &o->issues, cmd_opt_issues, "REF",
			     "an issue the run is evidence for (repeatable)"),
		CMD_STRING(0, "note", &o->note, "TEXT", "a note kept with the run"),
		CMD_PROGRESS(&o->progress),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "collect", .usage = usage };

	o->c.concurrency = 0; /* check() settles it */
	o->c.burstiness = 1;
	o->c.max_tokens = 16;
	o->timeout = "600s";
	o->stall = "60s";
	o->sample = "0.1s";
	o->gauges = "vllm:num_requests_running,vllm:num_requests_waiting";
	if ((rc = cmd_parse_options(&p, opts, argc, argv, first)))
		return rc;
	o->c.token_ids = token_modes[mode];
	o->c.has_seed = o->c.seed != 0;
	return check(o);
}

static void print_result(const struct opts *o, int64_t run, const struct lr_collect_result *r)
{
	printf("collected %lld of %lld case(s) of route '%s' into run %lld as set %lld in %.2f s",
	       (long long)r->completed, (long long)r->cases, o->c.route, (long long)run, (long long)r->set,
	       r->duration_s);
	if (r->failed || r->unsent)
		printf("; %lld failed, %lld not sent (named in collect_request)", (long long)r->failed,
		       (long long)r->unsent);
	printf("%s\n", r->cancelled ? "; cancelled" : "");
	if (r->server[0])
		printf("server: %s\n", r->server);
	printf("engine: %s%s%s\n", r->engine, r->engine_version[0] ? " " : "", r->engine_version);
	if (r->failed_scrapes)
		printf("gauges: %lld scrape(s) failed, each a gap (collect_gauge_failure)\n",
		       (long long)r->failed_scrapes);
	printf("result: %s%s%s\n", r->valid ? "VALID" : "INVALID", r->valid ? "" : ": ", r->valid ? "" : r->invalid);
}

/* A pass that is a run of its own: its status says whether every case came back. */
static int own_run(struct lr_store *st, struct opts *o, char **argv, struct lr_run *run, struct lr_collect_result *r)
{
	struct lr_session ss = { 0 };
	int rc;

	if ((rc = lr_run_capture(st, run, LR_KIND_COLLECT, argv, environ, NULL, o->note, &o->issues)) ||
	    (rc = lr_session_start(&ss, st, run)))
		goto out;
	if ((rc = lr_collect(st, run->id, -1, &o->c, r))) {
		run->status = LR_FAILED;
		run->failure = strdup(lr_error_msg());
	} else if (r->cancelled || r->failed) {
		run->status = r->cancelled ? LR_CANCELLED : LR_FAILED;
		if (asprintf(&run->failure, "%lld of %lld request(s) failed%s", (long long)r->failed,
			     (long long)r->cases, r->cancelled ? "; cancelled" : "") < 0)
			run->failure = NULL;
	} else {
		run->status = LR_PASSED;
	}
	/* the run's backend is the engine the pass reached, as it said */
	if (!rc && !(rc = lr_store_binding_set(st, run->id, "backend", r->engine, "auto")) && r->engine_version[0])
		rc = lr_store_binding_set(st, run->id, "backend_version", r->engine_version, "auto");
	if (!rc)
		rc = lr_session_end(&ss, 0);
	else if (lr_session_end(&ss, 0)) /* the run keeps its failure; the first error is the one reported */
		lr_error_clear();
out:
	lr_session_release(&ss);
	return rc;
}

int cmd_collect(const struct lr_global *g, int argc, char **argv)
{
	struct opts o = { 0 };
	struct lr_collect_result r;
	struct cmd_cancel cancel;
	struct lr_store *st = NULL;
	struct lr_run run;
	int64_t cases = 0, id = 0;
	int rc, first;

	lr_run_init(&run);
	o.c.envp = environ;
	o.c.cancel = &cmd_cancel_requested;
	if ((rc = parse(&o, argc, argv, &first)))
		goto out;
	/* the cases are checked before the store is touched or anything is sent */
	if (o.out) {
		const char *metrics = getenv("LABRUN_METRICS");

		cmd_cancel_install(&cancel);
		cmd_progress_begin("labrun collect", o.progress, 0);
		rc = lr_collect_file(&o.c, o.out, o.pass, metrics && *metrics ? metrics : NULL, stdout, &r);
		cmd_progress_end();
		cmd_cancel_restore(&cancel);
		if (!rc && (r.failed || r.unsent || r.cancelled)) /* the last line of stderr names a failed execution */
			fprintf(stderr, "labrun collect: %lld of %lld request(s) did not complete%s\n",
				(long long)(r.failed + r.unsent), (long long)r.cases,
				r.cancelled ? " (cancelled)" : "");
		rc = rc ? cmd_fail(rc) : r.failed || r.unsent || r.cancelled ? LR_EXIT_FAIL : LR_EXIT_OK;
		goto out;
	}
	if ((rc = lr_collect_check_cases(o.c.cases, o.c.chat, &cases)) || (rc = cmd_store(&st, g))) {
		rc = rc < 0 ? cmd_fail(rc) : rc;
		goto out;
	}
	cmd_cancel_install(&cancel);
	cmd_progress_begin("labrun collect", o.progress, 0);
	if (o.run_ref) {
		if (!(rc = lr_store_run_resolve(st, o.run_ref, &id)))
			rc = lr_collect(st, id, -1, &o.c, &r);
	} else {
		rc = own_run(st, &o, g->argv, &run, &r);
		id = run.id;
	}
	cmd_progress_end();
	cmd_cancel_restore(&cancel);
	if (rc) {
		rc = cmd_fail(rc);
		goto out;
	}
	print_result(&o, id, &r);
	rc = r.failed || r.unsent || r.cancelled ? LR_EXIT_FAIL : LR_EXIT_OK;
out:
	lr_run_release(&run);
	lr_strlist_release(&o.issues);
	return rc;
}
