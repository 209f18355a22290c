#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "error.h"
#include "logarchive.h"
#include "objects.h"
#include "record.h"
#include "runjson.h"

static const char usage[] =
	"usage: labrun archive (--run ID | --issue REF) [-o FILE]\n"
	"       labrun archive --verify FILE\n"
	"       labrun archive --extract FILE DIR\n"
	"\n"
	"Pack the evidence of a run, or of every run of an issue, into one .tar.zst: per run\n"
	"run.json (everything recorded), its logs and artifacts, and for experiment runs the\n"
	"definition and every repetition as CSV; plus SHA256SUMS listing each member. --verify\n"
	"re-hashes every member; --extract checks every entry first and refuses absolute paths,\n"
	"'..', links and device files, writing nothing when one is found.\n"
	"\n"
	"  --run ID       the run (a short id, uuid prefix or 'last')\n"
	"  --issue REF    every run that is evidence for REF\n"
	"  -o FILE        the archive (default labrun-run-ID.tar.zst or labrun-issue-REF.tar.zst)\n";

struct ids {
	int64_t v[4096];
	int n;
};

static int collect(void *arg, const struct lr_run *r)
{
	struct ids *ids = arg;

	if (ids->n < (int)(sizeof ids->v / sizeof ids->v[0]))
		ids->v[ids->n++] = r->id;
	return 0;
}

/* Add one run's members under run-ID/. */
static int add_run(struct lr_store *st, struct lr_archive_writer *w, int64_t id)
{
	char name[4200], *text = NULL, *dpath = NULL, *json = NULL, *csv = NULL, *obj;
	struct lr_run r;
	size_t i;
	json_t *j;
	int rc;

	lr_run_init(&r);
	if ((rc = lr_store_run_load(st, id, &r)))
		goto out;
	j = lr_run_json(&r, 1);
	json = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(j);
	snprintf(name, sizeof name, "run-%lld/run.json", (long long)id);
	if (!json || (rc = lr_archive_add_buffer(w, name, json, strlen(json))))
		goto out;
	for (i = 0; i < r.nartifacts; i++) {
		const struct lr_artifact *a = &r.artifacts[i];

		if (!a->present)
			continue; /* listed as missing in run.json */
		obj = lr_obj_path(lr_store_dir(st), a->sha256);
		snprintf(name, sizeof name, "run-%lld/%s/%s", (long long)id, a->role, a->name);
		rc = obj ? lr_archive_add_file(w, name, obj) : lr_error_set(LR_ENOMEM, "out of memory");
		free(obj);
		if (rc)
			goto out;
	}
	if (!strcmp(r.kind, "experiment") && !lr_store_definition(st, id, &dpath, &text)) {
		snprintf(name, sizeof name, "run-%lld/definition.ini", (long long)id);
		if ((rc = lr_archive_add_buffer(w, name, text, strlen(text))) || (rc = lr_store_repetitions_csv(st, id, &csv)))
			goto out;
		snprintf(name, sizeof name, "run-%lld/repetitions.csv", (long long)id);
		if ((rc = lr_archive_add_buffer(w, name, csv, strlen(csv))))
			goto out;
	}
out:
	free(json);
	free(csv);
	free(text);
	free(dpath);
	lr_run_release(&r);
	return rc;
}

int cmd_archive(const struct lr_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "run", required_argument, NULL, 'r' },
		{ "issue", required_argument, NULL, 'i' },
		{ "verify", required_argument, NULL, 'v' },
		{ "extract", required_argument, NULL, 'x' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *run_ref = NULL, *verify = NULL, *extract = NULL, *out = NULL;
	struct lr_run_filter f = { NULL, NULL, -1, 0 };
	struct lr_archive_writer *w = NULL;
	struct lr_store *st = NULL;
	struct ids *ids = NULL;
	char issue[256], deflt[320];
	int c, rc = 0, modes = 0, members = 0, i;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			run_ref = optarg;
			modes++;
			break;
		case 'i':
			if (lr_issue_normalize(optarg, issue, sizeof issue))
				return cmd_fail(LR_EINVAL);
			f.issue = issue;
			modes++;
			break;
		case 'v':
			verify = optarg;
			modes++;
			break;
		case 'x':
			extract = optarg;
			modes++;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return LR_EXIT_OK;
		default:
			return cmd_bad_option("archive", argv, c);
		}
	}
	if (modes != 1)
		return cmd_usage_error("archive", "give exactly one of --run, --issue, --verify and --extract");
	if (verify) {
		if (optind < argc)
			return cmd_usage_error("archive", "unexpected argument '%s'", argv[optind]);
		if ((rc = lr_archive_verify(verify, &members)))
			return cmd_fail(rc);
		printf("archive '%s': %d member(s) match SHA256SUMS\n", verify, members);
		return LR_EXIT_OK;
	}
	if (extract) {
		if (optind + 1 != argc)
			return cmd_usage_error("archive", "--extract takes the archive and a target directory");
		if ((rc = lr_archive_extract(extract, argv[optind], &members)))
			return cmd_fail(rc);
		printf("extracted %d file(s) from '%s' into '%s'\n", members, extract, argv[optind]);
		return LR_EXIT_OK;
	}
	if (optind < argc)
		return cmd_usage_error("archive", "unexpected argument '%s'", argv[optind]);
	if ((rc = cmd_open_store(&st, g, 0)))
		return rc;
	ids = calloc(1, sizeof *ids);
	if (!ids) {
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto done;
	}
	if (run_ref) {
		if ((rc = lr_store_run_resolve(st, run_ref, &ids->v[0])))
			goto done;
		ids->n = 1;
		snprintf(deflt, sizeof deflt, "labrun-run-%lld.tar.zst", (long long)ids->v[0]);
	} else {
		char safe[256];
		size_t k;

		if ((rc = lr_store_run_list(st, &f, collect, ids)))
			goto done;
		if (!ids->n) {
			rc = lr_error_set(LR_ENOTFOUND, "cannot archive issue %s: no runs reference it", f.issue);
			lr_error_hint("'labrun list --issue %s' shows the runs that do", f.issue);
			goto done;
		}
		snprintf(safe, sizeof safe, "%s", f.issue);
		for (k = 0; safe[k]; k++)
			if (safe[k] == '/' || safe[k] == '#')
				safe[k] = '-';
		snprintf(deflt, sizeof deflt, "labrun-issue-%s.tar.zst", safe);
	}
	if ((rc = lr_archive_create(&w, out ? out : deflt)))
		goto done;
	for (i = ids->n - 1; i >= 0 && !rc; i--) /* oldest first */
		rc = add_run(st, w, ids->v[i]);
	if (rc) {
		lr_archive_abort(w);
		goto done;
	}
	rc = lr_archive_close(w);
	if (!rc)
		printf("archived %d run(s) into '%s'\n", ids->n, out ? out : deflt);
done:
	free(ids);
	lr_store_free(st);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
