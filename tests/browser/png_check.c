/*
 * png_check.c - checks a screenshot the browser test took: that the file
 * is a whole PNG (signature, chunk CRCs, IHDR, IDAT inflated with zlib,
 * every row's filter undone), of the expected size, and that something
 * was drawn: enough pixels that are not white, enough distinct colours,
 * and pixels of the colours the picture must show (a series' colour,
 * the shading of the ranks that hold data, the highlighted table row).
 *
 *   png_check FILE.png --size WxH [--min-ink PERCENT] [--min-colours N]
 *             [--colour RRGGBB[:N]]...
 *
 * Prints one line of what it measured; exit 0 when every check holds,
 * 1 when one fails (which, on stderr), 2 for a file it cannot decode.
 * Only 8-bit RGB and RGBA, not interlaced: what Chromium writes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

/* A decoded image: w x h pixels of 3 bytes (alpha dropped onto white). */
struct image {
	uint32_t w, h;
	unsigned char *rgb;
};

/* A colour the picture must hold at least min pixels of (within tol in
 * every channel). */
struct want {
	unsigned char c[3];
	long min;
	long found;
};

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static int fail(const char *path, const char *why)
{
	fprintf(stderr, "png_check: %s: %s\n", path, why);
	return 2;
}

/* Read the whole file; NULL on failure. */
static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	unsigned char *b = malloc(cap);
	while (b) {
		if (n == cap) {
			unsigned char *q = realloc(b, cap *= 2);
			if (!q) {
				free(b);
				b = NULL;
				break;
			}
			b = q;
		}
		size_t k = fread(b + n, 1, cap - n, f);
		if (k == 0)
			break;
		n += k;
	}
	fclose(f);
	*len = n;
	return b;
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c;
	int pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
	if (pa <= pb && pa <= pc)
		return a;
	return pb <= pc ? b : c;
}

/* Decode path into im; 0, or 2 after saying why. */
static int decode(const char *path, struct image *im)
{
	static const unsigned char sig[8] = {0x89, 'P',  'N',  'G',
	                                     '\r', '\n', 0x1a, '\n'};
	size_t len = 0;
	unsigned char *f = slurp(path, &len);
	if (!f)
		return fail(path, "cannot read the file");
	if (len < 8 || memcmp(f, sig, 8) != 0) {
		free(f);
		return fail(path, "not a PNG (bad signature)");
	}
	unsigned char *idat = NULL;
	size_t nidat = 0, pos = 8;
	int depth = 0, type = -1, interlace = 0;
	int got_end = 0;
	im->w = im->h = 0;
	while (pos + 12 <= len) {
		uint32_t n = be32(f + pos);
		const unsigned char *tag = f + pos + 4, *data = f + pos + 8;
		if (n > len - pos - 12) {
			free(f);
			free(idat);
			return fail(path,
			            "a chunk runs past the end of the file");
		}
		uLong crc = crc32(0L, tag, (uInt)(n + 4));
		if (crc != be32(data + n)) {
			free(f);
			free(idat);
			return fail(path, "a chunk's CRC does not match");
		}
		if (memcmp(tag, "IHDR", 4) == 0 && n == 13) {
			im->w = be32(data);
			im->h = be32(data + 4);
			depth = data[8];
			type = data[9];
			interlace = data[12];
		} else if (memcmp(tag, "IDAT", 4) == 0) {
			unsigned char *q = realloc(idat, nidat + n + 1);
			if (!q) {
				free(f);
				free(idat);
				return fail(path, "out of memory");
			}
			idat = q;
			memcpy(idat + nidat, data, n);
			nidat += n;
		} else if (memcmp(tag, "IEND", 4) == 0) {
			got_end = 1;
			break;
		}
		pos += 12 + (size_t)n;
	}
	free(f);
	if (!got_end || !idat || im->w == 0 || im->h == 0 || im->w > 20000 ||
	    im->h > 20000) {
		free(idat);
		return fail(path, "no IHDR, IDAT or IEND, or an empty image");
	}
	if (depth != 8 || (type != 2 && type != 6) || interlace) {
		free(idat);
		return fail(path, "not 8-bit RGB or RGBA without interlace");
	}
	size_t bpp = type == 6 ? 4 : 3, stride = (size_t)im->w * bpp;
	size_t rawlen = (stride + 1) * im->h;
	unsigned char *raw = malloc(rawlen);
	im->rgb = malloc((size_t)im->w * im->h * 3);
	uLongf out = (uLongf)rawlen;
	if (!raw || !im->rgb ||
	    uncompress(raw, &out, idat, (uLong)nidat) != Z_OK ||
	    out != rawlen) {
		free(idat);
		free(raw);
		free(im->rgb);
		return fail(path, "the image data does not inflate to "
		                  "width x height pixels");
	}
	free(idat);
	/* undo the filters, in place: row y's bytes follow its filter byte */
	for (uint32_t y = 0; y < im->h; y++) {
		unsigned char *r = raw + y * (stride + 1) + 1;
		const unsigned char *up = y ? r - (stride + 1) : NULL;
		int ft = r[-1];
		for (size_t i = 0; i < stride; i++) {
			int a = i >= bpp ? r[i - bpp] : 0;
			int b = up ? up[i] : 0;
			int c = up && i >= bpp ? up[i - bpp] : 0;
			int v = ft == 0   ? 0
			        : ft == 1 ? a
			        : ft == 2 ? b
			        : ft == 3 ? (a + b) / 2
			        : ft == 4 ? paeth(a, b, c)
			                  : -1;
			if (v < 0) {
				free(raw);
				free(im->rgb);
				return fail(path,
				            "a row has an unknown filter");
			}
			r[i] = (unsigned char)(r[i] + v);
		}
		for (uint32_t x = 0; x < im->w; x++) {
			const unsigned char *p = r + x * bpp;
			unsigned alpha = bpp == 4 ? p[3] : 255;
			unsigned char *o =
			        im->rgb + ((size_t)y * im->w + x) * 3;
			for (int k = 0; k < 3; k++) /* over white */
				o[k] = (unsigned char)((p[k] * alpha +
				                        255 * (255 - alpha)) /
				                       255);
		}
	}
	free(raw);
	return 0;
}

/* Distinct colours, counted in an open-addressing set (up to its size). */
static long count_colours(const struct image *im)
{
	enum { SLOTS = 1 << 16 };
	uint32_t *set = calloc(SLOTS, sizeof *set);
	long n = 0;
	if (!set)
		return -1;
	size_t np = (size_t)im->w * im->h;
	for (size_t i = 0; i < np && n < SLOTS / 2; i++) {
		const unsigned char *p = im->rgb + 3 * i;
		uint32_t key = 1u << 24 | (uint32_t)p[0] << 16 |
		               (uint32_t)p[1] << 8 | p[2];
		uint32_t h = (key * 2654435761u) >> 16;
		while (set[h] && set[h] != key)
			h = (h + 1) & (SLOTS - 1);
		if (!set[h]) {
			set[h] = key;
			n++;
		}
	}
	free(set);
	return n;
}

static int hexval(int c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
	                              : -1;
}

static int usage(void)
{
	fprintf(stderr,
	        "usage: png_check FILE.png --size WxH [--min-ink "
	        "PERCENT] [--min-colours N] [--colour RRGGBB[:N]]...\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	unsigned long ww = 0, wh = 0;
	double min_ink = 1.0;
	long min_colours = 2;
	struct want want[32];
	int nwant = 0;
	const int tol = 6;
	for (int k = 1; k < argc; k++) {
		if (strcmp(argv[k], "--size") == 0 && k + 1 < argc) {
			if (sscanf(argv[++k], "%lux%lu", &ww, &wh) != 2)
				return usage();
		} else if (strcmp(argv[k], "--min-ink") == 0 && k + 1 < argc) {
			min_ink = atof(argv[++k]);
		} else if (strcmp(argv[k], "--min-colours") == 0 &&
		           k + 1 < argc) {
			min_colours = atol(argv[++k]);
		} else if (strcmp(argv[k], "--colour") == 0 && k + 1 < argc &&
		           nwant < 32) {
			const char *s = argv[++k];
			struct want *w = &want[nwant++];
			for (int c = 0; c < 3; c++) {
				int hi = hexval(s[2 * c]),
				    lo = hi < 0 ? -1 : hexval(s[2 * c + 1]);
				if (hi < 0 || lo < 0)
					return usage();
				w->c[c] = (unsigned char)(hi * 16 + lo);
			}
			w->min = s[6] == ':' ? atol(s + 7) : 20;
			w->found = 0;
		} else if (argv[k][0] != '-' && !path) {
			path = argv[k];
		} else {
			return usage();
		}
	}
	if (!path || !ww || !wh)
		return usage();
	struct image im;
	int rc = decode(path, &im);
	if (rc)
		return rc;
	size_t np = (size_t)im.w * im.h, ink = 0;
	for (size_t i = 0; i < np; i++) {
		const unsigned char *p = im.rgb + 3 * i;
		if (p[0] < 245 || p[1] < 245 || p[2] < 245)
			ink++;
		for (int k = 0; k < nwant; k++)
			if (abs(p[0] - want[k].c[0]) <= tol &&
			    abs(p[1] - want[k].c[1]) <= tol &&
			    abs(p[2] - want[k].c[2]) <= tol)
				want[k].found++;
	}
	long colours = count_colours(&im);
	double pct = 100.0 * (double)ink / (double)np;
	printf("%s: %ux%u, %.2f%% ink, %ld colours", path, im.w, im.h, pct,
	       colours);
	for (int k = 0; k < nwant; k++)
		printf(", #%02x%02x%02x x %ld", want[k].c[0], want[k].c[1],
		       want[k].c[2], want[k].found);
	printf("\n");
	free(im.rgb);
	int bad = 0;
	if (im.w != ww || im.h != wh) {
		fprintf(stderr, "png_check: %s: %ux%u, want %lux%lu\n", path,
		        im.w, im.h, ww, wh);
		bad = 1;
	}
	if (pct < min_ink) {
		fprintf(stderr,
		        "png_check: %s: %.2f%% of the pixels are not white, "
		        "want at least %.2f%% (a blank or half-drawn page)\n",
		        path, pct, min_ink);
		bad = 1;
	}
	if (colours < min_colours) {
		fprintf(stderr,
		        "png_check: %s: %ld distinct colours, want at "
		        "least %ld\n",
		        path, colours, min_colours);
		bad = 1;
	}
	for (int k = 0; k < nwant; k++)
		if (want[k].found < want[k].min) {
			fprintf(stderr,
			        "png_check: %s: %ld pixels of #%02x%02x%02x, "
			        "want at least %ld (that part was not "
			        "drawn)\n",
			        path, want[k].found, want[k].c[0], want[k].c[1],
			        want[k].c[2], want[k].min);
			bad = 1;
		}
	return bad;
}
