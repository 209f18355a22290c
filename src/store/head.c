/* The signed ledger head: what reports, crates and archives carry so that 'audit --head' can name each run changed. */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/dsse.h"
#include "base/error.h"
#include "store/ledger.h"
#include "store/store-int.h"

static int add_entry(void *arg, const struct lr_ledger_entry *e)
{
	json_t **doc = arg;

	json_array_append_new(
		json_object_get(doc[0], "entries"),
		json_pack("{s:I, s:s, s:s}", "seq", (json_int_t)e->seq, "run_uuid", e->run_uuid, "digest", e->digest));
	json_object_set_new(doc[0], "seq", json_integer(e->seq));
	json_object_set_new(doc[0], "digest", json_string(e->digest));
	json_object_set_new(doc[0], "newestAt", json_string(e->appended_at));
	return 0;
}

int lr_store_head_statement(struct lr_store *st, char **envelope)
{
	char id[LR_STORE_ID_LEN], *payload = NULL;
	json_t *pred = json_pack("{s:[]}", "entries"), *stmt = NULL, *env = NULL;
	int rc;

	*envelope = NULL;
	if (!pred)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((rc = lr_store_id(st, id)) || (rc = lr_store_ledger_entries(st, 0, add_entry, &pred)))
		goto out;
	if (!json_array_size(json_object_get(pred, "entries")))
		goto out;
	json_object_set_new(pred, "storeId", json_string(id));
	stmt = json_pack("{s:s, s:[{s:s, s:{s:O}}], s:s, s:O}", "_type", LR_INTOTO_STATEMENT, "subject", "name",
			 "ledger", "digest", "sha256", json_object_get(pred, "digest"), "predicateType",
			 LR_HEAD_PREDICATE, "predicate", pred);
	if (!stmt || !(payload = json_dumps(stmt, JSON_COMPACT | JSON_SORT_KEYS))) {
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = lr_dsse_sign(st->signer, LR_INTOTO_PAYLOAD_TYPE, payload, strlen(payload), &env)))
		goto out;
	if (!(*envelope = json_dumps(env, JSON_COMPACT | JSON_SORT_KEYS)))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
out:
	json_decref(pred);
	json_decref(stmt);
	json_decref(env);
	free(payload);
	return rc;
}
