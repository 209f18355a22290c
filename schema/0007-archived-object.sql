-- labrun store, migration 7: objects pruned from objects/ after being archived.

-- Where the content of a pruned object lives now. 'labrun cat', 'audit', 'fsck' and crate writing
-- read it from the archive member when the object file is gone.
CREATE TABLE archived_object (
	sha256       TEXT PRIMARY KEY REFERENCES object(sha256), -- the object
	archive_path TEXT NOT NULL, -- absolute path of the .tar.zst holding it
	member       TEXT NOT NULL, -- the member's name inside the archive
	archived_at  TEXT NOT NULL -- when it was pruned
);
