#ifndef LR_REDACT_H
#define LR_REDACT_H

/*
 * Secrets never reach the store. A variable whose name looks secret is
 * recorded as '<redacted>', and its value is scrubbed from everything
 * labrun writes: logs, and every text field of a run (lr_run_scrub).
 * What is stored verbatim (declared artifacts, experiment definitions)
 * is refused when it holds a secret value.
 */

#include "base/error.h"
#include <stddef.h>

#include "base/model.h"

#define LR_REDACTED "<redacted>"

/* Values shorter than this are too common to scrub from logs (still withheld as variables). */
#define LR_SCRUB_MIN 4

/* 1 when the variable name looks like it holds a secret (TOKEN, KEY, ...): NAME, or NAME=value, of any length. */
LR_MUST_CHECK int lr_env_name_is_secret(const char *name);

/* 1 when the variable is on the capture allowlist (OMP_*, RBLN_*, ...). */
LR_MUST_CHECK int lr_env_name_is_captured(const char *name);

/*
 * Add the captured variables of 'envp' to 'out', sorted by name: allowlisted
 * ones with their value, secret-looking ones (allowlisted or not) as
 * '<redacted>' with tag "redacted".
 */
LR_MUST_CHECK int lr_env_capture(struct lr_kvlist *out, char *const *envp);

/* Streaming scrubber over the secret values of an environment. */
struct lr_scrub {
	char **secrets;
	size_t *lens;
	size_t n, cap, lcap; /* secrets[0..n) of room for cap, lens of lcap */
	size_t maxlen;
	unsigned char *buf; /* carried tail + current chunk */
	size_t nbuf, capbuf;
};

/* Collect the secret values of 'envp' (a copy; 'envp' may change later). */
LR_MUST_CHECK int lr_scrub_init(struct lr_scrub *s, char *const *envp);
void lr_scrub_release(struct lr_scrub *s);

/*
 * Pass a chunk through: scrubbed bytes go to 'sink' (which may be NULL for
 * detection only). A secret split across chunks is still found: up to
 * maxlen-1 bytes are held back until the next call or lr_scrub_flush().
 * *found (if not NULL) is set to 1 when a secret was seen. Returns 0 or
 * the sink's error.
 */
typedef int (*lr_sink_fn)(void *arg, const void *data, size_t len);
LR_MUST_CHECK int lr_scrub_feed(struct lr_scrub *s, const void *data, size_t len, lr_sink_fn sink, void *arg,
				int *found);
LR_MUST_CHECK int lr_scrub_flush(struct lr_scrub *s, lr_sink_fn sink, void *arg);

/*
 * For what is stored verbatim (lr_obj_scan_fn): LR_EREFUSED, with no message
 * set, once the bytes passed so far hold a secret value of the lr_scrub 's';
 * lr_scrub_flush(s, NULL, NULL) before the next file.
 */
LR_MUST_CHECK int lr_scrub_refuse(void *s, const void *data, size_t len);

/* A scrubbed copy of a string (malloc'd), or NULL on allocation failure. */
char *lr_scrub_string(const struct lr_scrub *s, const char *str);

/* A scrubber over a list of secret values (copied). */
LR_MUST_CHECK int lr_scrub_init_values(struct lr_scrub *s, const struct lr_strlist *values);

/* Add the secret values of 'envp' (those lr_scrub_init would scrub) to 'out', once each. */
LR_MUST_CHECK int lr_env_secrets(struct lr_strlist *out, char *const *envp);

/*
 * The one scrubber of everything a run stores: every text field of 'r'
 * (argv, note, failure, cwd, experiment, host, source state and file names,
 * issues, artifact and measurement names, env, binding, geometry and tools)
 * with each of r->secrets replaced by '<redacted>'. The session calls it
 * before each write of the run.
 */
LR_MUST_CHECK int lr_run_scrub(struct lr_run *r);

/* *found = 1 when 'text' holds one of 'secrets' (for text stored verbatim, which is refused then). */
LR_MUST_CHECK int lr_text_holds_secret(const struct lr_strlist *secrets, const char *text, int *found);

/* Characters that end a token: blanks, quotes, brackets and punctuation a token never holds. */
#define LR_TOKEN_END " \t\r\n\"'`,;:()[]{}<>=@/\\|&!?"

/* A run of this many token characters ending a text may be a token cut by a length cap. */
#define LR_CUT_TOKEN 16

/*
 * For text from another host, stored and published (a server's error body):
 * replace, in place, what looks like a credential by the rules of 'labrun
 * scan' (record/secretlike.h) in the NUL-terminated 'text' of a buffer of
 * 'size' bytes by '<redacted>', one match at a time until none is left,
 * keeping it within the buffer; a trailing run of LR_CUT_TOKEN or more token
 * characters (a token the buffer's cap may have cut, which no rule matches
 * whole) is replaced too. When the rules cannot settle or cannot run, the
 * whole text becomes '<redacted>'. Returns 0 or the rules' error.
 */
LR_MUST_CHECK int lr_redact_secretlike(char *text, size_t size);

/*
 * The start of a longer text ends in part of a word, maybe a token cut
 * shorter than any rule or LR_CUT_TOKEN can tell: drop that run of token
 * characters from the NUL-terminated 'text' (before lr_redact_secretlike).
 */
void lr_drop_cut_word(char *text);

/*
 * Cut the NUL-terminated 'text' to at most 'max' bytes; a '<redacted>' the
 * cut would split ends the text whole instead, over what stood before it
 * (or the text ends before it when 'max' cannot hold it).
 */
void lr_cut_redacted(char *text, size_t max);

#endif
