#ifndef LR_CMD_BENCH_INT_H
#define LR_CMD_BENCH_INT_H

/*
 * What the files of 'labrun bench' share: bench.c (the command, 'bench
 * encoder') dispatches to bench-store.c, bench-import.c, bench-remote.c,
 * bench-collect.c, bench-ingest.c and bench-scan.c; each parses its options and runs its
 * benchmark through bench-common.c.
 */

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/progress.h"
#include "experiment/benchjob.h"

/* 'labrun bench NAME ...': argv[0] is NAME. */
int cmd_bench_store(const struct lr_global *g, int argc, char **argv);
int cmd_bench_import(const struct lr_global *g, int argc, char **argv);
int cmd_bench_remote(const struct lr_global *g, int argc, char **argv);
int cmd_bench_ingest(const struct lr_global *g, int argc, char **argv);
int cmd_bench_collect(const struct lr_global *g, int argc, char **argv);
int cmd_bench_scan(const struct lr_global *g, int argc, char **argv);

/* --progress of every benchmark (CMD_PROGRESS in each one's options) */
extern int cmd_bench_progress;

/*
 * Run benchmark 'ops' with 'opts' into the store labrun finds (opened here),
 * as every benchmark runs: its run stored as running, its document
 * (report/report.h) printed as it grows, the run stored as passed or failed,
 * and last the document's closing lines and 'recorded run N'; with 'json'
 * nothing but the run as JSON at the end. 'after' (may be NULL) runs once the
 * run has passed, before 'recorded run N'. Returns the exit code.
 */
int cmd_bench_run(const struct lr_global *g, const struct lr_bench_ops *ops, void *opts, int json,
		  void (*after)(void *opts, int json));

/* The options a benchmark that writes files ends with: --dir ('where' the files go), --json, --progress. */
#define CMD_BENCH_TAIL(dirvar, where, jsonvar) \
	CMD_STRING(0, "dir", dirvar, "DIR", where " go (default: $TMPDIR, else /tmp)"), \
		CMD_BOOL(0, "json", jsonvar, "one JSON object at the end instead of the table"), \
		CMD_PROGRESS(&cmd_bench_progress), CMD_END

/*
 * A benchmark's options and no operand (its usage, for -h and errors), then
 * its directory and this labrun's executable (cmd_bench_dirs). 0, or the
 * exit code.
 */
int cmd_bench_parse(const char *usage, const struct cmd_opt *opts, int argc, char **argv, const char **dir,
		    const char *why, char *self, size_t size);

/*
 * The directory a benchmark writes into: *dir, or $TMPDIR, else /tmp; a
 * usage error (exit 2) naming it, with 'why' appended, unless it is a
 * directory this process can write into. Then, unless self is NULL, this
 * labrun's executable into self[size], for the benchmarks that run it.
 */
int cmd_bench_dirs(const char **dir, const char *why, char *self, size_t size);

#endif
