#ifndef LR_TEMPLATE_H
#define LR_TEMPLATE_H

/*
 * Command templates of command experiments: an argv template is split into
 * words as a POSIX shell splits them (blanks separate; '...' is literal;
 * "..." keeps blanks and takes \" \\ \$ \` escapes; a backslash outside
 * quotes escapes the next character) but nothing is expanded and no shell
 * runs it. Then each word's placeholders {NAME} are replaced ({{ and }} are
 * literal braces), so a value with blanks stays one argument.
 */

#include "base/error.h"
#include <stddef.h>

#include "base/model.h"

/* Split 's' into words appended to 'out'. LR_EINVAL with a message on an unterminated quote. */
LR_MUST_CHECK int lr_words_split(const char *s, struct lr_strlist *out);

/*
 * Replace the placeholders of 'tpl' from 'vars' (name -> value): a malloc'd
 * string, or NULL with LR_EINVAL naming the unknown placeholder in the
 * error message (or LR_ENOMEM).
 */
char *lr_template_expand(const char *tpl, const struct lr_kvlist *vars);

/* Check that every placeholder of 'tpl' is one of 'names' (NULL-terminated) or a key of 'extra'. */
LR_MUST_CHECK int lr_template_check(const char *tpl, const char *const *names, const struct lr_kvlist *extra);

/*
 * Split 'tpl' into words and expand each: a malloc'd NULL-terminated argv
 * (free with lr_words_free), or NULL with the error set.
 */
char **lr_template_words(const char *tpl, const struct lr_kvlist *vars);

/* Free an argv from lr_template_words (NULL is fine). */
void lr_words_free(char **v);

#endif
