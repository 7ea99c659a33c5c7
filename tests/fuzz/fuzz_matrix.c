/*
 * fuzz_matrix.c - the matrix file reader (compiler/front/matrix.c) on
 * arbitrary bytes, in both of its forms.
 *
 * Input: one control byte, then the file.  Bit 0 of the control byte
 * picks the form (1: dense CSV, 0: edge list), the other bits the
 * machine's size: n = 1 + (byte >> 1), 1 to 128 ranks.  The file is
 * read from memory (fmemopen) through front_read_matrix_stream, the same
 * reader front_read_matrix uses on a file.  A matrix read must keep every
 * rule of docs/input-format.md; a refusal must carry a diagnostic whose
 * line is inside the file (or one past its end).
 */
#include <string.h>

#include "front.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

/* The rules every matrix keeps: n x n in compressed rows, destinations
 * ascending and off the diagonal, every size from 1 to IR_MAX_BYTES
 * (zero-byte entries dropped), row and column totals within 63 bits. */
static void check_matrix(const ir_matrix *x, int32_t n)
{
	FUZZ_CHECK(x->n == n);
	FUZZ_CHECK(x->nnz >= 0 && x->nnz <= (int64_t)n * (n - 1));
	FUZZ_CHECK(x->row[0] == 0 && x->row[n] == x->nnz);
	int64_t *cols = calloc((size_t)n, sizeof *cols);
	FUZZ_CHECK(cols != NULL);
	for (int32_t i = 0; i < n; i++) {
		int64_t row = 0;
		FUZZ_CHECK(x->row[i] <= x->row[i + 1]);
		for (int64_t k = x->row[i]; k < x->row[i + 1]; k++) {
			int32_t j = x->dst[k];
			FUZZ_CHECK(j >= 0 && j < n && j != i);
			FUZZ_CHECK(k == x->row[i] || j > x->dst[k - 1]);
			FUZZ_CHECK(x->bytes[k] > 0 &&
			           x->bytes[k] <= IR_MAX_BYTES);
			FUZZ_CHECK(row <= INT64_MAX - x->bytes[k]);
			FUZZ_CHECK(cols[j] <= INT64_MAX - x->bytes[k]);
			row += x->bytes[k];
			cols[j] += x->bytes[k];
		}
	}
	free(cols);
}

/* Lines in the file: a final line without a line break counts. */
static uint64_t count_lines(const uint8_t *p, size_t len)
{
	uint64_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += p[i] == '\n';
	return n + (len > 0 && p[len - 1] != '\n');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	bool csv = data[0] & 1;
	int32_t n = 1 + (data[0] >> 1);
	const uint8_t *file = data + 1;
	size_t len = size - 1;
	/* fmemopen wants a writable buffer even to read */
	uint8_t *copy = malloc(len ? len : 1);
	FUZZ_CHECK(copy != NULL);
	memcpy(copy, file, len);
	FILE *f = fmemopen(copy, len, "r");
	FUZZ_CHECK(f != NULL);
	ir_matrix *x = NULL;
	struct diag d;
	memset(&d, 0, sizeof d);
	const char *name = csv ? "fuzz.csv" : "fuzz.txt";
	int rc = front_read_matrix_stream(f, name, n, &x, &d);
	fclose(f);
	if (rc == 0) {
		FUZZ_CHECK(x != NULL);
		check_matrix(x, n);
		ir_matrix_free(x);
	} else {
		FUZZ_CHECK(x == NULL);
		FUZZ_CHECK(rc == CCP_EPARSE || rc == CCP_ENOMEM);
		FUZZ_CHECK(d.message[0] != '\0');
		FUZZ_CHECK(memchr(d.source_line, 0, sizeof d.source_line));
		FUZZ_CHECK(strcmp(d.file, name) == 0);
		FUZZ_CHECK(d.line >= 0 &&
		           (uint64_t)d.line <= count_lines(file, len) + 1);
		front_print_diag(fuzz_devnull(), d.file, d.line, d.column,
		                 d.message, d.source_line);
	}
	free(copy);
	return 0;
}
