/*
 * The one way into the store: every command opens it here, in the mode its
 * row of the command table gives (labrun.c), and the signing key is loaded
 * here once. A command that writes refuses a key it cannot use; nothing
 * appends an unsigned ledger entry while a key is configured but unusable,
 * or to a store the user's configuration knows as signed.
 */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/sign.h"
#include "base/trust.h"
#include "cmd/cmd.h"
#include "record/gitsrc.h"
#include "record/spool.h"
#include "store/ledger.h"

int cmd_open_store_quiet(struct lr_store **st, const struct lr_global *g)
{
	char cwd[PATH_MAX], *dir = NULL;
	int exists = 0, rc;

	*st = NULL;
	if (!getcwd(cwd, sizeof cwd) || lr_store_find(&dir, &exists, g->store, cwd, 0) || !exists) {
		free(dir);
		lr_error_clear();
		return LR_ENOTFOUND;
	}
	rc = lr_store_open(st, dir, 0);
	free(dir);
	if (rc)
		lr_error_clear();
	return rc;
}

int cmd_open_store(struct lr_store **st, const struct lr_global *g)
{
	return cmd_open_store_counted(st, g, NULL);
}

/* The store's real path, as the user's configuration names it. */
static void store_path(struct lr_store *st, char path[PATH_MAX])
{
	if (!realpath(lr_store_dir(st), path))
		snprintf(path, PATH_MAX, "%s", lr_store_dir(st));
}

/*
 * Before the first entry this process signs: remember in the user's
 * configuration that the store is signed from that entry on, by this key.
 * From then on an unsigned entry there is a problem 'labrun audit' names.
 */
static int remember_signed(void *arg, struct lr_store *st, int64_t seq)
{
	struct lr_signer *signer = arg;
	static int remembered;
	char id[LR_STORE_ID_LEN], path[PATH_MAX];
	int rc;

	if (remembered)
		return 0;
	store_path(st, path);
	if ((rc = lr_store_id(st, id)) || (rc = lr_trust_remember_store(id, path, seq, lr_signer_fingerprint(signer)))) {
		lr_error_wrap("cannot sign ledger entry %lld", (long long)seq);
		return rc;
	}
	remembered = 1;
	return 0;
}

/* Whether the user's configuration knows this store as signed: *from gets the first signed entry (0: not known). */
static int known_signed(struct lr_store *st, int64_t *from)
{
	const struct lr_known_store *k;
	char id[LR_STORE_ID_LEN], path[PATH_MAX];
	struct lr_trust t;
	int rc, by_path;

	*from = 0;
	store_path(st, path);
	if (!(rc = lr_trust_load(&t)) && !(rc = lr_store_id(st, id)) && (k = lr_trust_store(&t, id, path, &by_path)))
		*from = k->from_seq;
	lr_trust_release(&t);
	return rc;
}

/*
 * Load the signing key, if there is one, into the store. A key that cannot
 * be used stops a command that writes; for one that reads, the store is
 * told to refuse unsigned entries (finishing an abandoned run waits for a
 * usable key). Without any key, a store known as signed is refused to
 * writers and kept from unsigned entries for readers.
 */
static int open_signer(struct lr_store *st, enum cmd_store_mode mode)
{
	struct lr_signer *signer = NULL;
	char *path = NULL, why[1024];
	int64_t from = 0;
	int rc;

	if (!getenv("LABRUN_KEY") && !getenv("HOME") && !getenv("XDG_CONFIG_HOME"))
		return 0; /* nowhere a key or a configuration could be: entries stay unsigned */
	if ((rc = lr_key_path(&path)))
		return rc;
	if (!(rc = lr_signer_load(path, &signer)) && signer) {
		lr_store_set_signer(st, signer);
		lr_store_set_sign_hook(st, remember_signed, signer);
		goto out;
	}
	if (rc) {
		if (mode >= CMD_WRITES)
			goto out;
		snprintf(why, sizeof why, "the signing key cannot be used: %s", lr_error_msg());
		rc = lr_store_refuse_unsigned(st, why, lr_error_hint_msg());
		goto out;
	}
	if ((rc = known_signed(st, &from)) || !from)
		goto out;
	snprintf(why, sizeof why, "your configuration knows this store as signed from ledger entry %lld on, and there is "
		 "no signing key at '%s'", (long long)from, path);
	if (mode >= CMD_WRITES) {
		rc = lr_error_set(LR_EREFUSED, "cannot write to store '%s' unsigned: %s", lr_store_dir(st), why);
		lr_error_hint("restore the key (or point LABRUN_KEY at it); 'labrun key init' makes a new one, which "
			      "your configuration then trusts");
	} else {
		rc = lr_store_refuse_unsigned(st, why, "restore the key, or point LABRUN_KEY at it");
	}
out:
	free(path);
	return rc;
}

int cmd_open_store_counted(struct lr_store **st, const struct lr_global *g, int *abandoned)
{
	char cwd[PATH_MAX], *dir = NULL, *worktree = NULL;
	int create = g->mode == CMD_CREATES, exists = 0, rc;

	*st = NULL;
	if (g->mode == CMD_NO_STORE) /* the command table says this command has no store */
		return cmd_fail(lr_error_set(LR_EINVAL, "labrun %s does not use a store", g->argv[0]));
	if (!getcwd(cwd, sizeof cwd)) {
		lr_error_set(LR_EIO, "cannot read the working directory");
		return cmd_fail(LR_EIO);
	}
	if ((rc = lr_store_find(&dir, &exists, g->store, cwd, create))) {
		free(dir);
		return cmd_fail(rc);
	}
	/* A new store goes at the top of the enclosing work tree, else in the working directory. */
	if (!exists && !(g->store && *g->store)) {
		if ((rc = lr_git_worktree(&worktree, cwd))) {
			free(dir);
			return cmd_fail(rc);
		}
		if (worktree) {
			free(dir);
			dir = NULL;
			if (asprintf(&dir, "%s/.labrun", strcmp(worktree, "/") ? worktree : "") < 0)
				dir = NULL;
			free(worktree);
			if (!dir)
				return cmd_fail(lr_error_set(LR_ENOMEM, "out of memory"));
		}
	}
	rc = lr_store_open(st, dir, create ? LR_STORE_CREATE : g->mode == CMD_WRITES ? LR_STORE_WRITE : 0);
	free(dir);
	if (rc)
		return cmd_fail(rc == LR_EIO ? LR_ESTORE : rc);
	/* with a key ('labrun key init'), every ledger entry this process appends is signed */
	if ((rc = open_signer(*st, g->mode))) {
		lr_store_free(*st);
		*st = NULL;
		return cmd_fail(rc);
	}
	/* A reader on a read-only medium, or without a usable key, still reads: recovery is best effort there. */
	if ((rc = lr_spool_recover(*st, abandoned)) && (g->mode >= CMD_WRITES || abandoned)) {
		lr_store_free(*st);
		*st = NULL;
		return cmd_fail(rc);
	}
	lr_error_clear();
	return 0;
}
