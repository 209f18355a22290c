-- labrun remote (PostgreSQL), migration 2: objects kept in an S3-compatible bucket instead of here.

-- A remote added with 'labrun remote add NAME URI --objects s3://BUCKET/PREFIX?...' keeps each
-- object's bytes in that bucket as objects/SHA256 under its prefix, so large bytes never pass
-- through the database; its row here is written in the same transaction as the upload, as a
-- chunked object's row is with its chunks. A puller reads the bytes from the bucket it names.
ALTER TABLE object ADD COLUMN bucket text; -- s3:// URI of the bucket holding the bytes; NULL: object_chunk holds them
