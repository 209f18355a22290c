/*
 * One side of a comparison read by a thread of its own (store/sideread.c):
 * a response set's rows in case_id order, on a read-only connection of
 * their own, handed over a chunk at a time, so that reading the two sets
 * of a comparison takes two CPUs. Internal to store/.
 */
#ifndef LR_STORE_SIDEREAD_H
#define LR_STORE_SIDEREAD_H

#include <stddef.h>
#include <stdint.h>

struct lr_store;
struct db_side;

/* The columns a comparison reads of a response; borrowed until the next db_side_next. */
struct db_side_row {
	const char *case_id, *tokens, *text, *finish_reason;
	size_t text_len;
};

/* Start reading set 'set' of the store 'st' with 'sql' (binding :set; columns as db_side_row). */
int db_side_open(struct db_side **out, struct lr_store *st, const char *sql, int64_t set);

/* The next row: 1, or 0 at the end or on an error (*rc set, with the message). */
int db_side_next(struct db_side *d, struct db_side_row *row, int *rc);

/* Stop the thread (wherever it is) and free everything; NULL is fine. */
void db_side_close(struct db_side *d);

#endif
