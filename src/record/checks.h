#ifndef LR_CHECKS_H
#define LR_CHECKS_H

/*
 * $LABRUN_CHECKS: the file a recorded command may append its checks to, one
 * JSON object a line:
 *
 *   {"name": "exactness", "passed": 65536, "total": 65536, "detail": "every BF16 pattern"}
 *
 * 'name' (1 to LR_CHECK_NAME_MAX bytes) and the whole numbers 0 <= passed <=
 * total <= LR_CHECK_COUNT_MAX are required, 'detail' (at most
 * LR_CHECK_DETAIL_MAX bytes, or null) is not; no other key, no control
 * character in a string, no name twice, at most LR_CHECKS_MAX lines of at
 * most LR_CHECK_LINE_MAX bytes. A file that breaks one of these is refused
 * whole, naming its line: the run fails, and none of its checks is stored.
 */

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/model.h"

#define LR_CHECKS_ENV        "LABRUN_CHECKS"
#define LR_CHECKS_MAX        1000
#define LR_CHECK_LINE_MAX    4096
#define LR_CHECK_NAME_MAX    128
#define LR_CHECK_DETAIL_MAX  1024
#define LR_CHECK_COUNT_MAX   9007199254740992LL /* 2^53: every JSON reader takes it exactly */
#define LR_CHECKS_FILE_BYTES ((size_t)LR_CHECKS_MAX * LR_CHECK_LINE_MAX)

/*
 * One line (len bytes; a newline at its end is allowed) into *c, its strings
 * malloc'd (lr_check_release). LR_EINVAL saying what is wrong with it, never
 * quoting a string of it whole; LR_ENOMEM.
 */
LR_MUST_CHECK int lr_check_parse(struct lr_check *c, const char *line, size_t len);
void lr_check_release(struct lr_check *c);

/*
 * The checks in the file at 'path', written by a command that has ended,
 * appended to r->checks when the whole file holds. No file: none. A file
 * that does not hold (a bad line, a name given twice, past a bound, not a
 * regular file, unreadable) adds none and returns 0 with *why (malloc'd)
 * saying where and why: "$LABRUN_CHECKS line 3: 'passed' (7) is more than
 * 'total' (5)", for the caller to fail the run with. LR_ENOMEM otherwise.
 */
LR_MUST_CHECK int lr_checks_read(const char *path, struct lr_run *r, char **why);

/*
 * Append check c to the file at 'path' as one line, in one write (created
 * when missing). c is held to the rules a reader holds it to: LR_EINVAL
 * naming the check when it breaks one, LR_EIO when the file cannot be
 * written.
 */
LR_MUST_CHECK int lr_checks_append(const char *path, const struct lr_check *c);

/*
 * The environment 'envp' with LABRUN_CHECKS=path in place of any it had:
 * *out is a malloc'd array whose strings are envp's, but *var, the new one,
 * malloc'd too; free both. LR_ENOMEM.
 */
LR_MUST_CHECK int lr_checks_env(char *const *envp, const char *path, char ***out, char **var);

#endif
