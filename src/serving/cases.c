/* A collect pass's cases file and the requests made of it (collect-int.h). */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include <jansson.h>

#include "base/error.h"
#include "base/list.h"
#include "base/lines.h"
#include "base/strmap.h"
#include "serving/collect-int.h"

#define LR_CASE_MAX ((size_t)16 << 20) /* bytes of one case's line at most */

/* ---- the cases file ---------------------------------------------------------------------- */

void lr_cases_release(struct lr_cases *c)
{
	for (size_t i = 0; i < c->n; i++)
		json_decref(c->v[i]);
	free(c->v);
	memset(c, 0, sizeof *c);
}

static int bad(const char *path, int64_t line, const char *why)
{
	lr_error_set(LR_EINVAL, "%s:%lld: %s", path, (long long)line, why);
	lr_error_hint("a cases file has one JSON object a line: case_id, and prompt, prompt_token_ids or messages "
		      "(docs/serving.md)");
	return LR_EINVAL;
}

/* The reason case o cannot be sent, or NULL. */
static const char *case_problem(json_t *o, int chat)
{
	json_t *v = json_object_get(o, "case_id"), *ids = json_object_get(o, "prompt_token_ids"), *mt;
	size_t i;

	if (!json_is_string(v) || !json_string_length(v))
		return "'case_id' must be a non-empty string";
	if (chat)
		return json_is_array(json_object_get(o, "messages")) && json_array_size(json_object_get(o, "messages"))
			       ? NULL
			       : "'messages' must be a non-empty array (--chat)";
	if (json_is_array(ids)) {
		for (i = 0; i < json_array_size(ids); i++)
			if (!json_is_integer(json_array_get(ids, i)) || json_integer_value(json_array_get(ids, i)) < 0)
				return "'prompt_token_ids' must hold non-negative integers only";
	} else if (!json_is_string(json_object_get(o, "prompt"))) {
		return "a case needs 'prompt' (a string) or 'prompt_token_ids' (an array of token ids)";
	}
	mt = json_object_get(o, "max_tokens");
	if (mt && (!json_is_integer(mt) || json_integer_value(mt) < 1))
		return "'max_tokens' must be a whole number >= 1";
	return NULL;
}

int lr_cases_read(const char *path, int chat, struct lr_cases *out)
{
	struct lr_strmap seen = { 0 };
	struct lr_lines lines;
	intptr_t first;
	json_error_t err;
	char *buf;
	size_t len;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = lr_lines_open(&lines, "cases", path, LR_CASE_MAX, LR_LINES_FILE_MAX)))
		return rc;
	while ((rc = lr_lines_next(&lines, &buf, &len)) > 0) {
		const char *why;
		json_t *o;

		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			len--;
		if (!(o = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err)) || !json_is_object(o)) {
			json_decref(o);
			rc = bad(path, lines.line,
				 !o && strstr(err.text, "unable to decode byte") ? "invalid UTF-8"
										 : "not a JSON object");
			break;
		}
		why = case_problem(o, chat);
		if (!why && lr_strmap_get(&seen, json_string_value(json_object_get(o, "case_id")), &first))
			why = "duplicate case_id";
		if (!why &&
		    lr_strmap_put(&seen, json_string_value(json_object_get(o, "case_id")), (intptr_t)lines.line))
			why = "out of memory";
		if (!why && LR_ALLOC_GROW(out->v, out->n + 1, out->cap))
			why = "out of memory";
		if (why) {
			json_decref(o);
			rc = bad(path, lines.line, why);
			break;
		}
		out->v[out->n++] = o;
	}
	lr_lines_close(&lines);
	lr_strmap_release(&seen);
	if (rc)
		lr_cases_release(out);
	return rc;
}

int lr_collect_check_cases(const char *path, int chat, int64_t *n)
{
	struct lr_cases c;
	int rc = lr_cases_read(path, chat, &c);

	*n = rc ? 0 : (int64_t)c.n;
	lr_cases_release(&c);
	return rc;
}

/* ---- requests ---------------------------------------------------------------------------- */

/* The JSON body of case c's request, as vLLM's and llama.cpp's OpenAI-compatible servers take it. */
char *lr_case_body(const struct lr_collect_opts *o, json_t *c)
{
	json_t *b = json_object(), *mt = json_object_get(c, "max_tokens");
	json_int_t max = mt ? json_integer_value(mt) : o->max_tokens;
	char *s;

	if (o->model)
		json_object_set_new(b, "model", json_string(o->model));
	if (o->chat)
		json_object_set(b, "messages", json_object_get(c, "messages"));
	else
		json_object_set(
			b, "prompt",
			json_object_get(c, json_object_get(c, "prompt_token_ids") ? "prompt_token_ids" : "prompt"));
	json_object_set_new(b, o->chat ? "max_completion_tokens" : "max_tokens", json_integer(max));
	json_object_set_new(b, "temperature", json_real(o->temperature));
	if (o->has_seed)
		json_object_set_new(b, "seed", json_integer(o->seed));
	if (o->ignore_eos)
		json_object_set_new(b, "ignore_eos", json_true());
	if (!strcmp(o->token_ids, "vllm")) {
		json_object_set_new(b, "return_token_ids", json_true());
	} else if (!strcmp(o->token_ids, "logprobs")) {
		json_object_set_new(b, "logprobs", o->chat ? json_true() : json_integer(1));
		json_object_set_new(b, "return_tokens_as_token_ids", json_true());
	} else if (!strcmp(o->token_ids, "llama.cpp")) {
		json_object_set_new(b, "return_tokens", json_true());
	}
	json_object_set_new(b, "stream", json_true());
	json_object_set_new(b, "stream_options", json_pack("{s:b}", "include_usage", 1));
	s = json_dumps(b, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(b);
	return s;
}

/* A seeded uniform in (0, 1) (splitmix64). */
static double uniform(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

/* A gamma(k, 1) variate (Marsaglia and Tsang; k < 1 boosted by U^(1/k)). */
static double gamma_draw(uint64_t *x, double k)
{
	double d, c, v, u, n;

	if (k < 1)
		return gamma_draw(x, k + 1) * pow(uniform(x), 1 / k);
	d = k - 1.0 / 3, c = 1 / sqrt(9 * d);
	for (;;) {
		do { /* a standard normal (Box-Muller) */
			n = sqrt(-2 * log(uniform(x))) * cos(2 * M_PI * uniform(x));
			v = 1 + c * n;
		} while (v <= 0);
		v = v * v * v;
		u = uniform(x);
		if (log(u) < 0.5 * n * n + d - d * v + d * log(v))
			return d * v;
	}
}

/* Arrival times as vLLM's bench serve draws them: gaps gamma(burstiness, 1/(rate x burstiness)). */
void lr_arrivals(const struct lr_collect_opts *o, struct lr_request *req, size_t n)
{
	uint64_t x = o->has_seed ? (uint64_t)o->seed : 0;
	double t = 0;

	for (size_t i = 0; i < n; i++) {
		req[i].at_s = t;
		if (o->rate > 0)
			t += gamma_draw(&x, o->burstiness) / (o->rate * o->burstiness);
	}
}
