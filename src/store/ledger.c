/* The ledger read back: its chain walked and held to the trust policy, its head, its entries. */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/seal.h"
#include "base/sign.h"
#include "base/trust.h"
#include "store/designreg.h"
#include "store/ledger.h"
#include "store/store-int.h"

static int in_scope(const int64_t *only, int nonly, int64_t run)
{
	int i;

	for (i = 0; only && i < nonly; i++)
		if (only[i] == run)
			return 1;
	return !only;
}

/* "ledger entry SEQ (run ID, UUID)" or "(run UUID, deleted)": how problems name an entry. */
static void entry_name(char *buf, size_t len, sqlite3_stmt *s, int64_t seq, const char *uuid)
{
	if (sqlite3_column_type(s, 6) == SQLITE_NULL)
		snprintf(buf, len, "ledger entry %lld (run %s, not in the store)", (long long)seq, uuid);
	else
		snprintf(buf, len, "ledger entry %lld (run %lld, %s)", (long long)seq,
			 (long long)sqlite3_column_int64(s, 6), uuid);
}

/*
 * Columns 8..10 of the ledger walk: the entry's key fingerprint, signature
 * and the stored public key, held to the policy's trusted keys. A key the
 * trust gives in full is used as given; one it gives by fingerprint must be
 * the stored key of that fingerprint.
 */
static int check_signature(sqlite3_stmt *s, int64_t seq, const char *uuid, const char *digest,
			   const struct lr_ledger_policy *policy, lr_ledger_fn fn, void *arg,
			   struct lr_ledger_head *head)
{
	const char *fpr = (const char *)sqlite3_column_text(s, 8), *sig = (const char *)sqlite3_column_text(s, 9),
		   *pub = (const char *)sqlite3_column_text(s, 10);
	const struct lr_trusted_key *k = NULL;
	char now[LR_SHA256_HEX], msg[640], name[160];
	int must = policy && policy->signed_from && seq >= policy->signed_from;

	entry_name(name, sizeof name, s, seq, uuid);
	if (!fpr && !sig) {
		if (!must)
			return 0;
		snprintf(msg, sizeof msg,
			 "%s is not signed, but your configuration knows this store as signed from "
			 "entry %lld on: it was rewritten or added without your key",
			 name, (long long)policy->signed_from);
		return fn(arg, seq, uuid, msg);
	}
	if (policy && policy->trust)
		k = lr_trust_find(policy->trust, fpr);
	if (!fpr || !sig)
		snprintf(msg, sizeof msg, "%s has a signature without a key, or a key without a signature", name);
	else if (!pub && !(k && k->public_key[0]))
		snprintf(msg, sizeof msg, "%s is signed by key %.16s..., which the store does not hold", name, fpr);
	else if (pub && (lr_key_fingerprint(pub, now) || strcmp(now, fpr)))
		snprintf(msg, sizeof msg,
			 "the public key stored for key %.16s... is not that key: it was replaced (%s)", fpr, name);
	else if (lr_verify(k && k->public_key[0] ? k->public_key : pub, digest, sig))
		snprintf(msg, sizeof msg, "the signature of %s does not verify with key %.16s...", name, fpr);
	else if (policy && policy->trust && !k)
		snprintf(msg, sizeof msg, "%s is signed by key %.16s..., which is not among your trusted keys", name,
			 fpr);
	else {
		head->signed_entries++;
		head->trusted_entries += k != NULL;
		return 0;
	}
	return fn(arg, seq, uuid, msg);
}

int lr_store_signing_keys(struct lr_store *st, lr_signing_key_fn fn, void *arg)
{
	/* entries and runs as ranges ("1-4 7"), each run once: a line stays short at a million runs */
	return db_each_text3(
		st,
		"WITH e AS (SELECT l.key_fingerprint AS k, l.seq, r.id AS run, l.run_uuid AS uuid FROM ledger l"
		"  LEFT JOIN run r ON r.uuid = l.run_uuid WHERE l.key_fingerprint IS NOT NULL),"
		" es AS (SELECT k, min(seq) AS lo, max(seq) AS hi FROM"
		"  (SELECT k, seq, seq - row_number() OVER (PARTITION BY k ORDER BY seq) AS g FROM e) GROUP BY k, g),"
		" rd AS (SELECT DISTINCT k, run FROM e WHERE run IS NOT NULL),"
		" rs AS (SELECT k, min(run) AS lo, max(run) AS hi FROM"
		"  (SELECT k, run, run - row_number() OVER (PARTITION BY k ORDER BY run) AS g FROM rd) GROUP BY k, g)"
		" SELECT keys.k,"
		"  (SELECT group_concat(x, ' ') FROM (SELECT CASE WHEN lo = hi THEN lo ELSE lo || '-' || hi END AS x"
		"   FROM es WHERE es.k = keys.k ORDER BY lo)),"
		"  coalesce((SELECT group_concat(x, ' ') FROM (SELECT CASE WHEN lo = hi THEN lo ELSE lo || '-' || hi END AS x"
		"   FROM rs WHERE rs.k = keys.k ORDER BY lo)) || CASE WHEN keys.deleted THEN ', ' ELSE '' END, '')"
		"   || CASE WHEN keys.deleted THEN keys.deleted || ' deleted' ELSE '' END"
		" FROM (SELECT k, min(seq) AS first, count(DISTINCT CASE WHEN run IS NULL THEN uuid END) AS deleted"
		"  FROM e GROUP BY k) keys ORDER BY keys.first",
		"read the signing keys", fn, arg);
}

/* Entry 'seq' comes where 'expect' should and links to the digest of the entry before it, 'last'. */
static int check_link(int64_t seq, int64_t expect, const char *uuid, const char *prev, const char *last,
		      lr_ledger_fn fn, void *arg)
{
	char msg[256];
	int rc = 0;

	if (seq != expect) {
		snprintf(msg, sizeof msg, "ledger entry %lld follows entry %lld: entries are missing or reordered",
			 (long long)seq, (long long)expect - 1);
		rc = fn(arg, seq, uuid, msg);
	}
	if (!rc && strcmp(prev, last)) {
		snprintf(msg, sizeof msg, "ledger entry %lld does not link to the entry before it", (long long)seq);
		rc = fn(arg, seq, uuid, msg);
	}
	return rc;
}

/*
 * A design entry of the walk (row 's'): the run's first entry, holding the
 * design its rows give now (when 'scoped'). It holds no seal: the run's
 * newest entry is held to its seal only when that is a final or an amend.
 */
static int check_design(struct lr_store *st, sqlite3_stmt *s, int64_t seq, const char *uuid, const char *content,
			int scoped, lr_ledger_fn fn, void *arg)
{
	int64_t run = sqlite3_column_int64(s, 6);
	char now[LR_SHA256_HEX], msg[512];
	int rc;

	if (sqlite3_column_int(s, 12)) {
		snprintf(msg, sizeof msg,
			 "ledger entry %lld registers the design of run %lld (%s) after an earlier entry of it: a "
			 "design is registered once, before the run's first block",
			 (long long)seq, (long long)run, uuid);
		return fn(arg, seq, uuid, msg);
	}
	if (!scoped || (rc = lr_store_design_digest(st, run, now, NULL)))
		return scoped ? rc : 0;
	if (!strcmp(now, content))
		return 0;
	snprintf(msg, sizeof msg,
		 "run %lld (%s): its design differs from the design registered in ledger entry %lld (digest "
		 "%.12s..., the rows give %.12s...): the design was changed after it was registered",
		 (long long)run, uuid, (long long)seq, content, now);
	return fn(arg, seq, uuid, msg);
}

int lr_store_ledger_check(struct lr_store *st, const int64_t *only, int nonly, const struct lr_ledger_policy *policy,
			  lr_ledger_fn fn, void *arg, struct lr_ledger_head *head)
{
	static const char walk[] =
		"SELECT l.seq, l.run_uuid, l.kind, l.content, l.prev, l.digest,"
		" (SELECT id FROM run WHERE uuid = l.run_uuid),"
		" NOT EXISTS (SELECT 1 FROM ledger m WHERE m.run_uuid = l.run_uuid AND m.seq > l.seq),"
		" l.key_fingerprint, l.signature, k.public_key, l.appended_at,"
		" EXISTS (SELECT 1 FROM ledger m WHERE m.run_uuid = l.run_uuid AND m.seq < l.seq)"
		" FROM ledger l LEFT JOIN signing_key k ON k.fingerprint = l.key_fingerprint ORDER BY l.seq";
	static const char unchained[] =
		"SELECT r.id, r.uuid FROM run r JOIN run_seal s ON s.run_id = r.id"
		" WHERE NOT EXISTS (SELECT 1 FROM ledger l WHERE l.run_uuid = r.uuid AND l.kind <> 'design') ORDER BY r.id";
	char last[LR_SHA256_HEX] = LR_LEDGER_GENESIS, want[LR_SHA256_HEX], now[LR_SHA256_HEX], msg[512];
	sqlite3_stmt *s = NULL;
	int64_t expect = 1;
	int rc;

	memset(head, 0, sizeof *head);
	if ((rc = db_prepare(st, &s, walk)))
		return rc;
	while (db_step_row(st, s, "read the ledger", &rc)) {
		int64_t seq = sqlite3_column_int64(s, 0), run = sqlite3_column_int64(s, 6);
		const char *uuid = (const char *)sqlite3_column_text(s, 1),
			   *kind = (const char *)sqlite3_column_text(s, 2),
			   *content = (const char *)sqlite3_column_text(s, 3),
			   *prev = (const char *)sqlite3_column_text(s, 4),
			   *digest = (const char *)sqlite3_column_text(s, 5);

		if (!uuid || !kind || !content || !prev || !digest) {
			rc = db_error(st, "read the ledger");
			break;
		}
		rc = check_link(seq, expect, uuid, prev, last, fn, arg);
		if (!rc && !(rc = lr_ledger_digest(seq, uuid, kind, content, prev, want)) && strcmp(want, digest)) {
			snprintf(msg, sizeof msg,
				 "ledger entry %lld was rewritten: its digest does not match its fields",
				 (long long)seq);
			rc = fn(arg, seq, uuid, msg);
		}
		if (!rc && sqlite3_column_type(s, 6) == SQLITE_NULL) {
			snprintf(msg, sizeof msg, "run %s (ledger entry %lld) is not in the store: deleted", uuid,
				 (long long)seq);
			rc = fn(arg, seq, uuid, msg);
		} else if (!rc && !strcmp(kind, "design")) {
			rc = check_design(st, s, seq, uuid, content, in_scope(only, nonly, run), fn, arg);
		} else if (!rc && sqlite3_column_int(s, 7) && in_scope(only, nonly, run) &&
			   !(rc = db_seal_content_now(st, run, now)) && strcmp(now, content)) {
			snprintf(msg, sizeof msg,
				 "run %lld (%s) differs from its ledger entry %lld: its rows were changed",
				 (long long)run, uuid, (long long)seq);
			rc = fn(arg, seq, uuid, msg);
		}
		if (!rc)
			rc = check_signature(s, seq, uuid, digest, policy, fn, arg, head);
		db_col_copy(s, 11, head->newest_at, sizeof head->newest_at);
		snprintf(last, sizeof last, "%s", digest);
		head->seq = seq;
		snprintf(head->digest, sizeof head->digest, "%s", digest);
		expect = seq + 1;
	}
	sqlite3_finalize(s);
	s = NULL;
	if (rc || (rc = db_prepare(st, &s, unchained)))
		return rc;
	while (db_step_row(st, s, "read the sealed runs", &rc)) {
		snprintf(msg, sizeof msg, "run %lld (%s) is sealed but not in the ledger: added behind its back",
			 (long long)sqlite3_column_int64(s, 0), (const char *)sqlite3_column_text(s, 1));
		rc = fn(arg, 0, (const char *)sqlite3_column_text(s, 1), msg);
	}
	sqlite3_finalize(s);
	return rc;
}

int lr_store_ledger_after(struct lr_store *st, int64_t seq, char digest[LR_SHA256_HEX], lr_ledger_fn fn, void *arg)
{
	sqlite3_stmt *s = NULL;
	int rc;

	digest[0] = 0;
	if ((rc = db_prepare(st, &s, "SELECT seq, run_uuid, kind, digest FROM ledger WHERE seq >= :seq ORDER BY seq")))
		return rc;
	db_bind_int(s, ":seq", seq);
	while (db_step_row(st, s, "read the ledger", &rc)) {
		if (sqlite3_column_int64(s, 0) == seq)
			db_col_copy(s, 3, digest, LR_SHA256_HEX);
		else
			rc = fn(arg, sqlite3_column_int64(s, 0), (const char *)sqlite3_column_text(s, 1),
				(const char *)sqlite3_column_text(s, 2));
	}
	sqlite3_finalize(s);
	return rc;
}

int lr_store_ledger_head(struct lr_store *st, struct lr_ledger_head *head)
{
	sqlite3_stmt *s = NULL;
	int rc;

	memset(head, 0, sizeof *head);
	if ((rc = db_prepare(st, &s, "SELECT seq, digest FROM ledger ORDER BY seq DESC LIMIT 1")))
		return rc;
	if (db_step_row(st, s, "read the ledger head", &rc)) {
		head->seq = sqlite3_column_int64(s, 0);
		db_col_copy(s, 1, head->digest, sizeof head->digest);
	}
	sqlite3_finalize(s);
	return rc;
}

int lr_store_ledger_entries(struct lr_store *st, int64_t id, lr_ledger_entry_fn fn, void *arg)
{
#define ENTRIES \
	"SELECT l.seq, l.run_uuid, l.kind, l.content, l.prev, l.digest, l.appended_at," \
	" l.key_fingerprint, l.signature, k.public_key FROM ledger l" \
	" LEFT JOIN signing_key k ON k.fingerprint = l.key_fingerprint"
	/* two statements: 'WHERE :run = 0 OR ...' kept SQLite from the index, a scan of the ledger per run */
	static const char all[] = ENTRIES " ORDER BY l.seq",
			  one[] = ENTRIES " WHERE l.run_uuid = (SELECT uuid FROM run WHERE id = :run) ORDER BY l.seq";
#undef ENTRIES
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, id ? one : all)))
		return rc;
	if (id)
		db_bind_int(s, ":run", id);
	while (db_step_row(st, s, "read the run's ledger entries", &rc)) {
		struct lr_ledger_entry e = {
			.seq = sqlite3_column_int64(s, 0),
			.run_uuid = (const char *)sqlite3_column_text(s, 1),
			.kind = (const char *)sqlite3_column_text(s, 2),
			.content = (const char *)sqlite3_column_text(s, 3),
			.prev = (const char *)sqlite3_column_text(s, 4),
			.digest = (const char *)sqlite3_column_text(s, 5),
			.appended_at = (const char *)sqlite3_column_text(s, 6),
			.key_fingerprint = (const char *)sqlite3_column_text(s, 7),
			.signature = (const char *)sqlite3_column_text(s, 8),
			.public_key = (const char *)sqlite3_column_text(s, 9),
		};

		rc = fn(arg, &e);
	}
	sqlite3_finalize(s);
	return rc;
}
