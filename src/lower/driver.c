/* The lowering driver: walks the input graph in order, copies real nodes,
 * tries the patterns (src/patterns/) and then the rule for each node that
 * touches a complex value, and builds a new graph. The input graph is only read. */
#include "lower/lower.h"
#include "ir/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "lower/lower_internal.h"
#include "passes/cleanup.h"
#include "passes/narrow.h"
#include "passes/parts.h"
#include "passes/planar.h"

/* ---- driver ---- */

static rf_value *copy_boundary(rf_lowering *L, const rf_value *v, int is_const) {
    rf_dtype dt = v->dtype;
    int packed = rf_dtype_is_complex(dt);
    int rank = v->rank;
    rf_dim *dims = v->dims;
    if (packed) {
        dt = rf_component_of(L, v->dtype);
        if (rank >= 0) {
            dims = rf_alloc(L->out, (size_t)(rank + 1) * sizeof(rf_dim));
            if (rank) memcpy(dims, v->dims, (size_t)rank * sizeof(rf_dim));
            dims[rank].size = 2;
            rank++;
        }
    }
    rf_value *nv = is_const ? rf_graph_add_const(L->out, v->name, dt, rank, dims, v->const_target, v->const_kind)
                            : rf_graph_add_input(L->out, v->name, dt, rank, dims);
    if (is_const && v->const_data) { /* an inline "data" constant (real): copy its bytes */
        unsigned char *data = rf_alloc(L->out, v->const_nbytes);
        memcpy(data, v->const_data, v->const_nbytes);
        nv->const_data = data;
        nv->const_nbytes = v->const_nbytes;
    }
    if (packed) {
        nv->packed_from = v->dtype;
        L->cx_map[v->id].packed = nv;
    } else {
        L->real_map[v->id] = nv;
    }
    return nv;
}

static void copy_node(rf_lowering *L, const rf_node *n) {
    rf_node *m = rf_node_new(L->out, n->op, n->nargs, n->nouts);
    for (size_t i = 0; i < n->nargs; i++) {
        m->args[i].name = rf_strdup(L->out, n->args[i].name);
        m->args[i].attr = rf_map_attr(L, &n->args[i].attr);
    }
    for (size_t i = 0; i < n->nouts; i++) {
        const rf_value *o = n->outs[i];
        m->outs[i] = rf_value_new(L->out, o->name, o->dtype, o->rank, o->dims);
        L->real_map[o->id] = m->outs[i];
    }
    m->origin = n;
    m->copied = 1;
    rf_graph_append_node(L->out, m);
}

static void lower_outputs(rf_lowering *L) {
    const rf_graph *in = L->in;
    rf_attr *outs = rf_alloc(L->out, (in->noutputs ? in->noutputs : 1) * sizeof(rf_attr));
    for (size_t i = 0; i < in->noutputs && !L->failed; i++) {
        const rf_attr *a = &in->outputs[i];
        if (a->kind == RF_A_VALUE && rf_dtype_is_complex(a->value->dtype)) {
            memset(&outs[i], 0, sizeof outs[i]);
            outs[i].kind = RF_A_VALUE;
            outs[i].value = rf_packed_of(L, a->value);
            outs[i].out_mark = a->value->dtype;
        } else {
            outs[i] = rf_map_attr(L, a);
            /* truncate_double narrows a float64 result (rf_narrow_double): the mark tells the adapters to give the
             * caller float64 back, as the program around a torch.compile'd graph was traced to expect */
            int narrowed = L->opt.truncate_double && a->kind == RF_A_VALUE && a->value->dtype == RF_DT_F64;
            outs[i].out_mark = narrowed ? RF_DT_F64 : RF_DT_COUNT;
        }
    }
    rf_graph_set_outputs(L->out, in->noutputs, outs);
}

void rf_lower_options_init(rf_lower_options *opt) {
    opt->truncate_double = 0;
    opt->cleanup = 1;
    opt->division = RF_DIV_C10;
    opt->fft = RF_FFT_MATMUL;
    opt->planar = 0;
    opt->patterns = rf_pattern_defaults();
    opt->target = 0;
}

/* The rule published a value of the result's kind (complex or real). */
/* The value a rule published for complex o, as a tensor of o's shape (its real part, or its packed form with the
 * pair dim), or NULL; *pair is 1 for the packed form. */
static const rf_value *published(const rf_lowering *L, const rf_value *o, int *pair) {
    *pair = 0;
    const cx_state *st = &L->cx_map[o->id];
    if (st->re) return st->re;
    *pair = st->packed != NULL;
    return st->packed;
}

/* Whether the value published for a complex result o contradicts its declared shape: another rank, or another
 * static size. A rule builds from its operands, so an op whose declared result does not follow from them (a
 * fuzzer's _conj of a rank-1 tensor declared rank 2) is caught here, before later rules index dims that are not
 * there. Real results are not checked: some are stand-ins (a broadcast solve's info has the broadcast batch shape,
 * where torch's follows A's). */
static int shape_contradicts(const rf_lowering *L, const rf_value *o) {
    int pair;
    if (!rf_dtype_is_complex(o->dtype)) return 0;
    const rf_value *v = published(L, o, &pair);
    if (!v || o->rank < 0 || v->rank < 0) return 0;
    if (v->rank != o->rank + pair) return 1;
    for (int d = 0; d < o->rank; d++)
        if (!o->dims[d].sym && !v->dims[d].sym && o->dims[d].size != v->dims[d].size) return 1;
    return 0;
}

static int result_set(const rf_lowering *L, const rf_value *o) {
    const cx_state *st = &L->cx_map[o->id];
    return rf_dtype_is_complex(o->dtype) ? st->re || st->packed || st->unread
                                         : L->real_map[o->id] != NULL || L->real_unread[o->id];
}

/* The lowering report's line for a pattern that lowered n. */
static void report_pattern(rf_lowering *L, const char *pattern, const rf_node *n) {
    char line[400];
    snprintf(line, sizeof line, "pattern %s: %s %%%s", pattern, n->op, n->nouts ? n->outs[0]->name : "");
    rf_graph_add_report(L->out, line);
}

static rf_status lower_impl(const rf_graph *in, const rf_lower_options *opt, rf_graph **out, rf_error *err) {
    *out = NULL;
    unsigned all_patterns = rf_pattern_count() >= 32 ? ~0u : (1u << rf_pattern_count()) - 1u;
    if (opt && (opt->fft < RF_FFT_MATMUL || opt->fft > RF_FFT_ONNX_DFT ||
                (opt->planar & ~(unsigned)(RF_PLANAR_CONSTS | RF_PLANAR_INPUTS)) ||
                (opt->target & ~RF_TARGET_ALL) || (opt->target & (opt->target - 1)) ||
                (opt->patterns & ~all_patterns))) {
        if (err) {
            memset(err, 0, sizeof(*err));
            snprintf(err->message, sizeof(err->message),
                     "invalid options: fft %d, planar %#x, target %#x, patterns %#x (planar: RF_PLANAR_* bits; "
                     "target: 0 or one RF_TARGET_* bit; patterns: rf_pattern_bit() bits)", (int)opt->fft,
                     opt->planar, opt->target, opt->patterns);
        }
        return RF_ERR_INVALID;
    }
    rf_status vs = rf_verify(in, err); /* rules take a well-formed graph for granted */
    if (vs != RF_OK) return vs;
    rf_lowering L = {0};
    L.in = in;
    if (opt) L.opt = *opt;
    else rf_lower_options_init(&L.opt);
    L.err = err;
    L.out = rf_graph_new();
    if (!L.out) return RF_ERR_NOMEM;
    size_t nv = in->nvalues ? in->nvalues : 1;
    L.real_map = rf_calloc(nv, sizeof(*L.real_map));
    L.cx_map = rf_calloc(nv, sizeof(*L.cx_map));
    L.fused = rf_calloc(in->nnodes ? in->nnodes : 1, 1);
    L.real_unread = rf_calloc(nv, 1);
    if (!L.real_map || !L.cx_map || !L.fused || !L.real_unread) {
        rf_free(L.real_map);
        rf_free(L.cx_map);
        rf_free(L.fused);
        rf_free(L.real_unread);
        rf_graph_free(L.out);
        return RF_ERR_NOMEM;
    }
    for (size_t i = 0; i < in->ninputs; i++) copy_boundary(&L, in->inputs[i], 0);
    for (size_t i = 0; i < in->nconsts; i++) copy_boundary(&L, in->consts[i], 1);
    const char *table_problem = rf_rule_table_problem();
    if (table_problem) rf_fail(&L, NULL, RF_ERR_INVALID, "rule table: %s", table_problem);
    for (size_t i = 0; i < in->nnodes && !L.failed; i++) {
        const rf_node *n = in->nodes[i];
        L.cur = n;
        if (L.fused[i]) { /* lowered by an earlier node's rule: its results must be there */
            for (size_t k = 0; k < n->nouts && !L.failed; k++)
                if (!result_set(&L, n->outs[k]))
                    rf_fail(&L, n, RF_ERR_INVALID, "%s: fused into an earlier node, but result %%%s has no value",
                            n->op, n->outs[k]->name);
            continue;
        }
        const rf_rule_entry *rule = rf_rule_find(n->op);
        if (!rf_node_touches_complex(n) && !(rule && (rule->flags & RF_RULE_REAL_TOO))) {
            copy_node(&L, n);
            continue;
        }
        if (!rule) {
            const char *why = rf_rule_refusal(n->op);
            rf_fail(&L, n, RF_ERR_UNSUPPORTED, "no rule lowers %s on complex values%s%s", n->op, why ? ": " : "",
                    why ? why : "");
            break;
        }
        if ((rule->flags & RF_RULE_FLOATS) && !rf_dtype_is_floating(rf_work_dtype(&L, n))) {
            rf_fail(&L, n, RF_ERR_DTYPE, "%s: no real lowering for component dtype %s", n->op,
                    rf_dtype_name(rf_work_dtype(&L, n)));
            break;
        }
        size_t first_new = L.out->nnodes;
        const char *pattern = rf_pattern_try(&L, n);
        rf_status s = pattern ? rf_status_of(&L) : rule->fn(&L, n);
        if (pattern && !L.failed) report_pattern(&L, pattern, n);
        if (s != RF_OK && !L.failed) rf_fail(&L, n, s, "rule for %s failed", n->op);
        for (size_t k = first_new; k < L.out->nnodes && !L.failed; k++)
            if (rf_node_refs_null(L.out->nodes[k]))
                rf_fail(&L, n, RF_ERR_INVALID, "%s: an argument has no real form (a complex tensor where the op "
                        "takes a number?)", n->op);
        for (size_t k = 0; k < n->nouts && !L.failed; k++) { /* a result typed unlike what the op makes */
            if (!result_set(&L, n->outs[k]))
                rf_fail(&L, n, RF_ERR_INVALID, "%s gave no value for result %%%s: is its declared dtype %s right?",
                        n->op, n->outs[k]->name, rf_dtype_name(n->outs[k]->dtype));
            else if (shape_contradicts(&L, n->outs[k]))
                rf_fail(&L, n, RF_ERR_INVALID, "%s: the declared shape of result %%%s does not follow from its operands",
                        n->op, n->outs[k]->name);
        }
    }
    L.cur = NULL;
    if (!L.failed) lower_outputs(&L);
    if (!L.failed && L.opt.truncate_double) {
        const rf_node *bad = NULL;
        rf_status s = rf_narrow_double(L.out, &bad);
        if (s != RF_OK)
            rf_fail(&L, bad && bad->origin ? bad->origin : NULL, s,
                    bad ? "%s reinterprets float64 bits, which truncate_double cannot narrow"
                        : "truncate_double: out of memory%s",
                    bad ? bad->op : "");
    }
    if (!L.failed && L.opt.cleanup) rf_cleanup(L.out);
    if (!L.failed) rf_planar_boundaries(L.out, L.opt.planar);
    if (!L.failed && (L.opt.target & RF_TARGET_EXECUTORCH) && rf_parts_as_slices(L.out) != 0)
        rf_fail(&L, NULL, RF_ERR_NOMEM, "out of memory");
    if (!L.failed) rf_check_emitted_ops(&L);
    rf_free(L.real_map);
    rf_free(L.cx_map);
    rf_free(L.fused);
    rf_free(L.real_unread);
    if (L.failed) {
        rf_graph_free(L.out);
        return L.status;
    }
    *out = L.out;
    return RF_OK;
}

rf_status rf_lower(const rf_graph *in, const rf_lower_options *opt, rf_graph **out, rf_error *err) {
    *out = NULL;
    RF_OOM_GUARD(scope, {
        *out = NULL;
        if (err) {
            memset(err, 0, sizeof(*err));
            snprintf(err->message, sizeof(err->message), "out of memory while lowering");
        }
        return RF_ERR_NOMEM;
    })
    rf_status s = lower_impl(in, opt, out, err);
    rf_oom_close(&scope);
    return s;
}
