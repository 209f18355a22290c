#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/safename.h"
#include "record/runjson.h"

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/*
 * An artifact's name. One that is not UTF-8 cannot be a JSON string: it is
 * written in its reversible member form (base/safename.h, the name of its
 * file in the crate) with "name_escaped": true, never dropped.
 */
static void set_name(json_t *x, const char *name)
{
	size_t len = strlen(name) * 3 + 8;
	char *safe;

	if (!json_object_set_new(x, "name", json_string(name)))
		return;
	if ((safe = malloc(len)) && lr_safe_member(safe, len, name)) {
		json_object_set_new(x, "name", json_string(safe));
		json_object_set_new(x, "name_escaped", json_true());
	}
	free(safe);
}

static json_t *kv_object(const struct lr_kvlist *l)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < l->n; i++)
		json_object_set_new(o, l->v[i].key, json_string(l->v[i].value));
	return o;
}

json_t *lr_run_json(const struct lr_run *r, int full)
{
	json_t *o = json_object(), *issues = json_array(), *argv = json_loads(r->argv_json, 0, NULL);
	json_t *a, *x;
	size_t i;

	for (i = 0; i < r->issues.n; i++)
		json_array_append_new(issues, json_string(r->issues.v[i]));
	json_object_set_new(o, "id", json_integer(r->id));
	json_object_set_new(o, "uuid", json_string(r->uuid));
	json_object_set_new(o, "kind", json_string(lr_run_kind_name(r->kind)));
	json_object_set_new(o, "experiment", str_or_null(r->experiment));
	json_object_set_new(o, "status", json_string(lr_status_name(r->status)));
	json_object_set_new(o, "exit_code", r->has_exit ? json_integer(r->exit_code) : json_null());
	json_object_set_new(o, "signal", r->signal ? json_integer(r->signal) : json_null());
	json_object_set_new(o, "timed_out", json_boolean(r->timed_out));
	json_object_set_new(o, "failure", str_or_null(r->failure));
	json_object_set_new(o, "started_at", json_string(r->started_at));
	json_object_set_new(o, "ended_at", str_or_null(r->ended_at));
	json_object_set_new(o, "wall_s", r->ended_at && r->status != LR_ABANDONED ? json_real(r->wall_s) : json_null());
	json_object_set_new(o, "argv", argv ? argv : json_null());
	json_object_set_new(o, "cwd", json_string(r->cwd));
	json_object_set_new(o, "issues", issues);
	if (!full)
		return o;
	json_object_set_new(o, "user_s", r->ended_at ? json_real(r->user_s) : json_null());
	json_object_set_new(o, "sys_s", r->ended_at ? json_real(r->sys_s) : json_null());
	json_object_set_new(o, "peak_rss_kib", r->ended_at ? json_integer(r->peak_rss_kib) : json_null());
	json_object_set_new(o, "labrun_version", json_string(r->labrun_version));
	json_object_set_new(o, "replay_of", r->replay_of ? json_integer(r->replay_of) : json_null());
	json_object_set_new(o, "note", str_or_null(r->note));
	json_object_set_new(o, "host", json_pack("{s:s, s:o, s:s, s:s, s:o, s:o, s:I, s:o}",
						 "hostname", r->host.hostname, "os", str_or_null(r->host.os),
						 "kernel", r->host.kernel, "arch", r->host.arch,
						 "cpu_model", str_or_null(r->host.cpu_model),
						 "cpu_flags", str_or_null(r->host.cpu_flags),
						 "cores", (json_int_t)r->host.cores,
						 "memory_bytes", r->host.memory_bytes ? json_integer(r->host.memory_bytes)
										     : json_null()));
	if (r->source.present) {
		a = json_array();
		for (i = 0; i < r->nfiles; i++) {
			const struct lr_srcfile *f = &r->files[i];

			x = json_pack("{s:s, s:s}", "path", f->path, "git_status", f->status);
			json_object_set_new(x, "sha256", f->has_content ? json_string(f->sha256) : json_null());
			json_object_set_new(x, "size", f->has_content ? json_integer(f->size) : json_null());
			json_array_append_new(a, x);
		}
		json_object_set_new(o, "source", json_pack("{s:s, s:o, s:o, s:b, s:s, s:o}",
							   "repo_path", r->source.repo_path,
							   "head", str_or_null(r->source.head),
							   "branch", str_or_null(r->source.branch),
							   "dirty", r->source.dirty,
							   "diff_sha256", r->source.diff_sha256, "files", a));
	} else {
		/* --source files outside git still count */
		a = json_array();
		for (i = 0; i < r->nfiles; i++)
			json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:I}", "path", r->files[i].path,
							   "git_status", r->files[i].status, "sha256",
							   r->files[i].sha256, "size", (json_int_t)r->files[i].size));
		json_object_set_new(o, "source", json_pack("{s:n, s:o}", "repo_path", "files", a));
	}
	x = json_object();
	for (i = 0; i < r->env.n; i++)
		json_object_set_new(x, r->env.v[i].key, json_string(r->env.v[i].value));
	json_object_set_new(o, "environment", x);
	x = json_object();
	for (i = 0; i < r->binding.n; i++)
		json_object_set_new(x, r->binding.v[i].key,
				    json_pack("{s:s, s:s}", "value", r->binding.v[i].value, "origin",
					      r->binding.v[i].tag ? r->binding.v[i].tag : "user"));
	json_object_set_new(o, "binding", x);
	json_object_set_new(o, "geometry", kv_object(&r->geometry));
	json_object_set_new(o, "tools", kv_object(&r->tools));
	a = json_array();
	for (i = 0; i < r->nartifacts; i++) {
		const struct lr_artifact *t = &r->artifacts[i];

		x = json_pack("{s:s}", "role", t->role);
		set_name(x, t->name);
		json_object_set_new(x, "sha256", t->present ? json_string(t->sha256) : json_null());
		json_object_set_new(x, "size", t->present ? json_integer(t->size) : json_null());
		json_array_append_new(a, x);
	}
	json_object_set_new(o, "artifacts", a);
	a = json_array();
	for (i = 0; i < r->nmeasures; i++)
		json_array_append_new(a, json_pack("{s:s, s:f, s:s, s:b}", "name", r->measures[i].name, "value",
						   r->measures[i].value, "unit", r->measures[i].unit, "modelled",
						   r->measures[i].modelled));
	json_object_set_new(o, "measurements", a);
	return o;
}
