#include "config.h"
#include <math.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "serving/sampler.h"
#include "serving/stream.h"

struct events {
	char got[8][64];
	int n;
};

static int take(void *arg, const char *data, size_t len)
{
	struct events *e = arg;

	assert_true(e->n < 8);
	assert_int_equal(strlen(data), len);
	snprintf(e->got[e->n++], sizeof e->got[0], "%s", data);
	return 0;
}

/* The same stream cut at every byte gives the same events: CRLF, CR, comments, fields, multi-line data. */
static void events_do_not_depend_on_how_the_bytes_arrive(void **state)
{
	static const char s[] =
		": a comment\r\ndata: one\r\n\r\nevent: x\nid: 7\ndata:two\ndata: lines\n\ndata: three\r\rdata: [DONE]\n\n";
	(void)state;
	for (size_t cut = 0; cut <= sizeof s - 1; cut++) {
		struct events e = { .n = 0 };
		struct lr_sse p;

		lr_sse_init(&p, 1024);
		assert_int_equal(lr_sse_feed(&p, s, cut, take, &e), 0);
		assert_int_equal(lr_sse_feed(&p, s + cut, sizeof s - 1 - cut, take, &e), 0);
		assert_int_equal(e.n, 4);
		assert_string_equal(e.got[0], "one");
		assert_string_equal(e.got[1], "two\nlines");
		assert_string_equal(e.got[2], "three");
		assert_string_equal(e.got[3], "[DONE]");
		assert_false(lr_sse_pending(&p));
		lr_sse_release(&p);
	}
}

static void an_oversized_event_and_a_cut_one_are_named(void **state)
{
	struct events e = { .n = 0 };
	struct lr_sse p;
	char big[200];

	(void)state;
	memset(big, 'x', sizeof big);
	lr_sse_init(&p, 64);
	assert_int_equal(lr_sse_feed(&p, big, sizeof big, take, &e), LR_EINVAL);
	assert_non_null(strstr(lr_error_msg(), "an event longer than 64 bytes"));
	lr_sse_release(&p);
	lr_sse_init(&p, 64);
	assert_int_equal(lr_sse_feed(&p, "data: {\"cho", 11, take, &e), 0);
	assert_true(lr_sse_pending(&p));
	assert_int_equal(e.n, 0);
	lr_sse_release(&p);
}

static int feed(struct lr_stream *s, const char *json, double t)
{
	return lr_stream_event(s, json, strlen(json), t);
}

/* vLLM's completions with return_token_ids: ids per chunk, finish, usage, [DONE]; gaps per content event. */
static void vllm_chunks_give_ids_text_usage_and_gaps(void **state)
{
	struct lr_stream s;

	(void)state;
	lr_stream_init(&s);
	assert_int_equal(
		feed(&s, "{\"choices\":[{\"index\":0,\"text\":\"He\",\"token_ids\":[11,12]}],\"prompt_token_ids\":[1]}",
		     1.0),
		0);
	assert_int_equal(
		feed(&s, "{\"choices\":[{\"index\":0,\"text\":\"llo\",\"token_ids\":[13],\"finish_reason\":null}]}",
		     1.25),
		0);
	assert_int_equal(feed(&s, "{\"choices\":[{\"index\":0,\"text\":\"\",\"finish_reason\":\"length\"}]}", 1.5), 0);
	assert_int_equal(feed(&s, "{\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":3}}", 1.5), 0);
	assert_int_equal(feed(&s, "[DONE]", 1.6), 0);
	assert_true(s.done);
	assert_string_equal(s.text, "Hello");
	assert_int_equal(s.ntokens, 3);
	assert_int_equal(s.tokens[0], 11);
	assert_int_equal(s.tokens[2], 13);
	assert_int_equal(s.source, LR_TOKENS_IDS);
	assert_string_equal(s.finish, "length");
	assert_int_equal(s.prompt_tokens, 1);
	assert_int_equal(s.completion_tokens, 3);
	assert_int_equal(s.events, 2); /* the finish and usage chunks carry no content */
	assert_int_equal(s.nitl, 1);
	assert_true(s.itl_ms[0] > 249.9 && s.itl_ms[0] < 250.1);
	assert_int_equal(feed(&s, "{\"choices\":[]}", 2.0), LR_EINVAL);
	assert_string_equal(s.failure, "malformed stream: an event after [DONE]");
	lr_stream_release(&s);
}

/* Older vLLM's logprob tokens, chat deltas, llama.cpp's native chunks, a text-only server. */
static void every_shape_of_token_ids_is_read(void **state)
{
	struct lr_stream s;

	(void)state;
	lr_stream_init(&s);
	assert_int_equal(
		feed(&s, "{\"choices\":[{\"index\":0,\"text\":\"a\",\"logprobs\":{\"tokens\":[\"token_id:42\"]}}]}", 0),
		0);
	assert_int_equal(s.source, LR_TOKENS_LOGPROBS);
	assert_int_equal(s.tokens[0], 42);
	lr_stream_release(&s);
	lr_stream_init(&s);
	assert_int_equal(feed(&s,
			      "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"logprobs\":{\"content\":"
			      "[{\"token\":\"token_id:7\",\"logprob\":-1}]}}]}",
			      0),
			 0);
	assert_string_equal(s.text, "hi");
	assert_int_equal(s.tokens[0], 7);
	lr_stream_release(&s);
	lr_stream_init(&s);
	assert_int_equal(feed(&s, "{\"content\":\"x\",\"tokens\":[5],\"stop\":false}", 0), 0);
	assert_int_equal(feed(&s, "{\"content\":\"\",\"tokens\":[],\"stop\":true,\"stop_type\":\"limit\"}", 0), 0);
	assert_int_equal(s.source, LR_TOKENS_LLAMACPP);
	assert_string_equal(s.finish, "length");
	lr_stream_release(&s);
	lr_stream_init(&s);
	assert_int_equal(feed(&s, "{\"choices\":[{\"index\":0,\"text\":\"only text\",\"finish_reason\":\"stop\"}]}", 0),
			 0);
	assert_int_equal(s.source, LR_TOKENS_NONE);
	assert_string_equal(lr_token_source_name(s.source), "text");
	lr_stream_release(&s);
}

static void faults_are_named(void **state)
{
	static const struct {
		const char *event, *failure;
	} cases[] = {
		{ "{not json", "malformed stream: an event that is not JSON" },
		{ "[1, 2]", "malformed stream: an event that is not a JSON object" },
		{ "{\"error\":{\"message\":\"no KV blocks\"}}", "server error in the stream: no KV blocks" },
		{ "{\"choices\":[{\"index\":0,\"text\":\"\\u00e9\xff\"}]}", "invalid UTF-8 in an event" },
		{ "{\"object\":\"nothing\"}", "malformed stream: an event with neither 'choices' nor 'error'" },
		{ "{\"choices\":[{\"index\":0,\"token_ids\":[-1]}]}",
		  "malformed stream: a token id that is not a whole number >= 0" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct lr_stream s;

		lr_stream_init(&s);
		assert_int_equal(feed(&s, cases[i].event, 0), LR_EINVAL);
		assert_non_null(strstr(s.failure, cases[i].failure));
		lr_stream_release(&s);
	}
}

/* A one-shot HTTP server in a child process: each of n connections gets bodies[i] as a 200 answer. */
static void serve(int ls, const char *const *bodies, int n)
{
	for (int i = 0; i < n; i++) {
		char req[4096];
		size_t got = 0;
		ssize_t r;
		int c = accept(ls, NULL, NULL);

		if (c < 0)
			_exit(1);
		while (got < sizeof req - 1 && (r = read(c, req + got, sizeof req - 1 - got)) > 0) {
			got += (size_t)r;
			req[got] = '\0';
			if (strstr(req, "\r\n\r\n"))
				break;
		}
		dprintf(c,
			"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
			strlen(bodies[i]), bodies[i]);
		close(c);
	}
	_exit(0);
}

/* Drive the multi handle until the sampler's GET is done (at most ~10 s). */
static void sample_once(struct lr_sampler *s, CURLM *m, double now)
{
	int done = 0, still, q, polls = 0;
	CURLMsg *msg;

	lr_sampler_tick(s, now);
	while (!done && polls++ < 100) {
		curl_multi_perform(m, &still);
		while ((msg = curl_multi_info_read(m, &q)))
			if (msg->msg == CURLMSG_DONE)
				done = lr_sampler_done(s, msg->easy_handle, msg->data.result, now + 0.5);
		if (!done)
			curl_multi_poll(m, NULL, 0, 100, NULL);
	}
	assert_true(done);
}

/*
 * An empty /metrics answer is no sample: the body of the answer before it
 * was kept (only its length was set to 0), so it read as that one again.
 */
static void an_empty_metrics_answer_is_no_sample(void **state)
{
	static const char *const bodies[] = { "vllm:num_requests_running 3\nvllm:num_requests_waiting 1\n", "" };
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof a;
	struct lr_gauge_sample *v = NULL;
	struct lr_sampler *s;
	char url[64];
	size_t n = 0;
	CURLM *m;
	pid_t pid;
	int ls;

	(void)state;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true((ls = socket(AF_INET, SOCK_STREAM, 0)) >= 0);
	assert_int_equal(bind(ls, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(ls, 4), 0);
	assert_int_equal(getsockname(ls, (struct sockaddr *)&a, &alen), 0);
	assert_true((pid = fork()) >= 0);
	if (!pid)
		serve(ls, bodies, 2);
	close(ls);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/metrics", ntohs(a.sin_port));
	assert_int_equal(lr_curl_load(), 0);
	assert_non_null(m = curl_multi_init());
	assert_int_equal(lr_sampler_start(&s, m, url, "vllm:num_requests_running", "vllm:num_requests_waiting", 1, 0),
			 0);
	sample_once(s, m, 0);
	sample_once(s, m, 1);
	lr_sampler_stop(s, &v, &n);
	curl_multi_cleanup(m);
	waitpid(pid, NULL, 0);
	assert_int_equal(n, 2); /* the empty answer is a gap, recorded as one (issue 42) */
	assert_true(v[0].running == 3 && v[0].waiting == 1 && !v[0].failed);
	assert_true(isnan(v[1].running) && v[1].failed && !strcmp(v[1].failed, "an empty answer"));
	free(v);
}

/*
 * A gauge's sample is read from its own line: a label set not closed on it, or no value on it, is no sample,
 * though the next line holds a '}' or a number (the fuzzer's first run found the '}' one); a '}' inside a
 * quoted label value does not close the set; nor is a value read past the line's end after a form feed.
 */
static void a_gauge_sample_is_read_from_its_own_line(void **state)
{
	static const struct {
		const char *text;
		int found;
		double sum;
	} cases[] = {
		{ "g{\n} 4\n", 0, 0 },
		{ "g{a=\"x\"}\n7\n", 0, 0 },
		{ "g \n7\n", 0, 0 },
		{ "g  \f \n44\n", 0, 0 },     /* the 600 s fuzz run's: strtod skipped the form feed and the newline */
		{ "g \v\r\n5\ng 1\n", 1, 1 }, /* other white space before the line's end, then a sample */
		{ "g{a=\"}\"} 3\n", 1, 3 },
		{ "g{a=\"\\\"}\"} 2\ng{} 1 1700000000\ng 0.5\n", 1, 3.5 },
		{ "# g 9\ngauge 9\ng{a=\"x\"} 1\n", 1, 1 },
	};
	double v;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (lr_prom_gauge(cases[i].text, "g", &v) != cases[i].found)
			fail_msg("'%s': not %s", cases[i].text, cases[i].found ? "found" : "refused");
		assert_true(v == cases[i].sum);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(events_do_not_depend_on_how_the_bytes_arrive),
		cmocka_unit_test(an_oversized_event_and_a_cut_one_are_named),
		cmocka_unit_test(vllm_chunks_give_ids_text_usage_and_gaps),
		cmocka_unit_test(every_shape_of_token_ids_is_read),
		cmocka_unit_test(faults_are_named),
		cmocka_unit_test(an_empty_metrics_answer_is_no_sample),
		cmocka_unit_test(a_gauge_sample_is_read_from_its_own_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
