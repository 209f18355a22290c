/*
 * labrun: record accelerator experiments as evidence others can trust.
 * main(): global options, the command table, exit codes.
 */
#include "config.h"
#include "base/system.h"

#include <getopt.h>
#include <signal.h>

#include <archive.h>
#include <git2.h>
#include <jansson.h>
#include <openssl/opensslv.h>

#include "cmd/cmd.h"
#include "record/gitsrc.h"
#include "store/store.h"
#include "store/schema.h"

/* clang-format off */
static const struct lr_command commands[] = {
	{ "init", cmd_init, CMD_CREATES, "create a store (.labrun/) here or at the git top level" },
	{ "record", cmd_record, CMD_CREATES, "run a command and record it with its sources, binding and logs" },
	{ "list", cmd_list, CMD_READS, "list recorded runs" },
	{ "show", cmd_show, CMD_READS, "show everything recorded about a run" },
	{ "cat", cmd_cat, CMD_READS, "print a run's stdout, stderr or an artifact" },
	{ "sql", cmd_sql, CMD_READS, "run a read-only SQL query on the store" },
	{ "fsck", cmd_fsck, CMD_REPAIRS, "check the store: abandoned runs, integrity, object hashes" },
	{ "encode", cmd_encode, CMD_NO_STORE, "encode BF16 to DLFloat16 (.npy or raw), or --verify the kernels" },
	{ "decode", cmd_decode, CMD_NO_STORE, "decode DLFloat16 to FP32 or BF16, for readback checks" },
	{ "import", cmd_import, CMD_CREATES, "import a KV export into a device (sim or atom), verify and record it" },
	{ "run", cmd_run, CMD_CREATES, "run an experiment definition: parity, paired ABBA blocks, every repetition stored" },
	{ "replay", cmd_replay, CMD_WRITES, "re-execute a run from the store and compare outputs and drift" },
	{ "diff", cmd_diff, CMD_READS, "compare two runs: drift, outputs, timing" },
	{ "report", cmd_report, CMD_READS, "regenerate an issue's comparison tables from the store (md, csv, json)" },
	{ "archive", cmd_archive, CMD_WRITES, "pack a run's or an issue's evidence into a .tar.zst; verify; extract safely" },
	{ "manifest", cmd_manifest, CMD_READS, "write an RO-Crate for a run or an issue; validate crates" },
	{ "register", cmd_register, CMD_WRITES, "record a crate's registration with a research hub" },
	{ "ingest", cmd_ingest, CMD_WRITES, "store a serving harness's responses for a run and route, checked line by line" },
	{ "collect", cmd_collect, CMD_CREATES, "collect serving responses from an OpenAI-compatible server: streamed, timed, every failure a row" },
	{ "compare", cmd_compare, CMD_WRITES, "compare two routes' responses case by case: tokens, text, finish, missing" },
	{ "gate", cmd_gate, CMD_WRITES, "score a route's responses against a frozen answer key: strict answers, formats, EOS" },
	{ "config", cmd_config, CMD_CREATES, "show or set the store's settings: the licence, author and publisher of its crates" },
	{ "key", cmd_key, CMD_NO_STORE, "make or show the Ed25519 key that signs the ledger entries of runs" },
	{ "scan", cmd_scan, CMD_READS, "find private keys, tokens, passwords and internal hosts before they are published" },
	{ "remote", cmd_remote, CMD_CREATES, "name the shared stores (PostgreSQL, S3 buckets) runs are pushed to; prepare them" },
	{ "push", cmd_push, CMD_READS, "copy final runs with their objects, seals and signatures to a remote" },
	{ "pull", cmd_pull, CMD_CREATES, "bring runs from a remote into this store, checked against their seals" },
	{ "share", cmd_share, CMD_READS, "print URLs that fetch pushed runs' bundles and objects from an S3 remote, expiring" },
	{ "audit", cmd_audit, CMD_READS, "recompute hashes, seals and summaries from raw rows and files" },
	{ "site", cmd_site, CMD_READS, "write the evidence as a static site: runs to filter, a page per run, diffs" },
	{ "verify", cmd_verify, CMD_NO_STORE, "check a crate or archive without a store: signatures, files, ledger, report" },
	{ "bench", cmd_bench, CMD_CREATES, "benchmarks: encoder kernels vs the copy ceiling; the store at scale" },
};
/* clang-format on */

static void usage(FILE *f)
{
	size_t i;

	fputs("usage: labrun [--store DIR] COMMAND [OPTIONS] [ARGS]\n"
	      "       labrun --help | --version\n\n"
	      "Commands:\n",
	      f);
	for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fputs("\nGlobal options:\n"
	      "  --store DIR   use the store in DIR (default: $LABRUN_STORE, else the nearest\n"
	      "                .labrun/ above the working directory)\n"
	      "  -h, --help    show this help; 'labrun COMMAND -h' shows a command's help\n"
	      "  --version     show the version of labrun and its libraries\n\n"
	      "Exit codes: 0 success, 1 failure, 2 usage error, 3 store unusable, 4 bad data;\n"
	      "'labrun record' exits with the command's own status (see docs/labrun.md).\n",
	      f);
}

static void version(void)
{
	printf("labrun %s (schema %d)\n", PACKAGE_VERSION, lr_migration_count);
	/* libgit2's and libarchive's as built against: they are loaded only when a command needs them */
	printf("sqlite %s, libgit2 %d.%d.%d, libarchive %s, %s, jansson %s\n", lr_store_sqlite_version(),
	       LIBGIT2_VER_MAJOR, LIBGIT2_VER_MINOR, LIBGIT2_VER_REVISION, ARCHIVE_VERSION_ONLY_STRING,
	       OPENSSL_VERSION_TEXT, JANSSON_VERSION);
}

/*
 * What was printed must have reached its reader: a full disk or a closed
 * file turns success into failure (as git does). A reader that went away
 * (EPIPE: 'labrun list | head -1') is not worth a message.
 */
static int close_stdout(int rc)
{
	int failed = ferror(stdout), err = 0;

	if (fflush(stdout) != 0) {
		failed = 1;
		err = errno;
	}
	if (!failed)
		return rc;
	if (err != EPIPE)
		fprintf(stderr, "labrun: error: cannot write the output%s%s\n", err ? ": " : "",
			err ? strerror(err) : "");
	return rc ? rc : LR_EXIT_FAIL;
}

static void waiting(const char *path)
{
	fprintf(stderr, "labrun: waiting for store '%s': another process holds its lock (giving up after 60 s)\n",
		path);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "store", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct cmd_held_store held = { 0 };
	struct lr_global g = { .store = getenv("LABRUN_STORE"), .argv = argv, .held = &held };
	size_t i;
	int c, rc;

	/* A closed reader of our output must not kill a recording. */
	signal(SIGPIPE, SIG_IGN);
	/* past 'ulimit -f' a write fails with EFBIG, said as such, instead of killing labrun mid-run */
	signal(SIGXFSZ, SIG_IGN);
	lr_store_set_wait_notice(waiting);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 's': g.store = optarg; break;
		case 'h': usage(stdout); return close_stdout(LR_EXIT_OK);
		case 'V': version(); return close_stdout(LR_EXIT_OK);
		default:
			fprintf(stderr, "labrun: error: %s '%s'\nhint: see 'labrun --help'\n",
				c == ':' ? "missing value for option" : "unknown option", argv[optind - 1]);
			return LR_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return LR_EXIT_USAGE;
	}
	for (i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		if (strcmp(argv[optind], commands[i].name))
			continue;
		optind++;
		g.mode = held.declared = commands[i].mode;
		/* Each command parses argv[0..] with argv[0] = its name; its store, if it asked for one, is main's. */
		rc = commands[i].run(&g, argc - optind + 1, argv + optind - 1);
		lr_store_free(held.st);
		if (rc == CMD_HELP_SHOWN)
			rc = LR_EXIT_OK;
		lr_git_stop(); /* libgit2 was initialised only if the command read sources */
		return close_stdout(rc);
	}
	fprintf(stderr, "labrun: error: unknown command '%s'\nhint: see 'labrun --help'\n", argv[optind]);
	return LR_EXIT_USAGE;
}
