/* What push and pull say (report/sync.h). */
#include "config.h"
#include "base/system.h"

#include "base/enumname.h"
#include "report/sync.h"
#include "report/text.h"

static const char *const names[] = {
	[LR_SYNC_PUSHED] = "pushed",   [LR_SYNC_PULLED] = "pulled",   [LR_SYNC_PRESENT] = "present",
	[LR_SYNC_REFUSED] = "refused", [LR_SYNC_SKIPPED] = "skipped", [LR_SYNC_UNSIGNED] = "unsigned",
};
static const struct lr_enum_names events = LR_ENUM_NAMES("sync event", names);

const char *lr_sync_event_name(enum lr_sync_event e)
{
	return lr_enum_name(&events, (int)e);
}

void lr_sync_write_run(FILE *f, enum lr_sync_event e, const char *uuid)
{
	fprintf(f, "%-8s %s\n", lr_sync_event_name(e), uuid);
}

void lr_sync_write_summary(FILE *f, const char *name, int pull, int lazy, const struct lr_sync_stats *s)
{
	const char *there = pull ? "here" : "there";
	char size[32];

	fprintf(f, "remote '%s': %d run%s %s, %d already %s, %d refused", name, s->runs_new,
		s->runs_new == 1 ? "" : "s", pull ? "pulled" : "pushed", s->runs_present, there, s->runs_refused);
	if (!pull)
		fprintf(f, ", %d skipped", s->runs_skipped);
	fprintf(f, "; %d object%s %s (%s), %d already %s%s\n", s->objects_moved, s->objects_moved == 1 ? "" : "s",
		pull ? "fetched" : "sent", lr_human_size(size, sizeof size, (long long)s->bytes_moved),
		s->objects_present, there, lazy ? ", the rest on first read" : "");
}
