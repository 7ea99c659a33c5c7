/*
 * rng.c - xoshiro256** with splitmix64 seeding (see rng.h).  The constants
 * are the published ones; the arithmetic is modulo 2^64 throughout, so the
 * output is the same on every machine.
 */
#include "rng.h"

/* Rotate x left by k bits (0 < k < 64). */
static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* One step of splitmix64: advance *x by the golden-ratio increment and
 * return the mixed value.  Used only to spread a seed over the state. */
static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z;

	*x += UINT64_C(0x9e3779b97f4a7c15);
	z = *x;
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

void ir_rng_seed(struct ir_rng *r, uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

uint64_t ir_rng_next(struct ir_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

uint64_t ir_rng_below(struct ir_rng *r, uint64_t n)
{
	uint64_t floor, x;

	if (n == 0)
		return 0;
	/* 2^64 mod n: the values below it are the ones a plain modulo
	 * would favour, so they are refused */
	floor = (0 - n) % n;
	do
		x = ir_rng_next(r);
	while (x < floor);
	return x % n;
}
