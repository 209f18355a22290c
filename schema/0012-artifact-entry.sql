-- labrun store, migration 12: what a declared artifact's entry was, when not a plain file.

-- A symbolic link is stored as a link: its artifact row's content is the link's target, as
-- written in the link (as git stores links), and this row says so. With --follow-links the file
-- the link points to is stored and this row records where it led. An empty directory has no
-- artifact row (there are no bytes); this row keeps it from vanishing.
CREATE TABLE artifact_entry (
	run_id INTEGER NOT NULL REFERENCES run(id), -- the run
	role   TEXT NOT NULL, -- as artifact.role
	name   TEXT NOT NULL, -- as artifact.name; a directory's ends with '/'
	kind   TEXT NOT NULL CHECK (kind IN ('symlink', 'followed-symlink', 'directory')), -- what it was
	target TEXT, -- a link's target (followed: the resolved path); NULL for a directory
	PRIMARY KEY (run_id, role, name)
);
