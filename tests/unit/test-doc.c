/*
 * The document model and its writers: text from the outside world cannot
 * change a document's structure in any format (no heading, list, table row,
 * link, raw HTML or comment of its own), code spans survive backticks, and
 * blocks are written apart by one blank line; folded sections in each format
 * and back from JSON; a document cut to fit an issue comment; paths shown
 * without the recording machine's part.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/doc.h"
#include "report/text.h"

/* d written in format f, as a new string. */
static char *written(const struct lr_doc *d, enum lr_format f)
{
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	assert_non_null(m);
	assert_int_equal(lr_doc_write(m, d, f), 0);
	assert_int_equal(fclose(m), 0);
	return out;
}

static void doc_hostile_text_stays_text_in_markdown(void **state)
{
	struct lr_doc d;
	struct lr_doc_block *b;
	char *md;

	(void)state;
	lr_doc_init(&d);
	lr_doc_add(&lr_doc_prose(&d)->text, "# not a heading\n# nor this\r| a | row |");
	lr_doc_add(&lr_doc_prose(&d)->text, "[x]: http://elsewhere");
	b = lr_doc_facts(&d);
	lr_doc_add(lr_doc_item(&d, b, 0), "see [this](http://elsewhere) and ![img](http://e/x.png) and [r][ref]");
	lr_doc_add(lr_doc_item(&d, b, 0), "<script>alert(1)</script><!-- hidden -->");
	assert_int_equal(lr_doc_error(&d), 0);
	md = written(&d, LR_FORMAT_MD);
	assert_string_equal(md, "\\# not a heading # nor this | a | row |\n"
				"\n"
				"\\[x]: http\\://elsewhere\n"
				"\n"
				"* see [this]\\(http\\://elsewhere) and ![img]\\(http\\://e/x.png) and [r]\\[ref]\n"
				"* &lt;script>alert(1)&lt;/script>&lt;!-- hidden -->\n\n");
	free(md);
	lr_doc_release(&d);
}

static void doc_code_span_holds_backticks(void **state)
{
	struct lr_doc d;
	struct lr_buf *t;
	char *md, *html;

	(void)state;
	lr_doc_init(&d);
	t = &lr_doc_prose(&d)->text;
	lr_doc_add(t, "Command: ");
	lr_doc_code(t, "echo `date` ``x``");
	lr_doc_add(t, " and ");
	lr_doc_code(t, "`edge");
	md = written(&d, LR_FORMAT_MD);
	assert_string_equal(md, "Command: ``` echo `date` ``x`` ``` and `` `edge ``\n\n");
	html = written(&d, LR_FORMAT_HTML);
	assert_string_equal(html, "<p>Command: <code>echo `date` ``x``</code> and <code>`edge</code></p>\n");
	free(md);
	free(html);
	lr_doc_release(&d);
}

static void doc_line_breaks_only_where_the_builder_puts_them(void **state)
{
	struct lr_doc d;
	struct lr_buf *t;
	char *md, *flat;

	(void)state;
	lr_doc_init(&d);
	lr_doc_addf(&lr_doc_heading(&d, 2)->text, "run %d\n## injected", 7);
	t = &lr_doc_prose(&d)->text;
	lr_doc_add_lines(t, "first line\n- second line");
	md = written(&d, LR_FORMAT_MD);
	assert_string_equal(md, "## run 7 ## injected\n\nfirst line\n\\- second line\n\n");
	flat = lr_doc_flat(t);
	assert_string_equal(flat, "first line - second line");
	free(flat);
	free(md);
	lr_doc_release(&d);
}

static void doc_html_escapes_and_nests_facts(void **state)
{
	struct lr_doc d;
	struct lr_doc_block *b;
	char *html;

	(void)state;
	lr_doc_init(&d);
	b = lr_doc_facts(&d);
	lr_doc_add(&b->text, "Sources");
	lr_doc_add(lr_doc_item(&d, b, 0), "a <b> & \"c\"");
	lr_doc_add(lr_doc_item(&d, b, 1), "nested");
	lr_doc_add(lr_doc_item(&d, b, 0), "last");
	html = written(&d, LR_FORMAT_HTML);
	assert_string_equal(html, "<p>Sources:</p>\n<ul>\n<li>a &lt;b&gt; &amp; &quot;c&quot;\n<ul>\n<li>nested</li>\n"
				  "</ul></li>\n<li>last</li>\n</ul>\n");
	free(html);
	lr_doc_release(&d);
}

static void doc_table_and_empty_facts_in_markdown(void **state)
{
	static const struct lr_column cols[] = { { "name", "Name", 0 }, { "n", "N", LR_COL_NUMBER } };
	struct lr_table t;
	struct lr_doc d;
	struct lr_doc_block *b;
	char *md;

	(void)state;
	lr_doc_init(&d);
	lr_table_init(&t, cols, 2);
	lr_table_text(&t, "a|b");
	lr_table_real(&t, 1.25, 1);
	lr_doc_table(&d, 0, &t);
	b = lr_doc_facts(&d);
	lr_doc_add(&b->text, "Failed or missing conditions");
	lr_doc_facts(&d); /* no lead, no items: writes nothing, and no blank line for it */
	lr_doc_table(&d, lr_error_set(LR_EINVAL, "no rows"), &t);
	md = written(&d, LR_FORMAT_MD);
	assert_string_equal(md, "| Name | N |\n|---|---:|\n| a\\|b | 1.2 |\n\nFailed or missing conditions: none.\n\n"
				"(no rows: the table is missing)\n\n");
	free(md);
	lr_doc_release(&d);
}

static void doc_format_names_in_the_enums_order(void **state)
{
	static const char *const want[] = { "md", "csv", "json", "html", "text", "tidy" };
	int i;

	(void)state;
	/* an option's choice index is the enum's value (cmd/report.c casts it) */
	for (i = 0; lr_format_names[i]; i++) {
		assert_string_equal(lr_format_names[i], want[i]);
		assert_string_equal(lr_format_name((enum lr_format)i), want[i]);
	}
	assert_int_equal(i, LR_FORMAT_TIDY + 1);
	assert_string_equal(lr_format_name((enum lr_format)99), "?");
}

/* A fold of a paragraph and a table, then a paragraph after it. */
static void fold_doc(struct lr_doc *d, const char *summary)
{
	static const struct lr_column cols[] = { { "k", "K", 0 } };
	struct lr_table t;

	lr_doc_init(d);
	lr_doc_add(&lr_doc_fold(d)->text, summary);
	lr_doc_add(&lr_doc_prose(d)->text, "inside");
	lr_table_init(&t, cols, 1);
	lr_table_text(&t, "v");
	lr_doc_table(d, 0, &t);
	lr_doc_fold_end(d);
	lr_doc_add(&lr_doc_prose(d)->text, "after");
	assert_int_equal(lr_doc_error(d), 0);
}

static void doc_fold_in_each_format(void **state)
{
	struct lr_doc d;
	char *md, *html, *text;

	(void)state;
	fold_doc(&d, "Passes </summary><script>x</script> (2 rows)");
	assert_int_equal(d.v[0].nfold, 2);
	assert_int_equal(lr_doc_fold_of(&d, 2), 0);
	assert_int_equal(lr_doc_fold_of(&d, 3), (size_t)-1);
	md = written(&d, LR_FORMAT_MD);
	/* the summary escaped as HTML, a blank line after it, the end of the fold after its last block */
	assert_string_equal(
		md, "<details><summary>Passes &lt;/summary&gt;&lt;script&gt;x&lt;/script&gt; (2 rows)</summary>\n"
		    "\n"
		    "inside\n"
		    "\n"
		    "| K |\n|---|\n| v |\n"
		    "\n"
		    "</details>\n"
		    "\n"
		    "after\n\n");
	html = written(&d, LR_FORMAT_HTML);
	assert_non_null(strstr(html, "<details><summary>Passes &lt;/summary&gt;"));
	assert_non_null(strstr(html, "</table>\n</details>\n<p>after</p>\n"));
	text = written(&d, LR_FORMAT_TEXT);
	assert_non_null(strstr(text, "Passes </summary><script>x</script> (2 rows)\n\ninside\n"));
	assert_null(strstr(text, "details"));
	free(md);
	free(html);
	free(text);
	lr_doc_release(&d);
}

static void doc_fold_reads_back_from_json_and_refuses_a_bad_one(void **state)
{
	struct lr_doc d, back;
	json_t *j;

	(void)state;
	fold_doc(&d, "Passes");
	j = lr_doc_json(&d);
	assert_non_null(j);
	assert_int_equal(lr_doc_from_json(&back, j), 0);
	assert_int_equal(back.n, d.n);
	assert_int_equal(back.v[0].kind, LR_BLOCK_FOLD);
	assert_int_equal(back.v[0].nfold, 2);
	lr_doc_release(&back);
	json_integer_set(json_object_get(json_array_get(json_object_get(j, "blocks"), 0), "blocks"), 9);
	assert_int_equal(lr_doc_from_json(&back, j), LR_EINVAL); /* more than follow it */
	lr_doc_release(&back);
	json_integer_set(json_object_get(json_array_get(json_object_get(j, "blocks"), 0), "blocks"), 3);
	json_array_set_new(json_object_get(j, "blocks"), 3,
			   json_pack("{s:s, s:s, s:i}", "kind", "fold", "summary", "x", "blocks", 0));
	assert_int_equal(lr_doc_from_json(&back, j), LR_EINVAL); /* a fold inside a fold */
	lr_doc_release(&back);
	json_decref(j);
	lr_doc_release(&d);
}

/* d's Markdown: its characters, and whether every <details> is closed before the next. */
static size_t md_chars(const struct lr_doc *d, int *balanced)
{
	char *md = written(d, LR_FORMAT_MD), *p = md;
	size_t n = lr_doc_chars(md, strlen(md));
	int open = 0;

	*balanced = 1;
	while ((p = strstr(p, "details>"))) {
		int closing = p[-1] == '/';

		if (closing != open)
			*balanced = 0;
		open = !closing;
		p += 8;
	}
	*balanced = *balanced && !open;
	free(md);
	return n;
}

static void doc_fit_holds_any_cap_whole_units_only(void **state)
{
	struct lr_buf where = LR_BUF_INIT;
	struct lr_doc d;
	size_t whole, got, cap;
	int balanced;

	(void)state;
	lr_doc_code(&where, "labrun report --format json");
	for (cap = 1024; cap <= 9000; cap += 997) {
		lr_doc_init(&d);
		lr_doc_add(&lr_doc_heading(&d, 1)->text, "report");
		for (int k = 0; k < 12; k++) {
			lr_doc_addf(&lr_doc_fold(&d)->text, "section %d", k);
			for (int r = 0; r < 8; r++) /* two bytes a character: a cap in bytes would cut more */
				lr_doc_add(&lr_doc_prose(&d)->text, "détails réglés à la main, écrits une fois, "
								    "relus deux fois, gardés trois fois, vérifiés");
			lr_doc_fold_end(&d);
		}
		whole = md_chars(&d, &balanced);
		assert_true(whole > 9000);
		lr_doc_fit(&d, cap, &where);
		assert_int_equal(lr_doc_error(&d), 0);
		got = md_chars(&d, &balanced);
		assert_true(got <= cap);
		assert_true(balanced);
		assert_int_equal(d.v[d.n - 1].kind, LR_BLOCK_PROSE);
		assert_non_null(strstr(d.v[d.n - 1].text.buf, "Left out to keep this report within"));
		for (size_t i = 0; i < d.n; i++) /* each fold kept whole: its eight paragraphs */
			if (d.v[i].kind == LR_BLOCK_FOLD)
				assert_int_equal(d.v[i].nfold, 8);
		lr_doc_release(&d);
	}
	/* a document within the cap in characters, though not in bytes, is left as it is */
	lr_doc_init(&d);
	for (int r = 0; r < 30; r++)
		lr_doc_add(&lr_doc_prose(&d)->text, "é é é é é é é é é é é é é é é");
	whole = md_chars(&d, &balanced);
	assert_true(whole <= 1024);
	lr_doc_fit(&d, 1024, &where);
	assert_int_equal(d.n, 30);
	lr_doc_release(&d);
	lr_buf_release(&where);
}

static void doc_chars_counts_code_points_and_each_bad_byte(void **state)
{
	(void)state;
	assert_int_equal(lr_doc_chars("abc", 3), 3);
	assert_int_equal(lr_doc_chars("\xc3\xa9\xe2\x86\x92\xf0\x9f\x98\x80", 9), 3);
	assert_int_equal(lr_doc_chars("\x80\x80\xff", 3), 3);
	assert_int_equal(lr_doc_chars("\xc3(", 2), 2);
}

static void path_shown_without_the_machine(void **state)
{
	static const char *const cases[][4] = {
		/* path, cwd, repository top, shown */
		{ "rel/x.ini", "/home/a/repo", "/home/a/repo", "rel/x.ini" },
		{ "/home/a/repo/exp/x.ini", "/home/a/repo", "/home/a/repo", "exp/x.ini" },
		{ "/home/a/repo/data/m.bin", "/home/a/repo/sub/dir", "/home/a/repo", "../../data/m.bin" },
		{ "/home/a/repo/sub", "/home/a/repo/sub/dir", "/home/a/repo", ".." },
		{ "/data/models/qwen", "/home/a/repo", "/home/a/repo", ".../qwen" },
		{ "/home/a/repo2/x", "/home/a/repo", "/home/a/repo", ".../x" },
		{ "/tmp/t/work/x", "/tmp/t/work", NULL, "x" },
		{ "/tmp/t/other/x", "/tmp/t/work", NULL, ".../x" },
	};
	char *got;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		got = lr_path_relative(cases[i][0], cases[i][1], cases[i][2]);
		assert_string_equal(got, cases[i][3]);
		free(got);
	}
	got = lr_argv_text_relative("[\"/usr/local/bin/labrun\", \"run\", \"/home/a/repo/x.ini\", \"--store=/srv/s\"]",
				    "/home/a/repo", "/home/a/repo");
	assert_string_equal(got, "labrun run x.ini --store=.../s");
	free(got);
	assert_true(lr_path_within("/a/b", "/a/"));
	assert_false(lr_path_within("/ab", "/a"));
	assert_false(lr_path_within("/a", "/"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(doc_hostile_text_stays_text_in_markdown),
		cmocka_unit_test(doc_code_span_holds_backticks),
		cmocka_unit_test(doc_line_breaks_only_where_the_builder_puts_them),
		cmocka_unit_test(doc_html_escapes_and_nests_facts),
		cmocka_unit_test(doc_table_and_empty_facts_in_markdown),
		cmocka_unit_test(doc_format_names_in_the_enums_order),
		cmocka_unit_test(doc_fold_in_each_format),
		cmocka_unit_test(doc_fold_reads_back_from_json_and_refuses_a_bad_one),
		cmocka_unit_test(doc_fit_holds_any_cap_whole_units_only),
		cmocka_unit_test(doc_chars_counts_code_points_and_each_bad_byte),
		cmocka_unit_test(path_shown_without_the_machine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
