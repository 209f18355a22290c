/* libcurl, loaded on first use (see curl.h). */
#include "config.h"
#include "base/system.h"

#define LR_CURL_LOADER /* the names are libcurl's own here */

#include "base/error.h"
#include "base/curl.h"

int lr_curl_load_library(void);

#define LR_DYNLIB_TABLE lr_curl
LR_DYNLIB_DEFINE(lr_curl_load_library, LR_CURL_FUNCS, "libcurl.so.4", "libcurl, the HTTP client library")

int lr_curl_load(void)
{
	static int initialised;
	int rc = lr_curl_load_library();
	CURLcode c;

	if (rc || initialised)
		return rc;
	/* once, before any handle: labrun is one thread when it speaks HTTP */
	if ((c = lr_curl.curl_global_init(CURL_GLOBAL_DEFAULT)) != CURLE_OK)
		return lr_error_set(LR_EIO, "cannot initialise libcurl: %s", lr_curl.curl_easy_strerror(c));
	initialised = 1;
	return 0;
}
