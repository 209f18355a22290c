/* An experiment definition's [record] section and an arm's binding.KEY: where it ran and with what (record/facts.h). */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "experiment/expdef-int.h"
#include "record/record.h"
#include "record/secretlike.h"

/* KEY = VALUE of option 'opt' into l, checked as the option checks it on the command line. 1: ok, 0: failed. */
static int fact(struct parse *p, struct lr_kvlist *l, const char *opt, const char *k, const char *v)
{
	char arg[LR_EXP_MAXLINE + 2];

	snprintf(arg, sizeof arg, "%s=%s", k, v);
	if (lr_fact_parse(l, opt, arg))
		return lr_expdef_fail(p, p->line, "%s", lr_error_msg());
	return 1;
}

int lr_expdef_record_key(struct parse *p, const char *k, const char *v)
{
	struct lr_expdef *d = p->d;
	struct lr_run_facts *f = &d->record;
	char assign[2 * LR_EXP_MAXLINE + 2];
	const char *rule;

	snprintf(assign, sizeof assign, "%s=%s", k, v);
	if ((rule = lr_secretlike(assign))) /* a definition is stored and published as written */
		return lr_expdef_fail(
			p, p->line,
			"[record] '%s' looks like a credential (scan rule %s): a definition is stored and "
			"published as written; a probe may read it from the environment labrun runs in",
			k, rule);
	if (!strncmp(k, "binding.", 8))
		return fact(p, &f->binding, "--binding", k + 8, v);
	if (!strncmp(k, "tool.", 5))
		return fact(p, &f->tools, "--tool", k + 5, v);
	if (!strncmp(k, "geometry.", 9))
		return fact(p, &f->geometry, "--geometry", k + 9, v);
	if (!strncmp(k, "probe.", 6)) {
		if (lr_kvlist_find(&f->tools, k + 6))
			return lr_expdef_fail(p, p->line, "'%s': tool '%s' is stated and probed; give one", k, k + 6);
		return fact(p, &f->probes, "probe", k + 6, v);
	}
	if (!strcmp(k, "source")) {
		if (!*v)
			return lr_expdef_fail(p, p->line, "'source' is empty");
		return lr_strlist_add(&f->sources, v) ? lr_expdef_fail(p, p->line, "out of memory") : 1;
	}
	if (!strcmp(k, "note")) {
		if (!*v || strlen(v) >= sizeof d->note)
			return lr_expdef_fail(p, p->line, "'note' is empty or longer than %zu characters",
					      sizeof d->note - 1);
		snprintf(d->note, sizeof d->note, "%s", v);
		return 1;
	}
	return lr_expdef_fail(
		p, p->line,
		"unknown key '%s' in [record]; expected binding.KEY, tool.NAME, probe.NAME, geometry.KEY, source or note",
		k);
}

int lr_expdef_record_check(struct parse *p)
{
	const struct lr_expdef *d = p->d;

	if (d->target == LR_TARGET_COMMAND || !strcmp(d->backend, "sim") || !strcmp(d->backend, "atom"))
		return 1;
	return lr_expdef_fail(
		p, lr_expdef_key_line(p, "experiment", "backend"),
		"'backend' is '%s'; expected one of sim, atom (built-in targets run on labrun's own backends; a "
		"command target names its own)",
		d->backend);
}

int lr_expdef_arm_binding(struct parse *p, struct lr_exp_arm *a, const char *k, const char *v)
{
	return fact(p, &a->binding, "--binding", k + 8, v);
}

int lr_expdef_record_facts(const struct lr_expdef *d, const struct lr_run_facts *cli, struct lr_run_facts *out)
{
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = lr_run_facts_merge(out, &d->record)))
		return rc;
	out->note = d->note[0] ? d->note : NULL;
	return cli ? lr_run_facts_merge(out, cli) : 0;
}
