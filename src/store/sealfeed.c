/* Seal digests fed as rows are written (see store/sealfeed.h). */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include "base/error.h"
#include "store/sealfeed.h"
#include "store/store-int.h"

int db_run_final(struct lr_store *st, int64_t run, int64_t *final)
{
	return db_one_int(st, "SELECT status != 'running' FROM run WHERE id = :run", ":run", run, final,
			  "read the run's status");
}

int db_seal_start(struct lr_store *st, int64_t run, const char *table, struct lr_seal_table **t)
{
	int64_t final;
	int rc;

	*t = NULL;
	if ((rc = db_run_final(st, run, &final)) || !final)
		return rc;
	if (!(*t = malloc(sizeof **t)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((rc = db_seal_table_start(st, table, run, *t))) {
		free(*t);
		*t = NULL;
	}
	return rc;
}

/* A text value as sqlite3_bind_text(p, len) stores it (p NULL: NULL). */
static void text(struct lr_seal_table *t, const char *p, size_t len)
{
	if (p)
		lr_seal_bytes(t, LR_SEAL_TEXT, p, len);
	else
		lr_seal_null(t);
}

/* A C string bound with length -1: its bytes up to the first NUL. */
static void string(struct lr_seal_table *t, const char *p)
{
	text(t, p, p ? strlen(p) : 0);
}

/* An integer column bound only when 'present'. */
static void opt_int(struct lr_seal_table *t, int present, int64_t v)
{
	if (present)
		lr_seal_int(t, v);
	else
		lr_seal_null(t);
}

/*
 * A REAL column bound unless NaN. SQLite writes a whole REAL as an integer
 * and reads it back as a double: the same bits, but for -0.0, which comes
 * back as 0.0.
 */
static void opt_real(struct lr_seal_table *t, double v)
{
	if (isnan(v))
		lr_seal_null(t);
	else
		lr_seal_real(t, v == 0 ? 0.0 : v);
}

int db_seal_response(struct lr_seal_table *t, int64_t set, const struct lr_response *r, char **last, size_t *cap)
{
	size_t n = strlen(r->case_id);

	/* case_id's BINARY order is strcmp's: the stored case_id ends at its first NUL */
	if ((*last && strcmp(r->case_id, *last) <= 0) || LR_ALLOC_GROW(*last, n + 1, *cap))
		return 1;
	memcpy(*last, r->case_id, n + 1);
	/* the columns in the table's order (schema/0008-serving.sql), as lr_store_set_add binds them */
	lr_seal_int(t, set);
	text(t, r->case_id, n);
	lr_seal_int(t, r->line);
	string(t, r->tokens);
	lr_seal_int(t, r->ntokens);
	text(t, r->text, r->text_len);
	string(t, r->finish_reason);
	opt_real(t, r->latency_ms);
	opt_real(t, r->ttft_ms);
	opt_int(t, r->input_tokens >= 0, r->input_tokens);
	opt_int(t, r->output_tokens >= 0, r->output_tokens);
	opt_int(t, r->lane >= 0, r->lane);
	string(t, r->model);
	lr_seal_row_end(t);
	return 0;
}

void db_seal_compared(struct lr_seal_table *t, int64_t id, const char *case_id, const char *missing,
		      const struct lr_case_outcome *o)
{
	/* comparison_id, case_id, missing, tokens_equal, first_token_diff, text_equal, finish_equal */
	lr_seal_int(t, id);
	string(t, case_id);
	string(t, missing);
	opt_int(t, !missing, o->tokens_equal);
	opt_int(t, !missing && o->first_token_diff >= 0, o->first_token_diff);
	opt_int(t, !missing, o->text_equal);
	opt_int(t, !missing, o->finish_equal);
	lr_seal_row_end(t);
}
