#ifndef LR_SERVING_ENGINE_H
#define LR_SERVING_ENGINE_H

/*
 * Which engine a serving pass reached, from what the server said of itself:
 * GET /v1/models (owned_by: "vllm", "llamacpp"), vLLM's GET /version
 * ({"version": "0.6.3"}), llama-server's GET /props (its "build_info"). A
 * Server header alone identifies nothing: any proxy or stub can send one.
 */

#include <stddef.h>

struct lr_engine_said {
	const char *server;  /* the Server header of GET /v1/models, or NULL */
	const char *models;  /* its body, or NULL */
	const char *version; /* GET /version's body, or NULL */
	const char *props;   /* GET /props's body, or NULL */
};

/*
 * 1 with 'engine' ("vLLM", "llama.cpp", "SGLang", "TGI") and 'version' (its
 * version or build, "" when it did not say) when what it said names one; 0
 * with engine "unidentified" otherwise.
 */
int lr_engine_identify(const struct lr_engine_said *s, char *engine, size_t elen, char *version, size_t vlen);

/* What a server said of itself, each string malloc'd, or NULL when it said nothing (or not JSON). */
struct lr_engine_answers {
	char *server, *models, *version, *props;
};

/*
 * Ask the server of 'endpoint' (".../v1") what it is: GET <endpoint>/models
 * (its body when JSON, and its Server header), GET /version and GET /props
 * from its host (their bodies when JSON objects). Failures leave a NULL and
 * no error set: an engine that says nothing is "unidentified", not a fault.
 */
void lr_engine_ask(const char *endpoint, double timeout_s, struct lr_engine_answers *out);
void lr_engine_answers_release(struct lr_engine_answers *a);

#endif
