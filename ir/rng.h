/*
 * rng.h - the one pseudo-random generator of ccplan: xoshiro256** seeded
 * through splitmix64, both written from their published descriptions
 * (Blackman and Vigna, "Scrambled linear pseudorandom number generators").
 *
 * Everything random in ccplan (generated matrices, randomised schedulers)
 * draws from it, so one seed gives the same numbers, and therefore the
 * same plan, on every machine: only 64-bit unsigned integer arithmetic is
 * used, no floating point and no platform generator.
 */
#ifndef CCP_IR_RNG_H
#define CCP_IR_RNG_H

#include <stdint.h>

/* Generator state: 256 bits, never all zero once seeded. */
struct ir_rng {
	uint64_t s[4]; /* xoshiro256 state words */
};

/* Seed r from one 64-bit value: the four state words are four successive
 * outputs of splitmix64 started at seed.  Any seed, 0 included, is good. */
void ir_rng_seed(struct ir_rng *r, uint64_t seed);

/* The next 64-bit output of xoshiro256**. */
uint64_t ir_rng_next(struct ir_rng *r);

/* A uniform integer in [0, n), without modulo bias: outputs below
 * 2^64 mod n are rejected and drawn again, the others taken modulo n.
 * n == 0 returns 0 and draws nothing. */
uint64_t ir_rng_below(struct ir_rng *r, uint64_t n);

/* splitmix64's finaliser: the one 64-bit mixer of ccplan, for hash-table
 * indices and the verifier's multiset keys. */
static inline uint64_t ir_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

#endif
