/* labrun site: the page frame, the index, the diff page, and the site's style and script. */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/walk.h"
#include "cmd/cmd.h"
#include "cmd/site-int.h"

/* Narrow screens get the same tables, scrolled sideways; long hashes break rather than overflow. */
static const char css[] =
	"body{font:14px/1.45 sans-serif;margin:16px auto;max-width:1200px;padding:0 12px;color:#222}\n"
	"h1.passed{color:#1a7f37}h1.failed,h1.abandoned{color:#b42318}h1.cancelled{color:#9a6700}\n"
	"table{border-collapse:collapse;margin:8px 0;display:block;overflow-x:auto;max-width:100%}\n"
	"td,th{border:1px solid #bbb;padding:3px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}\n"
	"table.kv th{background:#f6f6f6;white-space:nowrap}td.n{text-align:right}\n"
	"code{background:#f3f3f3;padding:0 3px;word-break:break-all}\n"
	".tag{color:#666;font-size:12px}.ok{color:#1a7f37}.bad{color:#b42318}\n"
	"tr.passed td.status{color:#1a7f37}tr.failed td.status,tr.abandoned td.status{color:#b42318}\n"
	"#controls{margin:8px 0}#controls input,#controls select{font:inherit;padding:2px 4px;margin-right:8px}\n"
	".chart{margin:6px 12px 6px 0;max-width:100%;height:auto}\n";

/*
 * Plain JavaScript, no library: the index's filter, and the diff page, which
 * loads two runs' data files as scripts (a browser fetches nothing else from
 * file://) and shows only the facts that differ.
 */
static const char js[] =
	"\"use strict\";\n"
	"var labrunRuns = {};\n"
	"function labrunText(id, text) { document.getElementById(id).textContent = text; }\n"
	"function labrunFilter() {\n"
	"  var q = document.getElementById(\"filter\").value.toLowerCase().trim();\n"
	"  var kind = document.getElementById(\"kind\").value, shown = 0, rows = document.querySelectorAll(\"#runs tbody tr\");\n"
	"  for (var i = 0; i < rows.length; i++) {\n"
	"    var r = rows[i], on = (!kind || r.dataset.kind === kind) && (!q || r.textContent.toLowerCase().indexOf(q) >= 0);\n"
	"    r.hidden = !on;\n"
	"    if (on) shown++;\n"
	"  }\n"
	"  labrunText(\"count\", shown + \" of \" + rows.length + \" runs\");\n"
	"}\n"
	"function labrunIndex() {\n"
	"  var m = /^#q=(.*)$/.exec(location.hash);\n"
	"  if (m) document.getElementById(\"filter\").value = decodeURIComponent(m[1]);\n"
	"  document.getElementById(\"controls\").hidden = false;\n"
	"  document.getElementById(\"filter\").addEventListener(\"input\", labrunFilter);\n"
	"  document.getElementById(\"kind\").addEventListener(\"change\", labrunFilter);\n"
	"  labrunFilter();\n"
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

static const char index_head[] =
	"<h1>Runs</h1>\n"
	"<div id=\"controls\" hidden><input id=\"filter\" type=\"search\" placeholder=\"filter: id, status, experiment, "
	"issue, command\" aria-label=\"filter the runs\" size=\"40\"><select id=\"kind\" aria-label=\"kind\">"
	"<option value=\"\">every kind</option><option>record</option><option>experiment</option><option>import</option>"
	"<option>bench</option><option>collect</option></select><span id=\"count\"></span></div>\n"
	"<p><a href=\"diff.html\">Compare two runs</a></p>\n"
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
	"<script>labrunDiff();</script>\n";

void cmd_site_head(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
	      "<meta name=\"generator\" content=\"labrun site\"><title>",
	      f);
	cmd_html_text(f, title);
	fputs(" - labrun</title><link rel=\"stylesheet\" href=\"site.css\"><script src=\"site.js\"></script></head><body>\n", f);
}

void cmd_site_index_row(FILE *f, const struct lr_run *r)
{
	char *cmd = cmd_argv_text(r->argv_json);
	const char *status = lr_status_name(r->status);

	fprintf(f, "<tr class=\"%s\" data-kind=\"%s\"><td class=\"n\"><a href=\"run-%lld.html\">%lld</a></td><td>%s</td>"
		   "<td class=\"status\">%s</td><td class=\"n\">",
		status, lr_run_kind_name(r->kind), (long long)r->id, (long long)r->id, lr_run_kind_name(r->kind), status);
	if (r->has_exit)
		fprintf(f, "%d", r->exit_code);
	else if (r->signal)
		fprintf(f, "s%d", r->signal);
	else
		fputs("-", f);
	fprintf(f, "</td><td class=\"n\">%.2f</td><td>", r->wall_s);
	cmd_html_text(f, r->started_at ? r->started_at : "");
	fputs("</td><td>", f);
	cmd_html_text(f, r->experiment ? r->experiment : "");
	fputs("</td><td>", f);
	for (size_t i = 0; i < r->issues.n; i++) {
		cmd_html_text(f, r->issues.v[i]);
		fputs(i + 1 < r->issues.n ? " " : "", f);
	}
	fputs("</td><td><code>", f);
	cmd_html_text(f, cmd ? cmd : r->argv_json);
	fputs("</code></td></tr>\n", f);
	free(cmd);
}

void cmd_site_drift_table(FILE *f, const struct lr_comparison *cmp, int64_t a, int64_t b)
{
	if (!cmp->ndrift)
		return;
	fprintf(f, "<table class=\"drift\">\n<tr><th>what</th><th>key</th><th>run %lld</th><th>run %lld</th></tr>\n",
		(long long)a, (long long)b);
	for (size_t i = 0; i < cmp->ndrift; i++) {
		const struct lr_drift *d = &cmp->drift[i];

		fprintf(f, "<tr><td>%s</td><td>", d->what);
		cmd_html_text(f, d->key);
		fputs("</td><td><code>", f);
		cmd_html_text(f, d->a);
		fputs("</code></td><td><code>", f);
		cmd_html_text(f, d->b);
		fputs("</code></td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static int write_text(const char *dir, const char *name, const char *a, size_t alen, const char *b, size_t blen,
		      const char *c)
{
	char path[PATH_MAX * 2];
	FILE *f;
	int rc;

	if ((rc = lr_path(path, sizeof path, "%s/%s", dir, name)))
		return rc;
	if (!(f = fopen(path, "w")))
		return lr_error_set(LR_EIO, "cannot write '%s': %s", path, strerror(errno));
	fwrite(a, 1, alen, f);
	fwrite(b, 1, blen, f);
	fputs(c, f);
	if (ferror(f) | (fclose(f) != 0))
		return lr_error_set(LR_EIO, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}

int cmd_site_files(const char *dir, const char *rows, size_t len, int n)
{
	char *head = NULL, *top = NULL, title[64];
	size_t hlen = 0, tlen = 0;
	FILE *f;
	int rc;

	snprintf(title, sizeof title, "%d run%s", n, n == 1 ? "" : "s");
	if (!(f = open_memstream(&head, &hlen)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	cmd_site_head(f, title);
	fputs(index_head, f);
	if (fclose(f) != 0 || !(f = open_memstream(&top, &tlen))) {
		free(head);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	cmd_site_head(f, "two runs side by side");
	fclose(f);
	if (!top)
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	else if (!(rc = write_text(dir, "index.html", head, hlen, rows, len,
				   "</tbody></table>\n<script>labrunIndex();</script>\n</body></html>\n")) &&
		 !(rc = write_text(dir, "diff.html", top, tlen, diff_body, strlen(diff_body), "</body></html>\n")) &&
		 !(rc = write_text(dir, "site.css", css, strlen(css), "", 0, "")) &&
		 !(rc = write_text(dir, "site.js", js, strlen(js), "", 0, "")))
		rc = write_text(dir, ".labrun-site", "", 0, "", 0, "a static site written by 'labrun site'\n");
	free(head);
	free(top);
	return rc;
}
