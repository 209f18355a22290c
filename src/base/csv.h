#ifndef LR_CSV_H
#define LR_CSV_H

#include "base/error.h"
#include <stdio.h>

/*
 * Write one RFC 4180 record to 'f': fields separated by commas, quoted only
 * when they hold a comma, a quote or a line break (quotes doubled), ended by
 * LF, not RFC 4180's CRLF: a shell's $(...) keeps a CR in the last field,
 * and every CSV reader (Python's csv, pandas, spreadsheets) reads LF. A NULL
 * field is written empty. Returns 0, or LR_EIO when 'f' fails.
 */
LR_MUST_CHECK int lr_csv_write_row(FILE *f, const char *const *fields, int n);

/*
 * 'd' as the shortest decimal text that reads back (strtod) to the same
 * double: "0.1", not "0.10000000000000001"; 17 significant digits only when
 * needed. Returns buf (at least LR_DOUBLE_TEXT bytes).
 */
#define LR_DOUBLE_TEXT 32
const char *lr_double_text(char *buf, double d);

#endif
