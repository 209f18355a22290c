-- labrun store, migration 17: the store's identity.

-- One row: the id this store got when it was created (or when this migration ran on an older
-- store). The user's configuration remembers, per store id and path, from which ledger entry on
-- the store is signed and by which keys ('labrun audit' checks it); the id lives here only so that
-- a copy of the store can be told from another store, never to decide what is trusted.
CREATE TABLE store_identity (
	id         TEXT PRIMARY KEY CHECK (length(id) = 32), -- 32 lowercase hex digits, random
	created_at TEXT NOT NULL -- when it was given (ISO 8601, UTC)
);
INSERT INTO store_identity(id, created_at)
	VALUES (lower(hex(randomblob(16))), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
