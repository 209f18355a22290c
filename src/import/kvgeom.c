#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "import/kvgeom.h"

const char *const lr_kvgeom_presets[] = { "qwen3-0.6b", "qwen3-4b", "gemma3-1b", "koni-8b", NULL };

int lr_kvgeom_preset(struct lr_kvgeom *g, const char *name)
{
	static const struct {
		const char *name;
		int layers, kv_heads, head_dim;
		int64_t max_positions;
		int window;
	} p[] = {
		{ "qwen3-0.6b", 28, 8, 128, 40960, 0 },
		{ "qwen3-4b", 36, 8, 128, 40960, 0 },
		{ "gemma3-1b", 26, 1, 256, 32768, 512 },
		{ "koni-8b", 32, 8, 128, 131072, 0 },
	};
	size_t i;
	int l;

	for (i = 0; i < sizeof p / sizeof p[0]; i++) {
		if (strcmp(name, p[i].name))
			continue;
		memset(g, 0, sizeof *g);
		snprintf(g->model, sizeof g->model, "%s", p[i].name);
		g->layers = p[i].layers;
		g->kv_heads = p[i].kv_heads;
		g->head_dim = p[i].head_dim;
		g->max_positions = p[i].max_positions;
		g->window = p[i].window;
		/* Gemma3: 5 local layers to 1 global; the global ones are 5, 11, 17, 23. */
		for (l = 0; g->window && l < g->layers; l++)
			g->sliding[l] = (l % 6) != 5;
		return 0;
	}
	lr_error_set(LR_EINVAL, "unknown model '%s'", name);
	lr_error_hint(
		"presets: qwen3-0.6b, qwen3-4b, gemma3-1b, koni-8b; or --model custom with --layers, --kv-heads, --head-dim");
	return LR_EINVAL;
}

int lr_kvgeom_padded_dim(const struct lr_kvgeom *g)
{
	return (g->head_dim + 63) / 64 * 64;
}

void lr_kvgeom_tensor(const struct lr_kvgeom *g, int layer, struct lr_kvtensor *t)
{
	uint64_t row = (uint64_t)g->kv_heads * (uint64_t)lr_kvgeom_padded_dim(g) * 2;

	if (g->window && g->sliding[layer]) {
		t->blocks = 1;
		t->rows = g->window;
		t->ntokens = g->tokens < g->window ? g->tokens : g->window;
		t->first_token = g->tokens - t->ntokens;
		t->used_blocks = 1;
	} else {
		t->rows = g->block_size;
		t->blocks = (g->capacity + g->block_size - 1) / g->block_size;
		t->first_token = 0;
		t->ntokens = g->tokens;
		t->used_blocks = (g->tokens + g->block_size - 1) / g->block_size;
	}
	t->bytes = (uint64_t)t->blocks * (uint64_t)t->rows * row;
	t->span_bytes = (uint64_t)t->used_blocks * (uint64_t)t->rows * row;
}

uint64_t lr_kvgeom_export_bytes(const struct lr_kvgeom *g)
{
	return (uint64_t)g->layers * 2 * (uint64_t)g->kv_heads * (uint64_t)g->tokens * (uint64_t)g->head_dim * 2;
}

static int mismatch(const char *field, long long compiled, long long got, const char *model)
{
	lr_error_set(LR_EINVAL, "cannot import: the export has %s %lld, the compiled model '%s' has %lld", field, got,
		     model, compiled);
	lr_error_hint("export with the geometry the decode model was compiled for, or compile for this one");
	return LR_EINVAL;
}

int lr_kvgeom_check(const struct lr_kvgeom *c, const struct lr_kvgeom *e)
{
	if (e->layers != c->layers)
		return mismatch("layers", c->layers, e->layers, c->model);
	if (e->kv_heads != c->kv_heads)
		return mismatch("kv_heads", c->kv_heads, e->kv_heads, c->model);
	if (e->head_dim != c->head_dim)
		return mismatch("head_dim", c->head_dim, e->head_dim, c->model);
	if (e->tokens > c->capacity) {
		lr_error_set(
			LR_EINVAL,
			"cannot import: the export has %lld tokens, beyond the capacity %lld of the compiled model '%s'",
			(long long)e->tokens, (long long)c->capacity, c->model);
		lr_error_hint("import fewer tokens, or compile with a larger max_seq_len (--capacity)");
		return LR_EINVAL;
	}
	if (e->tokens < 1) {
		lr_error_set(LR_EINVAL, "cannot import an export with no tokens");
		return LR_EINVAL;
	}
	return 0;
}
