/* einsum (rules.h). torch.export keeps einsum whole before decomposition.
 * einsum is multilinear in its operands, so with one or two complex operands it
 * is one real einsum over a part axis (einsum_over_parts); for a graph runtime
 * that einsum of two operands is written as one batched matmul between
 * permutes (einsum_as_matmul), which the runtime folds for a constant operand;
 * other forms expand into one real einsum per choice of parts. */
#include <string.h>

#include "cxmath/cxmath.h"
#include "lower/realops.h"
#include "rules/family.h"
#include "rules/rules.h"

/* The expansion: every complex operand as re + i*im gives
 * one real einsum (same equation) per choice of parts; a choice with k
 * imaginary parts carries i^k. 2^c einsums for c complex operands, so c is
 * capped (torch.export keeps einsum whole before decomposition). */
#define EINSUM_MAX_COMPLEX 6

/* A letter the equation does not use, other than `avoid` (0 when none is left). */
static char free_letter(const char *eq, char avoid) {
    for (const char *c = "PQRSTUVWXYZpqrstuvwxyzABCDEFGHIJKLMNO"; *c; c++)
        if (*c != avoid && !strchr(eq, *c)) return *c;
    return 0;
}

/* x's dims [start, start + count) as one dim: an inserted 1 when count is 0. */
static rf_value *group_dims(rf_lowering *L, rf_value *x, int64_t start, int64_t count) {
    if (count == 0) return rf_b_unsqueeze(L, x, start);
    return count == 1 ? x : rf_b_flatten(L, x, start, start + count - 1);
}

static rf_value *ungroup_dim(rf_lowering *L, rf_value *x, int64_t at, int64_t count, const int64_t *sizes) {
    if (count == 0) return rf_b_squeeze(L, x, at);
    return count == 1 ? x : rf_b_unflatten(L, x, at, (size_t)count, sizes);
}

#define EINSUM_MAX_LETTERS 52

/* The subscripts of a two-operand einsum with an explicit output ("ab,bc->ac": no ellipsis, no letter twice in
 * one term, every letter of an operand in the other or in the output) as one batched matmul: a permuted to
 * [batch, left, contracted], b to [batch, contracted, right], both static with equal batch sizes. The result
 * is permuted to the output's order. NULL when the equation is not of that form (nothing is emitted). */
static rf_value *einsum_as_matmul(rf_lowering *L, const char *eq, rf_value *a, rf_value *b) {
    const char *comma = strchr(eq, ','), *arrow = strstr(eq, "->");
    if (!comma || !arrow || comma > arrow || strchr(comma + 1, ',') || strchr(eq, '.')) return NULL;
    const char *term[3] = {eq, comma + 1, arrow + 2};
    size_t len[3] = {(size_t)(comma - eq), (size_t)(arrow - comma - 1), strlen(arrow + 2)};
    rf_value *x[2] = {a, b};
    for (int t = 0; t < 2; t++)
        if (x[t]->rank < 0 || (size_t)x[t]->rank != len[t]) return NULL;
    if (len[0] + len[1] > EINSUM_MAX_LETTERS || len[2] > EINSUM_MAX_LETTERS) return NULL;
    /* pos[t][letter]: the letter's position in term t, or -1; size: its size */
    int pos[3][128];
    int64_t size[128];
    memset(pos, -1, sizeof pos);
    for (int t = 0; t < 3; t++)
        for (size_t i = 0; i < len[t]; i++) {
            unsigned char c = (unsigned char)term[t][i];
            if (c >= 128 || !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) || pos[t][c] >= 0) return NULL;
            pos[t][c] = (int)i;
            if (t == 2) continue;
            const rf_dim *d = &x[t]->dims[i];
            if (d->sym) return NULL;
            if (pos[1 - t][c] >= 0 && t == 1 && size[c] != d->size) return NULL; /* a broadcast: not here */
            size[c] = d->size;
        }
    /* the letters by role, in the output's order (contracted ones in a's) */
    char batch[EINSUM_MAX_LETTERS], left[EINSUM_MAX_LETTERS], right[EINSUM_MAX_LETTERS], sum[EINSUM_MAX_LETTERS];
    int nb = 0, nl = 0, nr = 0, ns = 0;
    for (size_t i = 0; i < len[2]; i++) {
        unsigned char c = (unsigned char)term[2][i];
        int in_a = pos[0][c] >= 0, in_b = pos[1][c] >= 0;
        if (in_a && in_b) batch[nb++] = (char)c;
        else if (in_a) left[nl++] = (char)c;
        else if (in_b) right[nr++] = (char)c;
        else return NULL; /* an output letter of no operand */
    }
    for (size_t i = 0; i < len[0]; i++) {
        unsigned char c = (unsigned char)term[0][i];
        if (pos[2][c] >= 0) continue;
        if (pos[1][c] < 0) return NULL; /* summed within a alone */
        sum[ns++] = (char)c;
    }
    for (size_t i = 0; i < len[1]; i++) {
        unsigned char c = (unsigned char)term[1][i];
        if (pos[2][c] < 0 && pos[0][c] < 0) return NULL; /* summed within b alone */
    }
    int64_t pa[EINSUM_MAX_LETTERS], pb[EINSUM_MAX_LETTERS], lsz[EINSUM_MAX_LETTERS], rsz[EINSUM_MAX_LETTERS];
    int k = 0;
    for (int i = 0; i < nb; i++) pa[k++] = pos[0][(unsigned char)batch[i]];
    for (int i = 0; i < nl; i++) lsz[i] = size[(unsigned char)left[i]], pa[k++] = pos[0][(unsigned char)left[i]];
    for (int i = 0; i < ns; i++) pa[k++] = pos[0][(unsigned char)sum[i]];
    k = 0;
    for (int i = 0; i < nb; i++) pb[k++] = pos[1][(unsigned char)batch[i]];
    for (int i = 0; i < ns; i++) pb[k++] = pos[1][(unsigned char)sum[i]];
    for (int i = 0; i < nr; i++) rsz[i] = size[(unsigned char)right[i]], pb[k++] = pos[1][(unsigned char)right[i]];
    rf_value *ma = rf_b_permute(L, a, (size_t)a->rank, pa); /* [batch, left, sum] */
    ma = group_dims(L, group_dims(L, ma, nb + nl, ns), nb, nl);
    rf_value *mb = rf_b_permute(L, b, (size_t)b->rank, pb); /* [batch, sum, right] */
    mb = group_dims(L, group_dims(L, mb, nb + ns, nr), nb, ns);
    rf_value *y = rf_b_matmul(L, ma, mb); /* [batch, M, N] */
    y = ungroup_dim(L, ungroup_dim(L, y, nb + 1, nr, rsz), nb, nl, lsz); /* [batch, left, right] */
    int64_t po[EINSUM_MAX_LETTERS];
    for (size_t i = 0; i < len[2]; i++) {
        unsigned char c = (unsigned char)term[2][i];
        int at = 0;
        for (int j = 0; j < nb; j++) at = batch[j] == (char)c ? j : at;
        for (int j = 0; j < nl; j++) at = left[j] == (char)c ? nb + j : at;
        for (int j = 0; j < nr; j++) at = right[j] == (char)c ? nb + nl + j : at;
        po[i] = at;
    }
    return y ? rf_b_permute(L, y, len[2], po) : NULL;
}

/* The einsum's operand list: each operand's real part (the expansion and the part form replace some). */
static rf_attr real_operands(rf_lowering *L, const rf_cx *ops, size_t count) {
    rf_attr items = {0};
    items.kind = RF_A_LIST;
    items.n = count;
    items.out_mark = RF_DT_COUNT;
    items.items = rf_alloc(rf_out_graph(L), count * sizeof(rf_attr));
    for (size_t i = 0; i < count; i++) items.items[i] = rf_attr_of_value(ops[i].re.v);
    return items;
}

/* One or two complex operands as one real einsum over parts: the first complex
 * operand a gains a part axis P (re, im); a second b gains the 2x2 real
 * embedding [[Re b, Im b], [-Im b, Re b]] over (P, Q), the output a part axis Q.
 * The same multiplies as the expansion in one node, where a graph runtime
 * (ONNX Runtime's Einsum) pays a transpose of every operand per node. Needs an
 * explicit output ("->"); 0 when it does not apply, else 1 (published). */
static int einsum_over_parts(rf_lowering *L, const rf_node *n, const char *eq, rf_cx *ops, size_t count,
                             const size_t *cx, size_t complex_count, const rf_attr *path, rf_dtype w) {
    const char *arrow = strstr(eq, "->");
    size_t len = strlen(eq);
    if (!arrow || strstr(arrow + 2, "->") || strchr(arrow, ',') || len > 4096) return 0;
    char p = free_letter(eq, 0), q = free_letter(eq, p);
    if (!p || !q) return 0;
    for (size_t j = 0; j < complex_count; j++)
        if (!ops[cx[j]].re.v || !ops[cx[j]].im.v) return 0; /* a part known only as a scalar */
    /* the new equation: each operand's subscripts, plus P after the first complex operand's, PQ (or Q for a
     * single complex operand) after the second's, and Q after the output's */
    char *out = rf_alloc(rf_out_graph(L), len + 2 * count + 4);
    size_t o = 0, operand = 0;
    for (const char *c = eq;; c++) {
        int end_operand = c == arrow || *c == ',';
        if (end_operand) {
            if (operand == cx[0]) out[o++] = complex_count == 1 ? q : p;
            if (complex_count == 2 && operand == cx[1]) {
                out[o++] = p;
                out[o++] = q;
            }
            operand++;
        }
        if (c == arrow) break;
        if (*c != ' ') out[o++] = *c;
    }
    if (operand != count) return 0;
    for (const char *c = arrow; *c; c++)
        if (*c != ' ') out[o++] = *c;
    out[o++] = q;
    out[o] = 0;
    rf_value *a = rf_b_stack2(L, ops[cx[0]].re.v, ops[cx[0]].im.v, -1), *b = NULL;
    if (complex_count == 2) {
        rf_cx y = ops[cx[1]];
        rf_value *from_re = rf_b_stack2(L, y.re.v, y.im.v, -1);
        rf_value *minus_im = rf_b_neg(L, y.im).v;
        rf_value *from_im = rf_b_stack2(L, minus_im, y.re.v, -1);
        b = rf_b_stack2(L, from_re, from_im, -2);
    }
    rf_attr items = real_operands(L, ops, count);
    items.items[cx[0]] = rf_attr_of_value(a);
    if (b) items.items[cx[1]] = rf_attr_of_value(b);
    rf_attr equation = {0};
    equation.kind = RF_A_STR;
    equation.s = out;
    rf_arg args[3] = {{"equation", equation}, {"tensors", items}, {"path", {0}}};
    size_t nargs = 2;
    if (path) args[nargs++].attr = rf_map_attr(L, path);
    const rf_value *like = n->outs[0];
    int rank = like->rank < 0 ? -1 : like->rank + 1;
    rf_dim *dims = NULL;
    if (rank > 0) {
        dims = rf_alloc(rf_out_graph(L), (size_t)rank * sizeof(rf_dim));
        memcpy(dims, like->dims, (size_t)like->rank * sizeof(rf_dim));
        dims[rank - 1] = (rf_dim){2, NULL};
    }
    rf_value *y = count == 2 && rf_graph_runtime(L) ? einsum_as_matmul(L, out, items.items[0].value,
                                                                        items.items[1].value) : NULL;
    if (!y) y = rf_b_op(L, "aten.einsum.default", nargs, args, w, rank, dims, "_parts");
    if (rf_status_of(L) != RF_OK || !y) return 1;
    rf_publish_cx(L, n, rf_b_unpack(L, y));
    return 1;
}

static rf_status einsum(rf_lowering *L, const rf_node *n) {
    const rf_attr *eq = rf_node_arg(n, "equation"), *list = rf_node_arg(n, "tensors");
    if (!eq || eq->kind != RF_A_STR || !list || list->kind != RF_A_LIST || !list->n)
        return rf_fail(L, n, RF_ERR_INVALID, "einsum: expected an equation and a list of tensors");
    rf_dtype w = rf_work_dtype(L, n);
    size_t count = list->n, complex_count = 0;
    rf_cx *ops = rf_alloc(rf_out_graph(L), count * sizeof(rf_cx));
    size_t *cx_index = rf_alloc(rf_out_graph(L), count * sizeof(size_t));
    for (size_t i = 0; i < count; i++) {
        if (list->items[i].kind != RF_A_VALUE) return rf_fail(L, n, RF_ERR_INVALID, "einsum: operand %zu", i);
        ops[i] = rf_cx_of(L, list->items[i].value, w);
        RF_CHECK(L);
        if (!ops[i].im_zero) cx_index[complex_count++] = i;
    }
    if (complex_count > EINSUM_MAX_COMPLEX)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "einsum with %zu complex operands (at most %d: one real einsum per "
                       "choice of real or imaginary parts)", complex_count, EINSUM_MAX_COMPLEX);
    const rf_attr *path = rf_node_arg(n, "path");
    if ((complex_count == 1 || complex_count == 2) && einsum_over_parts(L, n, eq->s, ops, count, cx_index,
                                                                        complex_count, path, w))
        return rf_status_of(L);
    rf_rv re = {0}, im = {0};
    int have_re = 0, have_im = 0;
    for (unsigned mask = 0; mask < (1u << complex_count); mask++) {
        rf_attr items = real_operands(L, ops, count);
        int k = 0;
        for (size_t j = 0; j < complex_count; j++)
            if (mask >> j & 1u) {
                items.items[cx_index[j]] = rf_attr_of_value(ops[cx_index[j]].im.v);
                k++;
            }
        rf_arg args[3] = {{"equation", rf_map_attr(L, eq)}, {"tensors", items}, {"path", {0}}};
        size_t nargs = 2;
        if (path) args[nargs++].attr = rf_map_attr(L, path);
        const rf_value *likes[1] = {n->outs[0]};
        rf_rv term = rf_val(rf_b_node(L, "aten.einsum.default", nargs, args, 1, likes, w, "_part")->outs[0]);
        int negative = (k / 2) % 2; /* i^k = +-1 (k even) or +-i (k odd) */
        rf_rv *acc = k % 2 ? &im : &re;
        int *have = k % 2 ? &have_im : &have_re;
        if (!*have) *acc = negative ? rf_b_neg(L, term) : term;
        else *acc = negative ? rf_b_sub(L, *acc, term) : rf_b_add(L, *acc, term);
        *have = 1;
    }
    RF_CHECK(L);
    return rf_publish_cx(L, n, have_im ? rf_cx_make(re, im) : rf_cx_real(re));
}

const rf_rule_entry rf_rules_einsum[] = {
    {"aten.einsum.default", einsum, 0},
    {NULL, NULL, 0},
};
