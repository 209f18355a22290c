/* 'labrun bench encoder' as it is shown: a table a shape, its parity, and what its figures say. */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include "experiment/encoderbench.h"
#include "report/bench-int.h"

static const struct lr_column encoder_cols[] = {
	{ "shape", "shape", LR_COL_DATA },
	{ "variant", "variant", 0 },
	{ "kind", "kind", LR_COL_DATA },
	{ "median_ms", "median ms", LR_COL_NUMBER },
	{ "gbps", "GB/s", LR_COL_NUMBER },
	{ "x_ceiling", "x ceiling", LR_COL_NUMBER },
	{ "vs_lookup", "vs lookup", LR_COL_NUMBER },
	{ "role", "role", 0 },
};

static double ms(const struct lr_bench_series *s)
{
	return lr_bench_median(s) * 1e3;
}

/* Bytes read plus bytes written over the median time. */
static double gbps(const struct lr_bench_shape *sh, const struct lr_bench_series *s)
{
	return s ? (double)sh->elements * 4 / (ms(s) * 1e6) : NAN;
}

/* A variant's throughput over its ceiling's: the fastest copy, or for a file variant cp of the file. */
static double x_ceiling(const struct lr_bench_shape *sh, const struct lr_bench_series *s, enum lr_bench_kind kind)
{
	return gbps(sh, s) /
	       gbps(sh, kind == LR_BENCH_FILE_COPY || kind == LR_BENCH_FILE_ENCODE ? sh->file_copy : sh->ceiling);
}

/* The kernel of a variant (its name read again: the shape was read whole before any row). */
static const char *kernel_of(const struct lr_bench_series *s, char *buf, size_t size)
{
	enum lr_bench_kind kind;

	return lr_bench_variant_parse(s->variant, &kind, buf, size) ? "?" : buf;
}

static void encoder_row(struct lr_table *t, const struct lr_bench_row *r)
{
	const struct lr_bench_series *s = lr_bench_find(r->b, r->subject, r->variant, "s");
	struct lr_bench_shape sh;
	enum lr_bench_kind kind;
	char kernel[16];

	if (lr_bench_shape_read(&sh, r->b, r->subject) ||
	    lr_bench_variant_parse(r->variant, &kind, kernel, sizeof kernel))
		return; /* section_head refused the shape */
	lr_table_text(t, r->subject);
	lr_table_text(t, r->variant);
	lr_table_text(t, lr_bench_kind_name(kind));
	lr_benchdoc_cell(t, ms(s), 3);
	lr_benchdoc_cell(t, gbps(&sh, s), 2);
	lr_benchdoc_cell(t, x_ceiling(&sh, s, kind), 2);
	lr_benchdoc_cell(
		t, (kind == LR_BENCH_ENCODE || kind == LR_BENCH_PERMUTED) && sh.lookup ? ms(sh.lookup) / ms(s) : NAN,
		2);
	lr_table_text(t, s == sh.ceiling || s == sh.file_copy ? "ceiling" : s == sh.best ? "best kernel" : "");
}

static void encoder_head(struct lr_doc *d, const struct lr_run *run)
{
	char extra[64];

	lr_benchdoc_say(
		d,
		"labrun bench encoder: %s repetitions per variant (first dropped), contract %s, seed %s, %s thread%s",
		lr_benchdoc_set(run, "reps"), lr_benchdoc_set(run, "contract"), lr_benchdoc_set(run, "seed"),
		lr_benchdoc_set(run, "threads"), lr_benchdoc_plural(run, "threads"));
	snprintf(extra, sizeof extra, ", auto kernel %s", lr_benchdoc_set(run, "auto_kernel"));
	lr_benchdoc_host(d, run, extra);
	if (lr_kvlist_find(&run->binding, "cpu_features")) /* runs stored before have none */
		lr_benchdoc_say(d, "CPU features: %s", lr_benchdoc_set(run, "cpu_features"));
	if (lr_kvlist_find(&run->binding, "pinned_cpu"))
		lr_benchdoc_say(d, "timing thread pinned to CPU %s", lr_benchdoc_set(run, "pinned_cpu"));
}

/* A shape's heading and its parity; LR_EINVAL when the subject is no shape or a variant none the benchmark gives. */
static int encoder_section_head(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b,
				const char *subject)
{
	const char *digest = lr_bench_shape_digest(run, subject);
	struct lr_bench_shape sh;
	int rc;

	if ((rc = lr_bench_shape_read(&sh, b, subject))) {
		lr_error_wrap("run %lld", (long long)run->id);
		return rc;
	}
	lr_doc_addf(&lr_doc_heading(d, 2)->text, "shape [%s]: %lld elements, %.1f MiB in + %.1f MiB out", subject,
		    (long long)sh.elements, sh.elements * 2 / 1048576.0, sh.elements * 2 / 1048576.0);
	lr_benchdoc_say(d, "parity: every encoder and the permuted view give identical bytes (sha256 %s)",
			digest ? digest : "?");
	return 0;
}

/* The sentences that sum a shape up: the best kernel, what auto took, the permuted view, file to file. */
static void encoder_section_tail(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b,
				 const char *subject)
{
	const struct lr_kv *why = lr_kvlist_find(&run->binding, "auto_why");
	struct lr_bench_shape sh;
	char k[16];

	if (lr_bench_shape_read(&sh, b, subject))
		return;
	if (sh.best) {
		struct lr_buf *t = &lr_doc_prose(d)->text;

		lr_doc_addf(t, "Best kernel %s", kernel_of(sh.best, k, sizeof k));
		if (sh.ceiling)
			lr_doc_addf(t, ": %.2fx the ceiling's throughput", gbps(&sh, sh.best) / gbps(&sh, sh.ceiling));
		if (sh.lookup)
			lr_doc_addf(t, ", %.2fx faster than lookup", ms(sh.lookup) / ms(sh.best));
		lr_doc_add(t, ".");
	}
	if (sh.best && sh.contiguous)
		lr_benchdoc_say(d, "Auto takes %s at this size%s%s%s: %.3f ms = %.2fx the best kernel's time.",
				kernel_of(sh.contiguous, k, sizeof k), why ? " (" : "", why ? why->value : "",
				why ? ")" : "", ms(sh.contiguous), ms(sh.contiguous) / ms(sh.best));
	if (sh.permuted && sh.contiguous)
		lr_benchdoc_say(d, "Permuted view (%s): %.3f ms = %.2fx the contiguous encode.",
				kernel_of(sh.permuted, k, sizeof k), ms(sh.permuted),
				ms(sh.permuted) / ms(sh.contiguous));
	if (sh.file_copy && sh.file_encode) /* a throughput ratio, as the table's 'x ceiling' column gives it */
		lr_benchdoc_say(
			d,
			"File to file (%s): labrun encode %.3f ms = %.2fx the throughput of cp of the same file "
			"(%.3f ms).",
			kernel_of(sh.file_encode, k, sizeof k), ms(sh.file_encode),
			x_ceiling(&sh, sh.file_encode, LR_BENCH_FILE_ENCODE), ms(sh.file_copy));
}

static json_t *name_json(const struct lr_bench_series *s)
{
	return s ? json_string(s->variant) : json_null();
}

static json_t *encoder_section_json(const struct lr_run *run, const struct lr_bench *b, const char *subject)
{
	struct lr_bench_shape sh;

	if (lr_bench_shape_read(&sh, b, subject))
		return json_object();
	return json_pack("{s:[I,I,I,I,I], s:I, s:s?, s:o, s:o, s:o, s:o}", "shape", (json_int_t)sh.dims[0],
			 (json_int_t)sh.dims[1], (json_int_t)sh.dims[2], (json_int_t)sh.dims[3], (json_int_t)sh.dims[4],
			 "elements", (json_int_t)sh.elements, "output_sha256", lr_bench_shape_digest(run, subject),
			 "ceiling", name_json(sh.ceiling), "best", name_json(sh.best), "permuted",
			 name_json(sh.permuted), "file_encode_x_cp",
			 sh.file_copy && sh.file_encode
				 ? json_real(x_ceiling(&sh, sh.file_encode, LR_BENCH_FILE_ENCODE))
				 : json_null());
}

static void encoder_notes(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b)
{
	(void)run, (void)b;
	lr_benchdoc_note(
		d, "GB/s counts bytes read plus bytes written; x ceiling is a variant's throughput over the fastest "
		   "copy of the same bytes (a file variant's, over cp of the same file), measured in the same run; vs "
		   "lookup is the lookup kernel's time over the variant's");
	lr_benchdoc_note(
		d, "every figure is the median of a variant's repetitions, the first dropped as warm-up; measured, not "
		   "modelled");
}

const struct lr_bench_def lr_benchdoc_encoder = {
	COLS(encoder_cols),
	.rows_key = "variants",
	.per_subject = 1,
	.sections_key = "shapes",
	.row = encoder_row,
	.head = encoder_head,
	.notes = encoder_notes,
	.section_head = encoder_section_head,
	.section_tail = encoder_section_tail,
	.section_json = encoder_section_json,
};
