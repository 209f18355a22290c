#include "config.h"
#include "base/system.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/error.h"
#include "base/parallel.h"
#include "encode/layout.h"

int lr_view_init(struct lr_view *v, void *data, int rank, const int64_t *shape)
{
	int64_t stride = 1;
	int i;

	memset(v, 0, sizeof *v);
	if (rank < 0 || rank > LR_VIEW_MAXRANK)
		return lr_error_set(LR_EINVAL, "cannot describe an array of rank %d: at most %d dimensions", rank,
				    LR_VIEW_MAXRANK);
	v->data = data;
	v->rank = rank;
	for (i = rank - 1; i >= 0; i--) {
		if (shape[i] < 0)
			return lr_error_set(LR_EINVAL, "cannot describe an array with a negative dimension (%lld)",
					    (long long)shape[i]);
		v->shape[i] = shape[i];
		v->stride[i] = stride;
		if (shape[i] && stride > INT64_MAX / 4 / shape[i])
			return lr_error_set(LR_EINVAL, "cannot describe an array that large");
		stride *= shape[i] ? shape[i] : 1;
	}
	return 0;
}

int64_t lr_view_count(const struct lr_view *v)
{
	int64_t n = 1;
	int i;

	for (i = 0; i < v->rank; i++)
		n *= v->shape[i];
	return n;
}

int lr_view_permute(struct lr_view *out, const struct lr_view *in, const int *axes)
{
	int seen[LR_VIEW_MAXRANK] = { 0 }, i;
	struct lr_view v = *in;

	for (i = 0; i < in->rank; i++) {
		if (axes[i] < 0 || axes[i] >= in->rank || seen[axes[i]]++)
			return lr_error_set(LR_EINVAL, "invalid axes: not a permutation of 0..%d", in->rank - 1);
		v.shape[i] = in->shape[axes[i]];
		v.stride[i] = in->stride[axes[i]];
	}
	*out = v;
	return 0;
}

int lr_axes_parse(int *axes, int rank, const char *text)
{
	const char *p = text;
	char *end;
	int n = 0;

	while (*p) {
		long a = strtol(p, &end, 10);

		if (end == p || n >= LR_VIEW_MAXRANK)
			break;
		axes[n++] = (int)a;
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			break;
	}
	if (*p || n != rank) {
		lr_error_set(LR_EINVAL, "invalid --permute '%s': expected %d comma-separated axes", text, rank);
		lr_error_hint("e.g. --permute 0,1,3,2,4 swaps axes 2 and 3 of a 5-D array");
		return LR_EINVAL;
	}
	return 0;
}

void lr_view_extent(const struct lr_view *v, uintptr_t *lo, uintptr_t *hi)
{
	intptr_t a = 0, b = 0;
	int i;

	*lo = *hi = (uintptr_t)v->data;
	if (lr_view_count(v) == 0)
		return;
	for (i = 0; i < v->rank; i++) {
		intptr_t span = (intptr_t)((v->shape[i] - 1) * v->stride[i]);

		if (span < 0)
			a += span;
		else
			b += span;
	}
	*lo = (uintptr_t)((intptr_t)v->data + a * 2);
	*hi = (uintptr_t)((intptr_t)v->data + b * 2 + 2);
}

int64_t lr_pieces_init(struct lr_pieces *pc, const struct lr_view *v, int64_t max)
{
	int64_t n = lr_view_count(v);
	int d;

	memset(pc, 0, sizeof *pc);
	pc->v = *v;
	pc->d = -1;
	if (n == 0)
		return 0;
	if (n <= max || v->rank == 0)
		return 1;
	/* the outermost dimension whose indices each hold at most 'max' elements */
	pc->inner = n;
	for (d = 0; d < v->rank; d++) {
		pc->inner /= v->shape[d];
		if (pc->inner <= max)
			break;
	}
	pc->d = d;
	pc->m = pc->inner ? max / pc->inner : 1;
	if (pc->m < 1)
		pc->m = 1;
	if (pc->m > v->shape[d])
		pc->m = v->shape[d];
	pc->per = (v->shape[d] + pc->m - 1) / pc->m;
	return n / (v->shape[d] * pc->inner) * pc->per;
}

void lr_piece(const struct lr_pieces *pc, int64_t i, struct lr_view *piece, int64_t *first)
{
	const struct lr_view *v = &pc->v;
	int64_t outer, j, off = 0, rest;
	int k, d = pc->d;

	if (d < 0) {
		*piece = *v;
		*first = 0;
		return;
	}
	outer = rest = i / pc->per;
	j = i % pc->per * pc->m;
	for (k = d - 1; k >= 0; k--) {
		off += rest % v->shape[k] * v->stride[k];
		rest /= v->shape[k];
	}
	off += j * v->stride[d];
	piece->data = (uint16_t *)v->data + off;
	piece->rank = v->rank - d;
	for (k = d; k < v->rank; k++) {
		piece->shape[k - d] = v->shape[k];
		piece->stride[k - d] = v->stride[k];
	}
	piece->shape[0] = v->shape[d] - j < pc->m ? v->shape[d] - j : pc->m;
	*first = (outer * v->shape[d] + j) * pc->inner;
}

/* ---- the engine -------------------------------------------------------------- */

/* Iteration space after dropping size-1 dimensions and merging contiguous ones. */
struct plan {
	int rank; /* >= 1; the last dimension is the row */
	int64_t shape[LR_VIEW_MAXRANK];
	int64_t sstride[LR_VIEW_MAXRANK], dstride[LR_VIEW_MAXRANK];
	const uint16_t *src;
	uint16_t *dst;
	const struct lr_dlf16_kernel *k;
	enum lr_dlf16_contract c;
	unsigned flags;
};

static int64_t abs64(int64_t x)
{
	return x < 0 ? -x : x;
}

/*
 * Drop size-1 dimensions, keep the last dimension as the row, order the
 * outer loops by descending source stride, and merge dimensions that are
 * contiguous in both views. Reading the source in its own order and writing
 * into a few sequential streams is what keeps a permuted view (a token-major
 * export seen head-major) as fast as a contiguous one: in destination order
 * the same view reads rows thousands of bytes apart.
 */
static void make_plan(struct plan *p, const struct lr_view *dst, const struct lr_view *src)
{
	int64_t shape[LR_VIEW_MAXRANK], ss[LR_VIEW_MAXRANK], ds[LR_VIEW_MAXRANK];
	int i, j, n = 0, r = 0;

	for (i = 0; i < src->rank; i++) {
		if (src->shape[i] == 1)
			continue;
		shape[n] = src->shape[i];
		ss[n] = src->stride[i];
		ds[n] = dst->stride[i];
		n++;
	}
	/* insertion sort of the outer dimensions, stable, by |source stride| descending */
	for (i = 1; i < n - 1; i++)
		for (j = i; j > 0 && abs64(ss[j - 1]) < abs64(ss[j]); j--) {
			int64_t t;

			t = shape[j], shape[j] = shape[j - 1], shape[j - 1] = t;
			t = ss[j], ss[j] = ss[j - 1], ss[j - 1] = t;
			t = ds[j], ds[j] = ds[j - 1], ds[j - 1] = t;
		}
	for (i = 0; i < n; i++) {
		if (r > 0 && p->sstride[r - 1] == ss[i] * shape[i] && p->dstride[r - 1] == ds[i] * shape[i]) {
			/* dimension r-1 steps over whole rows of i in both views: merge */
			p->shape[r - 1] *= shape[i];
			p->sstride[r - 1] = ss[i];
			p->dstride[r - 1] = ds[i];
			continue;
		}
		p->shape[r] = shape[i];
		p->sstride[r] = ss[i];
		p->dstride[r] = ds[i];
		r++;
	}
	if (r == 0) {
		p->shape[0] = 1;
		p->sstride[0] = p->dstride[0] = 1;
		r = 1;
	}
	p->rank = r;
	p->src = src->data;
	p->dst = dst->data;
}

#define CHUNK 256

/* Encode one row of n elements with the given strides. */
static void encode_row(const struct plan *p, uint16_t *d, const uint16_t *s, int64_t n, int64_t ss, int64_t ds)
{
	uint16_t in[CHUNK], out[CHUNK];
	int64_t i, j, m;

	if (ss == 1 && ds == 1) {
		p->k->encode(d, s, (size_t)n, p->c, p->flags);
		return;
	}
	for (i = 0; i < n; i += CHUNK) {
		m = n - i < CHUNK ? n - i : CHUNK;
		if (ss == 1) {
			memcpy(in, s + i, (size_t)m * 2);
		} else {
			for (j = 0; j < m; j++)
				in[j] = s[(i + j) * ss];
		}
		if (ds == 1) {
			p->k->encode(d + i, in, (size_t)m, p->c, 0);
			continue;
		}
		p->k->encode(out, in, (size_t)m, p->c, 0);
		for (j = 0; j < m; j++)
			d[(i + j) * ds] = out[j];
	}
}

struct part {
	const struct plan *p;
	int64_t first, count; /* rows [first, first + count), or elements when 'elems' */
	int elems;            /* a slice of the plan's one row (rank 1), not whole rows */
};

static void *encode_part(void *arg)
{
	const struct part *w = arg;
	const struct plan *p = w->p;
	int64_t idx[LR_VIEW_MAXRANK] = { 0 }, row, rest = w->first, g, step;
	const uint16_t *s = p->src;
	uint16_t *d = p->dst;
	int outer = p->rank - 1, i;
	int rows_at_once = outer >= 1 && p->k->encode_rows && p->sstride[outer] == 1 && p->dstride[outer] == 1;

	if (w->elems) { /* a slice of the one row */
		encode_row(p, d + w->first * p->dstride[0], s + w->first * p->sstride[0], w->count, p->sstride[0],
			   p->dstride[0]);
		if (p->flags & LR_DLF16_STREAM)
			lr_dlf16_fence();
		return NULL;
	}
	/* Position of the first row, from its flat index. */
	for (i = outer - 1; i >= 0; i--) {
		idx[i] = rest % p->shape[i];
		rest /= p->shape[i];
		s += idx[i] * p->sstride[i];
		d += idx[i] * p->dstride[i];
	}
	for (row = 0; row < w->count; row += g) {
		g = 1;
		if (rows_at_once) {
			/* the rest of dimension outer-1, as far as this part goes, in one call */
			g = p->shape[outer - 1] - idx[outer - 1];
			if (g > w->count - row)
				g = w->count - row;
			p->k->encode_rows(d, p->dstride[outer - 1], s, p->sstride[outer - 1], (size_t)g,
					  (size_t)p->shape[outer], p->c, p->flags);
		} else {
			encode_row(p, d, s, p->shape[outer], p->sstride[outer], p->dstride[outer]);
		}
		for (i = outer - 1, step = g; i >= 0; i--, step = 1) {
			s += step * p->sstride[i];
			d += step * p->dstride[i];
			if ((idx[i] += step) < p->shape[i])
				break;
			s -= p->sstride[i] * p->shape[i];
			d -= p->dstride[i] * p->shape[i];
			idx[i] = 0;
		}
	}
	if (p->flags & LR_DLF16_STREAM)
		lr_dlf16_fence();
	return NULL;
}

int lr_encode_view(const struct lr_view *dst, const struct lr_view *src, const struct lr_dlf16_kernel *k,
		   enum lr_dlf16_contract c, int threads)
{
	return lr_encode_view_stores(dst, src, k, c, threads, LR_STORES_AUTO);
}

int lr_encode_view_stores(const struct lr_view *dst, const struct lr_view *src, const struct lr_dlf16_kernel *k,
			  enum lr_dlf16_contract c, int threads, int stores)
{
	struct part parts[LR_PARALLEL_MAX];
	struct plan p;
	uintptr_t slo, shi, dlo, dhi;
	int64_t rows = 1, n, per, first = 0;
	int i;

	if (src->rank != dst->rank)
		return lr_error_set(LR_EINVAL, "cannot encode a rank-%d array into a rank-%d one", src->rank,
				    dst->rank);
	for (i = 0; i < src->rank; i++)
		if (src->shape[i] != dst->shape[i])
			return lr_error_set(LR_EINVAL,
					    "cannot encode: input and output differ in dimension %d (%lld vs %lld)", i,
					    (long long)src->shape[i], (long long)dst->shape[i]);
	if (((uintptr_t)src->data | (uintptr_t)dst->data) & 1)
		return lr_error_set(LR_EINVAL, "cannot encode: 16-bit elements must start on an even address");
	n = lr_view_count(src);
	if (n == 0)
		return 0;
	lr_view_extent(src, &slo, &shi);
	lr_view_extent(dst, &dlo, &dhi);
	if (slo < dhi && dlo < shi)
		return lr_error_set(LR_EINVAL, "cannot encode: the output overlaps the input");

	memset(&p, 0, sizeof p);
	make_plan(&p, dst, src);
	p.k = k;
	p.c = c;
	if (stores == LR_STORES_AUTO)
		p.flags = (uint64_t)n * 2 >= LR_STREAM_MIN_BYTES ? LR_DLF16_STREAM : 0;
	else
		p.flags = stores == LR_STORES_STREAM ? LR_DLF16_STREAM : 0;
	for (i = 0; i < p.rank - 1; i++)
		rows *= p.shape[i];
	if (threads < 1)
		threads = 1;
	if (threads > (int)(sizeof parts / sizeof parts[0]))
		threads = (int)(sizeof parts / sizeof parts[0]);
	if (p.rank == 1 && threads > 1) {
		/* one run (a contiguous view merges into one row): each thread a slice of 64-byte multiples */
		per = ((p.shape[0] + threads - 1) / threads + 31) / 32 * 32;
		for (i = 0; i < threads && first < p.shape[0]; i++) {
			parts[i] = (struct part){ &p, first, p.shape[0] - first < per ? p.shape[0] - first : per, 1 };
			first += parts[i].count;
		}
		threads = i;
	} else {
		if (threads > rows)
			threads = (int)rows;
		per = rows / threads;
		for (i = 0; i < threads; i++) {
			parts[i] = (struct part){ &p, first, per + (i < rows % threads), 0 };
			first += parts[i].count;
		}
	}
	lr_parallel(parts, sizeof parts[0], threads, encode_part);
	return 0;
}

static void copy_elems(uint16_t *dst, const uint16_t *src, size_t n, enum lr_dlf16_contract c, unsigned flags)
{
	(void)c;
	(void)flags;
	memcpy(dst, src, n * 2);
}

static int always(void)
{
	return 1;
}

int lr_copy_view(const struct lr_view *dst, const struct lr_view *src)
{
	static const struct lr_dlf16_kernel copy = {
		.name = "copy",
		.what = "identity",
		.supported = always,
		.encode = copy_elems,
	};

	return lr_encode_view(dst, src, &copy, LR_DLF16_SATURATE, 1);
}

void lr_memcpy_stream(void *dst, const void *src, size_t bytes, unsigned flags)
{
#if defined(__SSE2__)
	const char *s = src;
	char *d = dst;
	size_t i = 0;

	while (((uintptr_t)(d + i) & 15) && i < bytes) {
		d[i] = s[i];
		i++;
	}
	for (; (flags & LR_DLF16_PAGES) && i + 4 * 4096 <= bytes; i += 4 * 4096) /* four read streams in flight */
		for (size_t j = 0; j < 4096; j += 64)
			for (size_t p = 0; p < 4 * 4096; p += 4096) {
				const char *sp = s + i + p + j;
				char *dp = d + i + p + j;

				_mm_prefetch(sp + 512, _MM_HINT_T0);
				_mm_stream_si128((__m128i *)dp, _mm_loadu_si128((const __m128i *)sp));
				_mm_stream_si128((__m128i *)(dp + 16), _mm_loadu_si128((const __m128i *)(sp + 16)));
				_mm_stream_si128((__m128i *)(dp + 32), _mm_loadu_si128((const __m128i *)(sp + 32)));
				_mm_stream_si128((__m128i *)(dp + 48), _mm_loadu_si128((const __m128i *)(sp + 48)));
			}
	for (; i + 64 <= bytes; i += 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)(s + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32));
		__m128i e = _mm_loadu_si128((const __m128i *)(s + i + 48));

		_mm_stream_si128((__m128i *)(d + i), a);
		_mm_stream_si128((__m128i *)(d + i + 16), b);
		_mm_stream_si128((__m128i *)(d + i + 32), c);
		_mm_stream_si128((__m128i *)(d + i + 48), e);
	}
	_mm_sfence();
	memcpy(d + i, s + i, bytes - i);
#else
	(void)flags;
	memcpy(dst, src, bytes);
#endif
}
