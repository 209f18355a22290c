#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/issueref.h"

int lr_issue_normalize(const char *ref, char *out, size_t outlen)
{
	const char *p = ref, *hash;
	size_t n;

	if (*p == '#')
		p++;
	if (*p && strspn(p, "0123456789") == strlen(p) && strlen(p) < 19) {
		snprintf(out, outlen, "%s", p + strspn(p, "0") - (p[strspn(p, "0")] == '\0'));
		return 0;
	}
	/* owner/repo#N */
	hash = strchr(ref, '#');
	n = strcspn(ref, "/");
	if (hash && n > 0 && ref[n] == '/' && ref + n + 1 < hash &&
	    !memchr(ref + n + 1, '/', (size_t)(hash - ref - n - 1)) &&
	    strspn(ref, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-/") == (size_t)(hash - ref) &&
	    hash[1] && strspn(hash + 1, "0123456789") == strlen(hash + 1) && strlen(ref) < outlen) {
		snprintf(out, outlen, "%s", ref);
		return 0;
	}
	lr_error_set(LR_EINVAL, "invalid issue reference '%s': expected a number or owner/repo#number", ref);
	lr_error_hint("e.g. --issue 270 or --issue RBLN-SW/optimum-rbln#827");
	return LR_EINVAL;
}
