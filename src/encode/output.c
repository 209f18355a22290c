#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/walk.h"
#include "base/parallel.h"
#include "encode/dlf16.h"
#include "encode/npy.h"
#include "encode/output.h"

/* pwrite all of it at 'off'; -1 with errno set on failure (ENOSPC for a short write that made no progress) */
static int write_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t w = pwrite(fd, p, len, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = ENOSPC;
			return -1;
		}
		p += w;
		len -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

/* The .npy header for a C-order array, padded so the data starts 64-byte aligned. */
static size_t npy_header(char *out, size_t outlen, int rank, const int64_t *shape, int elem)
{
	char dict[512], dims[300] = "";
	size_t off = 0, n, total;
	int i;

	for (i = 0; i < rank; i++)
		off += (size_t)snprintf(dims + off, sizeof dims - off, "%lld,%s", (long long)shape[i],
					i + 1 < rank ? " " : "");
	if (rank > 1)
		dims[off - 1] = '\0'; /* "(3, 4)" but "(5,)" */
	n = (size_t)snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
			     elem == 4 ? "<f4" : "<u2", dims);
	total = (10 + n + 1 + 63) / 64 * 64;
	if (total > outlen)
		return 0;
	memcpy(out, "\x93NUMPY\x01\x00", 8);
	out[8] = (char)((total - 10) & 0xff);
	out[9] = (char)((total - 10) >> 8);
	memcpy(out + 10, dict, n);
	memset(out + 10 + n, ' ', total - 10 - n - 1);
	out[total - 1] = '\n';
	return total;
}

int lr_output_create(struct lr_output *o, const char *path, int npy, int rank, const int64_t *shape, int elem_bytes)
{
	char header[1024];
	uint64_t count = 1;
	int rc, i;

	memset(o, 0, sizeof *o);
	o->fd = -1;
	if ((rc = lr_output_replaceable(path)))
		return rc;
	for (i = 0; i < rank; i++)
		count *= (uint64_t)shape[i];
	if (npy && !(o->hlen = npy_header(header, sizeof header, rank, shape, elem_bytes)))
		return lr_error_set(LR_EINVAL, "cannot write '%s': shape too long for a header", path);
	o->elem = elem_bytes;
	o->len = o->hlen + count * (uint64_t)elem_bytes;
	o->path = strdup(path);
	if (!o->path || asprintf(&o->tmp, "%s.tmp-XXXXXX", path) < 0) {
		o->tmp = NULL;
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto fail;
	}
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		rc = lr_error_set(LR_EIO, "cannot create '%s': %s", path, strerror(errno));
		lr_error_hint("check that the output directory exists and is writable");
		free(o->tmp);
		o->tmp = NULL;
		goto fail;
	}
	fchmod(o->fd, 0644);
	/* the whole size up front: a full disk fails here, before any work */
	if (o->len && fallocate(o->fd, 0, 0, (off_t)o->len) != 0 && errno != EOPNOTSUPP) {
		rc = lr_error_set(LR_EIO, "cannot size '%s' to %zu bytes: %s", path, o->len, strerror(errno));
		goto fail;
	}
	if (write_all(o->fd, header, o->hlen, 0)) {
		rc = lr_error_set(LR_EIO, "cannot write '%s': %s", path, strerror(errno));
		goto fail;
	}
	return 0;
fail:
	lr_output_abort(o);
	return rc;
}

/*
 * Chunks of at most this many output bytes: each worker's buffer stays in
 * its core's cache. A fill function gets as many bytes again after its
 * chunk as scratch.
 */
#define FILL_CHUNK (512u << 10)

struct filler {
	struct lr_output *o;
	const struct lr_pieces *pc;
	lr_fill_fn fill;
	void *ctx;
	int64_t pieces, *next;
	int err, rc; /* errno of a failed write; a fill's error code */
};

static void *fill_part(void *arg)
{
	struct filler *f = arg;
	void *buf = aligned_alloc(64, 2 * FILL_CHUNK);
	struct lr_view piece;
	int64_t i, first;

	if (!buf) {
		f->err = ENOMEM;
		return NULL;
	}
	while ((i = __atomic_fetch_add(f->next, 1, __ATOMIC_RELAXED)) < f->pieces) {
		lr_piece(f->pc, i, &piece, &first);
		if ((f->rc = f->fill(f->ctx, buf, &piece))) {
			__atomic_store_n(f->next, f->pieces, __ATOMIC_RELAXED); /* the others stop too */
			break;
		}
		if (write_all(f->o->fd, buf, (size_t)lr_view_count(&piece) * f->o->elem,
			      f->o->hlen + (uint64_t)first * f->o->elem)) {
			f->err = errno;
			__atomic_store_n(f->next, f->pieces, __ATOMIC_RELAXED); /* the others stop too */
			break;
		}
	}
	free(buf);
	return NULL;
}

int lr_output_fill(struct lr_output *o, const struct lr_view *src, lr_fill_fn fill, void *ctx, int threads)
{
	struct filler parts[LR_PARALLEL_MAX];
	struct lr_pieces pc;
	int64_t next = 0, pieces = lr_pieces_init(&pc, src, FILL_CHUNK / o->elem);
	int i;

	if (threads < 1)
		threads = 1;
	if (threads > LR_PARALLEL_MAX)
		threads = LR_PARALLEL_MAX;
	if (threads > pieces)
		threads = pieces ? (int)pieces : 1;
	for (i = 0; i < threads; i++)
		parts[i] = (struct filler){ o, &pc, fill, ctx, pieces, &next, 0, 0 };
	lr_parallel(parts, sizeof parts[0], threads, fill_part);
	for (i = 0; i < threads; i++) {
		if (parts[i].rc)
			return parts[i].rc;
		if (parts[i].err) {
			lr_error_set(parts[i].err == ENOMEM ? LR_ENOMEM : LR_EIO, "cannot write '%s': %s", o->path,
				     strerror(parts[i].err));
			return parts[i].err == ENOMEM ? LR_ENOMEM : LR_EIO;
		}
	}
	return 0;
}

int lr_output_commit(struct lr_output *o)
{
	int rc = 0;

	if (close(o->fd) != 0)
		rc = lr_error_set(LR_EIO, "cannot write '%s': %s", o->path, strerror(errno));
	o->fd = -1;
	if (!rc && rename(o->tmp, o->path) != 0)
		rc = lr_error_set(LR_EIO, "cannot create '%s': %s", o->path, strerror(errno));
	if (rc) {
		lr_output_abort(o);
		return rc;
	}
	free(o->tmp);
	o->tmp = NULL;
	lr_output_abort(o);
	return 0;
}

void lr_output_abort(struct lr_output *o)
{
	if (o->fd >= 0)
		close(o->fd);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof *o);
	o->fd = -1;
}

/* ---- encode and decode -------------------------------------------------------- */

struct coder {
	const struct lr_dlf16_kernel *k;
	enum lr_dlf16_contract c;
	int f32;
};

static int encode_piece(void *ctx, void *buf, const struct lr_view *piece)
{
	const struct coder *e = ctx;
	struct lr_view dst;
	int rc;

	if ((rc = lr_view_init(&dst, buf, piece->rank, piece->shape)))
		return rc;
	return lr_encode_view_stores(&dst, piece, e->k, e->c, 1, LR_STORES_CACHED);
}

int lr_output_encode(struct lr_output *o, const struct lr_view *src, const struct lr_dlf16_kernel *k,
		     enum lr_dlf16_contract c, int threads)
{
	struct coder e = { k, c, 0 };

	return lr_output_fill(o, src, encode_piece, &e, threads);
}

static int decode_piece(void *ctx, void *buf, const struct lr_view *piece)
{
	const struct coder *e = ctx;
	uint16_t *codes = (uint16_t *)((char *)buf + FILL_CHUNK);
	size_t n = (size_t)lr_view_count(piece);
	struct lr_view c;
	int rc;

	/* gathered into C order first: a Fortran-ordered input is a strided view */
	if ((rc = lr_view_init(&c, codes, piece->rank, piece->shape)) || (rc = lr_copy_view(&c, piece)))
		return rc;
	if (e->f32)
		lr_dlf16_decode_f32(buf, codes, n);
	else
		lr_dlf16_decode_bf16(buf, codes, n);
	return 0;
}

int lr_output_decode(struct lr_output *o, const struct lr_view *src, int threads)
{
	struct coder e = { NULL, LR_DLF16_SATURATE, o->elem == 4 };

	return lr_output_fill(o, src, decode_piece, &e, threads);
}

static int copy_piece(void *ctx, void *buf, const struct lr_view *piece)
{
	struct lr_view dst;
	int rc;

	(void)ctx;
	if ((rc = lr_view_init(&dst, buf, piece->rank, piece->shape)))
		return rc;
	return lr_copy_view(&dst, piece);
}

int lr_output_copy(struct lr_output *o, const struct lr_view *src, int threads)
{
	return lr_output_fill(o, src, copy_piece, NULL, threads);
}
