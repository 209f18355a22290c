/*
 * The one way into the store: main (labrun.c) holds the running command's
 * store, and cmd_store opens it here once, in the mode its row of the
 * command table gives, when the command first asks for it; the signing key
 * is loaded here too. A command that writes refuses a key it cannot use;
 * nothing appends an unsigned ledger entry while a key is configured but
 * unusable, or to a store the user's configuration knows as signed.
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
	if ((rc = lr_store_id(st, id)) ||
	    (rc = lr_trust_remember_store(id, path, seq, lr_signer_fingerprint(signer)))) {
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
	snprintf(why, sizeof why,
		 "your configuration knows this store as signed from ledger entry %lld on, and there is "
		 "no signing key at '%s'",
		 (long long)from, path);
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

/* CMD_MAY_READ: the store, if there is one, opened to read its settings only (no key, no recovery). */
static void open_settings(struct cmd_held_store *h, const struct lr_global *g)
{
	char cwd[PATH_MAX], *dir = NULL;
	int exists = 0;

	if (getcwd(cwd, sizeof cwd) && !lr_store_find(&dir, &exists, g->store, cwd, 0) && exists &&
	    lr_store_open(&h->st, dir, 0))
		h->st = NULL; /* one that does not open has no settings to read either */
	free(dir);
}

/* Where the store is (--store, else the nearest .labrun), or where a new one goes when 'create'. */
static int store_dir(char **dir, const struct lr_global *g, int create)
{
	char cwd[PATH_MAX], *worktree = NULL;
	int exists = 0, rc;

	*dir = NULL;
	if (!getcwd(cwd, sizeof cwd))
		return lr_error_set(LR_EIO, "cannot read the working directory");
	if ((rc = lr_store_find(dir, &exists, g->store, cwd, create)) || exists || (g->store && *g->store))
		return rc;
	/* A new store goes at the top of the enclosing work tree, else in the working directory. */
	if ((rc = lr_git_worktree(&worktree, cwd)) || !worktree)
		return rc;
	free(*dir);
	if (asprintf(dir, "%s/.labrun", strcmp(worktree, "/") ? worktree : "") < 0) {
		*dir = NULL;
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	}
	free(worktree);
	return rc;
}

/* Open the store in g's mode (cmd_store says how) into h->st: 0, or an error code with its message. */
static int open_store(struct cmd_held_store *h, const struct lr_global *g)
{
	unsigned flags = g->mode == CMD_CREATES ? LR_STORE_CREATE : g->mode == CMD_WRITES ? LR_STORE_WRITE : 0;
	char *dir = NULL;
	int rc;

	if ((rc = store_dir(&dir, g, g->mode == CMD_CREATES)))
		goto out;
	if ((rc = lr_store_open(&h->st, dir, flags))) {
		h->st = NULL;
		rc = rc == LR_EIO ? LR_ESTORE : rc;
		goto out;
	}
	/* with a key ('labrun key init'), every ledger entry this process appends is signed */
	rc = open_signer(h->st, g->mode);
	/* A reader on a read-only medium, or without a usable key, still reads: recovery is best effort there. */
	if (!rc && (rc = lr_spool_recover(h->st, &h->abandoned)) && g->mode < CMD_REPAIRS)
		rc = 0;
	if (rc) {
		lr_store_free(h->st);
		h->st = NULL;
	}
out:
	free(dir);
	return rc;
}

int cmd_store(struct lr_store **st, const struct lr_global *g)
{
	struct cmd_held_store *h = g->held;
	int rc;

	*st = NULL;
	if (g->mode == CMD_NO_STORE || g->mode > h->declared) /* the command table says otherwise: a bug */
		return cmd_fail(lr_error_set(LR_EINVAL, "cannot open the store: the command asks for more than its row "
							"of the command table declares"));
	if (!h->st && g->mode == CMD_MAY_READ)
		open_settings(h, g);
	else if (!h->st && (rc = open_store(h, g)))
		return cmd_fail(rc);
	lr_error_clear();
	*st = h->st;
	return 0;
}
