/* The spelling of each enumerated lowering option (include/realify.h): front ends read these names rather than
 * writing their own lists, so a new strategy appears everywhere once it is named here. */
#include "realify.h"

static const char *const division_names[] = {[RF_DIV_C10] = "c10", [RF_DIV_SCALED] = "scaled"};

static const char *const fft_names[] = {
    [RF_FFT_MATMUL] = "matmul",
    [RF_FFT_NATIVE] = "native",
    [RF_FFT_ONNX_DFT] = "onnx-dft",
};

const char *rf_division_name(rf_division d) {
    if ((unsigned)d >= sizeof division_names / sizeof division_names[0]) return NULL;
    return division_names[d];
}

const char *rf_fft_strategy_name(rf_fft_strategy s) {
    if ((unsigned)s >= sizeof fft_names / sizeof fft_names[0]) return NULL;
    return fft_names[s];
}
