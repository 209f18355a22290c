#include "config.h"
#include "base/system.h"

#include "base/jsonbytes.h"
#include "base/safename.h"
#include "record/runjson.h"

/*
 * Text from the outside world (names, paths, values) may not be UTF-8: it is
 * written with lr_json_bytes, a JSON string when it is UTF-8, else
 * {"escaped": "%XX form"}, never dropped. NULL is JSON null.
 */
static json_t *bytes(const char *s)
{
	return s ? lr_json_bytes(s) : json_null();
}

/* An object key must be UTF-8: one that is not is written in its %XX form (base/safename.h). */
static void set_key(json_t *o, const char *key, json_t *v)
{
	size_t len = strlen(key) * 3 + 8;
	char *safe;

	if (!json_object_set_new(o, key, v))
		return;
	if ((safe = malloc(len)) && lr_safe_member(safe, len, key))
		json_object_set_new(o, safe, v);
	else
		json_decref(v);
	free(safe);
}

static json_t *kv_object(const struct lr_kvlist *l)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < l->n; i++)
		set_key(o, l->v[i].key, bytes(l->v[i].value));
	return o;
}

static json_t *artifact_json(const struct lr_artifact *t)
{
	json_t *x = json_pack("{s:s, s:o}", "role", t->role, "name", bytes(t->name));

	json_object_set_new(x, "sha256", t->present ? json_string(t->sha256) : json_null());
	json_object_set_new(x, "size", t->present ? json_integer(t->size) : json_null());
	if (t->kind != LR_ENTRY_FILE) {
		json_object_set_new(x, "kind", json_string(lr_entry_kind_name(t->kind)));
		json_object_set_new(x, "target", bytes(t->target));
	}
	return x;
}

/* The sources: git state and changed files, or only the --source files when outside git. */
static json_t *source_json(const struct lr_run *r)
{
	json_t *a = json_array(), *x;
	size_t i;

	if (!r->source.present) { /* --source files outside git still count */
		for (i = 0; i < r->nfiles; i++)
			json_array_append_new(a, json_pack("{s:o, s:s, s:s, s:I}", "path", bytes(r->files[i].path),
							   "git_status", r->files[i].status, "sha256",
							   r->files[i].sha256, "size", (json_int_t)r->files[i].size));
		return json_pack("{s:n, s:o}", "repo_path", "files", a);
	}
	for (i = 0; i < r->nfiles; i++) {
		const struct lr_srcfile *f = &r->files[i];

		x = json_pack("{s:o, s:s}", "path", bytes(f->path), "git_status", f->status);
		json_object_set_new(x, "sha256", f->has_content ? json_string(f->sha256) : json_null());
		json_object_set_new(x, "size", f->has_content ? json_integer(f->size) : json_null());
		json_array_append_new(a, x);
	}
	return json_pack("{s:o, s:o, s:o, s:b, s:s, s:o}", "repo_path", bytes(r->source.repo_path), "head",
			 bytes(r->source.head), "branch", bytes(r->source.branch), "dirty", r->source.dirty,
			 "diff_sha256", r->source.diff_sha256, "files", a);
}

/* Its tool probes (command and output) and the labrun that recorded it, into o. */
static void identity_json(json_t *o, const struct lr_run *r)
{
	json_t *x = json_object();

	for (size_t i = 0; i < r->probes.n; i++)
		set_key(x, r->probes.v[i].key,
			json_pack("{s:o, s:o}", "command", bytes(r->probes.v[i].tag), "output",
				  bytes(r->probes.v[i].value)));
	json_object_set_new(o, "tool_probes", x);
	json_object_set_new(o, "recorder", kv_object(&r->recorder));
}

json_t *lr_run_json(const struct lr_run *r, int full)
{
	json_t *o = json_object(), *issues = json_array(), *argv = json_loads(r->argv_json, 0, NULL);
	json_t *a, *x;
	size_t i;

	for (i = 0; i < r->issues.n; i++)
		json_array_append_new(issues, bytes(r->issues.v[i]));
	json_object_set_new(o, "id", json_integer(r->id));
	json_object_set_new(o, "uuid", json_string(r->uuid));
	json_object_set_new(o, "kind", json_string(lr_run_kind_name(r->kind)));
	json_object_set_new(o, "experiment", bytes(r->experiment));
	json_object_set_new(o, "status", json_string(lr_status_name(r->status)));
	json_object_set_new(o, "exit_code", r->has_exit ? json_integer(r->exit_code) : json_null());
	json_object_set_new(o, "signal", r->signal ? json_integer(r->signal) : json_null());
	json_object_set_new(o, "timed_out", json_boolean(r->timed_out));
	json_object_set_new(o, "failure", bytes(r->failure));
	json_object_set_new(o, "started_at", bytes(r->started_at));
	json_object_set_new(o, "ended_at", bytes(r->ended_at));
	json_object_set_new(o, "wall_s", r->ended_at && r->status != LR_ABANDONED ? json_real(r->wall_s) : json_null());
	json_object_set_new(o, "argv", argv ? argv : json_null());
	json_object_set_new(o, "cwd", bytes(r->cwd));
	json_object_set_new(o, "issues", issues);
	if (!full)
		return o;
	json_object_set_new(o, "user_s", r->ended_at ? json_real(r->user_s) : json_null());
	json_object_set_new(o, "sys_s", r->ended_at ? json_real(r->sys_s) : json_null());
	json_object_set_new(o, "peak_rss_kib", r->ended_at ? json_integer(r->peak_rss_kib) : json_null());
	json_object_set_new(o, "labrun_version", json_string(r->labrun_version));
	json_object_set_new(o, "replay_of", r->replay_of ? json_integer(r->replay_of) : json_null());
	json_object_set_new(o, "note", bytes(r->note));
	json_object_set_new(o, "host",
			    json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o}", "hostname", bytes(r->host.hostname),
				      "os", bytes(r->host.os), "kernel", bytes(r->host.kernel), "arch",
				      bytes(r->host.arch), "cpu_model", bytes(r->host.cpu_model), "cpu_flags",
				      bytes(r->host.cpu_flags), "cores", (json_int_t)r->host.cores, "memory_bytes",
				      r->host.memory_bytes ? json_integer(r->host.memory_bytes) : json_null()));
	json_object_set_new(o, "source", source_json(r));
	x = json_object();
	for (i = 0; i < r->env.n; i++)
		set_key(x, r->env.v[i].key, bytes(r->env.v[i].value));
	json_object_set_new(o, "environment", x);
	x = json_object();
	for (i = 0; i < r->binding.n; i++)
		set_key(x, r->binding.v[i].key,
			json_pack("{s:o, s:s}", "value", bytes(r->binding.v[i].value), "origin",
				  r->binding.v[i].tag ? r->binding.v[i].tag : "user"));
	json_object_set_new(o, "binding", x);
	json_object_set_new(o, "geometry", kv_object(&r->geometry));
	json_object_set_new(o, "tools", kv_object(&r->tools));
	json_object_set_new(o, "digests", kv_object(&r->digests));
	identity_json(o, r);
	a = json_array();
	for (i = 0; i < r->nartifacts; i++)
		json_array_append_new(a, artifact_json(&r->artifacts[i]));
	json_object_set_new(o, "artifacts", a);
	a = json_array();
	for (i = 0; i < r->nmeasures; i++)
		json_array_append_new(a, json_pack("{s:o, s:f, s:s, s:b}", "name", bytes(r->measures[i].name), "value",
						   r->measures[i].value, "unit", r->measures[i].unit, "modelled",
						   r->measures[i].modelled));
	json_object_set_new(o, "measurements", a);
	a = json_array();
	for (i = 0; i < r->nchecks; i++)
		json_array_append_new(a,
				      json_pack("{s:o, s:I, s:I, s:o}", "name", bytes(r->checks[i].name), "passed",
						(json_int_t)r->checks[i].passed, "total",
						(json_int_t)r->checks[i].total, "detail", bytes(r->checks[i].detail)));
	json_object_set_new(o, "checks", a);
	if (r->kind != LR_KIND_BENCH)
		return o;
	a = json_array();
	for (i = 0; i < r->nsamples; i++)
		json_array_append_new(a, json_pack("{s:o, s:o, s:i, s:f, s:s}", "subject", bytes(r->samples[i].subject),
						   "variant", bytes(r->samples[i].variant), "rep", r->samples[i].rep,
						   "value", r->samples[i].value, "unit", r->samples[i].unit));
	json_object_set_new(o, "samples", a);
	return o;
}
