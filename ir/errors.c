/* errors.c - text of the CCP_E* codes, from the one table. */
#include "ccplan_errors.h"

const char *ccp_strerror(int err)
{
	switch (err) {
#define CCP__X(name, value, msg)                                               \
	case value:                                                            \
		return msg;
		CCP_ERRNO_MAP(CCP__X)
#undef CCP__X
	}
	return "unknown error";
}
