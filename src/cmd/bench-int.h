#ifndef LR_CMD_BENCH_INT_H
#define LR_CMD_BENCH_INT_H

/*
 * What the files of 'labrun bench' share: bench.c (the command, 'bench
 * encoder'), bench-store.c, bench-import.c, bench-remote.c, bench-collect.c and bench-ingest.c dispatch to
 * their subcommands; every one uses bench-common.c.
 */

#include "cmd/cmd.h"
#include "cmd/progress.h"
#include "experiment/benchjob.h"

/* 'labrun bench store ...': argv[0] is "store". */
int cmd_bench_store(const struct lr_global *g, int argc, char **argv);

/*
 * End a benchmark's run: stored as passed, or as failed when rc is an
 * error (which it reports). 0, or the exit code of the failure.
 */
int cmd_bench_finish(struct lr_bench_job *job, int rc);

/* --progress of every benchmark (CMD_PROGRESS in each one's options; cmd_bench_finish ends it) */
extern int cmd_bench_progress;

/* The line every benchmark prints about the machine it ran on: "host NAME: CPU, N CPUs, KERNEL; labrun V" and 'extra'. */
void cmd_bench_host_line(const char *extra);

/*
 * The directory a benchmark writes into: *dir, or $TMPDIR, else /tmp; a
 * usage error (exit 2) naming it, with 'why' appended, unless it is a
 * directory this process can write into.
 */
int cmd_bench_dir(const char **dir, const char *why);

/* This labrun's executable, for the benchmarks that run it ('size' bytes at buf). */
int cmd_bench_self(char *buf, size_t size);

/* 'labrun bench import ...': argv[0] is "import". */
int cmd_bench_import(const struct lr_global *g, int argc, char **argv);

/* 'labrun bench remote ...': argv[0] is "remote". */
int cmd_bench_remote(const struct lr_global *g, int argc, char **argv);

/* 'labrun bench ingest ...': argv[0] is "ingest". */
int cmd_bench_ingest(const struct lr_global *g, int argc, char **argv);

/* 'labrun bench collect ...': argv[0] is "collect". */
int cmd_bench_collect(const struct lr_global *g, int argc, char **argv);

#endif
