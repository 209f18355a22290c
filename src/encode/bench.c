#include "config.h"
#include "base/system.h"

#include <sched.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/clock.h"
#include "base/error.h"
#include "base/parallel.h"
#include "base/sha256.h"
#include "encode/bench.h"
#include "encode/ktable.h"
#include "encode/npy.h"
#include "encode/output.h"
#include "encode/synth.h"

/* ---- the copies that make the ceiling ---------------------------------------- */

static void copy_vector(void *dst, const void *src, size_t bytes)
{
#if defined(__SSE2__)
	const char *s = src;
	char *d = dst;
	size_t i = 0;

	for (; i + 64 <= bytes; i += 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)(s + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32));
		__m128i e = _mm_loadu_si128((const __m128i *)(s + i + 48));

		_mm_storeu_si128((__m128i *)(d + i), a);
		_mm_storeu_si128((__m128i *)(d + i + 16), b);
		_mm_storeu_si128((__m128i *)(d + i + 32), c);
		_mm_storeu_si128((__m128i *)(d + i + 48), e);
	}
	memcpy(d + i, s + i, bytes - i);
#else
	memcpy(dst, src, bytes);
#endif
}

/*
 * The copies, each a way to move the bytes without encoding them; the
 * ceiling is the fastest. Non-temporal copies in both read orders the
 * kernels stream in (one sequential stream, four pages at a time): which is
 * faster depends on the CPU, so a ceiling of one order alone would flatter a
 * kernel in the other.
 */
static const char *const copy_names[] = { "copy: memcpy", "copy: vector", "copy: non-temporal",
					  "copy: non-temporal pages" };
#define NCOPIES (int)(sizeof copy_names / sizeof copy_names[0])

/* Copy number 'copy' of copy_names. */
static void copy_bytes(int copy, void *dst, const void *src, size_t bytes)
{
	if (copy == 0)
		memcpy(dst, src, bytes);
	else if (copy == 1)
		copy_vector(dst, src, bytes);
	else
		lr_memcpy_stream(dst, src, bytes, copy == 3 ? LR_DLF16_PAGES : 0);
}

/* ---- the benchmark -------------------------------------------------------------- */

int lr_bench_pin(int threads)
{
	cpu_set_t allowed, set;
	int cpu = sched_getcpu(), i, n = 1;

	if (cpu < 0 || sched_getaffinity(0, sizeof allowed, &allowed) != 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	for (i = 0; i < CPU_SETSIZE && n < threads; i++)
		if (CPU_ISSET(i, &allowed) && !CPU_ISSET(i, &set)) {
			CPU_SET(i, &set);
			n++;
		}
	return sched_setaffinity(0, sizeof set, &set) == 0 ? cpu : -1;
}

struct bufs {
	uint16_t *src;    /* [L,2,H,T,D] contiguous */
	uint16_t *src_tm; /* the same values token-major: [L,2,T,H,D] */
	uint16_t *dst;
	struct lr_view vsrc, vdst, vperm;
	int64_t n;
	char *in, *out; /* the file variants' input .npy and output, or NULL */
};

/* One copy of [first, first + bytes) of the buffers: what a copy variant's thread does. */
struct copy_part {
	int copy;
	char *dst;
	const char *src;
	size_t bytes;
};

static void *copy_part(void *arg)
{
	struct copy_part *p = arg;

	copy_bytes(p->copy, p->dst, p->src, p->bytes);
	return NULL;
}

/* A copy variant on 'threads' threads, each a contiguous slice (64-byte aligned), as the encoders split rows. */
static void run_copy(int copy, struct bufs *b, int threads)
{
	struct copy_part parts[LR_PARALLEL_MAX];
	size_t bytes = (size_t)b->n * 2, per = (bytes / (size_t)threads + 63) / 64 * 64, off = 0;
	int i;

	for (i = 0; i < threads; i++) {
		size_t len = off < bytes ? (bytes - off < per ? bytes - off : per) : 0;

		parts[i] = (struct copy_part){ copy, (char *)b->dst + off, (const char *)b->src + off, len };
		off += len;
	}
	lr_parallel(parts, sizeof parts[0], threads, copy_part);
}

/* cp IN OUT as cp does it: a new file, filled by copy_file_range in the kernel. */
static int file_copy(const char *in, const char *out)
{
	int fi = open(in, O_RDONLY | O_CLOEXEC), fo = -1, rc = 0;
	ssize_t w = 1;

	unlink(out);
	if (fi < 0 || (fo = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0)
		rc = -1;
	while (!rc && w > 0)
		if ((w = copy_file_range(fi, NULL, fo, NULL, (size_t)1 << 30, 0)) < 0)
			rc = -1;
	if (rc)
		rc = lr_error_set(LR_EIO, "cannot copy '%s' to '%s': %s", in, out, strerror(errno));
	if (fo >= 0 && close(fo) && !rc)
		rc = lr_error_set(LR_EIO, "cannot write '%s': %s", out, strerror(errno));
	if (fi >= 0)
		close(fi);
	return rc;
}

/* labrun encode IN OUT: what the command does, less its printing. */
static int file_encode(const char *in, const char *out, const struct lr_dlf16_kernel *k, enum lr_dlf16_contract c,
		       int threads)
{
	struct lr_output o = LR_OUTPUT_INIT;
	struct lr_mapped m;
	struct lr_view v;
	enum lr_npy_kind kind;
	int rc;

	unlink(out);
	if ((rc = lr_input_open(&m, &v, in, NULL, &kind)))
		return rc;
	if (!(rc = lr_output_create(&o, out, 1, v.rank, v.shape, 2)) && !(rc = lr_output_encode(&o, &v, k, c, threads)))
		rc = lr_output_commit(&o);
	lr_output_abort(&o);
	lr_unmap(&m);
	return rc;
}

/*
 * Before each timed run of a shape that can stay in cache (input and output
 * at most PRIME_MAX_BYTES), the variant's input is read and its output
 * written, one word a cache line, PRIME_PASSES times: every variant starts
 * with its own data as hot as the caches allow. Without it a small shape's
 * times depended on which variant ran before (the permuted view reads a
 * buffer of its own and evicts the others'). One pass was not enough where
 * the last level is a victim cache of L2 (AMD): measured on
 * [1,2,8,2048,128], 1 pass left avx512 at 0.80x memcpy after the permuted
 * view and 0.97x after the others; 3 passes, 0.93-0.95x after either.
 */
#define PRIME_PASSES    3
#define PRIME_MAX_BYTES (64u << 20)

static int is_file(const struct lr_bench_variant *v)
{
	return v->kind == LR_BENCH_FILE_COPY || v->kind == LR_BENCH_FILE_ENCODE;
}

static void prime(const struct lr_bench_variant *v, const struct bufs *b)
{
	const uint16_t *in = v->kind == LR_BENCH_PERMUTED ? b->src_tm : b->src;
	volatile uint16_t sink = 0;
	uint16_t acc = 0;
	int64_t i;
	int pass;

	if (is_file(v) || (uint64_t)b->n * 4 > PRIME_MAX_BYTES)
		return;
	for (pass = 0; pass < PRIME_PASSES; pass++)
		for (i = 0; i < b->n; i += 32) {
			acc ^= in[i];
			b->dst[i] = acc;
		}
	sink = acc;
	(void)sink;
}

static int run_variant(const struct lr_bench_variant *v, struct bufs *b, enum lr_dlf16_contract c, int threads)
{
	switch (v->kind) {
	case LR_BENCH_FILE_COPY: return file_copy(b->in, b->out);
	case LR_BENCH_FILE_ENCODE: return file_encode(b->in, b->out, v->k, c, threads);
	case LR_BENCH_COPY:
		if (threads > 1) {
			run_copy(v->copy, b, threads);
			break;
		}
		copy_bytes(v->copy, b->dst, b->src, (size_t)b->n * 2);
		break;
	case LR_BENCH_ENCODE: return lr_encode_view(&b->vdst, &b->vsrc, v->k, c, threads);
	case LR_BENCH_PERMUTED: return lr_encode_view(&b->vdst, &b->vperm, v->k, c, threads);
	}
	return 0;
}

static int digest(const uint16_t *p, int64_t n, char out[65])
{
	return lr_sha256_buf(p, (size_t)n * 2, out);
}

/* The digest of what a variant produced: the buffer, or the data of the output file. */
static int variant_digest(const struct lr_bench_variant *v, const struct bufs *b, char out[65])
{
	struct lr_mapped m;
	struct lr_view view;
	enum lr_npy_kind kind;
	int rc;

	if (v->kind != LR_BENCH_FILE_ENCODE)
		return digest(b->dst, b->n, out);
	if ((rc = lr_input_open(&m, &view, b->out, NULL, &kind)))
		return rc;
	rc = digest(view.data, lr_view_count(&view), out);
	lr_unmap(&m);
	return rc;
}

/* The input .npy of the file variants, in 'dir': the head-major array, written as labrun writes outputs. */
static int make_files(struct bufs *b, const struct lr_bench_opts *o)
{
	struct lr_output out = LR_OUTPUT_INIT;
	int rc;

	if (asprintf(&b->in, "%s/labrun-bench-%ld-in.npy", o->dir, (long)getpid()) < 0 ||
	    asprintf(&b->out, "%s/labrun-bench-%ld-out.npy", o->dir, (long)getpid()) < 0) {
		b->in = b->out = NULL;
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	if (!(rc = lr_output_create(&out, b->in, 1, b->vsrc.rank, b->vsrc.shape, 2)) &&
	    !(rc = lr_output_copy(&out, &b->vsrc, 1)))
		rc = lr_output_commit(&out);
	lr_output_abort(&out);
	if (rc)
		lr_error_hint("--dir names where the file variants write; it needs room for two copies of the array");
	return rc;
}

/* Build the buffers: the same logical array, head-major and token-major. */
static int make_bufs(struct bufs *b, const struct lr_bench_opts *o)
{
	static const int swap23[5] = { 0, 1, 3, 2, 4 };
	int64_t tm_shape[5];
	struct lr_view vtm;
	size_t bytes;
	int rc, i;

	memset(b, 0, sizeof *b);
	if ((rc = lr_view_init(&b->vsrc, NULL, o->rank, o->shape)))
		return rc;
	b->n = lr_view_count(&b->vsrc);
	if (b->n == 0) { /* every time would be 0 and every ratio 0/0 */
		rc = lr_error_set(LR_EINVAL,
				  "shape [%lld,%lld,%lld,%lld,%lld] holds no elements: there is nothing to time",
				  (long long)o->shape[0], (long long)o->shape[1], (long long)o->shape[2],
				  (long long)o->shape[3], (long long)o->shape[4]);
		lr_error_hint("give every --shape dimension at least 1");
		return rc;
	}
	bytes = ((size_t)b->n * 2 + 63) / 64 * 64;
	if (posix_memalign((void **)&b->src, 64, bytes ? bytes : 64) ||
	    posix_memalign((void **)&b->src_tm, 64, bytes ? bytes : 64) ||
	    posix_memalign((void **)&b->dst, 64, bytes ? bytes : 64))
		return lr_error_set(LR_ENOMEM, "cannot allocate 3 x %zu bytes for the benchmark", bytes);
	lr_bf16_synthetic(b->src, b->n, o->seed, 1);
	memset(b->dst, 0, bytes); /* touch every page before timing */
	if ((rc = lr_view_init(&b->vsrc, b->src, o->rank, o->shape)) ||
	    (rc = lr_view_init(&b->vdst, b->dst, o->rank, o->shape)))
		return rc;
	/* token-major buffer, written through its permuted view from the head-major array */
	for (i = 0; i < 5; i++)
		tm_shape[i] = o->shape[swap23[i]];
	if ((rc = lr_view_init(&vtm, b->src_tm, 5, tm_shape)) ||
	    (rc = lr_view_permute(&b->vperm, &vtm, swap23))) /* [L,2,H,T,D] view of token-major memory */
		return rc;
	return lr_copy_view(&b->vperm, &b->vsrc); /* setup, not timed */
}

static void free_bufs(struct bufs *b)
{
	if (b->in)
		unlink(b->in);
	if (b->out)
		unlink(b->out);
	free(b->in);
	free(b->out);
	free(b->src);
	free(b->src_tm);
	free(b->dst);
}

/* The in-memory variants: the copy ceilings, then every kernel this CPU runs. Returns how many. */
static int memory_variants(struct lr_bench_result *r)
{
	int i, nv = 0;

	for (i = 0; i < NCOPIES; i++) {
		r->var[nv].kind = LR_BENCH_COPY;
		r->var[nv].copy = i;
		snprintf(r->var[nv].name, sizeof r->var[nv].name, "%s", copy_names[i]);
		nv++;
	}
	for (i = 0; lr_dlf16_kernels[i]; i++) {
		const struct lr_dlf16_kernel *k = lr_dlf16_kernels[i];

		if (lr_dlf16_unavailable(k))
			continue;
		r->var[nv].kind = LR_BENCH_ENCODE;
		r->var[nv].k = k;
		snprintf(r->var[nv].kernel, sizeof r->var[nv].kernel, "%s", k->name);
		snprintf(r->var[nv].name, sizeof r->var[nv].name, "encode: %s", k->name);
		nv++;
	}
	return nv;
}

int lr_bench_encoder(const struct lr_bench_opts *o, struct lr_bench_result *r)
{
	const struct lr_dlf16_kernel *ak;
	struct bufs b;
	char d[65];
	int rc, i, rep, pass, nv = 0, threads = o->threads > 1 ? o->threads : 1;
	double t;

	memset(r, 0, sizeof *r);
	if (o->rank != 5)
		return lr_error_set(LR_EINVAL, "the encoder benchmark takes 5-D shapes [L,2,H,T,D]");
	if (o->reps < 2 || o->reps > LR_BENCH_MAXREPS)
		return lr_error_set(LR_EINVAL, "repetitions must be between 2 and %d", LR_BENCH_MAXREPS);
	if (threads > LR_BENCH_MAXTHREADS)
		return lr_error_set(LR_EINVAL, "at most %d threads", LR_BENCH_MAXTHREADS);
	if ((rc = make_bufs(&b, o)))
		goto out;
	r->elements = b.n;
	ak = lr_ktable_pick((uint64_t)b.n * 2, NULL); /* what 'auto' takes for this size, before this run */
	nv = memory_variants(r);
	r->var[nv].kind = LR_BENCH_PERMUTED;
	r->var[nv].k = ak;
	snprintf(r->var[nv].kernel, sizeof r->var[nv].kernel, "%s", ak->name);
	snprintf(r->var[nv].name, sizeof r->var[nv].name, "encode: %s, permuted view", ak->name);
	nv++;
	if (o->dir) {
		if ((rc = make_files(&b, o)))
			goto out;
		r->var[nv].kind = LR_BENCH_FILE_COPY;
		snprintf(r->var[nv++].name, sizeof r->var[0].name, "file: cp");
		r->var[nv].kind = LR_BENCH_FILE_ENCODE;
		r->var[nv].k = ak;
		snprintf(r->var[nv].kernel, sizeof r->var[nv].kernel, "%s", ak->name);
		snprintf(r->var[nv++].name, sizeof r->var[0].name, "file: encode %s", ak->name);
	}
	r->nvar = nv;

	/* Parity before timing: every encoder, and the permuted view, give the same bytes. */
	for (i = 0; i < nv; i++) {
		if (r->var[i].kind == LR_BENCH_COPY || r->var[i].kind == LR_BENCH_FILE_COPY)
			continue;
		memset(b.dst, 0, (size_t)b.n * 2);
		if ((rc = run_variant(&r->var[i], &b, o->contract, threads)) ||
		    (rc = variant_digest(&r->var[i], &b, d)))
			goto out;
		if (!r->digest[0]) {
			memcpy(r->digest, d, sizeof d);
		} else if (strcmp(r->digest, d)) {
			rc = lr_error_set(LR_EIO, "'%s' differs from the first encoder's output: no timing counts",
					  r->var[i].name);
			goto out;
		}
	}

	r->cpu = lr_bench_pin(threads);
	/* in memory first, then the file variants in an alternation of their own: their page-cache
	 * traffic stays out of the in-memory figures */
	for (pass = 0; pass < 2; pass++)
		for (rep = 0; rep < o->reps; rep++)
			for (i = 0; i < nv; i++) {
				int v = rep % 2 ? nv - 1 - i : i; /* ABBA: forward, then reversed */

				if (is_file(&r->var[v]) != pass)
					continue;
				prime(&r->var[v], &b);
				t = (lr_monotonic_s() * 1e3);
				rc = run_variant(&r->var[v], &b, o->contract, threads);
				r->var[v].ms[rep] = (lr_monotonic_s() * 1e3) - t;
				if (rc)
					goto out;
			}
out:
	free_bufs(&b);
	return rc;
}

const char *lr_bench_kind_name(enum lr_bench_kind kind)
{
	static const char *const names[] = { "copy", "encode", "permuted", "file copy", "file encode" };

	return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

int lr_bench_variant_parse(const char *name, enum lr_bench_kind *kind, char *kernel, size_t size)
{
	static const char permuted[] = ", permuted view";
	size_t n = strlen(name), tail = sizeof permuted - 1, from = 0;

	if (!strncmp(name, "copy: ", 6) && n > 6) {
		*kind = LR_BENCH_COPY;
		n = 0;
	} else if (!strcmp(name, "file: cp")) {
		*kind = LR_BENCH_FILE_COPY;
		n = 0;
	} else if (!strncmp(name, "file: encode ", 13) && n > 13) {
		*kind = LR_BENCH_FILE_ENCODE;
		from = 13;
	} else if (!strncmp(name, "encode: ", 8) && n > 8) {
		*kind = n > 8 + tail && !strcmp(name + n - tail, permuted) ? LR_BENCH_PERMUTED : LR_BENCH_ENCODE;
		from = 8;
		n -= *kind == LR_BENCH_PERMUTED ? tail : 0;
	} else {
		return -1;
	}
	snprintf(kernel, size, "%.*s", (int)(n - from), name + from);
	return 0;
}
