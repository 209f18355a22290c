-- labrun store, migration 9: the store's settings ('labrun config').

-- One value per known key (docs/labrun.md lists them), e.g. the licence,
-- author and publisher every crate and archive of this store declares.
CREATE TABLE setting (
	key    TEXT PRIMARY KEY, -- e.g. 'manifest.license'
	value  TEXT NOT NULL,    -- as given to 'labrun config KEY VALUE'
	set_at TEXT NOT NULL     -- when it was last set (ISO 8601, UTC)
);
