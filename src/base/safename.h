#ifndef LR_SAFENAME_H
#define LR_SAFENAME_H

#include <stddef.h>

/*
 * A stored name (an artifact's declared path) as a safe relative path for a
 * crate or archive member, reversibly: '%' becomes %25; bytes that are not
 * valid UTF-8, control characters and DEL become %XX; a '/' that would make
 * an absolute path or an empty component becomes %2F; a "." or ".."
 * component becomes %2E or %2E%2E. Valid UTF-8 ("résultats.csv") and
 * ordinary paths ("results/out.txt") stay as they are. The one function
 * that names members: manifest, archive and pruning all use it.
 * Returns buf, or NULL when it does not fit in len bytes.
 */
char *lr_safe_member(char *buf, size_t len, const char *name);

#endif
