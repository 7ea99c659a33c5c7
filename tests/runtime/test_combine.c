/*
 * test_combine.c - the engine's combine kernels (ccp__combine, engine.c)
 * against a scalar reference written here, element by element with a
 * switch: every (element type, operation) pair, in place and to a third
 * buffer, at lengths around the kernels' 64-byte blocks (none, part of
 * one, one, one and a bit, several) and at every misalignment of the
 * three buffers by 0 to 7 bytes.  Every byte of the destination must be
 * the reference's, and the bytes around it must be untouched.
 *
 * Floating-point operands are random finite values, signed zeros and
 * infinities, and NaN in the first operand only: the result of an
 * operation on two NaNs keeps one of their payloads, which IEEE 754
 * leaves to the hardware and so to the order the compiler picks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define MAX_BYTES 1200 /* 150 doubles: more than two blocks of 64 */
#define PAD       16   /* guard bytes each side */

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Random operand bytes for n elements of dt; first: may hold NaNs. */
static void fill(uint8_t *b, unsigned dt, size_t n, bool first)
{
	static const double special[] = {0.0,       -0.0, INFINITY,
	                                 -INFINITY, 1.0,  -1.0};
	size_t es = ir_dtype_size(dt);
	for (size_t i = 0; i < n; i++) {
		uint64_t r = next();
		if (dt == IR_DT_FLOAT || dt == IR_DT_DOUBLE) {
			double v;
			unsigned pick = (unsigned)(r % 16);
			if (pick < 6)
				v = special[pick];
			else if (pick == 6 && first)
				v = NAN;
			else /* a finite value of either sign, any exponent */
				v = ldexp((double)(int32_t)(r >> 8) / 65536.0,
				          (int)(r % 61) - 30);
			if (dt == IR_DT_FLOAT) {
				float f = (float)v;
				memcpy(b + i * es, &f, es);
			} else {
				memcpy(b + i * es, &v, es);
			}
		} else {
			memcpy(b + i * es, &r, es); /* little or big end: any */
		}
	}
}

/* The reference: element i of x OP y, in the unsigned type for integer
 * sums and products (they wrap), the element type otherwise. */
#define REF(T, U)                                                              \
	do {                                                                   \
		T a, b, c;                                                     \
		memcpy(&a, x, sizeof a);                                       \
		memcpy(&b, y, sizeof b);                                       \
		switch (op) {                                                  \
		case IR_OP_SUM: {                                              \
			U ua, ub;                                              \
			memcpy(&ua, &a, sizeof ua);                            \
			memcpy(&ub, &b, sizeof ub);                            \
			ua = (U)(ua + ub);                                     \
			memcpy(&c, &ua, sizeof c);                             \
			break;                                                 \
		}                                                              \
		case IR_OP_PROD: {                                             \
			U ua, ub;                                              \
			memcpy(&ua, &a, sizeof ua);                            \
			memcpy(&ub, &b, sizeof ub);                            \
			ua = (U)(ua * ub);                                     \
			memcpy(&c, &ua, sizeof c);                             \
			break;                                                 \
		}                                                              \
		case IR_OP_MIN:                                                \
			c = b < a ? b : a;                                     \
			break;                                                 \
		default:                                                       \
			c = b > a ? b : a;                                     \
			break;                                                 \
		}                                                              \
		memcpy(out, &c, sizeof c);                                     \
	} while (0)

static void ref_one(unsigned dt, unsigned op, uint8_t *out, const uint8_t *x,
                    const uint8_t *y)
{
	switch (dt) {
	case IR_DT_BYTE:
		REF(uint8_t, uint8_t);
		break;
	case IR_DT_INT32:
		REF(int32_t, uint32_t);
		break;
	case IR_DT_INT64:
		REF(int64_t, uint64_t);
		break;
	case IR_DT_FLOAT:
		REF(float, float);
		break;
	default:
		REF(double, double);
		break;
	}
}

/* One (type, operation, length, misalignments, form) case. */
static void check(unsigned dt, unsigned op, size_t n, unsigned ad, unsigned ax,
                  unsigned ay, bool in_place)
{
	static uint8_t dbuf[MAX_BYTES + 2 * PAD], xbuf[MAX_BYTES + 2 * PAD],
	        ybuf[MAX_BYTES + 2 * PAD], want[MAX_BYTES + 2 * PAD];
	size_t es = ir_dtype_size(dt), len = n * es;
	assert_true(len + 8 <= MAX_BYTES);
	uint8_t *d = dbuf + PAD + ad, *x = in_place ? d : xbuf + PAD + ax;
	uint8_t *y = ybuf + PAD + ay;
	memset(dbuf, 0xa5, sizeof dbuf);
	fill(x, dt, n, true);
	fill(y, dt, n, false);
	memcpy(want, dbuf, sizeof dbuf);
	for (size_t i = 0; i < n; i++)
		ref_one(dt, op, want + PAD + ad + i * es, x + i * es,
		        y + i * es);
	ccp__combine(dt, op, d, x, y, len);
	if (memcmp(dbuf, want, sizeof dbuf)) {
		size_t at = 0;
		while (dbuf[at] == want[at])
			at++;
		fail_msg("%s %s, %zu elements, %s, misaligned %u/%u/%u: byte "
		         "%zd of the destination is %02x, not %02x",
		         ir_dtype_name(dt), ir_redop_name(op), n,
		         in_place ? "in place" : "to a third buffer", ad, ax,
		         ay, (ptrdiff_t)at - PAD - (ptrdiff_t)ad, dbuf[at],
		         want[at]);
	}
}

static void test_every_pair(void **state)
{
	(void)state;
	static const size_t lens[] = {0,  1,  3,  7,  8,  15,  16,  17,
	                              31, 63, 64, 65, 67, 128, 129, 143};
	unsigned cases = 0;
	for (unsigned dt = 0; dt < IR_NDTYPES; dt++)
		for (unsigned op = 0; op < IR_NREDOPS; op++)
			for (size_t l = 0; l < sizeof lens / sizeof *lens; l++)
				for (unsigned mis = 0; mis < 8; mis++) {
					size_t n = lens[l];
					if (n * ir_dtype_size(dt) + 8 >
					    MAX_BYTES)
						continue;
					/* in place: dst and y apart by mis */
					check(dt, op, n, mis, 0, (mis * 3) % 8,
					      true);
					/* three buffers, each its own shift */
					check(dt, op, n, mis, (mis + 5) % 8,
					      (mis * 3 + 1) % 8, false);
					cases += 2;
				}
	/* every length fits every type: none skipped */
	assert_int_equal(cases, IR_NDTYPES * IR_NREDOPS * 16 * 8 * 2);
}

/* A few results known by hand, so that the reference cannot agree with
 * a wrong kernel by being wrong the same way. */
static void test_known_values(void **state)
{
	(void)state;
	int32_t a[3] = {INT32_MAX, -5, 7}, b[3] = {1, 3, -9}, r[3];
	ccp__combine(IR_DT_INT32, IR_OP_SUM, (uint8_t *)r, (uint8_t *)a,
	             (uint8_t *)b, sizeof r);
	assert_int_equal(r[0], INT32_MIN); /* wraps */
	assert_int_equal(r[1], -2);
	assert_int_equal(r[2], -2);
	ccp__combine(IR_DT_INT32, IR_OP_MIN, (uint8_t *)a, (uint8_t *)a,
	             (uint8_t *)b, sizeof a);
	assert_int_equal(a[0], 1);
	assert_int_equal(a[1], -5);
	assert_int_equal(a[2], -9);
	uint8_t u[2] = {200, 3}, v[2] = {100, 250};
	ccp__combine(IR_DT_BYTE, IR_OP_MAX, u, u, v, 2);
	assert_int_equal(u[0], 200);
	assert_int_equal(u[1], 250);
	double x[2] = {1.5, -0.0}, y[2] = {2.25, 0.0}, z[2];
	ccp__combine(IR_DT_DOUBLE, IR_OP_PROD, (uint8_t *)z, (uint8_t *)x,
	             (uint8_t *)y, sizeof z);
	assert_true(z[0] == 3.375);
	assert_true(z[1] == 0.0 && signbit(z[1]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_every_pair),
	        cmocka_unit_test(test_known_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
