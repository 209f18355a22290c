#ifndef LR_SCHEMA_H
#define LR_SCHEMA_H

/* The migrations in schema/NNNN-*.sql, embedded at build time (schema-sql.c). */
struct lr_migration {
	int version;      /* NNNN: migration i has version i + 1 */
	const char *name; /* file name without .sql */
	const char *sql;
};

extern const struct lr_migration lr_migrations[];
extern const int lr_migration_count;

/* The migrations of a remote, schema/pg/NNNN-*.sql (schema-pg-sql.c). */
extern const struct lr_migration lr_pg_migrations[];
extern const int lr_pg_migration_count;

#endif
