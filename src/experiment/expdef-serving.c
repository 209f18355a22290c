/*
 * target = serving: each arm a route that 'labrun collect' sends the cases
 * to, once per repetition. The arm becomes the command arm that does so, so
 * the runner, parity, reference_route, answers and the report are the
 * command experiment's, unchanged (docs/experiments.md).
 */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include "base/clock.h"
#include "base/error.h"
#include "experiment/expdef-int.h"
#include "serving/client.h"
#include "serving/passes.h"
#include "serving/passfile.h"

/* clang-format off */
static const char *const keys[] = {
	"endpoint", "model", "concurrency", "max_tokens", "rate", "burstiness", "chat", "token_ids", "ignore_eos",
	"seed", "temperature", "stall", "goodput", "metrics_url", "gauges", "sample", "validity", NULL,
};
/* clang-format on */

int lr_expdef_serving_key(const char *k)
{
	for (int i = 0; keys[i]; i++)
		if (!strcmp(k, keys[i]))
			return 1;
	return 0;
}

/* Append word w to the template, quoted so that it stays one word and holds no placeholder. */
static int put_word(char *dst, size_t len, size_t *off, const char *w)
{
	if (*off + 2 >= len)
		return 0;
	dst[(*off)++] = ' ';
	dst[(*off)++] = '\'';
	for (; *w; w++) {
		const char *piece = *w == '\'' ? "'\\''" : *w == '{' ? "{{" : *w == '}' ? "}}" : NULL;
		size_t n = piece ? strlen(piece) : 1;

		if (*off + n + 2 >= len)
			return 0;
		memcpy(dst + *off, piece ? piece : w, n);
		*off += n;
	}
	dst[(*off)++] = '\'';
	dst[*off] = '\0';
	return 1;
}

/* x is a whole number that fits 64 bits (no cast of a larger double: that is undefined). */
static int whole64(double x)
{
	return isfinite(x) && x > -0x1p63 && x < 0x1p63 && x == (double)(long long)x;
}

/* A value's problem, or NULL. */
static const char *bad_value(const char *k, const char *v)
{
	char *end;
	double x = strtod(v, &end);

	if (!strcmp(k, "endpoint") || !strcmp(k, "metrics_url"))
		return lr_url_problem(v);
	if (!strcmp(k, "concurrency") || !strcmp(k, "max_tokens"))
		return *end || end == v || x < 1 || !whole64(x) ? "a whole number >= 1 that fits 64 bits" : NULL;
	if (!strcmp(k, "rate") || !strcmp(k, "burstiness") || !strcmp(k, "temperature"))
		return *end || end == v || !isfinite(x) || x < 0 || (x > 0 && !isnormal(x)) ? "a finite number >= 0"
											    : NULL;
	if (!strcmp(k, "seed"))
		return *end || end == v || !whole64(x) ? "a whole number that fits 64 bits" : NULL;
	if (!strcmp(k, "chat") || !strcmp(k, "ignore_eos"))
		return strcmp(v, "yes") && strcmp(v, "no") ? "yes or no" : NULL;
	if (!strcmp(k, "token_ids"))
		return strcmp(v, "vllm") && strcmp(v, "logprobs") && strcmp(v, "llama.cpp") && strcmp(v, "none")
			       ? "vllm, logprobs, llama.cpp or none"
			       : NULL;
	if (!strcmp(k, "goodput")) {
		double slo[3];

		if (lr_pass_slos(v, slo)) {
			lr_error_clear();
			return "SLOs such as 'ttft:200 tpot:50 e2el:2000' (ms)";
		}
	}
	if (!strcmp(k, "validity")) {
		struct lr_valid_rules r;

		if (lr_valid_rules_parse(v, &r)) {
			lr_error_clear();
			return "rules such as 'duration:600 requests:1000 ttft:2000 tpot:100'";
		}
	}
	if (!strcmp(k, "stall") || !strcmp(k, "sample")) {
		double t = lr_duration_parse(v);

		if (t < 0 || t > LR_EXP_MAX_TIMEOUT)
			return "a positive duration such as 30s or 5m, at most 9223372036 s";
	}
	return NULL; /* model, gauges: collect checks them */
}

static int expand_arm(struct parse *p, struct lr_exp_arm *a, const char *exe)
{
	const struct lr_expdef *d = p->d;
	char section[64], opt[64];
	size_t off = 0;
	int ok = 1;

	snprintf(section, sizeof section, "arm %s", a->name);
	if (a->command[0] || a->outputs[0] || a->responses[0])
		return lr_expdef_fail(
			p,
			lr_expdef_key_line(p, section,
					   a->command[0]   ? "command"
					   : a->outputs[0] ? "outputs"
							   : "responses"),
			"[arm %s] a serving arm is a route: it takes 'endpoint' and request settings, and "
			"labrun collect is its command",
			a->name);
	if (!lr_kvlist_find(&a->serving, "endpoint"))
		return lr_expdef_fail(p, a->line,
				      "[arm %s] has no 'endpoint' (target = serving), e.g. "
				      "endpoint = http://127.0.0.1:8000/v1",
				      a->name);
	if (!a->route[0])
		snprintf(a->route, sizeof a->route, "%s", a->name);
	ok = put_word(a->command, sizeof a->command, &off, exe) &&
	     put_word(a->command, sizeof a->command, &off, "collect") &&
	     put_word(a->command, sizeof a->command, &off, "--route") &&
	     put_word(a->command, sizeof a->command, &off, a->route) &&
	     put_word(a->command, sizeof a->command, &off, "--cases") &&
	     put_word(a->command, sizeof a->command, &off, d->cases);
	for (size_t i = 0; ok && i < a->serving.n; i++) {
		const char *k = a->serving.v[i].key, *v = a->serving.v[i].value, *why = bad_value(k, v);

		if (why)
			return lr_expdef_fail(p, lr_expdef_key_line(p, section, k),
					      "[arm %s] '%s' is '%s'; expected %s", a->name, k, v, why);
		snprintf(opt, sizeof opt, "--%s", k);
		for (char *c = opt; *c; c++)
			*c = *c == '_' ? '-' : *c;
		if (!strcmp(k, "chat") || !strcmp(k, "ignore_eos")) { /* flags */
			if (!strcmp(v, "yes"))
				ok = put_word(a->command, sizeof a->command, &off, opt);
			continue;
		}
		ok = put_word(a->command, sizeof a->command, &off, opt) &&
		     put_word(a->command, sizeof a->command, &off, v);
	}
	/* {outdir} is a placeholder: the one word not quoted */
	if (ok && off + 80 < sizeof a->command)
		off += (size_t)snprintf(a->command + off, sizeof a->command - off,
					" --out {outdir}/responses.jsonl --pass {outdir}/" LR_PASS_FILE);
	else
		return lr_expdef_fail(p, a->line, "[arm %s] its collect command is longer than %zu characters", a->name,
				      sizeof a->command - 1);
	memmove(a->command, a->command + 1, off); /* the leading blank */
	snprintf(a->responses, sizeof a->responses, "responses.jsonl");
	return 1;
}

int lr_expdef_serving_expand(struct parse *p)
{
	struct lr_expdef *d = p->d;
	char exe[PATH_MAX];
	ssize_t n;

	if (!d->cases[0])
		return lr_expdef_fail(p, lr_expdef_key_line(p, "experiment", "target"),
				      "target = serving needs [experiment] 'cases = FILE', the cases every pass sends");
	if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) < 0)
		return lr_expdef_fail(p, 1, "cannot find labrun's own executable: %s", strerror(errno));
	exe[n] = '\0';
	for (int i = 0; i < d->narms; i++)
		if (!expand_arm(p, &d->arms[i], exe))
			return 0;
	if (!d->metric[0])
		snprintf(d->metric, sizeof d->metric, "output_throughput");
	return 1;
}
