/* labrun remote: name the shared PostgreSQL stores this store pushes to and pulls from. */
#include "config.h"
#include "base/system.h"

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "store/remote.h"

static const char usage[] = "usage: labrun remote add NAME URI [--objects s3://BUCKET/PREFIX?...]\n"
			    "       labrun remote list\n"
			    "       labrun remote remove NAME\n"
			    "       labrun remote init [NAME]\n"
			    "\n"
			    "A remote is a PostgreSQL database or a bucket of an S3-compatible store that many\n"
			    "hosts push their runs to (docs/remote.md). URI is a libpq connection string or URI\n"
			    "(postgresql://db.lab/evidence, or 'host=/run/postgresql dbname=evidence'), or\n"
			    "s3://BUCKET/PREFIX?endpoint=URL&region=REGION&style=path|virtual. It never holds a\n"
			    "password or a secret: libpq reads a password from ~/.pgpass, PGPASSWORD or a service\n"
			    "file; S3 credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a\n"
			    "profile (AWS_PROFILE) of ~/.aws/credentials.\n"
			    "\n"
			    "  add NAME URI   remember a remote (nothing is contacted); with --objects, a\n"
			    "                 PostgreSQL remote keeps its objects in that bucket, its rows in\n"
			    "                 the database (every host that uses it gives the same --objects)\n"
			    "  list           the remotes: NAME, URI, when each was added, and its objects'\n"
			    "                 bucket when it has one\n"
			    "  remove NAME    forget a remote (runs pulled from it stay)\n"
			    "  init [NAME]    create or migrate the remote's schema (schema/pg/), or mark an S3\n"
			    "                 prefix as a remote; idempotent\n"
			    "\n"
			    "Errors reaching a remote exit 3 and name it, never its password or secret.\n";

static int print_remote(void *arg, const char *name, const char *uri, const char *added_at, const char *objects)
{
	(void)arg;
	printf("%s\t%s\t(added %s)%s%s\n", name, uri, added_at, objects ? "\tobjects " : "", objects ? objects : "");
	return 0;
}

static const char *objects_opt; /* remote add --objects */

static int remote_add(struct lr_store *st, char **args, int n)
{
	(void)n;
	return lr_store_remote_add(st, args[0], args[1], objects_opt);
}

static int remote_list(struct lr_store *st, char **args, int n)
{
	(void)args, (void)n;
	return lr_store_remotes(st, print_remote, NULL);
}

static int remote_remove(struct lr_store *st, char **args, int n)
{
	(void)n;
	return lr_store_remote_remove(st, args[0]);
}

static int remote_init(struct lr_store *st, char **args, int n)
{
	const char *name = n ? args[0] : NULL;
	char *uri = NULL, *which = NULL, *objects = NULL;
	struct lr_remote *r = NULL;
	int rc, applied = 0, version = 0;

	if (!(rc = lr_store_remote_get(st, name, &which, &uri, &objects)) &&
	    !(rc = lr_remote_open(&r, which, uri, objects, 1)) && !(rc = lr_remote_init(r, &applied, &version))) {
		if (!strncmp(uri, "s3://", 5)) /* a bucket has no schema: its prefix is marked once */
			printf("remote '%s': %s (layout %d)\n", which,
			       applied ? "marked as a labrun remote" : "a labrun remote already", version);
		else if (applied)
			printf("remote '%s': applied %d migration%s, schema version %d\n", which, applied,
			       applied == 1 ? "" : "s", version);
		else
			printf("remote '%s': schema version %d, up to date\n", which, version);
	}
	lr_remote_free(r);
	free(uri);
	free(which);
	free(objects);
	return rc;
}

int cmd_remote(const struct lr_global *g, int argc, char **argv)
{
	const struct cmd_opt opts[] = {
		CMD_NONEMPTY(0, "objects", &objects_opt, "URI",
			     "with add: the s3:// bucket a PostgreSQL remote keeps its objects in"),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "remote",
				     .usage = usage,
				     .min = 1,
				     .max = 3,
				     .operands = "a subcommand: add, list, remove or init" };
	/* naming a remote is a reviewer's first step: like every command that writes, add creates the store */
	static const struct {
		const char *name;
		int min, max;
		const char *operands;
		enum cmd_store_mode mode;
		int (*fn)(struct lr_store *st, char **args, int n); /* args: the operands after the subcommand */
	} subs[] = {
		{ .name = "add", .min = 2, .max = 2, .operands = "NAME URI", .mode = CMD_CREATES, .fn = remote_add },
		{ .name = "list", .operands = "nothing", .mode = CMD_WRITES, .fn = remote_list },
		{ .name = "remove", .min = 1, .max = 1, .operands = "NAME", .mode = CMD_WRITES, .fn = remote_remove },
		{ .name = "init", .max = 1, .operands = "at most NAME", .mode = CMD_WRITES, .fn = remote_init },
	};
	struct lr_global local;
	struct lr_store *st = NULL;
	const char *sub;
	int rc, first, n;
	size_t i;

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		return rc;
	sub = argv[first];
	n = argc - first - 1;
	for (i = 0; i < sizeof subs / sizeof subs[0] && strcmp(subs[i].name, sub); i++)
		;
	if (i == sizeof subs / sizeof subs[0])
		return cmd_usage_error("remote", "unknown subcommand '%s': add, list, remove or init", sub);
	if (n < subs[i].min || n > subs[i].max)
		return cmd_usage_error("remote", "'%s' takes %s", sub, subs[i].operands);
	if (objects_opt && subs[i].fn != remote_add)
		return cmd_usage_error("remote", "--objects goes with 'remote add'");
	local = *g;
	local.mode = subs[i].mode;
	if ((rc = cmd_store(&st, &local)))
		return rc;
	rc = subs[i].fn(st, argv + first + 1, n);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
