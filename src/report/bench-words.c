/* What every benchmark's words use: its settings, a line of prose or of notes, the host line, a number's cell. */
#include "config.h"
#include "base/system.h"

#include <math.h>
#include <stdarg.h>

#include "report/bench-int.h"

/* A setting of the run (its binding, else its geometry), or "?". */
const char *lr_benchdoc_set(const struct lr_run *run, const char *key)
{
	const struct lr_kv *e = lr_kvlist_find(&run->binding, key);

	if (!e)
		e = lr_kvlist_find(&run->geometry, key);
	return e ? e->value : "?";
}

/* A setting as a number; NAN when there is none or it is not one. */
double lr_benchdoc_setnum(const struct lr_run *run, const char *key)
{
	const char *v = lr_benchdoc_set(run, key);
	char *end;
	double x = strtod(v, &end);

	return end != v && !*end ? x : NAN;
}

/* "" when the setting is 1, else "s": "1 thread", "2 threads". */
const char *lr_benchdoc_plural(const struct lr_run *run, const char *key)
{
	return strcmp(lr_benchdoc_set(run, key), "1") ? "s" : "";
}

/* One line of text in block b, printf-style. */
static void vline(struct lr_doc *d, struct lr_doc_block *b, const char *fmt, va_list ap)
{
	struct lr_buf t = LR_BUF_INIT;

	lr_buf_vaddf(&t, fmt, ap);
	lr_doc_add(&b->text, t.buf);
	if (t.failed)
		d->failed = 1;
	lr_buf_release(&t);
}

/* A line of prose: what ran, or what a table says. */
void lr_benchdoc_say(struct lr_doc *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(d, lr_doc_prose(d), fmt, ap);
	va_end(ap);
}

/* A line under the tables: what the figures are. */
void lr_benchdoc_note(struct lr_doc *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(d, lr_doc_note(d), fmt, ap);
	va_end(ap);
}

/* "host NAME: CPU, N CPUs, KERNEL; labrun V" and 'extra': the line every benchmark's head ends with. */
void lr_benchdoc_host(struct lr_doc *d, const struct lr_run *run, const char *extra)
{
	const struct lr_host *h = &run->host;

	lr_benchdoc_say(d, "host %s: %s, %lld CPUs, %s; labrun %s%s", h->hostname,
			h->cpu_model ? h->cpu_model : "unknown CPU", (long long)h->cores, h->kernel,
			run->labrun_version ? run->labrun_version : "?", extra);
}

/* A number, or no value when there is none. */
void lr_benchdoc_cell(struct lr_table *t, double v, int digits)
{
	if (isnan(v) || isinf(v))
		lr_table_none(t);
	else
		lr_table_real(t, v, digits);
}
