#ifndef LR_BASE_CURL_H
#define LR_BASE_CURL_H

/*
 * libcurl, loaded when a command first speaks HTTP (collect, an S3 remote), as
 * libpq is for remotes: commands that never do pay nothing for it or for
 * its TLS libraries. The calls keep their names: after including this
 * header, curl_easy_init() is a call through the table lr_curl_load()
 * filled. The type-checking macros of curl.h are off, since the names are
 * pointers here.
 */

#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

#include "base/dynlib.h"

/* clang-format off */
#define LR_CURL_FUNCS(X) \
	X(curl_global_init) X(curl_easy_init) X(curl_easy_setopt) X(curl_easy_getinfo) X(curl_easy_cleanup) \
	X(curl_easy_strerror) X(curl_easy_perform) X(curl_multi_init) X(curl_multi_add_handle) X(curl_multi_remove_handle) \
	X(curl_multi_perform) X(curl_multi_poll) X(curl_multi_info_read) X(curl_multi_cleanup) \
	X(curl_multi_strerror) X(curl_slist_append) X(curl_slist_free_all) X(curl_multi_setopt) X(curl_multi_socket_action) \
	X(curl_easy_reset) X(curl_easy_escape) X(curl_free)
/* clang-format on */

/*
 * The table lr_curl, and lr_curl_load(), which loads libcurl.so.4 once and
 * initialises it: 0, or an error saying it is missing (and what to install).
 */
LR_DYNLIB_DECLARE(lr_curl, lr_curl_load, LR_CURL_FUNCS)

/* curl.h's three-argument checks are function-like macros of the same names */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#undef curl_multi_setopt

#ifndef LR_CURL_LOADER /* curl.c names the functions themselves */
#define curl_global_init         lr_curl.curl_global_init
#define curl_easy_init           lr_curl.curl_easy_init
#define curl_easy_setopt         lr_curl.curl_easy_setopt
#define curl_easy_getinfo        lr_curl.curl_easy_getinfo
#define curl_easy_cleanup        lr_curl.curl_easy_cleanup
#define curl_easy_strerror       lr_curl.curl_easy_strerror
#define curl_easy_perform        lr_curl.curl_easy_perform
#define curl_multi_init          lr_curl.curl_multi_init
#define curl_multi_add_handle    lr_curl.curl_multi_add_handle
#define curl_multi_remove_handle lr_curl.curl_multi_remove_handle
#define curl_multi_perform       lr_curl.curl_multi_perform
#define curl_multi_poll          lr_curl.curl_multi_poll
#define curl_multi_info_read     lr_curl.curl_multi_info_read
#define curl_multi_cleanup       lr_curl.curl_multi_cleanup
#define curl_multi_strerror      lr_curl.curl_multi_strerror
#define curl_slist_append        lr_curl.curl_slist_append
#define curl_slist_free_all      lr_curl.curl_slist_free_all
#define curl_multi_setopt        lr_curl.curl_multi_setopt
#define curl_multi_socket_action lr_curl.curl_multi_socket_action
#define curl_easy_reset          lr_curl.curl_easy_reset
#define curl_easy_escape         lr_curl.curl_easy_escape
#define curl_free                lr_curl.curl_free
#endif

#endif
