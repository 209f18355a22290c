/*
 * libFuzzer target: the Prometheus text reader of the gauge sampler
 * (serving/sampler.c, lr_prom_gauge), with the gauges collect samples and a
 * name taken from the input's first line. A gauge's sum is checked against
 * a reader written here the plain way, each line cut out first, so that no
 * sample is read across lines.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "serving/sampler.h"

/* The '}' of the label set opening at v in one line, a quoted value's '\\' escaping the next byte. */
static const char *closing(const char *v)
{
	for (int quoted = 0; *++v;)
		if (quoted && *v == '\\' && v[1])
			v++;
		else if (*v == '"')
			quoted = !quoted;
		else if (!quoted && *v == '}')
			return v;
	return NULL;
}

/* The sum of 'name' over the lines of 'text' that are its samples, each line on its own; 1 when one is. */
static int plain(const char *text, const char *name, double *sum)
{
	size_t nl = strlen(name);
	int found = 0;

	*sum = 0;
	for (const char *l = text; *l;) {
		const char *end = strchr(l, '\n'), *v = l + nl;
		size_t len = end ? (size_t)(end - l) : strlen(l);
		char *line, *after;
		double x;

		if (*l != '#' && !strncmp(l, name, nl) && nl < len && (*v == '{' || *v == ' ')) {
			if (!(line = strndup(l, len)))
				abort();
			v = line + nl;
			if (*v != '{' || (v = closing(v))) {
				x = strtod(v + 1, &after);
				if (after != v + 1) {
					*sum += x;
					found = 1;
				}
			}
			free(line);
		}
		l += len + (end != NULL);
	}
	return found;
}

static void check(const char *text, const char *name)
{
	double got, want;
	int has = lr_prom_gauge(text, name, &got), wants = plain(text, name, &want);

	if (has != wants || (has && !(got == want || (isnan(got) && isnan(want))))) {
		fprintf(stderr, "fuzz-prom: '%s': labrun %d %g, line by line %d %g\n", name, has, got, wants, want);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = lr_fuzz_text(data, size), *nl = strchr(text, '\n');

	check(text, "vllm:num_requests_running");
	check(text, "vllm:num_requests_waiting");
	if (nl && nl > text) { /* the first line names a gauge; the text follows it */
		*nl = 0;
		if (!strchr(text, ' ') && !strchr(text, '{'))
			check(nl + 1, text);
	}
	free(text);
	return 0;
}
