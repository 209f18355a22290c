-- labrun store, migration 11: signed ledger entries.

-- The public keys that signed ledger entries, each stored once ('labrun key init' makes a key).
CREATE TABLE signing_key (
	fingerprint TEXT PRIMARY KEY, -- sha256 of the 32 raw public key bytes, hex
	public_key  TEXT NOT NULL UNIQUE, -- Ed25519 public key, 64 hex digits
	added_at    TEXT NOT NULL -- when it first signed an entry here
);
-- An entry appended while a key was present is signed: the Ed25519 signature of its digest's
-- 64 hex characters. Entries without a key stay unsigned (NULL).
ALTER TABLE ledger ADD COLUMN key_fingerprint TEXT REFERENCES signing_key(fingerprint);
ALTER TABLE ledger ADD COLUMN signature TEXT;
