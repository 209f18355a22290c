#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "import/ledger.h"

/* The ledger a backend's struct lr_backend begins with (ledger.h). */
static struct lr_ledger *ledger_of(struct lr_backend *b)
{
	return (struct lr_ledger *)(void *)b;
}

int lr_ledger_init(struct lr_ledger *lg, const struct lr_device *dev, const struct lr_backend_config *cfg,
		   const char *runtime)
{
	memset(lg, 0, sizeof *lg);
	lg->dev = *dev;
	lg->cfg = cfg;
	snprintf(lg->st.runtime_version, sizeof lg->st.runtime_version, "%s", runtime);
	lg->lanes = cfg->lanes > 0 ? cfg->lanes : 4;
	pthread_mutex_init(&lg->mu, NULL); /* first: release destroys it, also on the way out below */
	lg->lane_busy = calloc((size_t)lg->lanes, sizeof *lg->lane_busy);
	lg->lane = calloc((size_t)lg->lanes, sizeof *lg->lane);
	lg->lane_n = calloc((size_t)lg->lanes, sizeof *lg->lane_n);
	if (!lg->lane_busy || !lg->lane || !lg->lane_n) {
		lr_ledger_release(lg);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	return 0;
}

static void free_tensors(struct lr_ledger *lg, struct lr_ledger_tensor *t, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!t[i].handle)
			continue;
		lg->dev.free(lg->dev.ctx, t[i].handle);
		pthread_mutex_lock(&lg->mu);
		lg->st.slots--;
		lg->st.bytes -= t[i].bytes;
		pthread_mutex_unlock(&lg->mu);
	}
	free(t);
}

void lr_ledger_release(struct lr_ledger *lg)
{
	int i;

	for (i = 0; lg->lane && i < lg->lanes; i++)
		if (lg->lane[i])
			free_tensors(lg, lg->lane[i], lg->lane_n[i]);
	free(lg->lane_busy);
	free(lg->lane);
	free(lg->lane_n);
	if (lg->lanes)
		pthread_mutex_destroy(&lg->mu);
	memset(lg, 0, sizeof *lg);
}

int lr_ledger_lease(struct lr_backend *b, int lane, int n, const uint64_t *bytes, struct lr_lease **out)
{
	struct lr_ledger *lg = ledger_of(b);
	struct lr_lease *l;
	uint64_t want = 0;
	int i, rc = 0;

	*out = NULL;
	if (lane < 0 || lane >= lg->lanes) {
		lr_error_set(LR_EINVAL, "cannot import into lane %d: the backend has lanes 0..%d", lane, lg->lanes - 1);
		lr_error_hint("pick --lane below %d, or open the backend with more --lanes", lg->lanes);
		return LR_EINVAL;
	}
	for (i = 0; i < n; i++)
		want += bytes[i];
	pthread_mutex_lock(&lg->mu);
	if (lg->lane_busy[lane]) {
		rc = lr_error_set(LR_EINVAL, "cannot import into lane %d: another import holds it", lane);
	} else if (lg->cfg->capacity_bytes && lg->st.bytes + want > lg->cfg->capacity_bytes) {
		rc = lr_error_set(
			LR_EIO, "cannot import into lane %d: it needs %llu bytes, the device has %llu of %llu free",
			lane, (unsigned long long)want, (unsigned long long)(lg->cfg->capacity_bytes - lg->st.bytes),
			(unsigned long long)lg->cfg->capacity_bytes);
		lr_error_hint("free a lane, import fewer tokens, or give the simulated device more --capacity-mib");
	} else {
		lg->lane_busy[lane] = 1;
	}
	pthread_mutex_unlock(&lg->mu);
	if (rc)
		return rc;
	l = calloc(1, sizeof *l);
	if (l)
		l->t = calloc((size_t)n, sizeof *l->t);
	if (!l || !l->t) {
		free(l);
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto unbusy;
	}
	l->ledger = lg;
	l->lane = lane;
	l->n = n;
	for (i = 0; i < n; i++) {
		if ((rc = lg->dev.alloc(lg->dev.ctx, bytes[i], &l->t[i].handle))) {
			free_tensors(lg, l->t, i);
			free(l);
			goto unbusy;
		}
		l->t[i].bytes = bytes[i];
		pthread_mutex_lock(&lg->mu);
		lg->st.slots++;
		lg->st.bytes += bytes[i];
		pthread_mutex_unlock(&lg->mu);
	}
	*out = l;
	return 0;
unbusy:
	pthread_mutex_lock(&lg->mu);
	lg->lane_busy[lane] = 0;
	pthread_mutex_unlock(&lg->mu);
	return rc;
}

int lr_ledger_write(struct lr_lease *l, int t, uint64_t offset, const void *src, uint64_t len)
{
	struct lr_ledger *lg = l->ledger;
	const struct lr_backend_config *cfg = lg->cfg;
	int64_t k;

	if (t < 0 || t >= l->n || offset > l->t[t].bytes || len > l->t[t].bytes - offset)
		return lr_error_set(LR_EINVAL, "write of %llu bytes at %llu is outside tensor %d (%llu bytes)",
				    (unsigned long long)len, (unsigned long long)offset, t,
				    (unsigned long long)(t >= 0 && t < l->n ? l->t[t].bytes : 0));
	pthread_mutex_lock(&lg->mu);
	k = ++lg->st.writes;
	lg->st.bytes_written += len;
	if (cfg->link_gbps > 0)
		lg->st.modelled_dma_s += cfg->link_latency_us / 1e6 + (double)len / (cfg->link_gbps * 1e9);
	pthread_mutex_unlock(&lg->mu);
	if (cfg->fail_write && k == cfg->fail_write)
		return lr_error_set(LR_EIO, "device write %lld failed (injected fault)", (long long)k);
	return lg->dev.h2d(lg->dev.ctx, l->t[t].handle, offset, src, len);
}

int lr_ledger_read(struct lr_backend *b, int lane, int t, uint64_t offset, void *dst, uint64_t len)
{
	struct lr_ledger *lg = ledger_of(b);
	void *h = NULL;
	uint64_t size = 0;

	pthread_mutex_lock(&lg->mu);
	if (lane >= 0 && lane < lg->lanes && t >= 0 && t < lg->lane_n[lane]) {
		h = lg->lane[lane][t].handle;
		size = lg->lane[lane][t].bytes;
	}
	lg->st.reads++;
	pthread_mutex_unlock(&lg->mu);
	if (!h)
		return lr_error_set(LR_ENOTFOUND, "lane %d shows no tensor %d: nothing committed there", lane, t);
	if (offset > size || len > size - offset)
		return lr_error_set(LR_EINVAL, "read outside tensor %d of lane %d", t, lane);
	return lg->dev.d2h(lg->dev.ctx, h, offset, dst, len);
}

int lr_ledger_commit(struct lr_lease *l)
{
	struct lr_ledger *lg = l->ledger;
	struct lr_ledger_tensor *old;
	int oldn;

	pthread_mutex_lock(&lg->mu);
	old = lg->lane[l->lane];
	oldn = lg->lane_n[l->lane];
	lg->lane[l->lane] = l->t;
	lg->lane_n[l->lane] = l->n;
	lg->lane_busy[l->lane] = 0;
	pthread_mutex_unlock(&lg->mu);
	if (old)
		free_tensors(lg, old, oldn);
	free(l);
	return 0;
}

void lr_ledger_cancel(struct lr_lease *l)
{
	struct lr_ledger *lg;

	if (!l)
		return;
	lg = l->ledger;
	free_tensors(lg, l->t, l->n);
	pthread_mutex_lock(&lg->mu);
	lg->lane_busy[l->lane] = 0;
	pthread_mutex_unlock(&lg->mu);
	free(l);
}

void lr_ledger_stats(struct lr_backend *b, struct lr_backend_stats *out)
{
	struct lr_ledger *lg = ledger_of(b);

	pthread_mutex_lock(&lg->mu);
	*out = lg->st;
	pthread_mutex_unlock(&lg->mu);
}
