/*
 * The document model and its writers: text from the outside world cannot
 * change a document's structure in any format (no heading, list, table row,
 * link, raw HTML or comment of its own), code spans survive backticks, and
 * blocks are written apart by one blank line.
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
				"\\[x]: http://elsewhere\n"
				"\n"
				"* see [this]\\(http://elsewhere) and ![img]\\(http://e/x.png) and [r]\\[ref]\n"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(doc_hostile_text_stays_text_in_markdown),
		cmocka_unit_test(doc_code_span_holds_backticks),
		cmocka_unit_test(doc_line_breaks_only_where_the_builder_puts_them),
		cmocka_unit_test(doc_html_escapes_and_nests_facts),
		cmocka_unit_test(doc_table_and_empty_facts_in_markdown),
		cmocka_unit_test(doc_format_names_in_the_enums_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
