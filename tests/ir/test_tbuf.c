/*
 * test_tbuf.c - the one growable byte buffer (ir/tbuf.c) that the codec,
 * the C emitter, the plots, the reports and the canonical form write
 * into:
 *
 *  - bytes and formatted text append in order, NUL-terminated, past the
 *    first capacity and past the 128 bytes tb_printf tries first;
 *  - bytes holding NULs stay whole (the codec's binary output);
 *  - tb_append copies another buffer, and passes on its failure;
 *  - a failure sticks: every later append does nothing and says so;
 *  - tb_take hands the bytes over and leaves the buffer empty;
 *    tb_free empties it;
 *  - tb_read appends a whole file, or stops once past its limit.
 * Failing allocations are tested in tests/alloc/alloc_fail.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ccplan_errors.h"
#include "tbuf.h"

/* Text and bytes append in order, growing past every capacity. */
static void test_append_in_order(void **state)
{
	struct tbuf b = {0};
	char want[20000];
	size_t n = 0;

	(void)state;
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(tb_printf(&b, "%d,", i), 0);
		n += (size_t)snprintf(want + n, sizeof want - n, "%d,", i);
	}
	assert_int_equal(b.len, n);
	assert_string_equal(b.p, want);
	assert_true(b.cap > b.len);
	assert_false(b.nomem);
	tb_free(&b);
	assert_null(b.p);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
}

/* One printf longer than the first try, and longer than the first
 * capacity, comes out whole. */
static void test_long_printf(void **state)
{
	struct tbuf b = {0};
	char *s = malloc(10001);

	(void)state;
	assert_non_null(s);
	memset(s, 'q', 10000);
	s[10000] = '\0';
	assert_int_equal(tb_printf(&b, "<%s>", s), 0);
	assert_int_equal(b.len, 10002);
	assert_int_equal(b.p[0], '<');
	assert_int_equal(b.p[10001], '>');
	assert_int_equal(b.p[10002], '\0');
	assert_int_equal(strspn(b.p + 1, "q"), 10000);
	free(s);
	tb_free(&b);
}

/* Binary bytes with NULs in them stay whole, and an empty put still
 * leaves a string. */
static void test_bytes(void **state)
{
	static const unsigned char bin[] = {1, 0, 2, 0, 0, 255};
	struct tbuf b = {0};

	(void)state;
	assert_int_equal(tb_put(&b, "", 0), 0);
	assert_non_null(b.p);
	assert_string_equal(b.p, "");
	assert_int_equal(tb_put(&b, bin, sizeof bin), 0);
	assert_int_equal(tb_put(&b, bin, sizeof bin), 0);
	assert_int_equal(b.len, 2 * sizeof bin);
	assert_memory_equal(b.p, bin, sizeof bin);
	assert_memory_equal(b.p + sizeof bin, bin, sizeof bin);
	assert_int_equal(b.p[b.len], '\0');
	tb_free(&b);
}

/* tb_append copies; an empty source adds nothing and allocates nothing;
 * a source that ran out of memory makes the destination fail too. */
static void test_append(void **state)
{
	struct tbuf a = {0}, b = {0}, empty = {0}, bad = {0};

	(void)state;
	tb_printf(&a, "head ");
	tb_printf(&b, "tail");
	assert_int_equal(tb_append(&a, &b), 0);
	assert_string_equal(a.p, "head tail");
	assert_int_equal(tb_append(&empty, &empty), 0);
	assert_null(empty.p);
	bad.nomem = true;
	assert_int_equal(tb_append(&a, &bad), CCP_ENOMEM);
	assert_true(a.nomem);
	tb_free(&a);
	tb_free(&b);
}

/* After a failure every append does nothing, says CCP_ENOMEM, and
 * tb_take gives nothing (and frees what there was). */
static void test_failure_sticks(void **state)
{
	struct tbuf b = {0};

	(void)state;
	tb_printf(&b, "kept");
	b.nomem = true;
	assert_int_equal(tb_printf(&b, "more"), CCP_ENOMEM);
	assert_int_equal(tb_put(&b, "x", 1), CCP_ENOMEM);
	assert_int_equal(tb_reserve(&b, 1), CCP_ENOMEM);
	assert_int_equal(b.len, 4);
	size_t len = 99;
	assert_null(tb_take(&b, &len));
	assert_null(b.p);
	assert_false(b.nomem);
	/* a size no memory can hold fails the same way, without a call */
	assert_int_equal(tb_put(&b, "y", 1), 0);
	assert_int_equal(tb_reserve(&b, SIZE_MAX - 1), CCP_ENOMEM);
	assert_true(b.nomem);
	tb_free(&b);
}

/* tb_take hands the text over and leaves an empty buffer that works. */
static void test_take(void **state)
{
	struct tbuf b = {0};
	size_t len = 0;

	(void)state;
	assert_null(tb_take(&b, &len));
	tb_printf(&b, "%s-%d", "plan", 7);
	char *p = tb_take(&b, &len);
	assert_non_null(p);
	assert_string_equal(p, "plan-7");
	assert_int_equal(len, 6);
	assert_null(b.p);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
	free(p);
	assert_int_equal(tb_printf(&b, "again"), 0);
	assert_string_equal(b.p, "again");
	tb_free(&b);
}

/* tb_read appends all of a file after what is there, or stops soon
 * after max bytes, leaving the caller to refuse the rest. */
static void test_read(void **state)
{
	struct tbuf b = {0};
	FILE *f = tmpfile();
	char line[32];

	(void)state;
	assert_non_null(f);
	for (int i = 0; i < 200000; i++)
		fprintf(f, "%06d\n", i);
	rewind(f);
	tb_printf(&b, "head\n");
	assert_int_equal(tb_read(&b, f, SIZE_MAX), 0);
	assert_int_equal(b.len, 5 + 200000 * 7);
	assert_int_equal(strlen(b.p), b.len);
	assert_memory_equal(b.p, "head\n000000\n000001\n", 19);
	snprintf(line, sizeof line, "%06d\n", 199999);
	assert_string_equal(b.p + b.len - 7, line);
	tb_free(&b);

	rewind(f);
	assert_int_equal(tb_read(&b, f, 1000), 0);
	assert_true(b.len > 1000);
	assert_true(b.len < 200000 * 7);
	tb_free(&b);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_append_in_order),
	        cmocka_unit_test(test_long_printf),
	        cmocka_unit_test(test_bytes),
	        cmocka_unit_test(test_append),
	        cmocka_unit_test(test_failure_sticks),
	        cmocka_unit_test(test_take),
	        cmocka_unit_test(test_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
