/* Constants of a graph from numbers (consts.h): each element encoded in the constant's dtype, as inline
 * little-endian data; the builder's rf_b_constant and the output-graph passes make theirs here. */
#include "ir/consts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ir/mem.h"

/* IEEE binary16 / bfloat16 bits of x, rounded to nearest even. */
static uint32_t small_float_bits(double x, int ebits, int mbits) {
    uint32_t sign = signbit(x) ? 1u << (ebits + mbits) : 0u;
    int bias = (1 << (ebits - 1)) - 1;
    uint32_t inf = ((1u << ebits) - 1u) << mbits;
    if (isnan(x)) return sign | inf | (1u << (mbits - 1));
    x = fabs(x);
    if (isinf(x)) return sign | inf;
    if (x == 0.0) return sign;
    int e;
    (void)frexp(x, &e);
    int ex = e - 1; /* x in [2^ex, 2^(ex+1)) */
    if (ex < 1 - bias) /* subnormal; rounding up to 2^mbits gives the smallest normal's bits */
        return sign | (uint32_t)nearbyint(ldexp(x, mbits + bias - 1));
    double m = nearbyint(ldexp(x, mbits - ex));
    if (m == ldexp(1.0, mbits + 1)) {
        m /= 2;
        ex++;
    }
    if (ex > bias) return sign | inf;
    return sign | ((uint32_t)(ex + bias) << mbits) | ((uint32_t)m - (1u << mbits));
}

static void put_le(unsigned char *p, uint64_t bits, size_t size) {
    for (size_t i = 0; i < size; i++) p[i] = (unsigned char)(bits >> (8 * i));
}

/* x in dtype dt, as little-endian bytes. */
static void encode_element(unsigned char *p, double x, rf_dtype dt) {
    switch (dt) {
    case RF_DT_F64: {
        uint64_t b;
        memcpy(&b, &x, 8);
        put_le(p, b, 8);
        break;
    }
    case RF_DT_F32: {
        float f = (float)x;
        uint32_t b;
        memcpy(&b, &f, 4);
        put_le(p, b, 4);
        break;
    }
    case RF_DT_F16: put_le(p, small_float_bits(x, 5, 10), 2); break;
    case RF_DT_BF16: put_le(p, small_float_bits(x, 8, 7), 2); break;
    case RF_DT_BOOL: p[0] = x != 0.0; break;
    default: put_le(p, (uint64_t)(int64_t)x, rf_dtype_size(dt)); break;
    }
}

rf_value *rf_graph_const_data(rf_graph *g, const char *hint, rf_dtype dt, int rank, const int64_t *dims,
                              const double *data, rf_status *why) {
    size_t esize = rf_dtype_size(dt), numel = 1;
    if (!esize || rf_dtype_is_complex(dt) || rank < 0) {
        *why = RF_ERR_INVALID;
        return NULL;
    }
    rf_dim *d = rf_alloc(g, (size_t)(rank ? rank : 1) * sizeof(rf_dim));
    for (int i = 0; i < rank; i++) {
        d[i].size = dims[i];
        numel *= (size_t)dims[i];
    }
    size_t nbytes = numel * esize;
    unsigned char *tmp = rf_malloc(nbytes ? nbytes : 1);
    if (!tmp) {
        *why = RF_ERR_NOMEM;
        return NULL;
    }
    for (size_t i = 0; i < numel; i++) encode_element(tmp + i * esize, data[i], dt);
    for (size_t i = 0; i < g->nconsts; i++) { /* the same numbers already made: reuse them */
        rf_value *c = g->consts[i];
        int same = c->const_data && c->dtype == dt && c->rank == rank && c->const_nbytes == nbytes;
        for (int k = 0; same && k < rank; k++) same = !c->dims[k].sym && c->dims[k].size == dims[k];
        if (same && memcmp(c->const_data, tmp, nbytes) == 0) {
            rf_free(tmp);
            return c;
        }
    }
    unsigned char *bytes = rf_alloc(g, nbytes);
    memcpy(bytes, tmp, nbytes);
    rf_free(tmp);
    rf_value *v = rf_graph_add_const(g, hint, dt, rank, d, "", "data");
    char target[200];
    snprintf(target, sizeof target, "realify_constants.%s", v->name);
    for (size_t k = 1, i = 0; i + 1 < g->nconsts; i++) /* keep attribute paths unique */
        if (strcmp(g->consts[i]->const_target, target) == 0) {
            snprintf(target, sizeof target, "realify_constants.%s_c%zu", v->name, k++);
            i = (size_t)-1;
        }
    v->const_target = rf_strdup(g, target);
    v->const_data = bytes;
    v->const_nbytes = nbytes;
    return v;
}
