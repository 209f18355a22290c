#ifndef LR_EVIDENCE_LIBARCHIVE_H
#define LR_EVIDENCE_LIBARCHIVE_H

/*
 * libarchive, loaded when a command first reads or writes an archive
 * (base/dynlib.h). Linked in, it brought libxml2, ICU and the C++ runtime
 * into every command's start-up. The calls keep their names: after including
 * this header, archive_read_new() is a call through the table
 * lr_libarchive_load() filled.
 */

#include <archive.h>
#include <archive_entry.h>

#include "base/dynlib.h"

/* clang-format off */
#define LR_ARCHIVE_FUNCS(X) \
	X(archive_entry_filetype) X(archive_entry_free) X(archive_entry_hardlink) X(archive_entry_new) \
	X(archive_entry_pathname) X(archive_entry_set_filetype) X(archive_entry_set_mtime) \
	X(archive_entry_set_pathname) X(archive_entry_set_perm) X(archive_entry_set_size) X(archive_entry_symlink) \
	X(archive_error_string) X(archive_read_data) X(archive_read_extract2) X(archive_read_free) \
	X(archive_read_new) X(archive_read_next_header) X(archive_read_open_filename) \
	X(archive_read_support_filter_all) X(archive_read_support_format_all) X(archive_write_add_filter_zstd) \
	X(archive_write_close) X(archive_write_data) X(archive_write_disk_new) X(archive_write_disk_set_options) \
	X(archive_write_free) X(archive_write_header) X(archive_write_new) X(archive_write_open_filename) \
	X(archive_write_set_format_option) X(archive_write_set_format_pax_restricted) X(archive_version_string)
/* clang-format on */

/*
 * The table lr_libarchive, and lr_libarchive_load(), which loads the library
 * once: 0, or LR_ESTORE saying it is missing (and what to install).
 */
LR_DYNLIB_DECLARE(lr_libarchive, lr_libarchive_load, LR_ARCHIVE_FUNCS)

#ifndef LR_ARCHIVE_LOADER /* the loader names the functions themselves */
#define archive_entry_filetype                  lr_libarchive.archive_entry_filetype
#define archive_entry_free                      lr_libarchive.archive_entry_free
#define archive_entry_hardlink                  lr_libarchive.archive_entry_hardlink
#define archive_entry_new                       lr_libarchive.archive_entry_new
#define archive_entry_pathname                  lr_libarchive.archive_entry_pathname
#define archive_entry_set_filetype              lr_libarchive.archive_entry_set_filetype
#define archive_entry_set_mtime                 lr_libarchive.archive_entry_set_mtime
#define archive_entry_set_pathname              lr_libarchive.archive_entry_set_pathname
#define archive_entry_set_perm                  lr_libarchive.archive_entry_set_perm
#define archive_entry_set_size                  lr_libarchive.archive_entry_set_size
#define archive_entry_symlink                   lr_libarchive.archive_entry_symlink
#define archive_error_string                    lr_libarchive.archive_error_string
#define archive_read_data                       lr_libarchive.archive_read_data
#define archive_read_extract2                   lr_libarchive.archive_read_extract2
#define archive_read_free                       lr_libarchive.archive_read_free
#define archive_read_new                        lr_libarchive.archive_read_new
#define archive_read_next_header                lr_libarchive.archive_read_next_header
#define archive_read_open_filename              lr_libarchive.archive_read_open_filename
#define archive_read_support_filter_all         lr_libarchive.archive_read_support_filter_all
#define archive_read_support_format_all         lr_libarchive.archive_read_support_format_all
#define archive_write_add_filter_zstd           lr_libarchive.archive_write_add_filter_zstd
#define archive_write_close                     lr_libarchive.archive_write_close
#define archive_write_data                      lr_libarchive.archive_write_data
#define archive_write_disk_new                  lr_libarchive.archive_write_disk_new
#define archive_write_disk_set_options          lr_libarchive.archive_write_disk_set_options
#define archive_write_free                      lr_libarchive.archive_write_free
#define archive_write_header                    lr_libarchive.archive_write_header
#define archive_write_new                       lr_libarchive.archive_write_new
#define archive_write_open_filename             lr_libarchive.archive_write_open_filename
#define archive_write_set_format_option         lr_libarchive.archive_write_set_format_option
#define archive_write_set_format_pax_restricted lr_libarchive.archive_write_set_format_pax_restricted
#define archive_version_string                  lr_libarchive.archive_version_string
#endif

#endif
