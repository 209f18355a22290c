/*
 * A bench run's samples, typed (bench_sample, migration 19), or read from the
 * measurement names of a run stored before it: '[L,2,H,T,D] VARIANT rep N'
 * (encoder), '[N repetitions] OP rep K', '[N repetitions] generate|runs'
 * (store), 'MODE KIND rep K' (import), and the remote benchmark's six names.
 * This file is the only reader of those names.
 */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "experiment/benchjob.h"

/* The remote benchmark's names, as samples. */
static const struct {
	const char *name, *variant, *unit;
} remote_names[] = {
	{ "generate", "generate", "s" },
	{ "push", "push", "s" },
	{ "pull", "pull", "s" },
	{ "push peak rss", "push", "KiB" },
	{ "pull peak rss", "pull", "KiB" },
	{ "object bytes", "objects", "bytes" },
};

/* One legacy measurement as a sample of 'out'. */
static int from_name(struct lr_run *out, const struct lr_measure *m)
{
	const char *name = m->name, *close, *r = strrchr(name, ' ');
	char subject[128], variant[96];
	size_t len = strlen(name);
	long rep = 0;
	char *end;

	for (size_t k = 0; k < sizeof remote_names / sizeof remote_names[0]; k++)
		if (!strcmp(name, remote_names[k].name))
			return lr_run_add_sample(out, "", remote_names[k].variant, 0, m->value, remote_names[k].unit);
	if (r && r - name > 4 && !strncmp(r - 4, " rep", 4)) {
		rep = strtol(r + 1, &end, 10);
		if (*end || end == r + 1 || rep < 0 || rep > INT_MAX)
			goto bad;
		len = (size_t)(r - 4 - name);
	}
	if (*name == '[' && (close = memchr(name, ']', len)) && close[1] == ' ') {
		/* "[28,2,8,8192,128] encode: avx512", "[800 repetitions] report" */
		size_t sl = (size_t)(close - name - 1), vl = len - (size_t)(close + 2 - name);
		const char *sp = memchr(name + 1, ' ', sl);

		if (sp && !strncmp(sp, " repetitions]", 13))
			sl = (size_t)(sp - name - 1);
		if (sl >= sizeof subject || !vl || vl >= sizeof variant)
			goto bad;
		memcpy(subject, name + 1, sl);
		subject[sl] = '\0';
		memcpy(variant, close + 2, vl);
		variant[vl] = '\0';
	} else {
		/* "whole, strided import" */
		const char *sp = NULL;

		for (const char *p = name; p < name + len; p++)
			if (*p == ' ')
				sp = p;
		if (!sp || (size_t)(sp - name) >= sizeof subject || (size_t)(name + len - sp - 1) >= sizeof variant)
			goto bad;
		memcpy(subject, name, (size_t)(sp - name));
		subject[sp - name] = '\0';
		memcpy(variant, sp + 1, (size_t)(name + len - sp - 1));
		variant[name + len - sp - 1] = '\0';
	}
	return lr_run_add_sample(out, subject, variant, (int)rep, m->value, m->unit);
bad:
	return lr_error_set(LR_EINVAL, "measurement '%s' is not a benchmark sample", name);
}

int lr_bench_samples(const struct lr_run *run, struct lr_bench_samples *out)
{
	int rc = 0;

	memset(out, 0, sizeof *out);
	lr_run_init(&out->owned);
	if (run->kind != LR_KIND_BENCH)
		return lr_error_set(LR_EINVAL, "run %lld is not a benchmark run", (long long)run->id);
	if (run->nsamples) {
		out->v = run->samples;
		out->n = run->nsamples;
		return 0;
	}
	for (size_t i = 0; i < run->nmeasures && !rc; i++)
		rc = from_name(&out->owned, &run->measures[i]);
	if (rc) {
		lr_bench_samples_release(out);
		return rc;
	}
	out->v = out->owned.samples;
	out->n = out->owned.nsamples;
	return 0;
}

void lr_bench_samples_release(struct lr_bench_samples *s)
{
	lr_run_release(&s->owned);
	s->v = NULL;
	s->n = 0;
}
