#ifndef LR_CMD_BENCH_INT_H
#define LR_CMD_BENCH_INT_H

/*
 * What the files of 'labrun bench' share: bench.c (the command, 'bench
 * encoder'), bench-store.c ('bench store') and bench-import.c ('bench import').
 */

#include "cmd/cmd.h"

/* 'labrun bench store ...': argv[0] is "store". */
int cmd_bench_store(const struct lr_global *g, int argc, char **argv);

/* 'labrun bench import ...': argv[0] is "import". */
int cmd_bench_import(const struct lr_global *g, int argc, char **argv);


#endif
