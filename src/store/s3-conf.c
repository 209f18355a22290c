/* An S3 remote's URI and the user's credentials for it (s3.h says where each comes from). */
#include "config.h"
#include "base/system.h"

#include <ini.h>

#include "base/error.h"
#include "store/s3-int.h"

#define BUCKET_CHARS "abcdefghijklmnopqrstuvwxyz0123456789.-"

/* The value of query parameter 'key' in 'q' ("a=1&b=2"), copied to out[size]: how often it is there. */
static int param(const char *q, const char *key, char *out, size_t size)
{
	size_t k = strlen(key);
	int n = 0;

	for (const char *p = q; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL)
		if (!strncmp(p, key, k) && p[k] == '=' && !n++)
			snprintf(out, size, "%.*s", (int)strcspn(p + k + 1, "&"), p + k + 1);
	return n;
}

/* Whether a '/'-separated 'prefix' has a part "." or "..". */
static int dot_part(const char *prefix)
{
	for (const char *p = prefix; *p; p += strcspn(p, "/") + (p[strcspn(p, "/")] == '/')) {
		size_t n = strcspn(p, "/");

		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return 1;
	}
	return 0;
}

/* What is wrong with the URI, or NULL; its parts in 'c' (any of them NULL: not wanted). */
static const char *parse(const char *uri, struct lr_s3_conf *c)
{
	const char *p = uri + 5, *slash, *q = strchr(uri, '?');
	size_t blen, plen;

	if (strncmp(uri, "s3://", 5))
		return "it does not start with s3://";
	if (strchr(uri, '@'))
		return "it holds a user or a secret";
	if (strchr(uri, '#'))
		return "it has a '#' part, which an S3 URI has not";
	blen = strcspn(p, "/?");
	slash = p[blen] == '/' ? p + blen + 1 : NULL;
	plen = slash ? (size_t)((q ? q : slash + strlen(slash)) - slash) : 0;
	if (blen < 3 || blen > 63 || strspn(p, BUCKET_CHARS) < blen)
		return "its bucket is not 3 to 63 lower-case letters, digits, '.' or '-'";
	if (plen >= sizeof c->prefix - 1)
		return "its prefix is too long";
	snprintf(c->prefix, sizeof c->prefix, "%.*s%s", (int)plen, slash ? slash : "",
		 plen && slash[plen - 1] != '/' ? "/" : "");
	if (strspn(c->prefix, PREFIX_CHARS) < plen || c->prefix[0] == '/' || strstr(c->prefix, "//"))
		return "its prefix is not letters, digits, '.', '_', '-' and single '/'";
	if (dot_part(c->prefix)) /* a client or a proxy would fold it into another path, even another bucket */
		return "its prefix has a '.' or '..' part";
	snprintf(c->bucket, sizeof c->bucket, "%.*s", (int)blen, p);
	c->endpoint[0] = c->region[0] = c->style[0] = '\0';
	if (q && (param(q + 1, "endpoint", c->endpoint, sizeof c->endpoint) > 1 ||
		  param(q + 1, "region", c->region, sizeof c->region) > 1 ||
		  param(q + 1, "style", c->style, sizeof c->style) > 1))
		return "its query names endpoint, region or style twice";
	if (c->style[0] && strcmp(c->style, "path") && strcmp(c->style, "virtual"))
		return "its style is neither 'path' nor 'virtual'";
	if (c->endpoint[0] && strncmp(c->endpoint, "http://", 7) && strncmp(c->endpoint, "https://", 8))
		return "its endpoint is not an http:// or https:// URL";
	for (const char *e = c->endpoint; *e; e++)
		if ((unsigned char)*e <= ' ' || (unsigned char)*e >= 0x7f)
			return "its endpoint has a space or a control character";
	if (strspn(c->region, "abcdefghijklmnopqrstuvwxyz0123456789-") <
	    strlen(c->region)) /* it is signed into a header */
		return "its region is not lower-case letters, digits and '-'";
	if (strlen(c->endpoint) >= sizeof c->endpoint - 1)
		return "its endpoint is too long";
	return NULL;
}

int lr_s3_uri_check(const char *name, const char *uri)
{
	struct lr_s3_conf c;
	const char *why = parse(uri, &c);

	if (!why)
		return 0;
	/* the URI is not repeated: it may hold a secret */
	lr_error_set(LR_EINVAL, "cannot add remote '%s': its URI is not an S3 remote's: %s", name, why);
	lr_error_hint("s3://BUCKET/PREFIX?endpoint=http://HOST:PORT&region=REGION&style=path (docs/remote.md); "
		      "credentials come from the environment or ~/.aws/credentials, never the URI");
	return LR_EINVAL;
}

struct profile {
	const char *want;
	struct lr_s3_conf *c;
	int seen;
};

static int on_ini(void *arg, const char *section, const char *key, const char *value)
{
	struct profile *p = arg;

	if (strcmp(section, p->want))
		return 1;
	p->seen = 1;
	if (!strcmp(key, "aws_access_key_id"))
		snprintf(p->c->key_id, sizeof p->c->key_id, "%s", value);
	else if (!strcmp(key, "aws_secret_access_key"))
		snprintf(p->c->secret, sizeof p->c->secret, "%s", value);
	else if (!strcmp(key, "aws_session_token"))
		snprintf(p->c->token, sizeof p->c->token, "%s", value);
	return 1;
}

/* The key id, secret and token: the environment's, else a profile of the credentials file. */
static int credentials(const char *name, struct lr_s3_conf *c)
{
	const char *id = getenv("AWS_ACCESS_KEY_ID"), *secret = getenv("AWS_SECRET_ACCESS_KEY");
	const char *file = getenv("AWS_SHARED_CREDENTIALS_FILE"), *home = getenv("HOME");
	struct profile p = { getenv("AWS_PROFILE") && *getenv("AWS_PROFILE") ? getenv("AWS_PROFILE") : "default", c,
			     0 };
	char path[4096];

	if (id && *id && secret && *secret) {
		snprintf(c->key_id, sizeof c->key_id, "%s", id);
		snprintf(c->secret, sizeof c->secret, "%s", secret);
		snprintf(c->token, sizeof c->token, "%s",
			 getenv("AWS_SESSION_TOKEN") ? getenv("AWS_SESSION_TOKEN") : "");
		snprintf(c->source, sizeof c->source, "the environment (AWS_ACCESS_KEY_ID)");
		return 0;
	}
	snprintf(path, sizeof path, "%s%s",
		 file && *file ? file
		 : home        ? home
			       : "",
		 file && *file ? "" : "/.aws/credentials");
	if (ini_parse(path, on_ini, &p) >= 0 && c->key_id[0] && c->secret[0]) {
		snprintf(c->source, sizeof c->source, "profile '%s' of %s", p.want, path);
		return 0;
	}
	lr_error_set(LR_ESTORE,
		     "cannot use remote '%s': no S3 credentials (no AWS_ACCESS_KEY_ID and "
		     "AWS_SECRET_ACCESS_KEY, and no profile '%s' with both in %s)",
		     name, p.want, path);
	lr_error_hint("export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or name a profile with AWS_PROFILE; "
		      "labrun never stores them");
	return LR_ESTORE;
}

int lr_s3_conf_read(const char *name, const char *uri, struct lr_s3_conf *c)
{
	const char *why = parse(uri, c), *env;
	int aws;

	if (why) {
		lr_error_set(LR_EINVAL, "remote '%s' has a URI this labrun cannot read: %s", name, why);
		return LR_EINVAL;
	}
	if (!c->region[0])
		snprintf(c->region, sizeof c->region, "%s",
			 (env = getenv("AWS_REGION")) && *env           ? env
			 : (env = getenv("AWS_DEFAULT_REGION")) && *env ? env
									: "us-east-1");
	if (!c->endpoint[0] && (env = getenv("AWS_ENDPOINT_URL")) && *env)
		snprintf(c->endpoint, sizeof c->endpoint, "%s", env);
	if ((aws = !c->endpoint[0]))
		snprintf(c->endpoint, sizeof c->endpoint, "https://s3.%s.amazonaws.com", c->region);
	c->endpoint[strcspn(c->endpoint, "?#")] = '\0';
	while (c->endpoint[0] && c->endpoint[strlen(c->endpoint) - 1] == '/')
		c->endpoint[strlen(c->endpoint) - 1] = '\0';
	c->path_style = c->style[0] ? !strcmp(c->style, "path") : !aws;
	return credentials(name, c);
}
