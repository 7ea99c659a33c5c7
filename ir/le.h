/*
 * le.h - little-endian scalars in byte buffers, one byte at a time, so a
 * file or a frame is the same on every host: the plan codec, the sockets
 * transport's frames and the `ccplan run` control protocol use them.
 * The caller has checked that the bytes are there.
 */
#ifndef CCP_LE_H
#define CCP_LE_H

#include <stdint.h>

static inline uint16_t le_get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static inline uint32_t le_get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t le_get_u64(const uint8_t *p)
{
	return (uint64_t)le_get_u32(p) | (uint64_t)le_get_u32(p + 4) << 32;
}

static inline void le_set_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void le_set_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static inline void le_set_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

#endif
