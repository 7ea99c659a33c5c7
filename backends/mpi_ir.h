/*
 * mpi_ir.h - the MPI names of the IR's element types and reductions, for
 * the programs that compare a plan with MPI's own collectives (the MPI
 * tests and ccplan-bench).  Header-only; needs <mpi.h> and ir.h.
 */
#ifndef CCP_MPI_IR_H
#define CCP_MPI_IR_H

#include <mpi.h>

#include "ir.h"

/* MPI_DATATYPE_NULL for a type MPI has no name for here. */
static inline MPI_Datatype ccp_mpi_ir_type(enum ir_dtype t)
{
	switch (t) {
	case IR_DT_BYTE:
		return MPI_UINT8_T;
	case IR_DT_INT32:
		return MPI_INT32_T;
	case IR_DT_INT64:
		return MPI_INT64_T;
	case IR_DT_FLOAT:
		return MPI_FLOAT;
	case IR_DT_DOUBLE:
		return MPI_DOUBLE;
	}
	return MPI_DATATYPE_NULL;
}

/* MPI_OP_NULL for an operation MPI has no name for here. */
static inline MPI_Op ccp_mpi_ir_op(enum ir_redop op)
{
	switch (op) {
	case IR_OP_SUM:
		return MPI_SUM;
	case IR_OP_PROD:
		return MPI_PROD;
	case IR_OP_MIN:
		return MPI_MIN;
	case IR_OP_MAX:
		return MPI_MAX;
	}
	return MPI_OP_NULL;
}

#endif
