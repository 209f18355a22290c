#ifndef LR_CSV_H
#define LR_CSV_H

#include <stdio.h>

/*
 * Write one RFC 4180 record to 'f': fields separated by commas, quoted only
 * when they hold a comma, a quote or a line break (quotes doubled), ended by
 * CRLF. A NULL field is written empty. Returns 0, or LR_EIO when 'f' fails.
 */
int lr_csv_write_row(FILE *f, const char *const *fields, int n);

#endif
