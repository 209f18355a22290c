/*
 * [report] of an experiment definition: further metrics, each a table per
 * arm pair, and the forms the team writes its figures in. Checked strictly
 * with the rest of the file when it runs; read alone from a stored
 * definition when a report is built (docs/design.md says why).
 */
#include "config.h"
#include "base/system.h"

#include <ctype.h>

#include <ini.h>

#include "base/enumname.h"
#include "base/error.h"
#include "experiment/expdef-int.h"

static const char *const form_names[] = { "ratio", "range", "mean" }; /* bit i is LR_FORM_* */
static const struct lr_enum_names forms = LR_ENUM_NAMES("form", form_names);

/* The comma-separated items of v, blanks around each removed, into item[0..*n) (cut into buf). */
static int split(struct parse *p, const char *k, const char *v, char *buf, size_t len, char **item, int *n)
{
	char *save = NULL, *tok, *end;

	*n = 0;
	if (strlen(v) >= len)
		return lr_expdef_fail(p, p->line, "'%s' is longer than %zu characters", k, len - 1);
	snprintf(buf, len, "%s", v);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*tok))
			tok++;
		for (end = tok + strlen(tok); end > tok && isspace((unsigned char)end[-1]);)
			*--end = '\0';
		if (!*tok)
			return lr_expdef_fail(p, p->line, "'%s' has an empty item", k);
		if (*n >= LR_EXP_MAXMETRICS)
			return lr_expdef_fail(p, p->line, "'%s' lists more than %d items", k, LR_EXP_MAXMETRICS);
		item[(*n)++] = tok;
	}
	return *n ? 1 : lr_expdef_fail(p, p->line, "'%s' is an empty list", k);
}

static int metrics_key(struct parse *p, struct lr_exp_report *r, const char *v)
{
	char buf[512], *item[LR_EXP_MAXMETRICS];
	int n, i, j;

	if (!split(p, "metrics", v, buf, sizeof buf, item, &n))
		return 0;
	for (i = 0; i < n; i++) {
		if (!strcmp(item[i], "all")) {
			if (n > 1)
				return lr_expdef_fail(p, p->line,
						      "'metrics' lists 'all' beside names; 'all' stands alone");
			r->all_metrics = 1;
			return 1;
		}
		if (strlen(item[i]) >= sizeof r->metrics[0] ||
		    strspn(item[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-/") !=
			    strlen(item[i]))
			return lr_expdef_fail(p, p->line,
					      "'metrics' has '%s'; expected metric names such as throughput, or all",
					      item[i]);
		for (j = 0; j < i; j++)
			if (!strcmp(item[j], item[i]))
				return lr_expdef_fail(p, p->line, "'metrics' lists '%s' twice", item[i]);
		snprintf(r->metrics[r->nmetrics++], sizeof r->metrics[0], "%s", item[i]);
	}
	return 1;
}

static int forms_key(struct parse *p, struct lr_exp_report *r, const char *v)
{
	char buf[128], *item[LR_EXP_MAXMETRICS];
	int n, i, f;

	if (!split(p, "forms", v, buf, sizeof buf, item, &n))
		return 0;
	for (i = 0; i < n; i++) {
		if (lr_enum_parse(&forms, item[i], &f)) {
			lr_error_clear();
			return lr_expdef_fail(p, p->line, "'forms' has '%s'; expected ratio, range or mean", item[i]);
		}
		if (r->forms & (1u << f))
			return lr_expdef_fail(p, p->line, "'forms' lists '%s' twice", item[i]);
		r->forms |= 1u << f;
	}
	return 1;
}

int lr_expdef_report_key(struct parse *p, struct lr_exp_report *r, const char *k, const char *v)
{
	if (!strcmp(k, "metrics"))
		return metrics_key(p, r, v);
	if (!strcmp(k, "forms"))
		return forms_key(p, r, v);
	return lr_expdef_fail(p, p->line, "unknown key '%s' in [report]; expected metrics or forms", k);
}

int lr_expdef_report_check(struct parse *p)
{
	const struct lr_expdef *d = p->d;
	const struct lr_exp_report *r = &d->report;
	int line = lr_expdef_key_line(p, "report", "metrics");

	if ((r->nmetrics || r->all_metrics) && d->target != LR_TARGET_COMMAND)
		return lr_expdef_fail(p, line,
				      "'metrics' is for 'target = command' only: only a command's executions "
				      "write metrics ($LABRUN_METRICS)");
	for (int i = 0; i < r->nmetrics; i++)
		if (!strcmp(r->metrics[i], d->metric))
			return lr_expdef_fail(p, line,
					      "'metrics' lists '%s', the design's own metric ([design] metric), whose "
					      "tables every report shows",
					      d->metric);
	return 1;
}

/* The stored text's reader: [report] alone, every other section left as it ran. */
struct report_reader {
	struct parse p;
	struct lr_exp_report *r;
};

static int report_line(void *user, const char *section, const char *name, const char *value)
{
	struct report_reader *rd = user;

	return strcmp(section, "report") ? 1 : lr_expdef_report_key(&rd->p, rd->r, name, value);
}

int lr_expdef_report_read(const char *path, const char *text, struct lr_exp_report *out)
{
	struct report_reader rd;

	memset(out, 0, sizeof *out);
	memset(&rd, 0, sizeof rd);
	rd.r = out;
	if (ini_parse_string(text, report_line, &rd) == 0 && !rd.p.err[0])
		return 0;
	lr_error_set(LR_EINVAL, "cannot read [report] of the stored definition '%s': %s", path,
		     rd.p.err[0] ? rd.p.err : "not an INI text");
	lr_error_hint("a newer labrun may have run it; report on it with that version");
	memset(out, 0, sizeof *out);
	return LR_EINVAL;
}
