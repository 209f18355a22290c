/*
 * The recorded runs of a report: the runs of 'labrun record' and 'labrun
 * import' among the report's runs, each with its command (no absolute path
 * of the machine it ran on), how it ended and the checks its command
 * reported ($LABRUN_CHECKS): one section of the report's document, and the
 * report data's "records".
 */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/buf.h"
#include "base/jsonbytes.h"
#include "experiment/report.h"
#include "report/doc.h"
#include "report/render-int.h"
#include "report/report.h"
#include "report/text.h"

#define COMMAND_SHORT 120 /* bytes of a command line shown at most, "..." included */

static json_t *text_json(const char *s);

/*
 * Argument i of run r as the report shows it: an absolute path inside the
 * run's git work tree relative to its top ("." for the top itself), an
 * absolute argv[0] elsewhere its base name; anything else as it is.
 */
static const char *short_arg(const struct lr_run *r, size_t i, const char *a)
{
	const char *top = r->source.present ? r->source.repo_path : NULL, *base;
	size_t n = top ? strlen(top) : 0;

	if (a[0] != '/')
		return a;
	if (n > 1 && !strncmp(a, top, n) && (a[n] == '/' || !a[n]))
		return a[n] && a[n + 1] ? a + n + 1 : ".";
	base = strrchr(a, '/') + 1;
	return i == 0 && *base ? base : a;
}

/* Run r's command line as a shell reads it, its paths made short (short_arg), cut to COMMAND_SHORT bytes. */
static char *short_command(const struct lr_run *r)
{
	json_t *argv = json_loads(r->argv_json, 0, NULL), *out = json_array(), *v;
	char *json = NULL, *text = NULL;
	size_t i, n;

	json_array_foreach(argv, i, v)
		json_array_append_new(out, json_is_string(v) ? json_string(short_arg(r, i, json_string_value(v)))
							     : json_incref(v));
	if (argv && out && (json = json_dumps(out, JSON_COMPACT)))
		text = lr_argv_text(json);
	else if (!argv)
		text = strdup(r->argv_json);
	if (text && strlen(text) > COMMAND_SHORT) { /* "..." and its NUL fit in the bytes cut */
		for (n = COMMAND_SHORT - 3; n && ((unsigned char)text[n] & 0xc0) == 0x80;)
			n--; /* never inside a character */
		memcpy(text + n, "...", 4);
	}
	free(json);
	json_decref(out);
	json_decref(argv);
	return text;
}

/* "passed, exit 0", "failed, signal 9", "failed, timed out", "abandoned". */
static void ended(struct lr_buf *t, const struct lr_run *r)
{
	lr_doc_add(t, lr_status_name(r->status));
	if (r->timed_out)
		lr_doc_add(t, ", timed out");
	else if (r->signal)
		lr_doc_addf(t, ", signal %d", r->signal);
	else if (r->has_exit)
		lr_doc_addf(t, ", exit %d", r->exit_code);
}

/* 1 when run r failed for a reason its exit says nothing of (a check line refused, an artifact missing). */
static int failed_quietly(const struct lr_run *r)
{
	return r->status != LR_PASSED && r->status != LR_RUNNING && r->failure && !r->timed_out && !r->signal &&
	       (!r->has_exit || !r->exit_code);
}

/* "exactness: 65536/65536", "strided: 11/12 FAILED (negative stride)". */
static void check_item(struct lr_buf *t, const struct lr_check *c)
{
	lr_doc_addf(t, "%s: %lld/%lld", c->name, (long long)c->passed, (long long)c->total);
	if (c->passed < c->total)
		lr_doc_add(t, " FAILED");
	if (c->detail)
		lr_doc_addf(t, " (%s)", c->detail);
}

void lr_render_cleanup(struct lr_buf *t, const struct lr_leftovers *l)
{
	size_t i;

	lr_doc_addf(t, "%zu left running", l->n);
	for (i = 0; i < l->n && i < 3; i++) {
		lr_doc_addf(t, "%s pid %lld '%s'", i ? "," : ":", (long long)l->v[i].pid, l->v[i].argv);
		if (l->v[i].seq >= 0)
			lr_doc_addf(t, " (execution %d of condition %d)", l->v[i].seq, l->v[i].cond);
	}
	if (i < l->n)
		lr_doc_addf(t, ", and %zu more", l->n - i);
}

json_t *lr_render_cleanup_json(const struct lr_leftovers *l)
{
	json_t *left = json_array();

	for (size_t i = 0; i < l->n; i++) {
		const struct lr_leftover *x = &l->v[i];

		json_array_append_new(left, json_pack("{s:o, s:o, s:I, s:o}", "condition",
						      x->cond >= 0 ? json_integer(x->cond) : json_null(), "execution",
						      x->seq >= 0 ? json_integer(x->seq) : json_null(), "pid",
						      (json_int_t)x->pid, "argv", text_json(x->argv)));
	}
	return json_pack("{s:I, s:o}", "count", (json_int_t)l->n, "left", left);
}

void lr_render_records_doc(struct lr_doc *d, const struct lr_report *rep)
{
	struct lr_doc_block *b;

	if (!rep->nrecords)
		return;
	lr_doc_add(&lr_doc_heading(d, 2)->text, "Recorded runs");
	lr_doc_add_lines(&lr_doc_prose(d)->text,
			 "The runs of labrun record and labrun import, oldest first: the command (paths inside\n"
			 "its git work tree relative to the top), how it ended, and each check it reported through\n"
			 "$LABRUN_CHECKS as cases passed of cases checked.");
	b = lr_doc_facts(d);
	for (int i = 0; i < rep->nrecords; i++) {
		const struct lr_run *r = &rep->records[i];
		struct lr_buf *t = lr_doc_item(d, b, 0);
		char *cmd = short_command(r);

		lr_doc_addf(t, "run %lld%s ", (long long)r->id, r->kind == LR_KIND_IMPORT ? " (import)" : "");
		lr_doc_code(t, cmd ? cmd : "?");
		lr_doc_add(t, ", ");
		ended(t, r);
		if (r->kind == LR_KIND_RECORD && !(rep->format && rep->format < LR_REPORT_FORMAT_TREND)) {
			lr_doc_add(t, ", cleanup ");
			lr_render_cleanup(t, &r->left);
		}
		if (!cmd)
			d->failed = 1;
		free(cmd);
		if (failed_quietly(r))
			lr_doc_addf(lr_doc_item(d, b, 1), "why: %s", r->failure);
		for (size_t k = 0; k < r->nchecks; k++)
			check_item(lr_doc_item(d, b, 1), &r->checks[k]);
	}
}

/* Text s of a run in JSON (a scrub may have cut a character in two): a string, or its escaped form; null for NULL. */
static json_t *text_json(const char *s)
{
	return s ? lr_json_bytes(s) : json_null();
}

json_t *lr_render_records_json(const struct lr_report *rep)
{
	json_t *a = json_array();

	for (int i = 0; a && i < rep->nrecords; i++) {
		const struct lr_run *r = &rep->records[i];
		json_t *checks = json_array(), *o;
		char *cmd = short_command(r);

		for (size_t k = 0; k < r->nchecks; k++) {
			const struct lr_check *c = &r->checks[k];

			json_array_append_new(checks,
					      json_pack("{s:o, s:I, s:I, s:o, s:b}", "name", text_json(c->name),
							"passed", (json_int_t)c->passed, "total", (json_int_t)c->total,
							"detail", text_json(c->detail), "pass", c->passed == c->total));
		}
		o = json_pack("{s:I, s:s, s:s, s:o, s:s, s:o, s:o, s:b, s:o, s:o}", "run", (json_int_t)r->id, "uuid",
			      r->uuid, "kind", lr_run_kind_name(r->kind), "command", text_json(cmd), "status",
			      lr_status_name(r->status), "exit_code",
			      r->has_exit ? json_integer(r->exit_code) : json_null(), "signal",
			      r->signal ? json_integer(r->signal) : json_null(), "timed_out", r->timed_out, "failure",
			      text_json(failed_quietly(r) ? r->failure : NULL), "checks", checks);
		if (o && r->kind == LR_KIND_RECORD)
			json_object_set_new(o, "cleanup", lr_render_cleanup_json(&r->left));
		free(cmd);
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			a = NULL;
		}
	}
	return a;
}
