#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "base/error.h"
#include "store/objects.h"
#include "testutil.h"

/* sha256("abc"), FIPS 180-2 example */
#define ABC "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

static int setup(void **state)
{
	char *dir = tmpdir_new(), p[4096];

	assert_non_null(dir);
	snprintf(p, sizeof p, "%s/objects", dir);
	assert_int_equal(mkdir(p, 0777), 0);
	*state = dir;
	return 0;
}

static int teardown(void **state)
{
	tmpdir_remove(*state);
	return 0;
}

static int count_entries(const char *dir)
{
	struct dirent *e;
	int n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static void objw_commit_names_object_by_sha256(void **state)
{
	const char *dir = *state;
	struct lr_objw *w = NULL;
	char hex[LR_SHA256_HEX], *path, buf[8] = { 0 };
	int64_t size = 0;
	FILE *f;

	assert_int_equal(lr_objw_open(&w, dir, NULL), 0);
	assert_int_equal(lr_objw_write(w, "a", 1), 0);
	assert_int_equal(lr_objw_write(w, "bc", 2), 0);
	assert_int_equal(lr_objw_commit(w, hex, &size), 0);
	assert_string_equal(hex, ABC);
	assert_int_equal(size, 3);
	path = lr_obj_path(dir, hex);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, sizeof buf, f), 3);
	fclose(f);
	assert_string_equal(buf, "abc");
	free(path);
}

static void objw_same_content_is_stored_once(void **state)
{
	const char *dir = *state;
	char hex1[LR_SHA256_HEX], hex2[LR_SHA256_HEX], sub[4096], tmp[4096];
	struct lr_objw *w = NULL;

	assert_int_equal(lr_objw_open(&w, dir, NULL), 0);
	assert_int_equal(lr_objw_write(w, "abc", 3), 0);
	assert_int_equal(lr_objw_commit(w, hex1, NULL), 0);
	assert_int_equal(lr_objw_open(&w, dir, NULL), 0);
	assert_int_equal(lr_objw_write(w, "abc", 3), 0);
	assert_int_equal(lr_objw_commit(w, hex2, NULL), 0);
	assert_string_equal(hex1, hex2);
	snprintf(sub, sizeof sub, "%s/objects/ba", dir);
	assert_int_equal(count_entries(sub), 1);
	snprintf(tmp, sizeof tmp, "%s/objects/tmp", dir);
	assert_int_equal(count_entries(tmp), 0);
}

static void objw_abort_leaves_no_temporary_file(void **state)
{
	const char *dir = *state;
	struct lr_objw *w = NULL;
	char tmp[4096];

	assert_int_equal(lr_objw_open(&w, dir, NULL), 0);
	assert_int_equal(lr_objw_write(w, "partial", 7), 0);
	lr_objw_abort(w);
	snprintf(tmp, sizeof tmp, "%s/objects/tmp", dir);
	assert_int_equal(count_entries(tmp), 0);
}

static void objw_large_writes_hash_like_one_buffer(void **state)
{
	const char *dir = *state;
	size_t n = 300000, i;
	unsigned char *big = malloc(n);
	char a[LR_SHA256_HEX], b[LR_SHA256_HEX];
	struct lr_objw *w = NULL;

	assert_non_null(big);
	for (i = 0; i < n; i++)
		big[i] = (unsigned char)(i * 7 + 3);
	assert_int_equal(lr_sha256_buf(big, n, a), 0);
	assert_int_equal(lr_objw_open(&w, dir, NULL), 0);
	/* Odd chunk sizes cross the writer's internal buffer at every offset class. */
	for (i = 0; i < n;) {
		size_t k = (i % 3 == 0) ? 100003 : 17;

		if (k > n - i)
			k = n - i;
		assert_int_equal(lr_objw_write(w, big + i, k), 0);
		i += k;
	}
	assert_int_equal(lr_objw_commit(w, b, NULL), 0);
	assert_string_equal(a, b);
	assert_int_equal(lr_obj_verify(dir, b), 0);
	free(big);
}

/* A deferred hash (lr_objw_defer_hash) names the object as the written bytes do: mapped (hashed on a thread), never
 * mapped (hashed at commit), empty, and given up while its thread runs. */
static void objw_deferred_hash_names_the_same_object(void **state)
{
	const char *dir = *state;
	size_t n = 3000017, i;
	unsigned char *big = malloc(n);
	char want[LR_SHA256_HEX], got[LR_SHA256_HEX], tmp[4096];
	struct lr_objw *w = NULL;
	const char *p;
	size_t len;

	assert_non_null(big);
	for (i = 0; i < n; i++)
		big[i] = (unsigned char)(i * 13 + 5);
	assert_int_equal(lr_sha256_buf(big, n, want), 0);
	for (int mapped = 0; mapped < 2; mapped++) {
		assert_int_equal(lr_objw_open(&w, dir, NULL), 0);
		lr_objw_defer_hash(w);
		assert_int_equal(lr_objw_write(w, big, 17), 0);
		assert_int_equal(lr_objw_write(w, big + 17, n - 17), 0);
		if (mapped) {
			assert_int_equal(lr_objw_map(w, &p, &len), 0);
			assert_int_equal(len, n);
			assert_memory_equal(p, big, n);
			munmap((void *)p, len);
		}
		assert_int_equal(lr_objw_commit(w, got, NULL), 0);
		assert_string_equal(got, want);
		assert_int_equal(lr_obj_verify(dir, got), 0);
	}
	assert_int_equal(lr_objw_open(&w, dir, NULL), 0);
	lr_objw_defer_hash(w);
	assert_int_equal(lr_objw_commit(w, got, NULL), 0);
	assert_string_equal(got, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	assert_int_equal(lr_objw_open(&w, dir, NULL), 0);
	lr_objw_defer_hash(w);
	assert_int_equal(lr_objw_write(w, big, n), 0);
	assert_int_equal(lr_objw_map(w, &p, &len), 0);
	munmap((void *)p, len);
	lr_objw_abort(w); /* joins the thread, removes the file */
	snprintf(tmp, sizeof tmp, "%s/objects/tmp", dir);
	assert_int_equal(count_entries(tmp), 0);
	free(big);
}

static void obj_verify_detects_corruption_and_loss(void **state)
{
	const char *dir = *state;
	struct lr_objw *w = NULL;
	char hex[LR_SHA256_HEX], *path;

	assert_int_equal(lr_objw_open(&w, dir, NULL), 0);
	assert_int_equal(lr_objw_write(w, "abc", 3), 0);
	assert_int_equal(lr_objw_commit(w, hex, NULL), 0);
	assert_int_equal(lr_obj_verify(dir, hex), 0);
	path = lr_obj_path(dir, hex);
	write_file(path, "abd");
	assert_int_equal(lr_obj_verify(dir, hex), LR_EIO);
	assert_non_null(strstr(lr_error_msg(), "corrupt"));
	unlink(path);
	assert_int_equal(lr_obj_verify(dir, hex), LR_ENOTFOUND);
	free(path);
}

/* what 'archive --prune' does to a log an archive now holds: the bytes go, counted, once */
static void obj_remove_frees_the_object_once(void **state)
{
	const char *dir = *state;
	struct lr_objw *w = NULL;
	char hex[LR_SHA256_HEX], sub[4096];
	int64_t freed = -1;

	assert_int_equal(lr_objw_open(&w, dir, NULL), 0);
	assert_int_equal(lr_objw_write(w, "abc", 3), 0);
	assert_int_equal(lr_objw_commit(w, hex, NULL), 0);
	assert_int_equal(lr_obj_remove(dir, hex, &freed), 0);
	assert_int_equal(freed, 3);
	assert_int_equal(lr_obj_verify(dir, hex), LR_ENOTFOUND);
	snprintf(sub, sizeof sub, "%s/objects/%.2s", dir, hex);
	assert_int_equal(count_entries(sub), 0);
	assert_int_equal(lr_obj_remove(dir, hex, &freed), LR_ENOTFOUND);
	assert_int_equal(freed, 0);
	assert_non_null(strstr(lr_error_msg(), "is missing"));
}

static int refuse_x(void *arg, const void *data, size_t len)
{
	(void)arg;
	return memchr(data, 'x', len) ? lr_error_set(LR_EREFUSED, "x found") : 0;
}

static void put_file_scan_refusal_stores_nothing(void **state)
{
	const char *dir = *state;
	char src[4096], hex[LR_SHA256_HEX], tmp[4096];

	snprintf(src, sizeof src, "%s/in.txt", dir);
	write_file(src, "has an x in it");
	assert_int_equal(lr_obj_put_file(dir, src, hex, NULL, refuse_x, NULL), LR_EREFUSED);
	snprintf(tmp, sizeof tmp, "%s/objects/tmp", dir);
	assert_int_equal(count_entries(tmp), 0);
	assert_int_equal(count_entries(dir), 2); /* objects/ and in.txt only */
	write_file(src, "abc");
	assert_int_equal(lr_obj_put_file(dir, src, hex, NULL, refuse_x, NULL), 0);
	assert_string_equal(hex, ABC);
}

static void adopt_links_and_keeps_the_spool_file(void **state)
{
	const char *dir = *state;
	char src[4096], hex[LR_SHA256_HEX];
	int64_t size = 0;

	snprintf(src, sizeof src, "%s/spooled", dir);
	write_file(src, "abc");
	assert_int_equal(lr_obj_adopt(dir, src, hex, &size), 0);
	assert_string_equal(hex, ABC);
	assert_int_equal(size, 3);
	assert_int_equal(access(src, F_OK), 0);
	assert_int_equal(lr_obj_verify(dir, hex), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(objw_commit_names_object_by_sha256, setup, teardown),
		cmocka_unit_test_setup_teardown(objw_same_content_is_stored_once, setup, teardown),
		cmocka_unit_test_setup_teardown(objw_abort_leaves_no_temporary_file, setup, teardown),
		cmocka_unit_test_setup_teardown(objw_large_writes_hash_like_one_buffer, setup, teardown),
		cmocka_unit_test_setup_teardown(objw_deferred_hash_names_the_same_object, setup, teardown),
		cmocka_unit_test_setup_teardown(obj_verify_detects_corruption_and_loss, setup, teardown),
		cmocka_unit_test_setup_teardown(obj_remove_frees_the_object_once, setup, teardown),
		cmocka_unit_test_setup_teardown(put_file_scan_refusal_stores_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(adopt_links_and_keeps_the_spool_file, setup, teardown),
	};

	return cmocka_run_group_tests_name("objects", tests, NULL, NULL);
}
