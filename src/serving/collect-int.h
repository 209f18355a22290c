#ifndef LR_SERVING_COLLECT_INT_H
#define LR_SERVING_COLLECT_INT_H

/*
 * What collect.c (a pass: sent, stored or written) and cases.c (the cases
 * file and the requests made of it) share.
 */

#include <jansson.h>

#include "serving/client.h"
#include "serving/collect.h"

/* A cases file, read whole and checked: one object a case. */
struct lr_cases {
	json_t **v;
	size_t n, cap;
};

/* Read and check every line of 'path' (LR_EINVAL "FILE:LINE: reason"); chat: each case needs 'messages'. */
LR_MUST_CHECK int lr_cases_read(const char *path, int chat, struct lr_cases *out);
void lr_cases_release(struct lr_cases *c);

/* The JSON body of case c's request, as vLLM's and llama.cpp's OpenAI-compatible servers take it (malloc'd; NULL: out of memory). */
char *lr_case_body(const struct lr_collect_opts *o, json_t *c);

#endif
