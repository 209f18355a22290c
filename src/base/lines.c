/* Bounded reading of files from outside labrun: lines, and whole small files. */
#include "config.h"
#include "base/system.h"

#include "base/lines.h"
#include "base/list.h"
#include "base/walk.h"

#define READ_SIZE ((size_t)64 << 10) /* what a read asks for at least, once the buffer must grow */

static int too_long(const struct lr_lines *l)
{
	return lr_error_set(LR_EINVAL, "%s '%s', line %lld: the line is longer than %zu MiB", l->what, l->path,
			    l->line + 1, l->max >> 20);
}

int lr_lines_open(struct lr_lines *l, const char *what, const char *path, size_t max, size_t file_max)
{
	int rc;

	memset(l, 0, sizeof *l);
	l->what = what;
	l->path = path;
	l->max = max;
	if ((rc = lr_fopen_input(what, path, file_max, &l->f)) == LR_ENOTFOUND || rc == LR_EIO)
		rc = LR_EINVAL; /* the user named it: not there, or not readable, is the user's to fix */
	return rc;
}

/* More bytes after buf[end], the unreturned ones moved to the front; 0 at the end of the file. */
static int fill(struct lr_lines *l)
{
	size_t n;

	if (l->start) {
		memmove(l->buf, l->buf + l->start, l->end - l->start);
		l->end -= l->start;
		l->start = 0;
	}
	if (l->end + 1 >= l->cap) {
		size_t most = l->max + 2, want = l->end + READ_SIZE; /* most: the longest line, its newline and a NUL */
		int rc;

		if (l->cap >= most)
			return too_long(l);
		if ((rc = LR_ALLOC_GROW_MAX(l->buf, want < most ? want : most, l->cap, most)))
			return rc;
	}
	n = fread(l->buf + l->end, 1, l->cap - 1 - l->end, l->f);
	if (!n && ferror(l->f))
		return lr_error_set(LR_EIO, "cannot read %s '%s': %s", l->what, l->path, strerror(errno));
	if (!n)
		l->eof = 1;
	l->end += n;
	return 0;
}

int lr_lines_next(struct lr_lines *l, char **line, size_t *len)
{
	size_t scanned = 0, n;
	char *nl = NULL;
	int rc;

	if (l->held) { /* the first byte of this line held the last one's NUL */
		l->buf[l->start] = l->hold;
		l->held = 0;
	}
	for (;;) {
		if (l->end - l->start > scanned &&
		    (nl = memchr(l->buf + l->start + scanned, '\n', l->end - l->start - scanned)))
			break;
		if (l->eof)
			break;
		scanned = l->end - l->start;
		if (scanned > l->max)
			return too_long(l);
		if ((rc = fill(l)))
			return rc;
	}
	n = nl ? (size_t)(nl - (l->buf + l->start)) + 1 : l->end - l->start;
	if (!n)
		return 0;
	if (n - (nl != NULL) > l->max)
		return too_long(l);
	*line = l->buf + l->start;
	*len = n;
	l->start += n;
	l->hold = l->buf[l->start]; /* fill() leaves a byte past 'end', so this is inside buf */
	l->held = 1;
	l->buf[l->start] = '\0';
	l->line++;
	return 1;
}

void lr_lines_close(struct lr_lines *l)
{
	if (l->f)
		fclose(l->f);
	free(l->buf);
	memset(l, 0, sizeof *l);
}

/* The rest of lr_read_text, once l is open. */
static int read_all(struct lr_lines *l, char **text, size_t *len)
{
	int rc = 0;

	while (!rc && !l->eof && l->end <= l->max)
		rc = fill(l);
	if (!rc && l->end > l->max) {
		lr_error_set(LR_EINVAL, "cannot read %s '%s': it is larger than %zu MiB", l->what, l->path,
			     l->max >> 20);
		rc = LR_EINVAL;
	}
	if (!rc) {
		l->buf[l->end] = '\0'; /* fill() leaves a byte past 'end' */
		*text = l->buf;
		*len = l->end;
		l->buf = NULL;
	}
	lr_lines_close(l);
	return rc;
}

int lr_read_text(const char *what, const char *path, size_t max, char **text, size_t *len)
{
	struct lr_lines l;
	int rc;

	*text = NULL;
	*len = 0;
	if ((rc = lr_lines_open(&l, what, path, max, max)))
		return rc;
	return read_all(&l, text, len);
}

int lr_read_regular_text(const char *what, const char *path, size_t max, char **text, size_t *len)
{
	struct lr_lines l;
	int fd, rc;

	*text = NULL;
	*len = 0;
	memset(&l, 0, sizeof l);
	l.what = what;
	l.path = path;
	l.max = max;
	if ((rc = lr_open_regular(path, &fd)))
		return rc;
	if (!(l.f = fdopen(fd, "r"))) {
		close(fd);
		return lr_error_set(LR_ENOMEM, "cannot read %s '%s': %s", what, path, strerror(errno));
	}
	return read_all(&l, text, len);
}
