/* libpq, loaded on first use (see pq.h). */
#include "config.h"
#include "base/system.h"

#define LR_PQ_LOADER /* the names are libpq's own here */

#include "store/pq.h"

#define LR_DYNLIB_TABLE lr_pq
LR_DYNLIB_DEFINE(lr_pq_load, LR_PQ_FUNCS, "libpq.so.5", "PostgreSQL's client library")
