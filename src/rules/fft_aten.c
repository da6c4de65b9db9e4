/* aten._fft_c2c, _fft_r2c and _fft_c2r: one transform each, read (dims,
 * normalization, sizes checked) and lowered through src/fft/call.h. The
 * patterns fft.prune, fft.sparse and fft.blocks (src/patterns/) take the
 * ones whose outputs are sliced or whose input is mostly zeros first. */
#include "fft/call.h"
#include "rules/rules.h"

static rf_status fft_aten(rf_lowering *L, const rf_node *n) {
    rf_fft_call c;
    rf_status s = rf_fft_call_read(L, n, 0, &c);
    return s != RF_OK ? s : rf_fft_call_lower(L, n, &c);
}

const rf_rule_entry rf_rules_fft_aten[] = {
    {"aten._fft_c2c.default", fft_aten, RF_RULE_FLOATS},
    {"aten._fft_r2c.default", fft_aten, RF_RULE_FLOATS},
    {"aten._fft_c2r.default", fft_aten, RF_RULE_FLOATS},
    {NULL, NULL, 0},
};
