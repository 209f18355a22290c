-- labrun store, migration 28: evidence kept in S3-compatible buckets.

-- A registration of an archive copy in a bucket ('labrun register --hub NAME s3://...') has the
-- copy's URI as its crate_path and, here, the sha256 of the bytes read back from the bucket before
-- it was recorded. NULL for a crate directory on this host.
ALTER TABLE registration ADD COLUMN archive_sha256 TEXT; -- sha256 of the archive as read back, or NULL

-- A PostgreSQL remote whose objects live in a bucket ('labrun remote add NAME URI --objects
-- s3://...'): the bucket's URI. NULL: the objects are in the remote itself.
ALTER TABLE remote ADD COLUMN objects_uri TEXT; -- s3:// URI of the remote's objects, or NULL
