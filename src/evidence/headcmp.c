/* A signed ledger head's entries against a ledger (the store's, or a crate's ledger.json): what moved, changed or went. */
#include "config.h"
#include "base/system.h"

#include "evidence/headcmp.h"

/* The next entry of run 'uuid' counted in 'runs': its rank (1, 2, ...: a design, a final, amends) as text. */
static int next_rank(struct lr_strmap *runs, const char *uuid, char rank[24])
{
	intptr_t k = 0;

	k = lr_strmap_get(runs, uuid, &k) ? k + 1 : 1;
	snprintf(rank, 24, "%ld", (long)k);
	return lr_strmap_put(runs, uuid, k);
}

int lr_head_seen_add(void *arg, const struct lr_ledger_entry *e)
{
	struct lr_head_seen *x = arg;
	char seq[24], rank[24];
	int rc;

	snprintf(seq, sizeof seq, "%lld", (long long)e->seq);
	if (!(rc = next_rank(&x->runs, e->run_uuid, rank)) && !(rc = lr_kvlist_add(&x->uuid, seq, e->run_uuid, rank)))
		rc = lr_kvlist_add(&x->digest, seq, e->digest, NULL);
	return rc;
}

void lr_head_seen_release(struct lr_head_seen *x)
{
	lr_kvlist_release(&x->uuid);
	lr_kvlist_release(&x->digest);
	lr_strmap_release(&x->runs);
}

/* Check one entry of the signed head, its run's 'rank'th, against the ledger: how it differs into msg ("" if not). */
static void head_entry(const struct lr_head_seen *x, int64_t seq, const char *name, const char *uuid,
		       const char *digest, const char *rank, char *msg, size_t len)
{
	char key[24];
	const struct lr_kv *here;
	size_t i, j;

	msg[0] = 0;
	snprintf(key, sizeof key, "%lld", (long long)seq);
	/* a ledger numbers its entries 1, 2, ...: look there first */
	if (seq >= 1 && (size_t)seq <= x->digest.n && !strcmp(x->digest.v[seq - 1].key, key))
		here = &x->digest.v[seq - 1];
	else
		here = lr_kvlist_find(&x->digest, key);
	if (here && !strcmp(here->value, digest))
		return;
	for (i = 0; i < x->digest.n && strcmp(x->digest.v[i].value, digest); i++)
		;
	/* else the entry of the same run and rank now (its first: its design or its final; then amends) */
	for (j = 0; j < x->uuid.n && (strcmp(x->uuid.v[j].value, uuid) || strcmp(x->uuid.v[j].tag, rank)); j++)
		;
	if (i < x->digest.n)
		snprintf(msg, len, "%s was entry %lld at the signed head and is entry %s now: the ledger was reordered",
			 name, (long long)seq, x->digest.v[i].key);
	else if (j == x->uuid.n)
		snprintf(msg, len, "%s, entry %lld at the signed head, is not in the ledger: deleted", name,
			 (long long)seq);
	else if (!strcmp(x->uuid.v[j].key, key))
		snprintf(msg, len, "%s, entry %lld at the signed head, was changed: its entry is not the one signed",
			 name, (long long)seq);
	else
		snprintf(msg, len,
			 "%s, entry %lld at the signed head, is entry %s now and changed: the ledger was reordered "
			 "and rewritten",
			 name, (long long)seq, x->uuid.v[j].key);
}

int lr_head_compare(const json_t *entries, const struct lr_head_seen *x, int held_only, lr_head_name_fn name,
		    lr_head_fn fn, void *arg)
{
	struct lr_strmap head_runs = { 0 };
	char rank[24], who[160], msg[512];
	intptr_t held;
	json_t *e;
	size_t i;
	int rc = 0;

	json_array_foreach(entries, i, e) {
		const char *u = json_string_value(json_object_get(e, "run_uuid")),
			   *d = json_string_value(json_object_get(e, "digest"));
		int64_t seq = json_integer_value(json_object_get(e, "seq"));

		if (!u || !d)
			continue;
		if ((rc = next_rank(&head_runs, u, rank)))
			break;
		if (held_only && !lr_strmap_get(&x->runs, u, &held))
			continue;
		name(arg, u, who, sizeof who);
		head_entry(x, seq, who, u, d, rank, msg, sizeof msg);
		if (msg[0])
			fn(arg, seq, u, msg);
	}
	lr_strmap_release(&head_runs);
	return rc;
}
