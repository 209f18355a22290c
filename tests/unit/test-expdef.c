#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "encode/dlf16.h"
#include "experiment/expdef.h"

static char *fixture(const char *name)
{
	const char *top = getenv("TOP_SRCDIR");
	char *p = NULL;

	if (asprintf(&p, "%s/tests/fixtures/experiments/%s", top ? top : ".", name) < 0)
		abort();
	return p;
}

static void a_complete_definition_loads(void **state)
{
	char *path = fixture("good.ini");
	struct lr_exp_condition c;
	struct lr_expdef d;

	(void)state;
	if (lr_expdef_load(&d, path, NULL))
		fail_msg("%s", lr_error_msg());
	assert_string_equal(d.name, "encoder205");
	assert_int_equal(d.target, LR_TARGET_ENCODE);
	assert_int_equal(d.blocks, 10);
	assert_int_equal(d.warmup, 1);
	assert_true(d.margin > 0.0199 && d.margin < 0.0201);
	assert_int_equal(d.issues.n, 3);
	assert_string_equal(d.issues.v[1], "270");
	assert_int_equal(d.narms, 2);
	assert_string_equal(d.arms[0].name, "lookup"); /* the first arm is the baseline */
	assert_string_equal(d.arms[1].kernel, "auto");
	assert_int_equal(strlen(d.sha256), 64);
	/* model x layers x tokens: the seed's four [L,2,8,T,128] shapes */
	assert_int_equal(lr_expdef_conditions(&d), 4);
	lr_expdef_condition(&d, 0, &c);
	assert_string_equal(c.model, "qwen3-0.6b");
	assert_int_equal(c.layers, 1);
	assert_int_equal(c.tokens, 2048);
	lr_expdef_condition(&d, 3, &c);
	assert_int_equal(c.layers, 28);
	assert_int_equal(c.tokens, 8192);
	lr_expdef_release(&d);
	free(path);
}

static void a_stored_text_loads_like_the_file(void **state)
{
	char *path = fixture("good.ini");
	struct lr_expdef a, b;

	(void)state;
	assert_int_equal(lr_expdef_load(&a, path, NULL), 0);
	assert_int_equal(lr_expdef_load(&b, "stored", a.text), 0);
	assert_string_equal(a.sha256, b.sha256);
	assert_int_equal(lr_expdef_conditions(&a), lr_expdef_conditions(&b));
	lr_expdef_release(&a);
	lr_expdef_release(&b);
	free(path);
}

static void every_kernel_is_a_name_a_definition_takes(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; lr_dlf16_kernels[i]; i++) {
		struct lr_expdef d;
		char *text;

		if (asprintf(&text,
			     "[experiment]\nname = k\ntarget = encode\nbackend = sim\n"
			     "[design]\norder = abba\nblocks = 6\n"
			     "[arm a]\nkernel = lookup\n[arm b]\nkernel = %s\n"
			     "[grid]\nmodel = qwen3-0.6b\nlayers = 1\ntokens = 8\n",
			     lr_dlf16_kernels[i]->name) < 0)
			abort();
		if (lr_expdef_load(&d, "stored", text))
			fail_msg("kernel '%s': %s", lr_dlf16_kernels[i]->name, lr_error_msg());
		assert_string_equal(d.arms[1].kernel, lr_dlf16_kernels[i]->name);
		lr_expdef_release(&d);
		free(text);
	}
}

static void malformed_definitions_name_file_line_and_reason(void **state)
{
	static const struct {
		const char *file;
		int line;
		const char *reason;
	} cases[] = {
		{ "bad-unknown-section.ini", 8, "unknown section [extras]" },
		{ "bad-unknown-key.ini", 3, "unknown key 'colour' in [experiment]" },
		{ "bad-bad-target.ini", 3, "'target' is 'decode'" },
		{ "bad-few-blocks.ini", 4, "fewer than 6 blocks" },
		{ "bad-bad-margin.ini", 4, "'margin' is '150%'" },
		{ "bad-one-arm.ini", 3, "1 arm(s)" },
		{ "bad-unknown-kernel.ini", 4, "'kernel' is 'sse9'" },
		{ "bad-empty-grid.ini", 5, "[grid] needs 'model' and 'tokens'" },
		{ "bad-bad-tokens.ini", 7, "'tokens' has 'lots'" },
		{ "bad-too-many-layers.ini", 5, "'layers' has 28 but gemma3-1b has 26 layers" },
		{ "bad-unknown-model.ini", 4, "'model' has 'llama-70b'" },
		{ "bad-duplicate-key.ini", 3, "'name' is given twice" },
		{ "bad-not-ini.ini", 3, "not an INI line" },
		{ "bad-no-name.ini", 1, "[experiment] has no 'name'" },
		{ "bad-bad-issue.ini", 3, "'issues' has 'not-an-issue'" },
		{ "bad-layout-on-encode.ini", 4, "sets layout or mode" },
		{ "bad-duplicate-section.ini", 4, "section [arm a] appears twice (first at line 3)" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *path = fixture(cases[i].file), want[4200];
		struct lr_expdef d;

		assert_int_equal(lr_expdef_load(&d, path, NULL), LR_EINVAL);
		snprintf(want, sizeof want, "%s:%d: ", path, cases[i].line);
		if (strncmp(lr_error_msg(), want, strlen(want)) || !strstr(lr_error_msg(), cases[i].reason))
			fail_msg("%s: got \"%s\", expected line %d and \"%s\"", cases[i].file, lr_error_msg(),
				 cases[i].line, cases[i].reason);
		lr_expdef_release(&d);
		free(path);
	}
}

static void the_shipped_experiments_load(void **state)
{
	static const char *const files[] = { "encoder205.ini", "layout205.ini", "import270.ini", "aa-noise.ini" };
	const char *top = getenv("TOP_SRCDIR");
	char path[4096];
	struct lr_expdef d;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(path, sizeof path, "%s/experiments/%s", top ? top : ".", files[i]);
		if (lr_expdef_load(&d, path, NULL))
			fail_msg("%s", lr_error_msg());
		assert_true(lr_expdef_conditions(&d) >= 2);
		lr_expdef_release(&d);
	}
}

static void a_missing_file_is_named(void **state)
{
	struct lr_expdef d;

	(void)state;
	assert_int_equal(lr_expdef_load(&d, "/nonexistent/x.ini", NULL), LR_EINVAL);
	assert_non_null(strstr(lr_error_msg(), "cannot read experiment '/nonexistent/x.ini'"));
	lr_expdef_release(&d);
}

/* A command experiment with 'report' as its last lines. */
#define COMMAND_DEF(report) \
	"[experiment]\nname = m\ntarget = command\n[design]\nmetric = share\n" \
	"[arm a]\ncommand = true\n[arm b]\ncommand = true\n" report

static void a_report_section_asks_for_metrics_and_forms(void **state)
{
	static const char text[] = COMMAND_DEF("[report]\nmetrics = writes, steps\nforms = mean, ratio\n");
	struct lr_exp_report r;
	struct lr_expdef d;

	(void)state;
	if (lr_expdef_load(&d, "m.ini", text))
		fail_msg("%s", lr_error_msg());
	assert_int_equal(d.report.nmetrics, 2);
	assert_string_equal(d.report.metrics[0], "writes");
	assert_string_equal(d.report.metrics[1], "steps");
	assert_false(d.report.all_metrics);
	assert_int_equal(d.report.forms, LR_FORM_MEAN | LR_FORM_RATIO);
	/* a report reads the stored text's [report] alone, as the run read it */
	assert_int_equal(lr_expdef_report_read("m.ini", d.text, &r), 0);
	assert_memory_equal(&r, &d.report, sizeof r);
	lr_expdef_release(&d);
	assert_int_equal(lr_expdef_report_read("m.ini", COMMAND_DEF(""), &r), 0);
	assert_int_equal(r.nmetrics + r.all_metrics + (int)r.forms, 0);
	assert_int_equal(lr_expdef_report_read("m.ini", COMMAND_DEF("[report]\nmetrics = all\n"), &r), 0);
	assert_true(r.all_metrics);
	assert_int_equal(lr_expdef_report_read("m.ini", COMMAND_DEF("[report]\ncolour = red\n"), &r), LR_EINVAL);
	assert_non_null(strstr(lr_error_msg(), "cannot read [report] of the stored definition 'm.ini': unknown key"));
}

static void report_section_mistakes_name_their_line(void **state)
{
	static const struct {
		const char *text;
		int line;
		const char *reason;
	} cases[] = {
		{ COMMAND_DEF("[report]\nforms = ratio, pie\n"), 11,
		  "'forms' has 'pie'; expected ratio, range or mean" },
		{ COMMAND_DEF("[report]\nforms = mean, mean\n"), 11, "'forms' lists 'mean' twice" },
		{ COMMAND_DEF("[report]\nmetrics = writes, all\n"), 11, "'all' stands alone" },
		{ COMMAND_DEF("[report]\nmetrics = a b\n"), 11, "'metrics' has 'a b'" },
		{ COMMAND_DEF("[report]\nmetrics = x, ,y\n"), 11, "'metrics' has an empty item" },
		{ COMMAND_DEF("[report]\nmetrics = x, x\n"), 11, "'metrics' lists 'x' twice" },
		{ COMMAND_DEF("[report]\nmetrics = share\n"), 11, "the design's own metric" },
		{ COMMAND_DEF("[report]\ncolour = red\n"), 11, "unknown key 'colour' in [report]" },
		{ COMMAND_DEF("[report]\nforms = mean\nforms = range\n"), 12, "'forms' is given twice" },
		{ "[experiment]\nname = e\n[arm a]\n[arm b]\n[grid]\nmodel = qwen3-0.6b\ntokens = 64\n"
		  "[report]\nmetrics = all\n",
		  9, "'metrics' is for 'target = command' only" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct lr_expdef d;
		char want[64];

		assert_int_equal(lr_expdef_load(&d, "m.ini", cases[i].text), LR_EINVAL);
		snprintf(want, sizeof want, "m.ini:%d: ", cases[i].line);
		if (strncmp(lr_error_msg(), want, strlen(want)) || !strstr(lr_error_msg(), cases[i].reason))
			fail_msg("case %zu: got \"%s\", expected line %d and \"%s\"", i, lr_error_msg(), cases[i].line,
				 cases[i].reason);
		lr_expdef_release(&d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_complete_definition_loads),
		cmocka_unit_test(a_stored_text_loads_like_the_file),
		cmocka_unit_test(every_kernel_is_a_name_a_definition_takes),
		cmocka_unit_test(malformed_definitions_name_file_line_and_reason),
		cmocka_unit_test(the_shipped_experiments_load),
		cmocka_unit_test(a_missing_file_is_named),
		cmocka_unit_test(a_report_section_asks_for_metrics_and_forms),
		cmocka_unit_test(report_section_mistakes_name_their_line),
	};

	return cmocka_run_group_tests_name("expdef", tests, NULL, NULL);
}
