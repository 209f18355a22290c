/* labrun site: the page frame, the index, the diff page, and the site's style and script. */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "base/walk.h"
#include "report/report.h"
#include "report/text.h"
#include "report/render-int.h"

/* Narrow screens get the same tables, scrolled sideways; long hashes break rather than overflow. */
static const char css[] =
	"body{font:14px/1.45 sans-serif;margin:16px auto;max-width:1200px;padding:0 12px;color:#222}\n"
	"h1.passed{color:#1a7f37}h1.failed,h1.abandoned{color:#b42318}h1.cancelled{color:#9a6700}\n"
	"table{border-collapse:collapse;margin:8px 0;display:block;overflow-x:auto;max-width:100%}\n"
	"td,th{border:1px solid #bbb;padding:3px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}\n"
	"@media (min-width:900px){th{overflow-wrap:normal}}table.kv th{background:#f6f6f6;white-space:nowrap}td.n{text-align:right}\n"
	"@media (max-width:600px){table{font-size:12px}td,th{padding:2px 3px}}\n"
	"code{background:#f3f3f3;padding:0 3px;word-break:break-all}\n"
	".tag{color:#666;font-size:12px}.ok{color:#1a7f37}.bad{color:#b42318}\n"
	"tr.passed td.status{color:#1a7f37}tr.failed td.status,tr.abandoned td.status{color:#b42318}\n"
	"#controls{margin:8px 0}#controls input,#controls select{font:inherit;padding:2px 4px;margin-right:8px}\n"
	".chart{margin:6px 12px 6px 0;max-width:100%;height:auto}\n"
	".tokens{display:flex;flex-wrap:wrap;gap:2px;margin:6px 0}.tok{display:flex;flex-direction:column;"
	"border:1px solid #bbb;font-family:monospace;text-align:right}.tok span{padding:1px 5px}\n"
	".tok span:first-child{background:#f6f6f6;color:#666}.tok.head{text-align:left;font-family:inherit}\n"
	".tok.bad{border-color:#b42318}.tok.bad span+span{background:#ffe3e0;color:#b42318}\n"
	"ul.key{list-style:none;padding:0}ul.key li{display:inline-flex;align-items:center;gap:4px;margin:2px 14px 2px 0}\n"
	"section.cell{border-left:3px solid #ddd;padding:0 10px;margin:10px 0}section.cell:target{border-color:#9a6700;"
	"background:#fff8e1}\n"
	"svg.grid a:hover rect,svg.grid a:focus rect{stroke:#222}tr.bad td{color:#b42318}details{margin:4px 0}\n";

/*
 * Plain JavaScript, no library: the index's filter, and the diff page, which
 * loads two runs' data files as scripts (a browser fetches nothing else from
 * file://) and shows only the facts that differ.
 */
static const char js[] =
	"\"use strict\";\n"
	"var labrunRuns = {};\n"
	"function labrunText(id, text) { document.getElementById(id).textContent = text; }\n"
	"var labrunAll = null, labrunTexts = null, labrunPage = null;\n"
	"function labrunIndexRows(rows) { labrunAll = rows; labrunFilter(); }\n"
	"function labrunFilter() {\n"
	"  var q = document.getElementById(\"filter\").value.toLowerCase().trim();\n"
	"  var kind = document.getElementById(\"kind\").value, body = document.querySelector(\"#runs tbody\"), i;\n"
	"  var nav = document.querySelectorAll(\".pages\");\n"
	"  if (labrunPage === null) labrunPage = body.innerHTML;\n"
	"  for (i = 0; i < nav.length; i++) nav[i].hidden = !!(q || kind);\n"
	"  if (!q && !kind) { body.innerHTML = labrunPage; labrunText(\"count\", \"\"); return; }\n"
	"  if (!labrunAll) {  /* every run's row, read once, only when a filter asks for it */\n"
	"    labrunText(\"count\", \"reading every run...\");\n"
	"    if (!document.getElementById(\"index-data\")) {\n"
	"      var s = document.createElement(\"script\");\n"
	"      s.id = \"index-data\";\n"
	"      s.src = \"data/index.js\";\n"
	"      document.head.appendChild(s);\n"
	"    }\n"
	"    return;\n"
	"  }\n"
	"  if (!labrunTexts) {\n"
	"    labrunTexts = [];\n"
	"    for (i = 0; i < labrunAll.length; i++) labrunTexts.push(labrunAll[i].replace(/<[^>]*>/g, \" \").toLowerCase());\n"
	"  }\n"
	"  var hit = [], want = \" data-kind=\\\"\" + kind + \"\\\"\";\n"
	"  for (i = 0; i < labrunAll.length; i++)\n"
	"    if ((!kind || labrunAll[i].indexOf(want) >= 0) && (!q || labrunTexts[i].indexOf(q) >= 0)) hit.push(labrunAll[i]);\n"
	"  body.innerHTML = hit.slice(0, 500).join(\"\");\n"
	"  labrunText(\"count\", hit.length + \" of \" + labrunAll.length + \" runs\" + (hit.length > 500 ? \", the newest 500 shown\" : \"\"));\n"
	"}\n"
	"function labrunIndex() {\n"
	"  var m = /^#q=(.*)$/.exec(location.hash);\n"
	"  document.getElementById(\"controls\").hidden = false;\n"
	"  document.getElementById(\"filter\").addEventListener(\"input\", labrunFilter);\n"
	"  document.getElementById(\"kind\").addEventListener(\"change\", labrunFilter);\n"
	"  if (m) { document.getElementById(\"filter\").value = decodeURIComponent(m[1]); labrunFilter(); }\n"
	"}\n"
	"function labrunRun(r) { labrunRuns[r.id] = r; labrunDiffShow(); }\n"
	"function labrunLoad(id) {\n"
	"  if (labrunRuns[id] || document.getElementById(\"data-\" + id)) return;\n"
	"  var s = document.createElement(\"script\");\n"
	"  s.id = \"data-\" + id;\n"
	"  s.src = \"data/run-\" + id + \".js\";\n"
	"  s.onerror = function () { labrunText(\"diff-status\", \"run \" + id + \" is not in this site\"); };\n"
	"  document.head.appendChild(s);\n"
	"}\n"
	"function labrunPair() {\n"
	"  var m = /^#(\\d+),(\\d+)$/.exec(location.hash);\n"
	"  return m ? [m[1], m[2]] : null;\n"
	"}\n"
	"function labrunCell(tr, text, cls) {\n"
	"  var td = document.createElement(\"td\");\n"
	"  td.textContent = text;\n"
	"  if (cls) td.className = cls;\n"
	"  tr.appendChild(td);\n"
	"}\n"
	"function labrunDiffShow() {\n"
	"  var p = labrunPair(), body = document.querySelector(\"#diff tbody\");\n"
	"  if (!p || !labrunRuns[p[0]] || !labrunRuns[p[1]]) return;\n"
	"  var a = labrunRuns[p[0]], b = labrunRuns[p[1]], va = {}, order = [], same = 0, differ = 0, k, i;\n"
	"  for (i = 0; i < a.facts.length; i++) { k = a.facts[i][0] + \"\\u0000\" + a.facts[i][1]; va[k] = a.facts[i][2]; order.push(k); }\n"
	"  var vb = {};\n"
	"  for (i = 0; i < b.facts.length; i++) { k = b.facts[i][0] + \"\\u0000\" + b.facts[i][1]; vb[k] = b.facts[i][2]; if (!(k in va)) order.push(k); }\n"
	"  body.textContent = \"\";\n"
	"  for (i = 0; i < order.length; i++) {\n"
	"    k = order[i];\n"
	"    if (va[k] === vb[k]) { same++; continue; }\n"
	"    differ++;\n"
	"    var tr = document.createElement(\"tr\"), parts = k.split(\"\\u0000\");\n"
	"    labrunCell(tr, parts[0]); labrunCell(tr, parts[1]);\n"
	"    labrunCell(tr, k in va ? va[k] : \"-\", \"a\"); labrunCell(tr, k in vb ? vb[k] : \"-\", \"b\");\n"
	"    body.appendChild(tr);\n"
	"  }\n"
	"  labrunText(\"col-a\", \"run \" + a.id + \" (\" + a.kind + \", \" + a.status + \")\");\n"
	"  labrunText(\"col-b\", \"run \" + b.id + \" (\" + b.kind + \", \" + b.status + \")\");\n"
	"  labrunText(\"diff-status\", differ + \" facts differ, \" + same + \" are the same\" +\n"
	"             (a.kind !== b.kind ? \"; the runs are of different kinds\" : \"\"));\n"
	"}\n"
	"function labrunDiff() {\n"
	"  document.getElementById(\"pick\").hidden = false;\n"
	"  document.getElementById(\"nojs\").hidden = true;\n"
	"  document.getElementById(\"pick\").addEventListener(\"submit\", function (e) {\n"
	"    e.preventDefault();\n"
	"    location.hash = document.getElementById(\"a\").value + \",\" + document.getElementById(\"b\").value;\n"
	"  });\n"
	"  function go() {\n"
	"    var p = labrunPair();\n"
	"    if (!p) { labrunText(\"diff-status\", \"give two run ids\"); return; }\n"
	"    document.getElementById(\"a\").value = p[0];\n"
	"    document.getElementById(\"b\").value = p[1];\n"
	"    labrunText(\"diff-status\", \"loading runs \" + p[0] + \" and \" + p[1]);\n"
	"    labrunLoad(p[0]); labrunLoad(p[1]); labrunDiffShow();\n"
	"  }\n"
	"  window.addEventListener(\"hashchange\", go);\n"
	"  go();\n"
	"}\n";

static const char index_controls[] =
	"<div id=\"controls\" hidden><input id=\"filter\" type=\"search\" placeholder=\"filter every run: id, status, "
	"experiment, issue, command\" aria-label=\"filter the runs\" size=\"40\"><select id=\"kind\" aria-label=\"kind\">"
	"<option value=\"\">every kind</option><option>record</option><option>experiment</option><option>import</option>"
	"<option>bench</option><option>collect</option></select><span id=\"count\"></span></div>\n"
	"<p><a href=\"diff.html\">Compare two runs</a></p>\n";

static const char index_table[] =
	"<table id=\"runs\">\n<thead><tr><th>run</th><th>kind</th><th>status</th><th>exit</th><th>wall s</th><th>started</th>"
	"<th>experiment</th><th>issues</th><th>command</th></tr></thead>\n<tbody>\n";

static const char diff_body[] =
	"<p><a href=\"index.html\">all runs</a></p>\n<h1>Two runs side by side</h1>\n"
	"<p id=\"nojs\">This page needs JavaScript; without it, each run's page shows what changed since the previous "
	"run of its kind.</p>\n"
	"<form id=\"pick\" hidden><label>run <input id=\"a\" size=\"6\" inputmode=\"numeric\"></label> "
	"<label>against run <input id=\"b\" size=\"6\" inputmode=\"numeric\"></label> <button>compare</button></form>\n"
	"<p id=\"diff-status\"></p>\n"
	"<table id=\"diff\"><thead><tr><th>what</th><th>key</th><th id=\"col-a\">A</th><th id=\"col-b\">B</th></tr></thead>"
	"<tbody></tbody></table>\n"
	"<script>labrunDiff();</script>\n</body></html>\n";

void lr_render_site_head(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
	      "<meta name=\"generator\" content=\"labrun site\"><title>",
	      f);
	lr_html_text(f, title);
	fputs(" - labrun</title><link rel=\"stylesheet\" href=\"site.css\"><script src=\"site.js\"></script></head><body>\n",
	      f);
}

void lr_render_site_index_row(FILE *f, const struct lr_run *r)
{
	char *cmd = lr_argv_text(r->argv_json);
	const char *status = lr_status_name(r->status);

	fprintf(f,
		"<tr class=\"%s\" data-kind=\"%s\"><td class=\"n\"><a href=\"run-%lld.html\">%lld</a></td><td>%s</td>"
		"<td class=\"status\">%s</td><td class=\"n\">",
		status, lr_run_kind_name(r->kind), (long long)r->id, (long long)r->id, lr_run_kind_name(r->kind),
		status);
	if (r->has_exit)
		fprintf(f, "%d", r->exit_code);
	else if (r->signal)
		fprintf(f, "s%d", r->signal);
	else
		fputs("-", f);
	fprintf(f, "</td><td class=\"n\">%.2f</td><td>", r->wall_s);
	lr_html_text(f, r->started_at ? r->started_at : "");
	fputs("</td><td>", f);
	lr_html_text(f, r->experiment ? r->experiment : "");
	fputs("</td><td>", f);
	for (size_t i = 0; i < r->issues.n; i++) {
		lr_html_text(f, r->issues.v[i]);
		fputs(i + 1 < r->issues.n ? " " : "", f);
	}
	fputs("</td><td><code>", f);
	lr_html_text(f, cmd ? cmd : r->argv_json);
	fputs("</code></td></tr>\n", f);
	free(cmd);
}

void lr_render_site_drift_table(FILE *f, const struct lr_comparison *cmp, int64_t a, int64_t b)
{
	if (!cmp->ndrift)
		return;
	fprintf(f, "<table class=\"drift\">\n<tr><th>what</th><th>key</th><th>run %lld</th><th>run %lld</th></tr>\n",
		(long long)a, (long long)b);
	for (size_t i = 0; i < cmp->ndrift; i++) {
		const struct lr_drift *d = &cmp->drift[i];

		fprintf(f, "<tr><td>%s</td><td>", d->what);
		lr_html_text(f, d->key);
		fputs("</td><td><code>", f);
		lr_html_text(f, d->a);
		fputs("</code></td><td><code>", f);
		lr_html_text(f, d->b);
		fputs("</code></td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

void lr_render_site_fact(FILE *f, const char *name, const char *value)
{
	fprintf(f, "<tr><th>%s</th><td>", name);
	lr_html_text(f, value && *value ? value : "-");
	fputs("</td></tr>\n", f);
}

int lr_render_site_create(FILE **f, const char *dir, const char *name)
{
	char path[PATH_MAX * 2];
	int rc;

	if ((rc = lr_path(path, sizeof path, "%s/%s", dir, name)))
		return rc;
	if (!(*f = fopen(path, "w")))
		return lr_error_set(LR_EIO, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}

int lr_render_site_close(FILE *f, const char *name)
{
	if (ferror(f) | (fclose(f) != 0))
		return lr_error_set(LR_EIO, "cannot write '%s': %s", name, strerror(errno));
	return 0;
}

static int write_text(const char *dir, const char *name, const char *head_title, const char *body)
{
	FILE *f;
	int rc;

	if ((rc = lr_render_site_create(&f, dir, name)))
		return rc;
	if (head_title)
		lr_render_site_head(f, head_title);
	fputs(body, f);
	return lr_render_site_close(f, name);
}

static const char *page_name(char *buf, size_t len, size_t page)
{
	if (page == 1)
		snprintf(buf, len, "index.html");
	else
		snprintf(buf, len, "index-%zu.html", page);
	return buf;
}

/* "runs 10000 to 9501 of 10000; pages 1 2 ...": the way between the index pages, without JavaScript */
static void page_nav(FILE *f, const struct lr_strlist *rows, size_t page, size_t pages)
{
	size_t first = (page - 1) * LR_RENDER_SITE_PAGE_ROWS, last = first + LR_RENDER_SITE_PAGE_ROWS;
	char name[64];

	if (last > rows->n)
		last = rows->n;
	fprintf(f, "<p class=\"pages\">%zu run%s", rows->n, rows->n == 1 ? "" : "s");
	if (pages > 1) {
		fprintf(f, ", newest first; this page: %zu to %zu. Pages:", first + 1, last);
		for (size_t p = 1; p <= pages; p++)
			if (p == page)
				fprintf(f, " <b>%zu</b>", p);
			else
				fprintf(f, " <a href=\"%s\">%zu</a>", page_name(name, sizeof name, p), p);
	}
	fputs("</p>\n", f);
}

/* The issues the runs are evidence for, each a link to its page. */
static void issue_links(FILE *f, const struct lr_kvlist *issues)
{
	if (!issues->n)
		return;
	fputs("<p id=\"issues\">Issues:", f);
	for (size_t i = 0; i < issues->n; i++) {
		fprintf(f, "%s <a href=\"%s\">", i ? "," : "", issues->v[i].value);
		lr_html_text(f, issues->v[i].key);
		fputs("</a> (", f);
		lr_html_text(f, issues->v[i].tag);
		fputs(")", f);
	}
	fputs("</p>\n", f);
}

static int index_page(const char *dir, const struct lr_strlist *rows, const char *trust, const struct lr_kvlist *issues,
		      size_t page, size_t pages)
{
	char name[64], title[96];
	FILE *f;
	int rc;

	page_name(name, sizeof name, page);
	if ((rc = lr_render_site_create(&f, dir, name)))
		return rc;
	snprintf(title, sizeof title, "%zu run%s", rows->n, rows->n == 1 ? "" : "s");
	lr_render_site_head(f, title);
	fputs("<h1>Runs</h1>\n<p id=\"trust\">", f);
	lr_html_text(f, trust);
	fputs("</p>\n", f);
	issue_links(f, issues);
	fputs(index_controls, f);
	page_nav(f, rows, page, pages);
	fputs(index_table, f);
	for (size_t i = (page - 1) * LR_RENDER_SITE_PAGE_ROWS; i < page * LR_RENDER_SITE_PAGE_ROWS && i < rows->n; i++)
		fputs(rows->v[rows->n - 1 - i], f);
	fputs("</tbody></table>\n", f);
	page_nav(f, rows, page, pages);
	fputs("<script>labrunIndex();</script>\n</body></html>\n", f);
	return lr_render_site_close(f, name);
}

/* data/index.js: every row, newest first, for a filter over all the runs (loaded only when one is asked for) */
static int index_data(const char *dir, const struct lr_strlist *rows)
{
	json_t *all = json_array();
	FILE *f;
	int rc;

	for (size_t i = rows->n; i-- > 0;)
		json_array_append_new(all, json_string(rows->v[i]));
	if (!(rc = lr_render_site_create(&f, dir, "data/index.js"))) {
		fputs("labrunIndexRows(", f);
		json_dumpf(all, f, JSON_COMPACT | JSON_ENSURE_ASCII);
		fputs(");\n", f);
		rc = lr_render_site_close(f, "data/index.js");
	}
	json_decref(all);
	return rc;
}

int lr_render_site_files(const char *dir, const struct lr_strlist *rows, const char *trust,
			 const struct lr_kvlist *issues)
{
	size_t pages = rows->n ? (rows->n + LR_RENDER_SITE_PAGE_ROWS - 1) / LR_RENDER_SITE_PAGE_ROWS : 1;
	int rc = 0;

	for (size_t p = 1; p <= pages && !rc; p++)
		rc = index_page(dir, rows, trust, issues, p, pages);
	if (!rc && !(rc = index_data(dir, rows)) &&
	    !(rc = write_text(dir, "diff.html", "two runs side by side", diff_body)) &&
	    !(rc = write_text(dir, "site.css", NULL, css)))
		rc = write_text(dir, "site.js", NULL, js);
	return rc;
}
