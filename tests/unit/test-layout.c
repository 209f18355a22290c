#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/sha256.h"
#include "encode/dlf16.h"
#include "encode/ktable.h"
#include "encode/layout.h"
#include "encode/npy.h"
#include "encode/output.h"
#include "encode/synth.h"
#include "testutil.h"

/* Expected output by walking the index space element by element: no plan, no kernels. */
static void reference_encode(uint16_t *out, const struct lr_view *src, enum lr_dlf16_contract c)
{
	int64_t idx[LR_VIEW_MAXRANK] = { 0 }, n = lr_view_count(src), k;
	const uint16_t *s = src->data;
	int d;

	for (k = 0; k < n; k++) {
		int64_t off = 0;

		for (d = 0; d < src->rank; d++)
			off += idx[d] * src->stride[d];
		out[k] = lr_dlf16_encode1(s[off], c);
		for (d = src->rank - 1; d >= 0 && ++idx[d] == src->shape[d]; d--)
			idx[d] = 0;
	}
}

/* The kernels this CPU can run. */
static int kernels(const struct lr_dlf16_kernel **out)
{
	int i, n = 0;

	for (i = 0; lr_dlf16_kernels[i]; i++)
		if (lr_dlf16_kernels[i]->encode && lr_dlf16_kernels[i]->supported())
			out[n++] = lr_dlf16_kernels[i];
	return n;
}

/* Encode 'src' into a contiguous output with every kernel and thread count 1 and 3; compare. */
static void check_view(const struct lr_view *src, const char *what)
{
	const struct lr_dlf16_kernel *ks[8];
	int64_t n = lr_view_count(src);
	uint16_t *want = malloc((size_t)(n + 1) * 2), *got = malloc((size_t)(n + 1) * 2);
	struct lr_view dst;
	int nk = kernels(ks), i, c, t;

	assert_non_null(want);
	assert_non_null(got);
	for (c = 0; c < 2; c++) {
		reference_encode(want, src, (enum lr_dlf16_contract)c);
		for (i = 0; i < nk; i++)
			for (t = 1; t <= 3; t += 2) {
				memset(got, 0xAB, (size_t)(n + 1) * 2);
				assert_int_equal(lr_view_init(&dst, got, src->rank, src->shape), 0);
				assert_int_equal(lr_encode_view(&dst, src, ks[i], (enum lr_dlf16_contract)c, t), 0);
				if (memcmp(want, got, (size_t)n * 2))
					fail_msg("%s: kernel %s, %d thread(s), %s differs", what, ks[i]->name, t,
						 lr_dlf16_contract_name(c));
				assert_int_equal(got[n], 0xABAB); /* nothing written past the end */
			}
	}
	free(want);
	free(got);
}

static void negative_strides_match_the_reference(void **state)
{
	int64_t shape[3] = { 3, 5, 7 }, n = 105;
	uint16_t *buf = malloc(n * 2);
	struct lr_view v;

	(void)state;
	lr_bf16_synthetic(buf, n, 1, 1);
	assert_int_equal(lr_view_init(&v, buf, 3, shape), 0);
	/* reverse the last axis */
	v.data = buf + 6;
	v.stride[2] = -1;
	check_view(&v, "last axis reversed");
	/* reverse every axis */
	v.data = buf + n - 1;
	v.stride[0] = -35;
	v.stride[1] = -7;
	v.stride[2] = -1;
	check_view(&v, "every axis reversed");
	free(buf);
}

static void transposed_and_5d_views_match_the_reference(void **state)
{
	int64_t s2[2] = { 37, 70 }, s5[5] = { 2, 2, 9, 3, 40 };
	int t2[2] = { 1, 0 }, swap23[5] = { 0, 1, 3, 2, 4 }, odd[5] = { 4, 2, 0, 3, 1 };
	uint16_t *buf = malloc(2 * 2 * 9 * 3 * 40 * 2);
	struct lr_view v, p;

	(void)state;
	lr_bf16_synthetic(buf, 2 * 2 * 9 * 3 * 40, 2, 1);
	assert_int_equal(lr_view_init(&v, buf, 2, s2), 0);
	assert_int_equal(lr_view_permute(&p, &v, t2), 0);
	check_view(&p, "2-D transpose");
	assert_int_equal(lr_view_init(&v, buf, 5, s5), 0);
	check_view(&v, "5-D contiguous");
	assert_int_equal(lr_view_permute(&p, &v, swap23), 0); /* token-major seen head-major */
	check_view(&p, "5-D tokens/heads swapped");
	assert_int_equal(lr_view_permute(&p, &v, odd), 0);
	check_view(&p, "5-D arbitrary permutation");
	free(buf);
}

static void empty_arrays_are_fine_and_write_nothing(void **state)
{
	int64_t shape[3] = { 4, 0, 3 };
	uint16_t in[4] = { 1, 2, 3, 4 }, out[4] = { 9, 9, 9, 9 };
	struct lr_view s, d;

	(void)state;
	assert_int_equal(lr_view_init(&s, in, 3, shape), 0);
	assert_int_equal(lr_view_init(&d, out, 3, shape), 0);
	assert_int_equal(lr_view_count(&s), 0);
	assert_int_equal(lr_encode_view(&d, &s, lr_dlf16_auto(), LR_DLF16_SATURATE, 2), 0);
	assert_int_equal(out[0], 9);
	assert_int_equal(out[3], 9);
}

/* Lengths 0..257 (every SIMD tail), at aligned and unaligned addresses, with every kernel. */
static void every_length_and_alignment_is_exact(void **state)
{
	const struct lr_dlf16_kernel *ks[8];
	uint16_t *in = malloc(300 * 2 + 64), *out = malloc(300 * 2 + 64), want[300];
	int nk = kernels(ks), i, off;
	int64_t len;

	(void)state;
	for (len = 0; len <= 257; len++)
		for (off = 0; off < 4; off++) {
			uint16_t *src = in + off, *dst = out + (3 - off); /* misaligned differently */
			struct lr_view s, d;

			lr_bf16_synthetic(src, len, (uint64_t)len, 1);
			for (i = 0; i < len; i++)
				want[i] = lr_dlf16_encode1(src[i], LR_DLF16_NINF);
			for (i = 0; i < nk; i++) {
				memset(out, 0xCD, 300 * 2 + 64);
				assert_int_equal(lr_view_init(&s, src, 1, &len), 0);
				assert_int_equal(lr_view_init(&d, dst, 1, &len), 0);
				assert_int_equal(lr_encode_view(&d, &s, ks[i], LR_DLF16_NINF, 1), 0);
				if (memcmp(dst, want, (size_t)len * 2))
					fail_msg("kernel %s, length %lld, offset %d differs", ks[i]->name,
						 (long long)len, off);
				assert_int_equal(dst[len], 0xCDCD);
				if (dst > out)
					assert_int_equal(dst[-1], 0xCDCD);
				/* the kernel alone, with the streaming hint, must agree too */
				memset(out, 0xCD, 300 * 2 + 64);
				ks[i]->encode(dst, src, (size_t)len, LR_DLF16_NINF, LR_DLF16_STREAM);
				lr_dlf16_fence();
				if (memcmp(dst, want, (size_t)len * 2))
					fail_msg("kernel %s streaming, length %lld, offset %d differs", ks[i]->name,
						 (long long)len, off);
				assert_int_equal(dst[len], 0xCDCD);
			}
		}
	free(in);
	free(out);
}

/* The input lives in a PROT_READ mapping: any write to it would crash the test. */
static void read_only_mapped_input_is_untouched(void **state)
{
	char *dir = tmpdir_new(), path[4096], before[LR_SHA256_HEX], after[LR_SHA256_HEX];
	int64_t shape[5] = { 2, 2, 16, 8, 64 }, n = 2 * 2 * 16 * 8 * 64;
	int swap23[5] = { 0, 1, 3, 2, 4 }, fd;
	uint16_t *buf = malloc((size_t)n * 2), *ro;
	struct lr_view v, p;

	(void)state;
	lr_bf16_synthetic(buf, n, 3, 1);
	snprintf(path, sizeof path, "%s/in.bin", dir);
	fd = open(path, O_RDWR | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, (size_t)n * 2), n * 2);
	ro = mmap(NULL, (size_t)n * 2, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(ro != MAP_FAILED);
	assert_int_equal(lr_sha256_buf(ro, (size_t)n * 2, before), 0);
	assert_int_equal(lr_view_init(&v, ro, 5, shape), 0);
	check_view(&v, "read-only contiguous");
	assert_int_equal(lr_view_permute(&p, &v, swap23), 0);
	check_view(&p, "read-only permuted");
	p.data = ro + n - 1; /* and reversed */
	for (int i = 0; i < 5; i++)
		p.stride[i] = -p.stride[i];
	check_view(&p, "read-only reversed");
	assert_int_equal(lr_sha256_buf(ro, (size_t)n * 2, after), 0);
	assert_string_equal(before, after);
	munmap(ro, (size_t)n * 2);
	close(fd);
	free(buf);
	tmpdir_remove(dir);
}

/* Pieces cover the view exactly once, in C order, each one contiguous in the output. */
static void pieces_tile_the_view_in_order(void **state)
{
	static const int64_t shapes[][3] = { { 3, 5, 70001 }, { 1, 1, 600000 }, { 2, 300000, 1 },
					     { 7, 1, 3 },     { 4, 0, 9 },      { 1, 3, 262144 } };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		struct lr_view v, piece;
		struct lr_pieces pc;
		int64_t n, k, first, next = 0, count;

		assert_int_equal(lr_view_init(&v, (void *)(uintptr_t)0x1000, 3, shapes[i]), 0);
		n = lr_pieces_init(&pc, &v, 262144);
		for (k = 0; k < n; k++) {
			lr_piece(&pc, k, &piece, &first);
			count = lr_view_count(&piece);
			assert_int_equal(first, next);
			assert_true(count >= 1 && count <= 262144);
			/* in a C-order view the piece's first element sits at its C-order index */
			assert_int_equal((uintptr_t)piece.data, 0x1000 + (uintptr_t)first * 2);
			next += count;
		}
		assert_int_equal(next, lr_view_count(&v));
	}
}

static uint16_t *read_back(const char *path, size_t n)
{
	uint16_t *b = malloc(n * 2 + 1);
	FILE *f = fopen(path, "rb");

	assert_non_null(b);
	assert_non_null(f);
	assert_int_equal(fread(b, 2, n + 1, f), n);
	fclose(f);
	return b;
}

/* An encoded file holds what encoding in memory gives, whatever the view, kernel and workers. */
static void output_files_hold_the_encoding(void **state)
{
	int64_t tm[5] = { 3, 2, 300, 8, 64 }, n = 3 * 2 * 300 * 8 * 64, big[1] = { 1000003 };
	int swap23[5] = { 0, 1, 3, 2, 4 }, nk, i, t, v;
	const struct lr_dlf16_kernel *ks[8];
	uint16_t *in = malloc((size_t)big[0] * 2), *want = malloc((size_t)big[0] * 2);
	char *dir = tmpdir_new(), *path = NULL;
	struct lr_view views[3];

	(void)state;
	assert_non_null(in);
	assert_non_null(want);
	assert_true(n < big[0]);
	assert_true(asprintf(&path, "%s/out.raw", dir) > 0);
	lr_bf16_synthetic(in, big[0], 7, 1);
	nk = kernels(ks);
	assert_int_equal(lr_view_init(&views[0], in, 1, big), 0);
	assert_int_equal(lr_view_init(&views[1], in, 5, tm), 0);
	assert_int_equal(lr_view_permute(&views[1], &views[1], swap23), 0);
	views[2] = views[0]; /* reversed */
	views[2].data = in + big[0] - 1;
	views[2].stride[0] = -1;
	for (v = 0; v < 3; v++) {
		size_t count = (size_t)lr_view_count(&views[v]);

		assert_true(v == 1 ? count == (size_t)n : count == (size_t)big[0]);
		reference_encode(want, &views[v], LR_DLF16_NINF);
		for (i = 0; i < nk; i++)
			for (t = 1; t <= 3; t++) {
				struct lr_output o = LR_OUTPUT_INIT;
				uint16_t *got;

				assert_int_equal(lr_output_create(&o, path, 0, views[v].rank, views[v].shape, 2), 0);
				assert_int_equal(lr_output_encode(&o, &views[v], ks[i], LR_DLF16_NINF, t), 0);
				assert_int_equal(lr_output_commit(&o), 0);
				got = read_back(path, count);
				if (memcmp(got, want, count * 2))
					fail_msg("view %d, kernel %s, %d workers: the file differs", v, ks[i]->name, t);
				free(got);
			}
	}
	free(path);
	tmpdir_remove(dir);
	free(in);
	free(want);
}

/* Decoding to a file gives what the decoder gives in memory, FP32 and BF16. */
static void output_files_hold_the_decoding(void **state)
{
	int64_t shape[2] = { 5, 65536 }, n = 5 * 65536, i;
	uint16_t *codes = malloc((size_t)n * 2), *bf = malloc((size_t)n * 2), *got16;
	uint32_t *f32 = malloc((size_t)n * 4);
	char *dir = tmpdir_new(), *path = NULL;
	struct lr_view v;
	int elem;

	(void)state;
	assert_true(asprintf(&path, "%s/out.raw", dir) > 0);
	for (i = 0; i < n; i++)
		codes[i] = (uint16_t)(i * 7 + i / 65536);
	lr_dlf16_decode_f32(f32, codes, (size_t)n);
	lr_dlf16_decode_bf16(bf, codes, (size_t)n);
	assert_int_equal(lr_view_init(&v, codes, 2, shape), 0);
	for (elem = 2; elem <= 4; elem += 2) {
		struct lr_output o = LR_OUTPUT_INIT;

		assert_int_equal(lr_output_create(&o, path, 0, 2, shape, elem), 0);
		assert_int_equal(lr_output_decode(&o, &v, 2), 0);
		assert_int_equal(lr_output_commit(&o), 0);
		got16 = read_back(path, (size_t)n * (size_t)elem / 2);
		assert_memory_equal(got16, elem == 4 ? (void *)f32 : (void *)bf, (size_t)n * (size_t)elem);
		free(got16);
	}
	free(codes);
	free(bf);
	free(f32);
	free(path);
	tmpdir_remove(dir);
}

/* A file too large to write (here: over RLIMIT_FSIZE) is an error, and nothing is left behind. */
static void an_output_that_cannot_be_written_leaves_nothing(void **state)
{
	int64_t shape[1] = { 4 << 20 };
	uint16_t *in = calloc((size_t)shape[0], 2);
	char *dir = tmpdir_new(), *path = NULL;
	struct lr_output o = LR_OUTPUT_INIT;
	struct rlimit old, small = { 1 << 20, 0 };
	struct lr_view v;
	int rc;

	(void)state;
	assert_true(asprintf(&path, "%s/out.raw", dir) > 0);
	assert_int_equal(lr_view_init(&v, in, 1, shape), 0);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small.rlim_max = old.rlim_max;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	rc = lr_output_create(&o, path, 0, 1, shape, 2);
	if (!rc) /* a file system without fallocate fails at the writes instead */
		rc = lr_output_encode(&o, &v, lr_dlf16_auto(), LR_DLF16_SATURATE, 2);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_int_equal(rc, LR_EIO);
	assert_non_null(strstr(lr_error_msg(), "out.raw"));
	lr_output_abort(&o);
	assert_int_equal(rmdir(dir), 0); /* empty: no output, no temporary */
	assert_int_equal(mkdir(dir, 0700), 0);
	free(in);
	free(path);
	tmpdir_remove(dir);
}

/* Big enough to take the non-temporal path, on several threads. */
static void large_threaded_encode_equals_single_threaded(void **state)
{
	int64_t shape[5] = { 4, 2, 8, 1024, 128 }, tm[5] = { 4, 2, 1024, 8, 128 }, n = 4 * 2 * 8 * 1024 * 128;
	int swap23[5] = { 0, 1, 3, 2, 4 }, t;
	uint16_t *in = malloc((size_t)n * 2), *one = malloc((size_t)n * 2), *many = malloc((size_t)n * 2);
	struct lr_view s, d1, dn, p;

	(void)state;
	assert_true((uint64_t)n * 2 >= LR_STREAM_MIN_BYTES);
	lr_bf16_synthetic(in, n, 4, 1);
	assert_int_equal(lr_view_init(&s, in, 5, tm), 0);
	assert_int_equal(lr_view_permute(&p, &s, swap23), 0);
	assert_int_equal(lr_view_init(&d1, one, 5, shape), 0);
	assert_int_equal(lr_view_init(&dn, many, 5, shape), 0);
	assert_int_equal(lr_encode_view(&d1, &p, lr_dlf16_auto(), LR_DLF16_SATURATE, 1), 0);
	reference_encode(many, &p, LR_DLF16_SATURATE);
	assert_memory_equal(one, many, (size_t)n * 2);
	for (t = 2; t <= 7; t++) {
		memset(many, 0, (size_t)n * 2);
		assert_int_equal(lr_encode_view(&dn, &p, lr_dlf16_auto(), LR_DLF16_SATURATE, t), 0);
		assert_memory_equal(one, many, (size_t)n * 2);
	}
	free(in);
	free(one);
	free(many);
}

/*
 * A contiguous view merges into one row; threads then take slices of it (it
 * once ran on one thread whatever --threads said). Odd lengths, streaming
 * sizes and lengths shorter than a slice per thread all give the bytes one
 * thread gives.
 */
static void contiguous_encode_splits_its_row_across_threads(void **state)
{
	static const int64_t lengths[] = { 8 * 1048576 + 17, 1000, 33, 1 };
	size_t i;
	int t;

	(void)state;
	for (i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
		int64_t n = lengths[i];
		uint16_t *in = malloc((size_t)n * 2), *one = malloc((size_t)n * 2), *many = malloc((size_t)n * 2);
		struct lr_view s, d1, dn;

		assert_non_null(in);
		assert_non_null(one);
		assert_non_null(many);
		lr_bf16_synthetic(in, n, 9, 1);
		assert_int_equal(lr_view_init(&s, in, 1, &n), 0);
		assert_int_equal(lr_view_init(&d1, one, 1, &n), 0);
		assert_int_equal(lr_view_init(&dn, many, 1, &n), 0);
		assert_int_equal(lr_encode_view(&d1, &s, lr_dlf16_auto(), LR_DLF16_SATURATE, 1), 0);
		for (t = 2; t <= 7; t++) {
			memset(many, 0, (size_t)n * 2);
			assert_int_equal(lr_encode_view(&dn, &s, lr_dlf16_auto(), LR_DLF16_SATURATE, t), 0);
			assert_memory_equal(one, many, (size_t)n * 2);
		}
		free(in);
		free(one);
		free(many);
	}
}

static void bad_views_are_refused(void **state)
{
	int64_t shape[2] = { 4, 4 }, other[2] = { 4, 5 };
	uint16_t buf[64];
	struct lr_view s, d;
	int bad_axes[2] = { 0, 0 };

	(void)state;
	assert_int_equal(lr_view_init(&s, buf, 2, shape), 0);
	assert_int_equal(lr_view_init(&d, buf + 8, 2, shape), 0);
	assert_int_equal(lr_encode_view(&d, &s, lr_dlf16_auto(), LR_DLF16_SATURATE, 1), LR_EINVAL);
	assert_non_null(strstr(lr_error_msg(), "overlaps"));
	assert_int_equal(lr_view_init(&d, buf + 16, 2, shape), 0);
	assert_int_equal(lr_encode_view(&d, &s, lr_dlf16_auto(), LR_DLF16_SATURATE, 1), 0);
	assert_int_equal(lr_view_init(&d, buf + 32, 2, other), 0);
	assert_int_equal(lr_encode_view(&d, &s, lr_dlf16_auto(), LR_DLF16_SATURATE, 1), LR_EINVAL);
	assert_non_null(strstr(lr_error_msg(), "differ in dimension 1"));
	assert_int_equal(lr_view_init(&d, (char *)(buf + 32) + 1, 2, shape), 0);
	assert_int_equal(lr_encode_view(&d, &s, lr_dlf16_auto(), LR_DLF16_SATURATE, 1), LR_EINVAL);
	assert_int_equal(lr_view_permute(&d, &s, bad_axes), LR_EINVAL);
	assert_int_equal(lr_view_init(&d, buf, 9, shape), LR_EINVAL);
}

/*
 * Synthetic data is the same however many threads make it: each part starts
 * splitmix64 where the sequence is. The reference is made on one CPU, then
 * the same call on every CPU the test may use (two parts or more for 5M
 * elements on a machine with two CPUs) must give the same bytes.
 */
static void synthetic_data_does_not_depend_on_threads(void **state)
{
	const int64_t n = 5 * 1048576 + 7;
	uint16_t *one = malloc((size_t)n * 2), *all = malloc((size_t)n * 2);
	char hex[LR_SHA256_HEX];
	cpu_set_t saved, single;

	(void)state;
	assert_non_null(one);
	assert_non_null(all);
	assert_int_equal(sched_getaffinity(0, sizeof saved, &saved), 0);
	CPU_ZERO(&single);
	CPU_SET(sched_getcpu(), &single);
	assert_int_equal(sched_setaffinity(0, sizeof single, &single), 0);
	lr_bf16_synthetic(one, n, 42, 1);
	assert_int_equal(sched_setaffinity(0, sizeof saved, &saved), 0);
	lr_bf16_synthetic(all, n, 42, 1);
	assert_memory_equal(one, all, (size_t)n * 2);
	/* and it is the sequence labrun made before it used threads: a seed means the same data */
	assert_int_equal(lr_sha256_buf(all, (size_t)n * 2, hex), 0);
	assert_string_equal(hex, "701824d3a242dfbcc8a535664275628c446a03c92acd1d8e4cc2f9684031b98f");
	free(one);
	free(all);
}

/* The documented sequence, element by element: what any fill of lr_bf16_synthetic must give. */
static uint16_t reference_element(uint64_t seed, int64_t i, int specials)
{
	static const uint16_t special[] = { 0x0000, 0x8000, 0x0001, 0x8080, 0x3000, 0x3001,
					    0x5000, 0xd000, 0x7f80, 0xff80, 0x7fc0, 0x7f7f };
	uint64_t z = seed + (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull;
	unsigned pick, e;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	pick = (unsigned)(z & 0x3ff);
	if (pick == 0 && specials)
		return special[(z >> 10) % 12];
	e = (pick < 16 ? 129 : 119) + (unsigned)((z >> 20) % 10);
	return (uint16_t)((unsigned)(z >> 63) << 15 | e << 7 | ((unsigned)(z >> 40) & 0x7f));
}

/* Whatever loop fills it (AVX-512 eight at a time, or scalar), both with and without specials. */
static void synthetic_data_matches_the_reference_element_by_element(void **state)
{
	const int64_t n = 1000003;
	uint16_t *v = malloc((size_t)n * 2);
	int64_t i;
	int sp;

	(void)state;
	assert_non_null(v);
	for (sp = 0; sp < 2; sp++) {
		lr_bf16_synthetic(v, n, 7 + (uint64_t)sp, sp);
		for (i = 0; i < n; i++)
			if (v[i] != reference_element(7 + (uint64_t)sp, i, sp))
				fail_msg("specials %d: element %lld is %04x, the reference %04x", sp, (long long)i,
					 v[i], reference_element(7 + (uint64_t)sp, i, sp));
	}
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(negative_strides_match_the_reference),
		cmocka_unit_test(transposed_and_5d_views_match_the_reference),
		cmocka_unit_test(empty_arrays_are_fine_and_write_nothing),
		cmocka_unit_test(every_length_and_alignment_is_exact),
		cmocka_unit_test(read_only_mapped_input_is_untouched),
		cmocka_unit_test(large_threaded_encode_equals_single_threaded),
		cmocka_unit_test(synthetic_data_does_not_depend_on_threads),
		cmocka_unit_test(synthetic_data_matches_the_reference_element_by_element),
		cmocka_unit_test(contiguous_encode_splits_its_row_across_threads),
		cmocka_unit_test(pieces_tile_the_view_in_order),
		cmocka_unit_test(output_files_hold_the_encoding),
		cmocka_unit_test(output_files_hold_the_decoding),
		cmocka_unit_test(an_output_that_cannot_be_written_leaves_nothing),
		cmocka_unit_test(bad_views_are_refused),
	};

	return cmocka_run_group_tests_name("layout", tests, NULL, NULL);
}
