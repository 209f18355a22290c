#include "config.h"
#include "base/system.h"

#include <ctype.h>
#include <sys/mman.h>

#include "base/error.h"
#include "base/walk.h"
#include "encode/npy.h"

static int bad(const char *path, const char *why)
{
	lr_error_set(LR_EDATA, "cannot read '%s' as .npy: %s", path, why);
	lr_error_hint(
		"expected a NumPy .npy file of 16-bit elements ('<u2' or bfloat16), or pass --shape for a raw file");
	return LR_EDATA;
}

/* A cursor over the header's dict text. */
struct cur {
	const char *p, *end;
};

static void skip_ws(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
		c->p++;
}

static int eat(struct cur *c, char ch)
{
	skip_ws(c);
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return 1;
	}
	return 0;
}

/* A quoted Python string (no escapes: dtype strings and keys have none). */
static int read_str(struct cur *c, char *out, size_t outlen)
{
	char q;
	size_t n = 0;

	skip_ws(c);
	if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
		return -1;
	q = *c->p++;
	while (c->p < c->end && *c->p != q) {
		if (*c->p == '\\' || n + 1 >= outlen)
			return -1;
		out[n++] = *c->p++;
	}
	if (c->p >= c->end)
		return -1;
	c->p++;
	out[n] = '\0';
	return 0;
}

static int read_word(struct cur *c, const char *w)
{
	size_t n = strlen(w);

	skip_ws(c);
	if ((size_t)(c->end - c->p) >= n && !strncmp(c->p, w, n)) {
		c->p += n;
		return 1;
	}
	return 0;
}

static int read_shape(struct cur *c, struct lr_npy_header *h)
{
	h->rank = 0;
	if (!eat(c, '('))
		return -1;
	for (;;) {
		char *e;
		long long v;

		if (eat(c, ')'))
			return 0;
		skip_ws(c);
		if (c->p >= c->end || !isdigit((unsigned char)*c->p) || h->rank >= LR_VIEW_MAXRANK)
			return -1;
		errno = 0;
		v = strtoll(c->p, &e, 10);
		if (errno || e > c->end)
			return -1;
		c->p = e;
		if (*c->p == 'L') /* Python 2 longs, as old files have them */
			c->p++;
		h->shape[h->rank++] = v;
		if (!eat(c, ',')) {
			if (!eat(c, ')'))
				return -1;
			return 0;
		}
	}
}

static int dtype_kind(const char *descr, enum lr_npy_kind *kind, int *elem)
{
	if (!strcmp(descr, "<u2") || !strcmp(descr, "<i2")) {
		*kind = LR_NPY_U16;
		*elem = 2;
	} else if (!strcmp(descr, "<V2") || !strcmp(descr, "|V2") || !strcmp(descr, "bfloat16") ||
		   !strcmp(descr, "<bfloat16")) {
		*kind = LR_NPY_BF16;
		*elem = 2;
	} else if (!strcmp(descr, "<f4")) {
		*kind = LR_NPY_F32;
		*elem = 4;
	} else {
		return -1;
	}
	return 0;
}

/* The header dict: 'descr' into descr[len], 'fortran_order' and 'shape' into h; each once, nothing else. */
static int header_dict(struct cur *c, struct lr_npy_header *h, char *descr, size_t len, const char *path)
{
	int have_descr = 0, have_fortran = 0, have_shape = 0;
	char key[32], why[160];

	if (!eat(c, '{'))
		return bad(path, "the header is not a dict");
	while (!eat(c, '}')) {
		if (read_str(c, key, sizeof key) || !eat(c, ':'))
			return bad(path, "malformed header dict");
		if (!strcmp(key, "descr") && !have_descr) {
			if (read_str(c, descr, len))
				return bad(path, "'descr' is not a simple dtype string");
			have_descr = 1;
		} else if (!strcmp(key, "fortran_order") && !have_fortran) {
			if (read_word(c, "True"))
				h->fortran = 1;
			else if (!read_word(c, "False"))
				return bad(path, "'fortran_order' is neither True nor False");
			have_fortran = 1;
		} else if (!strcmp(key, "shape") && !have_shape) {
			if (read_shape(c, h))
				return bad(path, "'shape' is not a tuple of at most 8 non-negative integers");
			have_shape = 1;
		} else {
			snprintf(why, sizeof why, "unexpected or repeated key '%s' in the header", key);
			return bad(path, why);
		}
		if (!eat(c, ',')) {
			if (!eat(c, '}'))
				return bad(path, "malformed header dict");
			break;
		}
	}
	skip_ws(c);
	if (c->p != c->end)
		return bad(path, "text after the header dict");
	if (!have_descr || !have_fortran || !have_shape)
		return bad(path, "the header lacks 'descr', 'fortran_order' or 'shape'");
	return 0;
}

int lr_npy_parse(struct lr_npy_header *h, const void *buf, size_t len, const char *path)
{
	const unsigned char *b = buf;
	char descr[64], why[160];
	int elem = 2, i, rc;
	size_t hlen, pre;
	struct cur c;
	uint64_t count = 1;

	memset(h, 0, sizeof *h);
	if (len < 10 || memcmp(b, "\x93NUMPY", 6))
		return bad(path, "no .npy magic at the start of the file");
	h->major = b[6];
	h->minor = b[7];
	if (h->major == 1) {
		hlen = (size_t)b[8] | (size_t)b[9] << 8;
		pre = 10;
	} else if (h->major == 2 || h->major == 3) {
		if (len < 12)
			return bad(path, "the header is truncated");
		hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
		pre = 12;
	} else {
		snprintf(why, sizeof why, "format version %d.%d is not 1.0, 2.0 or 3.0", h->major, h->minor);
		return bad(path, why);
	}
	if (hlen > len - pre)
		return bad(path, "the header is longer than the file");
	c.p = (const char *)b + pre;
	c.end = c.p + hlen;
	if (hlen == 0 || c.end[-1] != '\n')
		return bad(path, "the header does not end with a newline");
	if ((rc = header_dict(&c, h, descr, sizeof descr, path)))
		return rc;
	if (dtype_kind(descr, &h->kind, &elem)) {
		snprintf(why, sizeof why, "dtype '%s' is not a 16-bit little-endian type%s", descr,
			 descr[0] == '>' ? " (it is big-endian)" : "");
		return bad(path, why);
	}
	for (i = 0; i < h->rank; i++) {
		if (h->shape[i] && count > UINT64_MAX / 8 / (uint64_t)h->shape[i])
			return bad(path, "the shape is too large");
		count *= (uint64_t)h->shape[i];
	}
	h->data_offset = pre + hlen;
	if ((uint64_t)(len - h->data_offset) != count * (uint64_t)elem) {
		snprintf(why, sizeof why, "the shape needs %llu bytes of data but the file holds %llu",
			 (unsigned long long)(count * (uint64_t)elem), (unsigned long long)(len - h->data_offset));
		return bad(path, why);
	}
	return 0;
}

int lr_map_file(struct lr_mapped *m, const char *path)
{
	struct stat st;
	int fd;

	m->addr = NULL;
	m->len = 0;
	/* checked before opening: opening a FIFO for reading would wait for a writer forever */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return lr_error_set(LR_EINVAL, "cannot read '%s': not a regular file (%s)", path,
				    lr_file_kind(st.st_mode));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return lr_error_set(LR_EINVAL, "cannot read '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return lr_error_set(LR_EINVAL, "cannot read '%s': not a regular file", path);
	}
	m->len = (size_t)st.st_size;
	if (m->len) {
		m->addr = mmap(NULL, m->len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m->addr == MAP_FAILED) {
			m->addr = NULL;
			close(fd);
			return lr_error_set(LR_EIO, "cannot map '%s': %s", path, strerror(errno));
		}
	}
	close(fd);
	return 0;
}

void lr_unmap(struct lr_mapped *m)
{
	if (m->addr)
		munmap(m->addr, m->len);
	m->addr = NULL;
	m->len = 0;
}

int lr_shape_parse(int64_t *shape, int *rank, const char *text, const char *what)
{
	const char *p = text;
	char *end;

	*rank = 0;
	while (*p) {
		long long v;

		if (!isdigit((unsigned char)*p) || *rank >= LR_VIEW_MAXRANK)
			goto fail;
		errno = 0;
		v = strtoll(p, &end, 10);
		if (errno)
			goto fail;
		shape[(*rank)++] = v;
		p = end;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			goto fail;
	}
	if (*rank)
		return 0;
fail:
	lr_error_set(LR_EINVAL, "invalid %s '%s': expected up to 8 comma-separated sizes", what, text);
	lr_error_hint("e.g. %s 28,2,8,8192,128", what);
	return LR_EINVAL;
}

int lr_input_open(struct lr_mapped *m, struct lr_view *v, const char *path, const char *shape_text,
		  enum lr_npy_kind *kind)
{
	struct lr_npy_header h;
	int64_t shape[LR_VIEW_MAXRANK];
	int rank, rc, i;

	if ((rc = lr_map_file(m, path)))
		return rc;
	if (m->len >= 6 && !memcmp(m->addr, "\x93NUMPY", 6)) {
		if ((rc = lr_npy_parse(&h, m->addr, m->len, path)))
			goto fail;
		*kind = h.kind;
		if ((rc = lr_view_init(v, (char *)m->addr + h.data_offset, h.rank, h.shape)))
			goto fail;
		if (h.fortran) {
			/* Column-major: the first index varies fastest. */
			int64_t stride = 1;

			for (i = 0; i < h.rank; i++) {
				v->stride[i] = stride;
				stride *= h.shape[i] ? h.shape[i] : 1;
			}
		}
		return 0;
	}
	if (!shape_text) {
		rc = bad(path, "no .npy magic at the start of the file");
		goto fail;
	}
	if ((rc = lr_shape_parse(shape, &rank, shape_text, "--shape")))
		goto fail;
	if ((rc = lr_view_init(v, m->addr, rank, shape)))
		goto fail;
	if ((uint64_t)lr_view_count(v) * 2 != m->len) {
		rc = lr_error_set(LR_EINVAL,
				  "cannot read '%s' as raw data of shape %s: it holds %zu bytes, the shape needs %llu",
				  path, shape_text, m->len, (unsigned long long)lr_view_count(v) * 2);
		lr_error_hint("check --shape; raw files hold little-endian 16-bit elements and nothing else");
		goto fail;
	}
	*kind = LR_NPY_U16;
	return 0;
fail:
	lr_unmap(m);
	return rc;
}
