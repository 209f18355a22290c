/* The file hash cache (migration 13): an unchanged file is stat()ed, not read again. */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "store/hashcache.h"
#include "store/store-int.h"

static int64_t ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

/* The file's identity as the cache keys it: path, size, times, inode, device. */
static void bind_stat(sqlite3_stmt *s, const char *path, const struct stat *sb)
{
	db_bind_text(s, ":path", path);
	db_bind_int(s, ":size", (int64_t)sb->st_size);
	db_bind_int(s, ":mtime", ns(&sb->st_mtim));
	db_bind_int(s, ":ctime", ns(&sb->st_ctim));
	db_bind_int(s, ":inode", (int64_t)sb->st_ino);
	db_bind_int(s, ":dev", (int64_t)sb->st_dev);
}

int lr_store_hash_cached(struct lr_store *st, const char *path, const struct stat *sb, char sha256[LR_SHA256_HEX])
{
	sqlite3_stmt *s = NULL;
	int rc, hit = 0;

	if ((rc = db_prepare(st, &s,
			     "SELECT sha256 FROM file_hash_cache WHERE path = :path AND size = :size"
			     " AND mtime_ns = :mtime AND ctime_ns = :ctime AND inode = :inode AND device = :dev"
			     " AND hashed_ns >= :mtime + 1000000000")))
		return rc;
	bind_stat(s, path, sb);
	if (db_step_row(st, s, "read the hash cache", &rc) && sqlite3_column_bytes(s, 0) == LR_SHA256_HEX - 1) {
		memcpy(sha256, sqlite3_column_text(s, 0), LR_SHA256_HEX);
		hit = 1;
	}
	sqlite3_finalize(s);
	return rc ? rc : hit;
}

int lr_store_hash_remember(struct lr_store *st, const struct lr_hash_entry *e, size_t n)
{
	static const char sql[] =
		"INSERT INTO file_hash_cache(path, size, mtime_ns, ctime_ns, inode, device, sha256, hashed_ns)"
		" VALUES (:path, :size, :mtime, :ctime, :inode, :dev, :sha, :now)"
		" ON CONFLICT(path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns,"
		" ctime_ns = excluded.ctime_ns, inode = excluded.inode, device = excluded.device,"
		" sha256 = excluded.sha256, hashed_ns = excluded.hashed_ns";
	struct timespec now;
	sqlite3_stmt *s = NULL;
	size_t i;
	int rc;

	if (!n || st->readonly || st->snapshot)
		return 0; /* a cache: a store that cannot be written now simply does not remember */
	clock_gettime(CLOCK_REALTIME, &now);
	if ((rc = db_begin(st)))
		return rc;
	if (!(rc = db_prepare(st, &s, sql)))
		for (i = 0; i < n && !rc; i++) {
			bind_stat(s, e[i].path, &e[i].sb);
			db_bind_text(s, ":sha", e[i].sha256);
			db_bind_int(s, ":now", ns(&now));
			rc = db_step_done(st, s, "remember a file hash");
		}
	sqlite3_finalize(s);
	return db_commit(st, rc);
}
