/*
 * ccplan_errors.h - the one table of error codes shared by the compiler,
 * the IR and the runtime.  Every function returns 0 or a negative CCP_E*
 * code; ccp_strerror() gives its text.  Nothing in the libraries exits or
 * prints.
 */
#ifndef CCPLAN_ERRORS_H
#define CCPLAN_ERRORS_H

#include "ccplan_export.h"

/* X(NAME, value, message) */
#define CCP_ERRNO_MAP(X)                                                  \
	X(OK, 0, "success")                                              \
	X(ENOMEM, -1, "out of memory")                                   \
	X(EINVAL, -2, "invalid argument")                                \
	X(EIO, -3, "input/output error")                                 \
	X(EPARSE, -4, "bad input")                                       \
	X(EVERIFY, -5, "plan rejected by the verifier")                  \
	X(ENOTAPPLY, -6, "algorithm does not apply to this machine")     \
	X(EFORMAT, -7, "not a ccplan plan, or a damaged one")            \
	X(EVERSION, -8, "plan format version not supported")             \
	X(ECHECKSUM, -9, "plan checksum mismatch")                       \
	X(ETRUNC, -10, "truncated plan")                                 \
	X(ERANGE, -11, "value out of range")                             \
	X(EMISMATCH, -12, "ranks disagree on the plan")                  \
	X(EBUFFER, -13, "buffer smaller than the plan needs")            \
	X(ETIMEDOUT, -14, "timed out")                                   \
	X(EPEER, -15, "a peer failed")                                   \
	X(ENOTFOUND, -16, "not found")                                   \
	X(EINTERNAL, -17, "internal error")                              \
	X(EBUSY, -18, "an execution is in flight")

enum ccp_errno {
#define CCP__X(name, value, msg) CCP_##name = value,
	CCP_ERRNO_MAP(CCP__X)
#undef CCP__X
};

/* Text of an error code; never NULL. */
CCP_EXTERN const char *ccp_strerror(int err);

#endif
