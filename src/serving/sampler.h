#ifndef LR_SERVING_SAMPLER_H
#define LR_SERVING_SAMPLER_H

/*
 * The server's own gauges during a pass: GET a Prometheus text endpoint
 * (vLLM's /metrics) every period, on the client's multi handle, one GET in
 * flight at a time, and read two gauges from each answer (each the sum over
 * its label sets): the requests running and those waiting.
 */

#include "base/error.h"
#include <stddef.h>

#include "base/curl.h"
#include "store/collect.h"

struct lr_sampler;

LR_MUST_CHECK int lr_sampler_start(struct lr_sampler **out, CURLM *multi, const char *url, const char *running,
				   const char *waiting, double period_s, double start);
/* Send a GET when one is due and none is in flight. */
void lr_sampler_tick(struct lr_sampler *s, double now);
/* 1 when 'easy' was the sampler's: its answer is read (a failed GET is no sample) and the handle freed. */
int lr_sampler_done(struct lr_sampler *s, CURL *easy, CURLcode code, double now);
/* Seconds until the next GET is due. */
double lr_sampler_wait(const struct lr_sampler *s, double now);
/* Stop (a GET in flight is dropped); the samples taken, malloc'd. */
void lr_sampler_stop(struct lr_sampler *s, struct lr_gauge_sample **samples, size_t *n);

/* The sum of gauge 'name' over its label sets in Prometheus text; 1 when present. */
int lr_prom_gauge(const char *text, const char *name, double *value);

#endif
