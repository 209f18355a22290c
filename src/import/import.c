#include "config.h"
#include "base/system.h"

#include <pthread.h>

#include "base/clock.h"
#include "base/bigmem.h"
#include "base/error.h"
#include "base/model.h"
#include "import/import.h"

static const char *const mode_names[] = { [LR_IMPORT_WHOLE] = "whole", [LR_IMPORT_STREAM] = "stream" };
static const char *const path_names[] = { [LR_PATH_STRIDED] = "strided", [LR_PATH_COPY] = "copy" };
const struct lr_enum_names lr_import_modes = LR_ENUM_NAMES("import mode", mode_names);
const struct lr_enum_names lr_import_paths = LR_ENUM_NAMES("layout", path_names);

const char *lr_import_mode_name(enum lr_import_mode m)
{
	return lr_enum_name(&lr_import_modes, (int)m);
}

const char *lr_import_path_name(enum lr_import_path p)
{
	return lr_enum_name(&lr_import_paths, (int)p);
}

/*
 * Encode the stored tokens of one [H, T, D] view into a device tensor
 * [blocks, H, rows, Dp]: whole blocks as one 4-D view, the last partial
 * block as a 3-D one.
 */
static int encode_tensor(const struct lr_import_opts *o, const struct lr_kvtensor *t, const struct lr_view *hv,
			 uint16_t *dst, int stores)
{
	const int64_t H = hv->shape[0], D = hv->shape[2], Dp = lr_kvgeom_padded_dim(o->g), R = t->rows;
	int64_t full = t->ntokens / R, rem = t->ntokens % R;
	const uint16_t *first = (const uint16_t *)hv->data + t->first_token * hv->stride[1];
	struct lr_view s, d;
	int rc;

	if (full) {
		memset(&s, 0, sizeof s);
		memset(&d, 0, sizeof d);
		s.data = (void *)first;
		d.data = dst;
		s.rank = d.rank = 4;
		s.shape[0] = d.shape[0] = full;
		s.shape[1] = d.shape[1] = H;
		s.shape[2] = d.shape[2] = R;
		s.shape[3] = d.shape[3] = D;
		s.stride[0] = R * hv->stride[1];
		s.stride[1] = hv->stride[0];
		s.stride[2] = hv->stride[1];
		s.stride[3] = hv->stride[2];
		d.stride[0] = H * R * Dp;
		d.stride[1] = R * Dp;
		d.stride[2] = Dp;
		d.stride[3] = 1;
		if ((rc = lr_encode_view_stores(&d, &s, o->k, o->contract, o->threads, stores)))
			return rc;
	}
	if (rem) {
		memset(&s, 0, sizeof s);
		memset(&d, 0, sizeof d);
		s.data = (void *)(first + full * R * hv->stride[1]);
		d.data = dst + full * H * R * Dp;
		s.rank = d.rank = 3;
		s.shape[0] = d.shape[0] = H;
		s.shape[1] = d.shape[1] = rem;
		s.shape[2] = d.shape[2] = D;
		s.stride[0] = hv->stride[0];
		s.stride[1] = hv->stride[1];
		s.stride[2] = hv->stride[2];
		d.stride[0] = R * Dp;
		d.stride[1] = Dp;
		d.stride[2] = 1;
		if ((rc = lr_encode_view_stores(&d, &s, o->k, o->contract, o->threads, stores)))
			return rc;
	}
	return 0;
}

/* ---- the pipeline ----------------------------------------------------------- */

struct slot {
	uint16_t *buf; /* K span, then V span */
	size_t bytes;  /* of buf (lr_big_alloc) */
	int layer;     /* the layer it holds, -1 when free */
	int kind;      /* layout it last held: 0 none, 1 full, 2 sliding */
};

/* What lr_import_staging keeps: the buffers and what they were made for. */
struct kept {
	struct slot *slots;
	int nslots;
	uint16_t *copy1, *copy2;
	struct lr_kvgeom g;
	enum lr_import_mode mode;
	enum lr_import_path path;
	int staging;
};

struct pipe {
	const struct lr_import_opts *o;
	const struct lr_backend_ops *ops;
	struct lr_lease *lease;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct slot *slots;
	int nslots;
	int *queue; /* slot indices ready to write, in layer order */
	int qhead, qtail;
	int produced;      /* layers encoded and queued */
	int producer_done; /* finished every layer */
	int producer_died; /* stopped without finishing (fault) */
	int stop;          /* cancel or error: everyone stops */
	int cancelled;
	int err; /* first error code */
	char errmsg[512];
	uint16_t *copy1, *copy2; /* copy path scratch: one layer each */
	double encode_s, write_s;
	int stores;           /* LR_STORES_*: how staging is written */
	int staging_complete; /* every buffer is allocated: they may be kept for the next import */
};

static void pipe_fail(struct pipe *p, int rc)
{
	pthread_mutex_lock(&p->mu);
	if (!p->err) {
		p->err = rc;
		snprintf(p->errmsg, sizeof p->errmsg, "%s", lr_error_msg());
	}
	p->stop = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

/* The source of layer l as [2, H, T, D], through the copies of the old path when asked. */
static int layer_source(struct pipe *p, int l, struct lr_view *out)
{
	const struct lr_view *src = p->o->src;
	static const int swap12[4] = { 0, 2, 1, 3 };
	struct lr_view v, c1, c1t, c2;
	int64_t hm[4], tm[4];
	int rc;

	memset(&v, 0, sizeof v);
	v.data = (uint16_t *)src->data + l * src->stride[0];
	v.rank = 4;
	memcpy(v.shape, src->shape + 1, 4 * sizeof *v.shape);
	memcpy(v.stride, src->stride + 1, 4 * sizeof *v.stride);
	if (p->o->path == LR_PATH_STRIDED) {
		*out = v;
		return 0;
	}
	/* copy path: a contiguous transposed copy [2,T,H,D], its reversal [2,H,T,D], then encode */
	hm[0] = tm[0] = 2;
	hm[1] = tm[2] = v.shape[1];
	hm[2] = tm[1] = v.shape[2];
	hm[3] = tm[3] = v.shape[3];
	if ((rc = lr_view_init(&c1, p->copy1, 4, tm)) ||
	    (rc = lr_view_permute(&c1t, &c1, swap12)) || /* [2,H,T,D] view of token-major memory */
	    (rc = lr_copy_view(&c1t, &v)) || (rc = lr_view_init(&c2, p->copy2, 4, hm)))
		return rc;
	if ((rc = lr_copy_view(&c2, &c1t)))
		return rc;
	*out = c2;
	return 0;
}

static int encode_layer(struct pipe *p, int l, struct slot *s)
{
	const struct lr_kvgeom *g = p->o->g;
	struct lr_kvtensor t;
	struct lr_view lv;
	int kind, kv, rc;

	lr_kvgeom_tensor(g, l, &t);
	kind = g->window && g->sliding[l] ? 2 : 1;
	if (s->kind && s->kind != kind)
		memset(s->buf, 0,
		       2 * t.span_bytes > 0 ? (size_t)(2 * t.span_bytes) : 0); /* stale rows of another layout */
	s->kind = kind;
	if ((rc = layer_source(p, l, &lv)))
		return rc;
	for (kv = 0; kv < 2; kv++) {
		struct lr_view hv;
		int i;

		/* [H, T, D] of K or V */
		memset(&hv, 0, sizeof hv);
		hv.data = (uint16_t *)lv.data + kv * lv.stride[0];
		hv.rank = 3;
		for (i = 0; i < 3; i++) {
			hv.shape[i] = lv.shape[i + 1];
			hv.stride[i] = lv.stride[i + 1];
		}
		if ((rc = encode_tensor(p->o, &t, &hv, s->buf + kv * (t.span_bytes / 2), p->stores)))
			return rc;
	}
	return 0;
}

/* Wait for a free slot (stream) or take the layer's own slot (whole). */
static int take_slot(struct pipe *p, int l)
{
	int i;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		if (p->stop) {
			pthread_mutex_unlock(&p->mu);
			return -1;
		}
		if (p->o->mode == LR_IMPORT_WHOLE) {
			i = l;
			break;
		}
		for (i = 0; i < p->nslots && p->slots[i].layer >= 0; i++)
			;
		if (i < p->nslots)
			break;
		pthread_cond_wait(&p->cv, &p->mu);
	}
	p->slots[i].layer = l;
	pthread_mutex_unlock(&p->mu);
	return i;
}

static void *producer(void *arg)
{
	struct pipe *p = arg;
	const struct lr_import_opts *o = p->o;
	int l, i, rc;
	double t;

	for (l = 0; l < o->g->layers; l++) {
		if (l == o->die_at) {
			/* fault: the producer dies here, holding whatever it holds */
			pthread_mutex_lock(&p->mu);
			p->producer_died = 1;
			pthread_cond_broadcast(&p->cv);
			pthread_mutex_unlock(&p->mu);
			pthread_exit(NULL);
		}
		if (l == o->cancel_at || (o->cancel && *o->cancel)) {
			pthread_mutex_lock(&p->mu);
			p->cancelled = 1;
			p->stop = 1;
			pthread_cond_broadcast(&p->cv);
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		if ((i = take_slot(p, l)) < 0)
			return NULL;
		t = lr_monotonic_s();
		rc = encode_layer(p, l, &p->slots[i]);
		p->encode_s += lr_monotonic_s() - t;
		if (rc) {
			pipe_fail(p, rc);
			return NULL;
		}
		pthread_mutex_lock(&p->mu);
		p->queue[p->qtail++] = i;
		p->produced++;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
	pthread_mutex_lock(&p->mu);
	p->producer_done = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static void *writer(void *arg)
{
	struct pipe *p = arg;
	const struct lr_import_opts *o = p->o;
	int written = 0, i, kv, rc;
	struct lr_kvtensor t;
	double t0;

	while (written < o->g->layers) {
		pthread_mutex_lock(&p->mu);
		/* whole mode writes only once everything is staged */
		while (!p->stop && !p->producer_died &&
		       (p->qhead == p->qtail || (o->mode == LR_IMPORT_WHOLE && !p->producer_done)))
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->stop || (p->producer_died && p->qhead == p->qtail)) {
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		i = p->queue[p->qhead++];
		pthread_mutex_unlock(&p->mu);
		lr_kvgeom_tensor(o->g, p->slots[i].layer, &t);
		for (kv = 0; kv < 2; kv++) {
			t0 = lr_monotonic_s();
			rc = p->ops->write(p->lease, 2 * p->slots[i].layer + kv, 0,
					   p->slots[i].buf + kv * (t.span_bytes / 2), t.span_bytes);
			p->write_s += lr_monotonic_s() - t0;
			if (rc) {
				lr_error_wrap("import layer %d %s", p->slots[i].layer, kv ? "V" : "K");
				pipe_fail(p, rc);
				return NULL;
			}
		}
		pthread_mutex_lock(&p->mu);
		if (o->mode == LR_IMPORT_STREAM)
			p->slots[i].layer = -1; /* the buffer is free again */
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		written++;
	}
	return NULL;
}

static void free_buffers(struct slot *slots, int nslots, uint16_t *copy1, uint16_t *copy2)
{
	int i;

	for (i = 0; slots && i < nslots; i++)
		lr_big_free(slots[i].buf, slots[i].bytes);
	free(slots);
	free(copy1);
	free(copy2);
}

void lr_import_staging_release(struct lr_import_staging *s)
{
	struct kept *k = s ? s->priv : NULL;

	if (!k)
		return;
	free_buffers(k->slots, k->nslots, k->copy1, k->copy2);
	free(k);
	s->priv = NULL;
}

/* Can the kept buffers serve this import? */
static int kept_fits(const struct kept *k, const struct lr_import_opts *o, int nslots)
{
	return k && k->nslots == nslots && k->mode == o->mode && k->path == o->path && k->staging == o->staging &&
	       !memcmp(&k->g, o->g, sizeof k->g);
}

static void pipe_free(struct pipe *p, int keep)
{
	struct lr_import_staging *s = p->o->keep;
	struct kept *k;
	int i;

	free(p->queue);
	if (keep && s && (k = s->priv ? s->priv : calloc(1, sizeof *k))) {
		if (k->slots != p->slots) {
			free_buffers(k->slots, k->nslots, k->copy1, k->copy2);
			k->slots = p->slots;
			k->nslots = p->nslots;
			k->copy1 = p->copy1;
			k->copy2 = p->copy2;
			k->g = *p->o->g;
			k->mode = p->o->mode;
			k->path = p->o->path;
			k->staging = p->o->staging;
		}
		for (i = 0; i < k->nslots; i++)
			k->slots[i].layer = -1;
		s->priv = k;
		return;
	}
	free_buffers(p->slots, p->nslots, p->copy1, p->copy2);
}

/*
 * Staging for every slot, and the copy path's scratch: kept from an earlier
 * import when it fits, else allocated and touched. *staged gets its size.
 */
static int stage(struct pipe *p, uint64_t max_span, uint64_t *staged)
{
	const struct lr_import_opts *o = p->o;
	const struct lr_kvgeom *g = o->g;
	struct lr_kvtensor t;
	int i;

	*staged = 0;
	if (o->keep && kept_fits(o->keep->priv, o, p->nslots)) {
		struct kept *k = o->keep->priv;

		p->slots = k->slots;
		p->copy1 = k->copy1;
		p->copy2 = k->copy2;
		for (i = 0; i < p->nslots; i++) {
			lr_kvgeom_tensor(g, o->mode == LR_IMPORT_WHOLE ? i : 0, &t);
			*staged += 2 * (o->mode == LR_IMPORT_WHOLE ? t.span_bytes : max_span);
		}
		p->staging_complete = 1;
		return 0;
	}
	p->slots = calloc((size_t)p->nslots, sizeof *p->slots);
	if (!p->slots)
		return lr_error_set(LR_ENOMEM, "out of memory");
	for (i = 0; i < p->nslots; i++) {
		uint64_t span = max_span;

		if (o->mode == LR_IMPORT_WHOLE) {
			lr_kvgeom_tensor(g, i, &t);
			span = t.span_bytes;
		}
		p->slots[i].layer = -1;
		p->slots[i].bytes = span ? (size_t)(2 * span) : 64;
		if (!(p->slots[i].buf = lr_big_alloc(p->slots[i].bytes)))
			return lr_error_set(LR_ENOMEM, "cannot allocate %llu bytes of staging",
					    (unsigned long long)(2 * span));
		/* zeros for padding and unused rows; resident now (one call, not a fault a page), so page
		 * faults stay out of the timed stages, as a serving process keeps its buffers */
		lr_big_populate(p->slots[i].buf, p->slots[i].bytes);
		*staged += 2 * span;
	}
	if (o->path == LR_PATH_COPY) {
		size_t layer = (size_t)(2 * g->kv_heads) * (size_t)g->tokens * (size_t)g->head_dim * 2;

		p->copy1 = malloc(layer ? layer : 2);
		p->copy2 = malloc(layer ? layer : 2);
		if (!p->copy1 || !p->copy2)
			return lr_error_set(LR_ENOMEM, "out of memory for the copy path");
	}
	p->staging_complete = 1;
	return 0;
}

/*
 * Run the producer and the writer to their end on the open lease. 0 when
 * every layer was written; otherwise why not (the caller cancels the lease).
 */
static int run_pipeline(struct pipe *p, struct lr_import_result *r)
{
	const struct lr_import_opts *o = p->o;
	pthread_t pt, wt;

	if (pthread_create(&wt, NULL, writer, p) != 0)
		return lr_error_set(LR_EIO, "cannot start the writer thread");
	if (pthread_create(&pt, NULL, producer, p) != 0) {
		pipe_fail(p, lr_error_set(LR_EIO, "cannot start the producer thread"));
		pthread_join(wt, NULL);
		return p->err;
	}
	pthread_join(pt, NULL);
	if (p->producer_died) {
		/* nothing more will come: stop the writer too */
		pthread_mutex_lock(&p->mu);
		p->stop = 1;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
	pthread_join(wt, NULL);
	if (p->producer_died) {
		r->died_at = o->die_at;
		return lr_error_set(
			LR_EIO, "import into lane %d failed: the producer died at layer %d; the import was cancelled",
			o->lane, o->die_at);
	}
	if (p->cancelled) {
		r->cancelled = 1;
		return lr_error_set(LR_EIO, "import into lane %d cancelled before layer %d; nothing of it is visible",
				    o->lane, p->produced);
	}
	if (p->err)
		return lr_error_set(p->err, "%s; the import into lane %d was cancelled", p->errmsg, o->lane);
	return 0;
}

int lr_import(const struct lr_backend_ops *ops, struct lr_backend *b, const struct lr_import_opts *o,
	      struct lr_import_result *r)
{
	const struct lr_kvgeom *g = o->g;
	struct lr_backend_stats before, after;
	uint64_t *bytes = NULL, max_span = 0, staged = 0;
	struct lr_kvtensor t;
	struct pipe p;
	double start = 0;
	int l, rc = 0;

	memset(r, 0, sizeof *r);
	r->died_at = -1;
	memset(&p, 0, sizeof p);
	p.o = o;
	p.ops = ops;
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	bytes = calloc((size_t)g->layers * 2, sizeof *bytes);
	p.nslots = o->mode == LR_IMPORT_WHOLE ? g->layers : (o->staging >= 2 ? o->staging : 2);
	p.queue = calloc((size_t)g->layers, sizeof *p.queue);
	if (!bytes || !p.queue) {
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto out;
	}
	for (l = 0; l < g->layers; l++) {
		lr_kvgeom_tensor(g, l, &t);
		bytes[2 * l] = bytes[2 * l + 1] = t.bytes;
		if (t.span_bytes > max_span)
			max_span = t.span_bytes;
	}
	if ((rc = stage(&p, max_span, &staged)))
		goto out;
	/* Staging that outgrows the caches is written around them; a streamed
	 * layer is read back by the writer while it is still cached. */
	p.stores = staged >= LR_STREAM_MIN_BYTES * 2 ? LR_STORES_STREAM : LR_STORES_CACHED;
	ops->stats(b, &before);
	start = lr_monotonic_s();
	if ((rc = ops->lease(b, o->lane, 2 * g->layers, bytes, &p.lease)))
		goto out;
	r->lease_s = lr_monotonic_s() - start;
	start = lr_monotonic_s();
	if ((rc = run_pipeline(&p, r))) {
		r->cancelled = 1;
		goto out; /* the lease is cancelled below */
	}
	rc = ops->commit(p.lease);
	p.lease = NULL;
	ops->stats(b, &after);
	r->writes = after.writes - before.writes;
	r->bytes = after.bytes_written - before.bytes_written;
out:
	if (p.lease)
		ops->cancel(p.lease);
	r->encode_s = p.encode_s;
	r->write_s = p.write_s;
	r->total_s = start > 0 ? lr_monotonic_s() - start : 0;
	pipe_free(&p, p.staging_complete); /* complete buffers are kept when the caller asked */
	free(bytes);
	pthread_mutex_destroy(&p.mu);
	pthread_cond_destroy(&p.cv);
	return rc;
}
