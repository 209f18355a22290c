#include "config.h"
#include "base/system.h"

#include "base/clock.h"
#include "base/error.h"
#include "base/model.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "encode/dlf16-oracle.h"
#include "encode/dlf16.h"
#include "encode/ktable.h"
#include "encode/layout.h"
#include "encode/npy.h"
#include "encode/output.h"

static const char encode_usage[] =
	"usage: labrun encode IN OUT [--kernel K] [--contract C] [--permute AXES] [--threads N]\n"
	"                            [--shape S]\n"
	"       labrun encode --verify [--kernel K]\n"
	"\n"
	"Encode BF16 bit patterns into DLFloat16 (docs/encoding.md). IN is a .npy file\n"
	"('<u2' holding BF16 bits, or bfloat16 as ml_dtypes writes it; versions 1-3) or, with\n"
	"--shape, a raw file of little-endian 16-bit elements. OUT is written as .npy ('<u2'\n"
	"holding DLF16 bits) when its name ends in .npy, else raw. The input is only read.\n";

static const char decode_usage[] =
	"usage: labrun decode IN OUT [--to f32|bf16] [--shape S]\n"
	"\n"
	"Decode DLFloat16 codes (a '<u2' .npy or, with --shape, a raw file) to FP32 ('<f4')\n"
	"or to BF16 bits ('<u2', FP32 truncated), for readback checks. NINF becomes NaN.\n";

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static void print_shape(const struct lr_view *v)
{
	int i;

	putchar('[');
	for (i = 0; i < v->rank; i++)
		printf("%s%lld", i ? "," : "", (long long)v->shape[i]);
	putchar(']');
}

static int verify(const char *only)
{
	int i, c, failed = 0, checked = 0;

	for (i = 0; lr_dlf16_kernels[i]; i++) {
		const struct lr_dlf16_kernel *k = lr_dlf16_kernels[i];

		if (only && strcmp(only, "auto") ? strcmp(k->name, only) : (only && k != lr_dlf16_auto()))
			continue;
		if (lr_dlf16_unavailable(k)) {
			lr_render_kernel_unavailable(stdout, k);
			continue;
		}
		for (c = 0; c < 2; c++) {
			uint16_t first = 0;
			uint32_t bad = lr_dlf16_verify(k, (enum lr_dlf16_contract)c, &first);

			checked++;
			failed += bad != 0;
			lr_render_kernel_check(stdout, k, c, bad, first);
		}
	}
	if (!checked) {
		lr_error_set(LR_EINVAL, "no kernel named '%s' is available to verify", only);
		lr_error_hint("kernels: " LR_DLF16_KERNEL_NAMES);
		return cmd_fail(LR_EINVAL);
	}
	return failed ? LR_EXIT_FAIL : LR_EXIT_OK;
}

int cmd_encode(const struct lr_global *g, int argc, char **argv)
{
	const char *kname = NULL, *permute = NULL, *shape = NULL;
	const struct lr_dlf16_kernel *k = NULL;
	struct lr_mapped in = { NULL, 0 };
	struct lr_output out = LR_OUTPUT_INIT;
	struct lr_view vin;
	enum lr_npy_kind kind;
	int rc, contract = LR_DLF16_SATURATE, threads = 1, do_verify = 0, first;
	int axes[LR_VIEW_MAXRANK];
	double t0, ms;
	const struct cmd_opt opts[] = {
		CMD_STRING(
			0, "kernel", &kname, "K",
			"lookup, scalar, avx2, avx512, avx2-pages, avx512-pages or\nauto (default: the one 'bench encoder' measured fastest on this CPU\nat this size)"),
		CMD_CHOICE(
			0, "contract", &contract, cmd_contract_choices, "C",
			"saturate (default: finite overflow to the largest finite code) or\nninf (finite overflow to NaN/Inf)"),
		CMD_STRING(
			0, "permute", &permute, "AXES",
			"encode the input seen with its axes permuted (NumPy transpose), in\none pass: e.g. 0,1,3,2,4 turns [L,2,T,H,D] into [L,2,H,T,D]"),
		CMD_INT(0, "threads", &threads, 1, 64, "N",
			"N workers encoding and writing chunks in turn (same output)"),
		CMD_STRING(0, "shape", &shape, "S", "the shape of a raw input file (\"L,2,H,T,D\")"),
		CMD_BOOL(
			0, "verify", &do_verify,
			"check every available kernel, both contracts, on all 65,536 BF16\npatterns against an independent numeric oracle"),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "encode", .usage = encode_usage, .max = 2, .operands = "IN and OUT" };

	(void)g;
	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		return rc;
	if (do_verify) {
		if (first < argc)
			return cmd_usage_error("encode", "--verify takes no files");
		return verify(kname);
	}
	if (first + 2 != argc)
		return cmd_usage_error("encode", "'labrun encode' takes IN and OUT");
	if (!kname)
		kname = "auto";

	if (strcmp(kname, "auto") && (rc = lr_dlf16_kernel_find(&k, kname))) /* a bad name before any file is read */
		return cmd_fail(rc);
	if ((rc = lr_input_open(&in, &vin, argv[first], shape, &kind)))
		return cmd_fail(rc);
	if (!k && (rc = lr_dlf16_kernel_for(&k, kname, (uint64_t)lr_view_count(&vin) * 2)))
		goto out;
	if (kind == LR_NPY_F32) {
		rc = lr_error_set(LR_EINVAL, "cannot encode '%s': it holds FP32 values, not BF16 bits", argv[first]);
		lr_error_hint("convert it to BF16 first (e.g. with ml_dtypes), or pass the BF16 bits as '<u2'");
		goto out;
	}
	if (permute) {
		if ((rc = lr_axes_parse(axes, vin.rank, permute)) || (rc = lr_view_permute(&vin, &vin, axes)))
			goto out;
	}
	if ((rc = lr_output_create(&out, argv[first + 1], ends_with(argv[first + 1], ".npy"), vin.rank, vin.shape, 2)))
		goto out;
	t0 = (lr_monotonic_s() * 1e3);
	if ((rc = lr_output_encode(&out, &vin, k, (enum lr_dlf16_contract)contract, threads)))
		goto out;
	ms = (lr_monotonic_s() * 1e3) - t0;
	if ((rc = lr_output_commit(&out)))
		goto out;
	printf("encoded %lld elements ", (long long)lr_view_count(&vin));
	print_shape(&vin);
	printf(" with %s (%s, %d thread%s) in %.3f ms -> %s\n", k->name, lr_dlf16_contract_name(contract), threads,
	       threads == 1 ? "" : "s", ms, argv[first + 1]);
out:
	lr_output_abort(&out);
	lr_unmap(&in);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}

int cmd_decode(const struct lr_global *g, int argc, char **argv)
{
	const char *shape = NULL;
	struct lr_mapped in = { NULL, 0 };
	struct lr_output out = LR_OUTPUT_INIT;
	struct lr_view vin;
	enum lr_npy_kind kind;
	int rc, to = 0, first;
	int64_t n;
	static const char *const formats[] = { "f32", "bf16", NULL };
	const struct cmd_opt opts[] = {
		CMD_CHOICE(0, "to", &to, formats, "f32|bf16",
			   "the output: FP32 ('<f4', the default) or BF16 bits ('<u2')"),
		CMD_STRING(0, "shape", &shape, "S", "the shape of a raw input file (\"L,2,H,T,D\")"),
		CMD_END,
	};
	const struct cmd_parse p = {
		.cmd = "decode", .usage = decode_usage, .min = 2, .max = 2, .operands = "IN and OUT"
	};
	int f32;

	(void)g;
	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		return rc;
	f32 = to == 0;

	if ((rc = lr_input_open(&in, &vin, argv[first], shape, &kind)))
		return cmd_fail(rc);
	if (kind != LR_NPY_U16) {
		rc = lr_error_set(LR_EINVAL, "cannot decode '%s': it does not hold 16-bit DLF16 codes ('<u2')",
				  argv[first]);
		goto out;
	}
	n = lr_view_count(&vin);
	if ((rc = lr_output_create(&out, argv[first + 1], ends_with(argv[first + 1], ".npy"), vin.rank, vin.shape,
				   f32 ? 4 : 2)) ||
	    (rc = lr_output_decode(&out, &vin, 1)))
		goto out;
	if ((rc = lr_output_commit(&out)))
		goto out;
	printf("decoded %lld elements to %s -> %s\n", (long long)n, f32 ? "f32" : "bf16", argv[first + 1]);
out:
	lr_output_abort(&out);
	lr_unmap(&in);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
