"""moto's S3 server for the S3 remote tests, with its signature check given the request's query as
the client sent it. moto 5.2.1 checks a SigV4 signature against the query werkzeug decoded, so a
correctly signed request whose query holds an escaped '/' (%2F, as in ListObjectsV2's prefix=a%2Fb)
is refused; boto3's own listing with a prefix is refused the same way. Everything else is moto's.

usage: python3 s3-server.py -H 127.0.0.1 -p PORT   (moto.server's own options)
"""
import sys
from urllib.parse import urlparse
import moto.core.responses as responses
from moto.server import main

_setup = responses.BaseResponse.setup_class

def setup_class(self, request, full_url, headers, *args, **kwargs):
    _setup(self, request, full_url, headers, *args, **kwargs)
    raw = getattr(request, "environ", {}).get("RAW_URI") or getattr(request, "environ", {}).get("REQUEST_URI")
    if raw and "?" in raw:
        u = urlparse(self.uri)
        self.uri = "%s://%s%s" % (u.scheme, u.netloc, raw)

responses.BaseResponse.setup_class = setup_class
sys.exit(main(sys.argv[1:]))
