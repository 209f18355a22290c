#ifndef LR_JSONBYTES_H
#define LR_JSONBYTES_H

/*
 * Bytes that may not be UTF-8 (an argument, a file name) in JSON. A UTF-8
 * string stays a JSON string; any other is the object {"escaped": TEXT},
 * TEXT its reversible member form (base/safename.h: '%' and every byte that
 * is not valid UTF-8 as %XX), so nothing is dropped and the bytes come back
 * exactly.
 */

#include <jansson.h>

/* The JSON value for 's' (new reference), NULL when out of memory. */
json_t *lr_json_bytes(const char *s);

/* The bytes back (malloc'd), NULL when 'v' is neither form or out of memory. */
char *lr_json_bytes_value(const json_t *v);

/* Printable UTF-8 text for 'v': the string, or the escaped form; "" for anything else. */
const char *lr_json_bytes_text(const json_t *v);

#endif
