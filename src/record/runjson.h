#ifndef LR_RUNJSON_H
#define LR_RUNJSON_H

#include <jansson.h>

#include "base/model.h"

/*
 * A run as a JSON object (new reference, caller decrefs). With 'full' every
 * recorded fact is included (host, sources, environment, binding, geometry,
 * tools, artifacts); otherwise the summary fields that 'labrun list' shows.
 */
json_t *lr_run_json(const struct lr_run *r, int full);

#endif
