#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/stat.h>

#include "base/error.h"
#include "record/gitsrc.h"
#include "record/hostinfo.h"
#include "record/record.h"
#include "record/spool.h"
#include "store/objects.h"
#include "store/runs.h"
#include "store/store.h"
#include "testutil.h"

struct fx {
	char *tmp;
	char dir[4096];
	struct lr_store *st;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);

	f->tmp = tmpdir_new();
	assert_non_null(f->tmp);
	snprintf(f->dir, sizeof f->dir, "%s/store", f->tmp);
	assert_int_equal(lr_store_open(&f->st, f->dir, LR_STORE_CREATE), 0);
	assert_int_equal(chdir(f->tmp), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	lr_store_free(f->st);
	tmpdir_remove(f->tmp);
	free(f);
	return 0;
}

static void issue_refs_are_normalised_or_refused(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(lr_issue_normalize("270", out, sizeof out), 0);
	assert_string_equal(out, "270");
	assert_int_equal(lr_issue_normalize("#205", out, sizeof out), 0);
	assert_string_equal(out, "205");
	assert_int_equal(lr_issue_normalize("RBLN-SW/optimum-rbln#827", out, sizeof out), 0);
	assert_string_equal(out, "RBLN-SW/optimum-rbln#827");
	assert_int_equal(lr_issue_normalize("", out, sizeof out), LR_EINVAL);
	assert_int_equal(lr_issue_normalize("abc", out, sizeof out), LR_EINVAL);
	assert_int_equal(lr_issue_normalize("a/b/c#1", out, sizeof out), LR_EINVAL);
	assert_int_equal(lr_issue_normalize("owner/repo#", out, sizeof out), LR_EINVAL);
	assert_int_equal(lr_issue_normalize("owner/repo#12x", out, sizeof out), LR_EINVAL);
}

static void facts_are_validated(void **state)
{
	struct lr_kvlist l = { 0 };

	(void)state;
	assert_int_equal(lr_fact_parse(&l, "--geometry", "model=qwen3-4b"), 0);
	assert_int_equal(lr_fact_parse(&l, "--geometry", "layers=36"), 0);
	assert_int_equal(lr_fact_parse(&l, "--geometry", "layers=37"), LR_EINVAL); /* twice */
	assert_int_equal(lr_fact_parse(&l, "--geometry", "tokens=-1"), LR_EINVAL);
	assert_int_equal(lr_fact_parse(&l, "--geometry", "kv_heads=8x"), LR_EINVAL);
	assert_int_equal(lr_fact_parse(&l, "--geometry", "=1"), LR_EINVAL);
	assert_int_equal(lr_fact_parse(&l, "--geometry", "novalue="), LR_EINVAL);
	assert_int_equal(lr_fact_parse(&l, "--binding", "bad key=1"), LR_EINVAL);
	assert_int_equal(lr_fact_parse(&l, "--tool", "rebel-compiler=0.11.0"), 0);
	assert_int_equal(l.n, 3);
	lr_kvlist_release(&l);
}

static void cpulists_round_trip(void **state)
{
	unsigned char cpus[16];
	char out[64];

	(void)state;
	assert_int_equal(lr_cpulist_parse("0-3,8,10-11", cpus, 128), 0);
	lr_cpulist_format(out, sizeof out, cpus, 128);
	assert_string_equal(out, "0-3,8,10-11");
	assert_int_equal(lr_cpulist_parse("5", cpus, 128), 0);
	lr_cpulist_format(out, sizeof out, cpus, 128);
	assert_string_equal(out, "5");
	assert_int_equal(lr_cpulist_parse("3-1", cpus, 128), LR_EINVAL);
	assert_int_equal(lr_cpulist_parse("x", cpus, 128), LR_EINVAL);
}

/* Record argv with no tee; returns lr_record's code. */
static int record(struct fx *f, char **argv, struct lr_record_opts *o, struct lr_run *r, struct lr_record_result *res)
{
	static char *envp[] = { "PATH=/usr/bin:/bin", "API_TOKEN=s3cr3t-value", NULL };

	o->argv = argv;
	o->envp = envp;
	o->kill_after_s = 5;
	lr_run_init(r);
	return lr_record(f->st, o, r, res);
}

static char *read_object(const char *dir, const char *sha)
{
	char *path = lr_obj_path(dir, sha), *buf = calloc(1, 4096);
	FILE *fp = fopen(path, "r");

	assert_non_null(fp);
	assert_true(fread(buf, 1, 4095, fp) < 4095);
	fclose(fp);
	free(path);
	return buf;
}

static void record_keeps_a_failed_run_with_its_logs(void **state)
{
	struct fx *f = *state;
	char *argv[] = { "sh", "-c", "echo out; echo err >&2; echo $API_TOKEN; exit 3", NULL };
	struct lr_record_opts o = { 0 };
	struct lr_record_result res;
	struct lr_run r, back;
	char *text;

	assert_int_equal(record(f, argv, &o, &r, &res), 0);
	assert_int_equal(res.exit_status, 3);
	assert_int_equal(r.status, LR_FAILED);
	lr_run_init(&back);
	assert_int_equal(lr_store_run_load(f->st, r.id, &back), 0);
	assert_int_equal(back.status, LR_FAILED);
	assert_int_equal(back.exit_code, 3);
	assert_int_equal(back.nartifacts, 2);
	assert_string_equal(back.artifacts[0].name, "stdout");
	text = read_object(f->dir, back.artifacts[0].sha256);
	assert_string_equal(text, "out\n<redacted>\n");
	free(text);
	text = read_object(f->dir, back.artifacts[1].sha256);
	assert_string_equal(text, "err\n");
	free(text);
	assert_string_equal(lr_kvlist_find(&back.env, "API_TOKEN")->value, "<redacted>");
	assert_non_null(lr_kvlist_find(&back.binding, "cpu_affinity"));
	lr_run_release(&back);
	lr_run_release(&r);
}

static void record_of_a_missing_command_is_kept_as_failed(void **state)
{
	struct fx *f = *state;
	char *argv[] = { "labrun-no-such-command", NULL };
	struct lr_record_opts o = { 0 };
	struct lr_record_result res;
	struct lr_run r;

	assert_int_equal(record(f, argv, &o, &r, &res), 0);
	assert_int_equal(res.exit_status, LR_EXIT_NOTFOUND);
	assert_true(res.exec_failed);
	assert_int_equal(r.status, LR_FAILED);
	assert_non_null(strstr(r.failure, "cannot execute 'labrun-no-such-command'"));
	lr_run_release(&r);
}

static void record_fails_a_run_whose_artifact_is_missing(void **state)
{
	struct fx *f = *state;
	char *argv[] = { "sh", "-c", "echo made > made.txt", NULL };
	struct lr_record_opts o = { 0 };
	struct lr_record_result res;
	struct lr_run r;

	assert_int_equal(lr_strlist_add(&o.outputs, "made.txt"), 0);
	assert_int_equal(lr_strlist_add(&o.outputs, "never.bin"), 0);
	assert_int_equal(record(f, argv, &o, &r, &res), 0);
	assert_int_equal(res.exit_status, LR_EXIT_LABRUN);
	assert_true(res.artifacts_failed);
	assert_int_equal(r.status, LR_FAILED);
	assert_non_null(strstr(r.failure, "declared artifact 'never.bin' is missing"));
	assert_null(strstr(r.failure, "made.txt"));
	lr_record_opts_release(&o);
	lr_run_release(&r);
}

static void record_refuses_bad_input_before_storing_anything(void **state)
{
	struct fx *f = *state;
	char *argv[] = { "true", NULL };
	struct lr_record_opts o = { 0 };
	struct lr_record_result res;
	struct lr_run r;
	int64_t id = 0;

	assert_int_equal(lr_strlist_add(&o.inputs, "no-such-input"), 0);
	assert_int_equal(record(f, argv, &o, &r, &res), LR_EINVAL);
	assert_int_equal(r.id, 0);
	assert_int_equal(lr_store_run_resolve(f->st, "last", &id), LR_ENOTFOUND);
	lr_record_opts_release(&o);
	lr_run_release(&r);
}

static void recovery_abandons_unlocked_runs_and_keeps_logs(void **state)
{
	struct fx *f = *state;
	struct lr_run r, back;
	char *p;
	int fd = -1, n = -1;

	lr_run_init(&r);
	snprintf(r.uuid, sizeof r.uuid, "%s", "0b1d3c4e-0000-4000-8000-00000000dead");
	r.kind = LR_KIND_RECORD;
	r.started_at = strdup("2026-11-29T10:00:00.000Z");
	r.cwd = strdup("/");
	r.argv_json = strdup("[\"x\"]");
	r.labrun_version = strdup("t");
	assert_int_equal(lr_host_probe(&r.host), 0);
	assert_int_equal(lr_spool_lock(f->dir, r.uuid, &fd), 0);
	assert_int_equal(lr_store_run_begin(f->st, &r), 0);
	p = lr_spool_path(f->dir, r.uuid, "stdout");
	write_file(p, "partial output\n");
	free(p);

	/* While the lock is held the recorder counts as alive. */
	assert_int_equal(lr_spool_recover(f->st, &n), 0);
	assert_int_equal(n, 0);
	close(fd); /* the recorder "dies" */
	assert_int_equal(lr_spool_recover(f->st, &n), 0);
	assert_int_equal(n, 1);

	lr_run_init(&back);
	assert_int_equal(lr_store_run_load(f->st, r.id, &back), 0);
	assert_int_equal(back.status, LR_ABANDONED);
	assert_int_equal(back.nartifacts, 1);
	p = read_object(f->dir, back.artifacts[0].sha256);
	assert_string_equal(p, "partial output\n");
	free(p);
	p = lr_spool_path(f->dir, r.uuid, "lock");
	assert_int_equal(access(p, F_OK), -1);
	free(p);
	lr_run_release(&back);
	lr_run_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(issue_refs_are_normalised_or_refused),
		cmocka_unit_test(facts_are_validated),
		cmocka_unit_test(cpulists_round_trip),
		cmocka_unit_test_setup_teardown(record_keeps_a_failed_run_with_its_logs, setup, teardown),
		cmocka_unit_test_setup_teardown(record_of_a_missing_command_is_kept_as_failed, setup, teardown),
		cmocka_unit_test_setup_teardown(record_fails_a_run_whose_artifact_is_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(record_refuses_bad_input_before_storing_anything, setup, teardown),
		cmocka_unit_test_setup_teardown(recovery_abandons_unlocked_runs_and_keeps_logs, setup, teardown),
	};
	int rc;

	rc = cmocka_run_group_tests_name("record", tests, NULL, NULL);
	lr_git_stop(); /* libgit2 is loaded and initialised by the first record that reads sources */
	return rc;
}
