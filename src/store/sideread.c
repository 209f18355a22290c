/* One side of a comparison read by a thread of its own, a chunk of rows at a time (store/sideread.h). */
#include "config.h"
#include "base/system.h"

#include <pthread.h>

#include "base/buf.h"
#include "base/error.h"
#include "store/sideread.h"
#include "store/store-int.h"

enum { SIDE_ROWS = 256 }; /* rows a chunk: about 1 MiB of 3.4 KB responses, in cache while merged */

/* Rows copied out of the statement: offsets into 'bytes', each column NUL-terminated. */
struct side_chunk {
	struct lr_buf bytes;
	size_t off[SIDE_ROWS][4], text_len[SIDE_ROWS];
	int n, last; /* last: no chunk follows (the end, or the reader's error) */
};

/*
 * Two chunks: the thread fills one while the merge reads the other. A chunk
 * belongs to the thread while !full[i], to the merge while full[i]; 'mu'
 * guards full[] and 'stop'.
 */
struct db_side {
	sqlite3 *db;
	sqlite3_stmt *s;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct side_chunk c[2];
	int full[2], stop, started;
	int cur, pos, have; /* the merge's place: chunk, row, whether it holds chunk 'cur' */
	int err_code;
	char err[256], *path;
};

/* Copy up to SIDE_ROWS rows into 'c'; 0, or the SQLite code of a failed step. */
static int fill(struct db_side *d, struct side_chunk *c)
{
	int rc = SQLITE_ROW, k;

	lr_buf_reset(&c->bytes);
	for (c->n = 0; c->n < SIDE_ROWS && (rc = sqlite3_step(d->s)) == SQLITE_ROW; c->n++)
		for (k = 0; k < 4; k++) {
			const void *p = sqlite3_column_blob(d->s, k);
			size_t len = (size_t)sqlite3_column_bytes(d->s, k);

			c->off[c->n][k] = c->bytes.len;
			lr_buf_add(&c->bytes, p ? p : "", len);
			lr_buf_addch(&c->bytes, '\0');
			if (k == 2)
				c->text_len[c->n] = len;
		}
	c->last = rc != SQLITE_ROW;
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		return c->bytes.failed ? SQLITE_NOMEM : 0;
	return rc;
}

static void *reader(void *arg)
{
	struct db_side *d = arg;
	int i = 0, rc, stop;

	for (;;) {
		pthread_mutex_lock(&d->mu);
		while (d->full[i] && !d->stop)
			pthread_cond_wait(&d->cv, &d->mu);
		stop = d->stop;
		pthread_mutex_unlock(&d->mu);
		if (stop)
			break;
		if ((rc = fill(d, &d->c[i]))) { /* the merge reads the error once it reaches this chunk */
			d->err_code = rc;
			snprintf(d->err, sizeof d->err, "%s",
				 rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(d->db));
			d->c[i].n = 0;
			d->c[i].last = 1;
		}
		pthread_mutex_lock(&d->mu);
		d->full[i] = 1;
		pthread_cond_broadcast(&d->cv);
		pthread_mutex_unlock(&d->mu);
		if (d->c[i].last)
			break;
		i ^= 1;
	}
	return NULL;
}

int db_side_open(struct db_side **out, struct lr_store *st, const char *sql, int64_t set)
{
	struct db_side *d = calloc(1, sizeof *d);
	char *uri = db_readonly_uri(st);
	int rc = SQLITE_NOMEM;

	*out = d;
	if (d) {
		lr_buf_init(&d->c[0].bytes, 0);
		lr_buf_init(&d->c[1].bytes, 0);
		pthread_mutex_init(&d->mu, NULL);
		pthread_cond_init(&d->cv, NULL);
	}
	if (!d || !uri || !(d->path = strdup(st->db_path))) {
		free(uri);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	if (st->bulk) { /* another connection sees only what is committed, and a scratch fill commits late */
		free(uri);
		return lr_error_set(LR_EINVAL, "cannot compare response sets inside a scratch fill of the store");
	}
	if ((rc = sqlite3_open_v2(uri, &d->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL)) ||
	    (rc = sqlite3_prepare_v2(d->db, sql, -1, &d->s, NULL)) ||
	    (rc = sqlite3_bind_int64(d->s, sqlite3_bind_parameter_index(d->s, ":set"), set))) {
		free(uri);
		return lr_error_set(LR_ESTORE, "cannot read response set %lld in store '%s': %s", (long long)set,
				    st->db_path, d->db ? sqlite3_errmsg(d->db) : sqlite3_errstr(rc));
	}
	free(uri);
	if ((rc = pthread_create(&d->thread, NULL, reader, d)))
		return lr_error_set(LR_EIO, "cannot start a thread to read response set %lld: %s", (long long)set,
				    strerror(rc));
	d->started = 1;
	return 0;
}

int db_side_next(struct db_side *d, struct db_side_row *row, int *rc)
{
	struct side_chunk *c = &d->c[d->cur];

	if (*rc)
		return 0;
	if (d->have && d->pos == c->n) {
		if (c->last)
			return 0;
		pthread_mutex_lock(&d->mu);
		d->full[d->cur] = 0; /* handed back: the rows borrowed from it are given up here */
		pthread_cond_broadcast(&d->cv);
		pthread_mutex_unlock(&d->mu);
		d->cur ^= 1;
		d->have = 0;
		c = &d->c[d->cur];
	}
	if (!d->have) {
		pthread_mutex_lock(&d->mu);
		while (!d->full[d->cur])
			pthread_cond_wait(&d->cv, &d->mu);
		pthread_mutex_unlock(&d->mu);
		d->have = 1;
		d->pos = 0;
		if (d->err_code && c->last) {
			*rc = lr_error_set(LR_ESTORE, "cannot read the responses in store '%s': %s", d->path, d->err);
			return 0;
		}
		if (!c->n)
			return 0;
	}
	row->case_id = c->bytes.buf + c->off[d->pos][0];
	row->tokens = c->bytes.buf + c->off[d->pos][1];
	row->text = c->bytes.buf + c->off[d->pos][2];
	row->finish_reason = c->bytes.buf + c->off[d->pos][3];
	row->text_len = c->text_len[d->pos];
	d->pos++;
	return 1;
}

void db_side_close(struct db_side *d)
{
	if (!d)
		return;
	if (d->started) {
		pthread_mutex_lock(&d->mu);
		d->stop = 1;
		pthread_cond_broadcast(&d->cv);
		pthread_mutex_unlock(&d->mu);
		pthread_join(d->thread, NULL);
	}
	sqlite3_finalize(d->s);
	sqlite3_close(d->db);
	pthread_mutex_destroy(&d->mu);
	pthread_cond_destroy(&d->cv);
	lr_buf_release(&d->c[0].bytes);
	lr_buf_release(&d->c[1].bytes);
	free(d->path);
	free(d);
}
