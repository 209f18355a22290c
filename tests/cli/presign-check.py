"""Check labrun share's presigned URLs against botocore's presigner, an independent implementation
of AWS Signature Version 4 query signing: for each URL on stdin (a line's last field), botocore signs
the same GET at the same time with the same key and expiry; the signatures must be equal. Prints one
line per URL: 'same' or 'DIFFERENT', then the count.

usage: python3 presign-check.py REGION < share-output   (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)
"""
import datetime
import os
import sys
import urllib.parse as up

import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

creds = Credentials(os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"])
n = 0
for line in sys.stdin:
    fields = line.split()
    if not fields or not fields[-1].startswith("http"):
        continue
    p = up.urlsplit(fields[-1])
    q = dict(up.parse_qsl(p.query))
    at = datetime.datetime.strptime(q["X-Amz-Date"], "%Y%m%dT%H%M%SZ")

    class Fixed(datetime.datetime):
        @classmethod
        def utcnow(cls):
            return at

        @classmethod
        def now(cls, tz=None):
            return at.replace(tzinfo=tz) if tz else at

    botocore.auth.datetime.datetime = Fixed
    req = AWSRequest(method="GET", url="%s://%s%s" % (p.scheme, p.netloc, p.path))
    botocore.auth.S3SigV4QueryAuth(creds, "s3", sys.argv[1], expires=int(q["X-Amz-Expires"])).add_auth(req)
    theirs = dict(up.parse_qsl(up.urlsplit(req.url).query))
    print("same" if theirs == q else "DIFFERENT %s" % p.path)
    n += 1
print(n)
