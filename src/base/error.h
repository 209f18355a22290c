#ifndef LR_ERROR_H
#define LR_ERROR_H

/*
 * Error codes returned by every lower layer: 0 on success, one of these
 * negative values on failure, with a message set by lr_error_set().
 * Lower layers never print or exit; commands turn the code into one
 * message and one documented exit code (see labrun.c).
 */
#include <stdarg.h>
#include <stddef.h>

enum {
	LR_OK = 0,
	LR_EINVAL = -1,    /* bad input from the user: options, ids, definitions */
	LR_ENOTFOUND = -2, /* the named run, artifact or store does not exist */
	LR_EIO = -3,       /* a file system or process call failed */
	LR_ESTORE = -4,    /* the database failed, is locked or is corrupt */
	LR_ESCHEMA = -5,   /* the store's schema is newer or foreign */
	LR_ENOMEM = -6,
	LR_EREFUSED = -7, /* a request that is not allowed (e.g. writing SQL) */
	LR_EDATA = -8,    /* a data file another program wrote is malformed (docs/design.md, "Errors, stores, files") */
};

/*
 * On every function of the lr_* API that returns an error code: dropping
 * the result is a warning (an error in CI), so a failure cannot pass unseen.
 */
#define LR_MUST_CHECK __attribute__((warn_unused_result))

/*
 * Set the current error message (printf-style), replacing any earlier one.
 * The message names the action, the object in single quotes and the cause.
 * Always returns 'code', so callers can write: return lr_error_set(LR_EIO, ...).
 */
int lr_error_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same with a va_list, for a function that takes a message's format and arguments itself. */
int lr_error_vset(int code, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Set the hint printed on the line after the message (the next step to take). */
void lr_error_hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prefix the current message with "<prefix>: ", for context added by a caller. */
void lr_error_wrap(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * snprintf for text a person reads, where a cut is better than nothing: one
 * that does not fit ends in "...". (Paths must not be cut: lr_path.)
 */
void lr_fmt_cut(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/*
 * The same with a va_list; returns buf, so that a function reporting a
 * message formats it and hands it on in one call.
 */
const char *lr_vfmt_cut(char *buf, size_t size, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

/* The current message and hint; borrowed, valid until the next lr_error_* call. */
const char *lr_error_msg(void);
const char *lr_error_hint_msg(void);

/* Forget the current message and hint. */
void lr_error_clear(void);

/*
 * Words from another host or a service, for a message: 'text' into out[size]
 * with its control characters (C0, DEL, and the C1 ones as UTF-8, a
 * terminal's CSI among them) as '?'. 'out' may be 'text'.
 */
void lr_visible(char *out, size_t size, const char *text);

#endif
