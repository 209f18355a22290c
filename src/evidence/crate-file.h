#ifndef LR_EVIDENCE_CRATE_FILE_H
#define LR_EVIDENCE_CRATE_FILE_H

/*
 * A crate's files, for the files that write a crate (manifest.c): made in
 * place, their directories with them, and described as File entities in its
 * graph. Nothing here prints.
 */

#include <stdio.h>

#include <jansson.h>

/* A new file at 'path' in the crate (its directories made): NULL with *rc set when it cannot be made. */
FILE *lr_crate_create_file(const char *path, int *rc);

/* Close a file of lr_crate_create_file: rc, or the error of closing it. */
int lr_crate_close_file(FILE *f, const char *path, int rc);

/* text[0..len) as the new file 'path'. */
int lr_crate_write_text(const char *path, const char *text, size_t len);

/* {"@id": id} */
json_t *lr_crate_ref(const char *id);

/* The media type a crate declares for a file of this name. */
const char *lr_crate_media_type(const char *name);

/* Add a File entity for 'rel' (already in the crate) to the graph and the root's hasPart; returns a reference. */
json_t *lr_crate_add_file(const char *dir, const char *rel, json_t *graph, json_t *parts);

#endif
