#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "encode/synth.h"
#include "base/bigmem.h"
#include "import/kvsrc.h"

/* Present memory of shape 'mem' ([L,2,H,T,D] or [L,2,T,H,D]) as [L,2,H,T,D]. */
static int make_view(struct lr_kvsrc *s, void *data, const int64_t *mem, int token_major, const char *what)
{
	static const int swap23[5] = { 0, 1, 3, 2, 4 };
	struct lr_view v;
	int rc;

	if (mem[1] != 2) {
		lr_error_set(LR_EDATA, "cannot use %s as a KV export: axis 1 has size %lld, not 2 (K and V)", what,
			     (long long)mem[1]);
		lr_error_hint(
			"exports are [layers, 2, kv_heads, tokens, head_dim], or [layers, 2, tokens, kv_heads, head_dim] with --export token");
		return LR_EDATA;
	}
	if ((rc = lr_view_init(&v, data, 5, mem)))
		return rc;
	s->token_major = token_major;
	if (token_major)
		return lr_view_permute(&s->view, &v, swap23);
	s->view = v;
	return 0;
}

int lr_kvsrc_synthetic(struct lr_kvsrc *s, const struct lr_kvgeom *g, int token_major, uint64_t seed, int specials)
{
	int64_t mem[5] = { g->layers, 2, token_major ? g->tokens : g->kv_heads, token_major ? g->kv_heads : g->tokens,
			   g->head_dim };
	uint64_t n = (uint64_t)g->layers * 2 * (uint64_t)g->kv_heads * (uint64_t)g->tokens * (uint64_t)g->head_dim;

	memset(s, 0, sizeof *s);
	s->owned_bytes = n ? n * 2 : 2;
	s->owned = lr_big_alloc(s->owned_bytes);
	if (!s->owned)
		return lr_error_set(LR_ENOMEM, "cannot allocate %llu bytes for the synthetic export",
				    (unsigned long long)n * 2);
	lr_bf16_synthetic(s->owned, (int64_t)n, seed, specials);
	snprintf(s->what, sizeof s->what, "synthetic, seed %llu%s", (unsigned long long)seed,
		 specials ? ", with specials" : "");
	return make_view(s, s->owned, mem, token_major, "the synthetic export");
}

int lr_kvsrc_npy(struct lr_kvsrc *s, const char *path, int token_major)
{
	struct lr_npy_header h;
	int rc;

	memset(s, 0, sizeof *s);
	if ((rc = lr_map_file(&s->map, path)))
		return rc;
	if ((rc = lr_npy_parse(&h, s->map.addr, s->map.len, path)))
		goto fail;
	if (h.kind == LR_NPY_F32 || h.rank != 5 || h.fortran) {
		rc = lr_error_set(LR_EINVAL,
				  "cannot use '%s' as a KV export: it must be a C-order 5-D array of BF16 bits", path);
		lr_error_hint("expected [layers, 2, kv_heads, tokens, head_dim] ('<u2' or bfloat16)");
		goto fail;
	}
	snprintf(s->what, sizeof s->what, "npy");
	if ((rc = make_view(s, (char *)s->map.addr + h.data_offset, h.shape, token_major, path)))
		goto fail;
	return 0;
fail:
	lr_kvsrc_release(s);
	return rc;
}

static int st_bad(const char *path, const char *why)
{
	lr_error_set(LR_EDATA, "cannot read '%s' as safetensors: %s", path, why);
	lr_error_hint("expected an 8-byte header length, a JSON header and the tensor data (Hugging Face safetensors)");
	return LR_EDATA;
}

/* The header's entry for 'tensor', or for its only tensor when NULL; *key its name (borrowed from root). */
static int st_tensor(json_t *root, const char *path, const char *tensor, const char **key, json_t **t)
{
	char why[256];
	const char *k;
	json_t *v;
	int found = 0;

	*key = tensor;
	*t = tensor ? json_object_get(root, tensor) : NULL;
	if (!tensor)
		json_object_foreach(root, k, v) {
			if (!strcmp(k, "__metadata__"))
				continue;
			if (found++) {
				st_bad(path, "it holds several tensors");
				lr_error_hint("name one with --tensor");
				return LR_EINVAL;
			}
			*key = k;
			*t = v;
		}
	if (!*t || !json_is_object(*t)) {
		snprintf(why, sizeof why, "no tensor named '%s'", tensor ? tensor : "(any)");
		return st_bad(path, why) && tensor && !*t ? LR_EINVAL
							  : LR_EDATA; /* --tensor named one it lacks: usage */
	}
	return 0;
}

int lr_kvsrc_safetensors(struct lr_kvsrc *s, const char *path, const char *tensor, int token_major)
{
	const unsigned char *b;
	json_t *root = NULL, *t = NULL, *shape, *offs;
	json_error_t jerr;
	const char *key = NULL, *dtype;
	int64_t mem[5];
	uint64_t hlen = 0, begin, end, count = 1;
	size_t i;
	int rc = 0;
	char why[256];

	memset(s, 0, sizeof *s);
	if ((rc = lr_map_file(&s->map, path)))
		return rc;
	b = s->map.addr;
	if (s->map.len < 8) {
		rc = st_bad(path, "shorter than its 8-byte header length");
		goto out;
	}
	for (i = 0; i < 8; i++)
		hlen |= (uint64_t)b[i] << (8 * i);
	if (hlen > s->map.len - 8) {
		rc = st_bad(path, "the header is longer than the file");
		goto out;
	}
	root = json_loadb((const char *)b + 8, (size_t)hlen, 0, &jerr);
	if (!root || !json_is_object(root)) {
		snprintf(why, sizeof why, "the header is not a JSON object (%s)", root ? "not an object" : jerr.text);
		rc = st_bad(path, why);
		goto out;
	}
	if ((rc = st_tensor(root, path, tensor, &key, &t)))
		goto out;
	dtype = json_string_value(json_object_get(t, "dtype"));
	shape = json_object_get(t, "shape");
	offs = json_object_get(t, "data_offsets");
	if (!dtype || strcmp(dtype, "BF16")) {
		snprintf(why, sizeof why, "tensor '%s' has dtype '%s', not BF16", key, dtype ? dtype : "?");
		rc = st_bad(path, why);
		goto out;
	}
	if (!json_is_array(shape) || json_array_size(shape) != 5 || !json_is_array(offs) ||
	    json_array_size(offs) != 2) {
		snprintf(why, sizeof why, "tensor '%s' is not 5-D with two data offsets", key);
		rc = st_bad(path, why);
		goto out;
	}
	for (i = 0; i < 5; i++) {
		json_int_t d = json_integer_value(json_array_get(shape, i));

		if (!json_is_integer(json_array_get(shape, i)) || d < 0 ||
		    (d && count > UINT64_MAX / 4 / (uint64_t)d)) {
			rc = st_bad(path, "bad shape");
			goto out;
		}
		mem[i] = d;
		count *= (uint64_t)d;
	}
	begin = (uint64_t)json_integer_value(json_array_get(offs, 0));
	end = (uint64_t)json_integer_value(json_array_get(offs, 1));
	if (begin > end || end > s->map.len - 8 - hlen || end - begin != count * 2) {
		snprintf(why, sizeof why, "tensor '%s' offsets [%llu, %llu) do not match its shape or the file", key,
			 (unsigned long long)begin, (unsigned long long)end);
		rc = st_bad(path, why);
		goto out;
	}
	if ((8 + hlen + begin) % 2) {
		rc = st_bad(path, "the tensor data is not 2-byte aligned");
		goto out;
	}
	snprintf(s->what, sizeof s->what, "safetensors '%.40s'", key);
	rc = make_view(s, (char *)s->map.addr + 8 + hlen + begin, mem, token_major, path);
out:
	json_decref(root);
	if (rc)
		lr_kvsrc_release(s);
	return rc;
}

void lr_kvsrc_geometry(const struct lr_kvsrc *s, struct lr_kvgeom *g)
{
	g->layers = (int)s->view.shape[0];
	g->kv_heads = (int)s->view.shape[2];
	g->tokens = s->view.shape[3];
	g->head_dim = (int)s->view.shape[4];
}

void lr_kvsrc_release(struct lr_kvsrc *s)
{
	lr_big_free(s->owned, s->owned_bytes);
	lr_unmap(&s->map);
	memset(s, 0, sizeof *s);
}
