/* Which engine a serving pass reached, from what it said of itself (serving/engine.h). */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "serving/client.h"
#include "serving/engine.h"

/* The owned_by of /v1/models' first model, as each engine's server writes it. */
static const char *owned_by(const char *models)
{
	static const struct {
		const char *owner, *engine;
	} owners[] = { { "vllm", "vLLM" }, { "llamacpp", "llama.cpp" }, { "sglang", "SGLang" }, { "tgi", "TGI" } };
	json_t *j = models ? json_loads(models, 0, NULL) : NULL;
	const char *owner =
		json_string_value(json_object_get(json_array_get(json_object_get(j, "data"), 0), "owned_by"));
	const char *engine = NULL;

	for (size_t i = 0; owner && i < sizeof owners / sizeof owners[0]; i++)
		if (!strcmp(owner, owners[i].owner))
			engine = owners[i].engine;
	json_decref(j);
	return engine;
}

/* The string member 'key' of JSON 'text' into buf; 0 when it has none. */
static int member(const char *text, const char *key, char *buf, size_t len)
{
	json_t *j = text ? json_loads(text, 0, NULL) : NULL;
	const char *v = json_string_value(json_object_get(j, key));

	if (v)
		snprintf(buf, len, "%s", v);
	json_decref(j);
	return v != NULL;
}

int lr_engine_identify(const struct lr_engine_said *s, char *engine, size_t elen, char *version, size_t vlen)
{
	const char *owner = owned_by(s->models);
	char build[256] = "", ver[256] = "";
	int props = member(s->props, "build_info", build, sizeof build);
	int vers = member(s->version, "version", ver, sizeof ver);

	version[0] = '\0';
	/* llama-server's /props carries its build; nothing else serves build_info there */
	if (props && (!owner || !strcmp(owner, "llama.cpp"))) {
		snprintf(engine, elen, "llama.cpp");
		snprintf(version, vlen, "%s", build);
		return 1;
	}
	/* vLLM answers /version with its version alone; owned_by says whose it is when present */
	if (vers && (!owner || !strcmp(owner, "vLLM"))) {
		snprintf(engine, elen, "vLLM");
		snprintf(version, vlen, "%s", ver);
		return 1;
	}
	if (owner) {
		snprintf(engine, elen, "%s", owner);
		return 1;
	}
	snprintf(engine, elen, "unidentified");
	return 0;
}

/* GET 'path' from the endpoint's host (vLLM's /version, llama-server's /props): its body when a JSON object, else NULL. */
static char *ask_host(const char *e, double timeout_s, const char *path)
{
	const char *host = strstr(e, "://");
	char *url = NULL, server[128], *body = NULL;
	long status = 0;
	json_t *j = NULL;

	host = host ? host + 3 : e;
	if (asprintf(&url, "%.*s%s", (int)(host - e + strcspn(host, "/")), e, path) < 0)
		return NULL;
	if (lr_client_get(url, timeout_s, &status, &body, server) || status != 200 || !body ||
	    !(j = json_loadb(body, strlen(body), 0, NULL)) || !json_is_object(j)) {
		free(body);
		body = NULL;
	}
	json_decref(j);
	lr_error_clear();
	free(url);
	return body;
}

void lr_engine_ask(const char *endpoint, double timeout_s, struct lr_engine_answers *out)
{
	char *url = NULL, server[128] = "", *body = NULL;
	long status = 0;
	json_t *models;

	memset(out, 0, sizeof *out);
	if (asprintf(&url, "%s/models", endpoint) < 0)
		return;
	if (!lr_client_get(url, timeout_s, &status, &body, server) && status == 200 && body &&
	    (models = json_loadb(body, strlen(body), 0, NULL))) { /* kept only when it is JSON */
		json_decref(models);
		out->models = body;
		body = NULL;
	}
	lr_error_clear();
	if (server[0])
		out->server = strdup(server);
	free(body);
	free(url);
	out->version = ask_host(endpoint, timeout_s, "/version");
	out->props = ask_host(endpoint, timeout_s, "/props");
}

void lr_engine_answers_release(struct lr_engine_answers *a)
{
	free(a->server);
	free(a->models);
	free(a->version);
	free(a->props);
	memset(a, 0, sizeof *a);
}
