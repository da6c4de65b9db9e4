/* The rule table: every family's rows merged into one index sorted by op name,
 * built once and searched by bisection. A duplicate op is a registration error,
 * reported by every lowering until fixed (and by the unit tests). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "rules/rules.h"

static const rf_rule_entry *const families[] = {
    rf_rules_arith,    rf_rules_compare,  rf_rules_construct, rf_rules_convert,  rf_rules_creation,
    rf_rules_factory,  rf_rules_fft_aten, rf_rules_fft_ops,   rf_rules_fft_stft, rf_rules_grad, rf_rules_linalg,
    rf_rules_movement, rf_rules_overlap_add, rf_rules_power,    rf_rules_products,  rf_rules_reduce,   rf_rules_shape,
    rf_rules_unary,    rf_rules_linalg_solve, rf_rules_linalg_export, rf_rules_linalg_spectral,
    rf_rules_composite, rf_rules_composite_conv, rf_rules_padding, rf_rules_views,    rf_rules_einsum,
};

#define NFAMILIES (sizeof families / sizeof families[0])
#define MAX_RULES 1024

static struct {
    const rf_rule_entry *rows[MAX_RULES];
    size_t count;
    char problem[160]; /* empty when the table is sound */
} table;

static once_flag table_once = ONCE_FLAG_INIT;

static int by_op(const void *a, const void *b) {
    return strcmp((*(const rf_rule_entry *const *)a)->op, (*(const rf_rule_entry *const *)b)->op);
}

static void build_table(void) {
    for (size_t f = 0; f < NFAMILIES; f++)
        for (const rf_rule_entry *e = families[f]; e->op; e++) {
            if (table.count == MAX_RULES) {
                snprintf(table.problem, sizeof table.problem, "more than %d rules", MAX_RULES);
                return;
            }
            table.rows[table.count++] = e;
        }
    qsort(table.rows, table.count, sizeof table.rows[0], by_op);
    for (size_t i = 1; i < table.count; i++)
        if (strcmp(table.rows[i - 1]->op, table.rows[i]->op) == 0) {
            snprintf(table.problem, sizeof table.problem, "two rules registered for %s", table.rows[i]->op);
            return;
        }
}

const char *rf_rule_table_problem(void) {
    call_once(&table_once, build_table);
    return table.problem[0] ? table.problem : NULL;
}

const rf_rule_entry *rf_rule_find(const char *op) {
    if (rf_rule_table_problem()) return NULL;
    size_t lo = 0, hi = table.count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(table.rows[mid]->op, op);
        if (c == 0) return table.rows[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

int rf_rule_exists(const char *op) { return op && rf_rule_find(op) != NULL; }

size_t rf_rule_count(void) { return rf_rule_table_problem() ? 0 : table.count; }

const char *rf_rule_name(size_t i) { return i < rf_rule_count() ? table.rows[i]->op : NULL; }

/* Complex ops refused by design, with the reason the user reads in the error. */
static const struct {
    const char *op, *why;
} refusals[] = {
    {"aten.geqrf.default", "LAPACK's packed Householder form is not lowered (linalg.qr is)"},
    {"aten.linalg_eig.default", "general eigenvalues: the real embedding holds them together with their conjugates, "
                                "and no target has a general eigensolver (eigh and svd are lowered)"},
    {"aten.linalg_eigvals.default", "general eigenvalues: the real embedding holds them together with their "
                                    "conjugates, and no target has a general eigensolver (eigvalsh is lowered)"},
    {"aten.linalg_householder_product.default", "LAPACK's packed Householder form is not lowered (linalg.qr is)"},
    {"aten.linalg_ldl_factor.default", "Bunch-Kaufman LDL^H (1x1 and 2x2 pivot blocks) is not lowered"},
    {"aten.linalg_ldl_factor_ex.default", "Bunch-Kaufman LDL^H (1x1 and 2x2 pivot blocks) is not lowered"},
    {"aten.linalg_ldl_solve.default", "Bunch-Kaufman LDL^H (1x1 and 2x2 pivot blocks) is not lowered"},
    {"aten.ormqr.default", "LAPACK's packed Householder form is not lowered (linalg.qr is)"},
};

const char *rf_rule_refusal(const char *op) {
    for (size_t i = 0; op && i < sizeof refusals / sizeof refusals[0]; i++)
        if (strcmp(refusals[i].op, op) == 0) return refusals[i].why;
    return NULL;
}
