#ifndef LR_REPORT_TEXT_H
#define LR_REPORT_TEXT_H

/*
 * Text for people, escaped for where it goes: Markdown, HTML, a terminal;
 * command lines as a shell takes them; sizes.
 */

#include <stdio.h>

/* The argv JSON of a run as a shell-quoted command line (malloc'd). */
char *lr_argv_text(const char *argv_json);

/*
 * The same without the recording machine's paths (docs/design.md): argv[0]
 * given as an absolute path is its last name; any other absolute path (a word,
 * or an option's value after '=') goes through lr_path_relative. Malloc'd.
 */
char *lr_argv_text_relative(const char *argv_json, const char *cwd, const char *top);

/* Whether path is dir or lies under it ("/" and "" hold nothing: a path under them says where it is). */
int lr_path_within(const char *path, const char *dir);

/*
 * An absolute path as a report shows it: relative to cwd when inside it;
 * from cwd through "../" when both lie inside the repository's top 'top'
 * (NULL: none), so it still names the same file; else ".../NAME", its last
 * name only. A relative path is as given. Malloc'd (NULL: out of memory).
 */
char *lr_path_relative(const char *path, const char *cwd, const char *top);

/* Write "  KEY  VALUE" style human sizes: "12 B", "3.4 KiB"... into buf. */
const char *lr_human_size(char *buf, size_t len, long long bytes);

/*
 * s as Markdown text from the outside world (route names, case ids, metric
 * and check names), shown as written: line breaks and other control
 * characters become blanks, so nothing ends a row or starts a heading; in a
 * table cell (cell set) '|' is escaped. Nothing in it links, hides or
 * formats: '<' and '&' are written as entities (no raw HTML, comment,
 * autolink or entity of its own); '\\', '`', '*', '~' and a '_' that could
 * open or close emphasis get a backslash (no code span, emphasis or
 * strikethrough), as do a '(' or '[' after ']' (no inline or reference link)
 * and "://" and "www." (no GFM autolink). An
 * e-mail address stays as written: GitHub may link it as mailto: showing its
 * whole target (docs/design.md). What starts a block is the document
 * writer's to escape (doc-write.c), as only it knows where one starts.
 */
void lr_md_text(FILE *f, const char *s, int cell);
/* s for a terminal: control characters (escape sequences, line breaks) as \xHH, so text from a store or another host cannot move the cursor, recolour or rewrite what was printed. */
void lr_term_text(FILE *f, const char *s);

/*
 * s naming a path for a terminal, so that a name cannot forge a line: '\\'
 * doubled, control characters C-style (\n, \t, \r...) or \xHH; the rest as
 * is. What labrun verify prints goes through it.
 */
void lr_term_name(FILE *f, const char *s);

/* s with &, <, > and " escaped for HTML text and attribute values. */
void lr_html_text(FILE *f, const char *s);

#endif
