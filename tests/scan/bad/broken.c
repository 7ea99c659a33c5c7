/* test_scan: a source the compiler rejects. */
#include "no_such_header.h"
int broken_unused;
