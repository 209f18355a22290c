-- labrun store, migration 13: a cache of file hashes, so an unchanged file is not read again.

-- Not evidence and in no seal: the sha256 a file had when it was last hashed, valid while its
-- size, modification and change times (ns), inode and device are the same, as git's index does.
-- An entry hashed in the same second the file changed is not trusted ("racily clean").
CREATE TABLE file_hash_cache (
	path      TEXT PRIMARY KEY, -- absolute path
	size      INTEGER NOT NULL, -- bytes
	mtime_ns  INTEGER NOT NULL, -- modification time, ns since the epoch
	ctime_ns  INTEGER NOT NULL, -- inode change time, ns since the epoch
	inode     INTEGER NOT NULL,
	device    INTEGER NOT NULL,
	sha256    TEXT NOT NULL, -- the content's hash
	hashed_ns INTEGER NOT NULL -- when it was hashed, ns since the epoch
);
