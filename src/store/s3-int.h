#ifndef LR_STORE_S3_INT_H
#define LR_STORE_S3_INT_H

/* What s3-conf.c reads for s3.c: the remote's URI and the user's credentials. */

#include "store/s3.h"

struct lr_s3_conf {
	char bucket[64], prefix[512], endpoint[512], region[64], style[16];
	int path_style;
	char key_id[128], secret[256], token[4096];
	char source[4200]; /* where the credentials came from, for messages */
};

/* The URI's parts, the defaults for those it leaves out, and the credentials (LR_ESTORE when there are none). */
LR_MUST_CHECK int lr_s3_conf_read(const char *name, const char *uri, struct lr_s3_conf *c);

#endif
