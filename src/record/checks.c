/* $LABRUN_CHECKS: a recorded command's checks, one JSON line each, read strictly after it ends. */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/buf.h"
#include "base/error.h"
#include "record/checks.h"

void lr_check_release(struct lr_check *c)
{
	free(c->name);
	free(c->detail);
	memset(c, 0, sizeof *c);
}

/* 1 when s (n bytes) holds a control character, else 0. */
static int has_control(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 1;
	return 0;
}

/* The string member 'key' of o: 0 with *out (borrowed) NULL when absent (or null, where 'null_ok'). */
static int text_member(json_t *o, const char *key, size_t max, int null_ok, const char **out)
{
	json_t *v = json_object_get(o, key);
	size_t n;

	*out = NULL;
	if (!v || (null_ok && json_is_null(v)))
		return 0;
	if (!json_is_string(v))
		return lr_error_set(LR_EINVAL, "'%s' must be a string", key);
	n = json_string_length(v);
	if (n > max)
		return lr_error_set(LR_EINVAL, "'%s' is %zu bytes long, more than %zu", key, n, max);
	if (has_control(json_string_value(v), n))
		return lr_error_set(LR_EINVAL, "'%s' holds a control character (a line break, a tab...)", key);
	*out = json_string_value(v);
	return 0;
}

/* The count member 'key' of o: a whole number from 0 to LR_CHECK_COUNT_MAX. */
static int count_member(json_t *o, const char *key, int64_t *out)
{
	json_t *v = json_object_get(o, key);

	if (!v)
		return lr_error_set(LR_EINVAL, "'%s' is missing", key);
	if (json_is_real(v))
		return lr_error_set(LR_EINVAL, "'%s' must be a whole number, written without a fraction or exponent",
				    key);
	if (!json_is_integer(v))
		return lr_error_set(LR_EINVAL, "'%s' must be a whole number", key);
	*out = json_integer_value(v);
	if (*out < 0)
		return lr_error_set(LR_EINVAL, "'%s' (%lld) is negative", key, (long long)*out);
	if (*out > LR_CHECK_COUNT_MAX)
		return lr_error_set(LR_EINVAL, "'%s' (%lld) is larger than 2^53", key, (long long)*out);
	return 0;
}

/* Every key of o is one a check has. */
static int known_keys(json_t *o)
{
	static const char *const keys[] = { "name", "passed", "total", "detail" };
	const char *key;
	json_t *v;

	json_object_foreach(o, key, v) {
		size_t i = 0;

		while (i < sizeof keys / sizeof *keys && strcmp(key, keys[i]))
			i++;
		if (i == sizeof keys / sizeof *keys)
			return lr_error_set(LR_EINVAL,
					    "unknown key '%.40s%s': a check has name, passed, total and detail", key,
					    strlen(key) > 40 ? "..." : "");
	}
	return 0;
}

/* o as a check into c (strings copied). */
static int check_of(json_t *o, struct lr_check *c)
{
	const char *name, *detail;
	int rc;

	if ((rc = known_keys(o)) || (rc = text_member(o, "name", LR_CHECK_NAME_MAX, 0, &name)))
		return rc;
	if (!name || !*name)
		return lr_error_set(LR_EINVAL, "'name' is %s", name ? "empty" : "missing");
	if ((rc = count_member(o, "passed", &c->passed)) || (rc = count_member(o, "total", &c->total)) ||
	    (rc = text_member(o, "detail", LR_CHECK_DETAIL_MAX, 1, &detail)))
		return rc;
	if (c->passed > c->total)
		return lr_error_set(LR_EINVAL, "'passed' (%lld) is more than 'total' (%lld)", (long long)c->passed,
				    (long long)c->total);
	if (!(c->name = strdup(name)) || (detail && !(c->detail = strdup(detail))))
		return lr_error_set(LR_ENOMEM, "out of memory");
	return 0;
}

int lr_check_parse(struct lr_check *c, const char *line, size_t len)
{
	json_error_t err;
	json_t *o;
	int rc;

	memset(c, 0, sizeof *c);
	if (len && line[len - 1] == '\n')
		len--;
	if (len > LR_CHECK_LINE_MAX)
		return lr_error_set(LR_EINVAL, "the line is %zu bytes long, more than %d", len, LR_CHECK_LINE_MAX);
	if (!len || strspn(line, " \t\r") >= len)
		return lr_error_set(LR_EINVAL, "the line is empty");
	if (!(o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &err)))
		return lr_error_set(LR_EINVAL, "not JSON: %s", err.text);
	rc = json_is_object(o)
		     ? check_of(o, c)
		     : lr_error_set(LR_EINVAL, "not a JSON object {\"name\": ..., \"passed\": N, \"total\": N}");
	json_decref(o);
	if (rc)
		lr_check_release(c);
	return rc;
}

/* ---- the file ---------------------------------------------------------------- */

/*
 * The file's bytes (NUL-terminated, malloc'd), at most LR_CHECKS_FILE_BYTES:
 * a regular file only, never followed through a link (a FIFO would hang the
 * reader, a link would read a file the command never wrote). 0 with *text
 * NULL when there is none; LR_EINVAL saying what is wrong.
 */
static int slurp(const char *path, char **text, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), rc = 0;
	struct stat sb;
	ssize_t k;

	*text = NULL;
	*len = 0;
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0)
		return lr_error_set(LR_EINVAL, "cannot be read: %s",
				    errno == ELOOP ? "it is a symbolic link" : strerror(errno));
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode))
		rc = lr_error_set(LR_EINVAL, "is not a regular file");
	else if ((uintmax_t)sb.st_size > LR_CHECKS_FILE_BYTES)
		rc = lr_error_set(LR_EINVAL, "holds %jd bytes, more than %zu", (intmax_t)sb.st_size,
				  LR_CHECKS_FILE_BYTES);
	else if (!(*text = malloc((size_t)sb.st_size + 1)))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	while (!rc && *len < (size_t)sb.st_size && (k = read(fd, *text + *len, (size_t)sb.st_size - *len)) != 0) {
		if (k < 0 && errno != EINTR)
			rc = lr_error_set(LR_EINVAL, "cannot be read: %s", strerror(errno));
		else if (k > 0)
			*len += (size_t)k;
	}
	close(fd);
	if (rc) {
		free(*text);
		*text = NULL;
	} else if (*text) {
		(*text)[*len] = 0;
	}
	return rc;
}

/* Line 'at' (from 1) of the file, parsed and held to the file's rules, into r. */
static int take_line(struct lr_run *r, size_t first, long at, const char *line, size_t len)
{
	struct lr_check c;
	int rc;

	if (at > LR_CHECKS_MAX)
		return lr_error_set(LR_EINVAL, "more than %d checks", LR_CHECKS_MAX);
	if ((rc = lr_check_parse(&c, line, len)))
		return rc;
	for (size_t i = first; i < r->nchecks; i++)
		if (!strcmp(r->checks[i].name, c.name)) {
			rc = lr_error_set(LR_EINVAL, "check '%s' was reported already, on line %zu", c.name,
					  i - first + 1);
			break;
		}
	if (!rc)
		rc = lr_run_add_check(r, c.name, c.passed, c.total, c.detail);
	lr_check_release(&c);
	return rc;
}

/* *why: "$LABRUN_CHECKS[ line N]: " and the current message (line 0: the file as a whole). */
static int refused(char **why, long line)
{
	char where[32] = "";

	if (line)
		snprintf(where, sizeof where, " line %ld:", line);
	if (asprintf(why, "$" LR_CHECKS_ENV "%s %s", where, lr_error_msg()) < 0)
		*why = NULL;
	lr_error_clear();
	return *why ? 0 : lr_error_set(LR_ENOMEM, "out of memory");
}

int lr_checks_read(const char *path, struct lr_run *r, char **why)
{
	size_t first = r->nchecks, len, n;
	char *text = NULL, *p, *nl;
	long at = 0;
	int rc;

	*why = NULL;
	if ((rc = slurp(path, &text, &len)))
		return rc == LR_EINVAL ? refused(why, 0) : rc;
	for (p = text; !rc && p && p < text + len; p += n + 1) {
		nl = memchr(p, '\n', (size_t)(text + len - p));
		n = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
		rc = memchr(p, 0, n) ? lr_error_set(LR_EINVAL, "the line holds a NUL byte")
				     : take_line(r, first, at + 1, p, n);
		at++;
	}
	free(text);
	if (rc != LR_EINVAL)
		return rc;
	while (r->nchecks > first)
		lr_check_release(&r->checks[--r->nchecks]);
	return refused(why, at);
}

/* ---- writing one ------------------------------------------------------------- */

/* c as one compact JSON line (malloc'd, no newline); LR_EINVAL when a string of it is not UTF-8. */
static int check_line(const struct lr_check *c, char **line)
{
	json_t *o = json_object(), *name = json_string(c->name ? c->name : ""),
	       *detail = c->detail ? json_string(c->detail) : NULL;
	int rc = 0;

	*line = NULL;
	if (!name || (c->detail && !detail))
		rc = lr_error_set(LR_EINVAL, "its name or detail is not UTF-8");
	else if (!o || json_object_set(o, "name", name) ||
		 json_object_set_new(o, "passed", json_integer((json_int_t)c->passed)) ||
		 json_object_set_new(o, "total", json_integer((json_int_t)c->total)) ||
		 (detail && json_object_set(o, "detail", detail)) ||
		 !(*line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER)))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	json_decref(name);
	json_decref(detail);
	json_decref(o);
	return rc;
}

int lr_checks_append(const char *path, const struct lr_check *c)
{
	char *line = NULL;
	struct lr_check back;
	size_t len, done = 0;
	int fd = -1, rc;

	if ((rc = check_line(c, &line)))
		goto out;
	len = strlen(line);
	if ((rc = lr_check_parse(&back, line, len)))
		goto out;
	lr_check_release(&back);
	line[len++] = '\n'; /* json_dumps leaves room: the NUL's */
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666)) < 0)
		rc = lr_error_set(LR_EIO, "cannot open '%s': %s", path, strerror(errno));
	while (!rc && done < len) {
		ssize_t k = write(fd, line + done, len - done);

		if (k < 0 && errno != EINTR)
			rc = lr_error_set(LR_EIO, "cannot write '%s': %s", path, strerror(errno));
		else if (k > 0)
			done += (size_t)k;
	}
	if (fd >= 0 && close(fd) && !rc)
		rc = lr_error_set(LR_EIO, "cannot write '%s': %s", path, strerror(errno));
out:
	if (rc)
		lr_error_wrap("cannot append check '%s' to $" LR_CHECKS_ENV, c->name ? c->name : "");
	free(line);
	return rc;
}

int lr_checks_env(char *const *envp, const char *path, char ***out, char **var)
{
	size_t n = 0, k = 0, len = strlen(LR_CHECKS_ENV);

	*out = NULL;
	if (asprintf(var, "%s=%s", LR_CHECKS_ENV, path) < 0) {
		*var = NULL;
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	while (envp[n])
		n++;
	if (!(*out = calloc(n + 2, sizeof **out))) {
		free(*var);
		*var = NULL;
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		if (strncmp(envp[i], LR_CHECKS_ENV, len) || envp[i][len] != '=')
			(*out)[k++] = envp[i];
	(*out)[k] = *var;
	return 0;
}
