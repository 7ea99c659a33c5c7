/*
 * names.c - the names of the IR's enumerations, from the one X-macro table
 * of each in ir.h: what the parser accepts, the canonical form and JSON
 * write, and help lists.
 */
#include <string.h>

#include "ir.h"

const char *const ir_topo_names[IR_NTOPOS] = {
#define X(e, name, routings, noun, comment) [IR_##e] = name,
        IR_TOPOLOGIES(X)
#undef X
};

const char *const ir_topo_nouns[IR_NTOPOS] = {
#define X(e, name, routings, noun, comment) [IR_##e] = noun,
        IR_TOPOLOGIES(X)
#undef X
};

const char *const ir_routing_names[IR_NROUTINGS] = {
#define X(e, name, comment) [IR_ROUTE_##e] = name,
        IR_ROUTINGS(X)
#undef X
};

const char *const ir_placement_names[IR_NPLACEMENTS] = {
#define X(e, name, comment) [IR_PLACE_##e] = name,
        IR_PLACEMENTS(X)
#undef X
};

const char *const ir_link_class_names[IR_NLINK_CLASSES] = {
#define X(e, name, comment) [IR_LC_##e] = name,
        IR_LINK_CLASSES(X)
#undef X
};

const char *const ir_dfly_arrangement_names[IR_NDFLY_ARRANGEMENTS] = {
#define X(e, name, comment) [IR_DFLY_##e] = name,
        IR_DFLY_ARRANGEMENTS(X)
#undef X
};

/* x, y, z as always; then Tofu's a, b, c, and two more letters. */
const char *const ir_dim_names[IR_MAX_DIMS] = {"x", "y", "z", "a",
                                               "b", "c", "d", "e"};

const char *const ir_coll_names[IR_NCOLLS] = {
#define X(e, name, kind, noun, comment) [IR_##e] = name,
        IR_COLLECTIVES(X)
#undef X
};

const char *const ir_coll_nouns[IR_NCOLLS] = {
#define X(e, name, kind, noun, comment) [IR_##e] = noun,
        IR_COLLECTIVES(X)
#undef X
};

static const unsigned coll_kind[IR_NCOLLS] = {
#define X(e, name, kind, noun, comment) [IR_##e] = kind,
        IR_COLLECTIVES(X)
#undef X
};

const char *const ir_dtype_names[IR_NDTYPES] = {
#define X(e, name, size) [IR_DT_##e] = name,
        IR_DTYPES(X)
#undef X
};

const char *const ir_redop_names[IR_NREDOPS] = {
#define X(e, name) [IR_OP_##e] = name,
        IR_REDOPS(X)
#undef X
};

static const unsigned char dtype_bytes[IR_NDTYPES] = {
#define X(e, name, size) [IR_DT_##e] = size,
        IR_DTYPES(X)
#undef X
};

static const unsigned topo_routings[IR_NTOPOS] = {
#define X(e, name, routings, noun, comment) [IR_##e] = routings,
        IR_TOPOLOGIES(X)
#undef X
};

int ir_name_find(const char *const *names, int count, const char *s)
{
	for (int i = 0; i < count; i++)
		if (names[i] && strcmp(names[i], s) == 0)
			return i;
	return -1;
}

/* names[v], or none for a value outside the table. */
static const char *name_at(const char *const *names, unsigned count,
                           unsigned v, const char *none)
{
	return v < count && names[v] ? names[v] : none;
}

const char *ir_topo_name(enum ir_topo t)
{
	return name_at(ir_topo_names, IR_NTOPOS, (unsigned)t, "unknown");
}

const char *ir_routing_name(enum ir_routing r)
{
	return name_at(ir_routing_names, IR_NROUTINGS, (unsigned)r, "unknown");
}

const char *ir_coll_name(enum ir_coll c)
{
	return name_at(ir_coll_names, IR_NCOLLS, (unsigned)c, "?");
}

const char *ir_dtype_name(unsigned dt)
{
	return name_at(ir_dtype_names, IR_NDTYPES, dt, "?");
}

const char *ir_redop_name(unsigned op)
{
	return name_at(ir_redop_names, IR_NREDOPS, op, "?");
}

unsigned ir_coll_kind(enum ir_coll c)
{
	return (unsigned)c < IR_NCOLLS ? coll_kind[c] : 0;
}

size_t ir_dtype_size(unsigned dt)
{
	return dt < IR_NDTYPES ? dtype_bytes[dt] : 0;
}

unsigned ir_topo_routings(enum ir_topo t)
{
	return (unsigned)t < IR_NTOPOS ? topo_routings[t] : 0;
}

enum ir_routing ir_topo_default_routing(enum ir_topo t)
{
	unsigned m = ir_topo_routings(t);
	/* a routing that adapts is chosen, never assumed */
	if (m != (1u << IR_ROUTE_ADAPTIVE))
		m &= ~(1u << IR_ROUTE_ADAPTIVE);
	for (int r = 0; r < IR_NROUTINGS; r++)
		if (m & (1u << r))
			return (enum ir_routing)r;
	return IR_ROUTE_DIRECT;
}
