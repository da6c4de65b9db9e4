/* The pattern table: every multi-op recogniser the driver tries, in the order it tries them. A new pattern is a
 * function in this folder and a row here; its bit in rf_lower_options.patterns is its row's index. */
#include <string.h>

#include "patterns/patterns.h"

/* The ops each pattern starts from. */
static const char *const mul[] = {"aten.mul.Tensor", NULL};
#define TORCH_FFT(K) "aten.fft_" K ".default", "aten.fft_" K "2.default", "aten.fft_" K "n.default"
static const char *const fft_sliced[] = {TORCH_FFT("fft"), TORCH_FFT("ifft"), TORCH_FFT("rfft"),
                                         "aten._fft_c2c.default", "aten._fft_r2c.default", NULL};
static const char *const fft_of_blocks[] = {TORCH_FFT("fft"), TORCH_FFT("ifft"), TORCH_FFT("irfft"),
                                            "aten._fft_c2c.default", "aten._fft_c2r.default", NULL};
static const char *const ifftshift[] = {"aten.fft_ifftshift.default", NULL};
static const char *const irfft[] = {TORCH_FFT("irfft"), NULL};
static const char *const exp_op[] = {"aten.exp.default", NULL};
static const char *const abs_op[] = {"aten.abs.default", NULL};

static const rf_pattern table[] = {
    {"rope.op", mul, 0, rf_pattern_rope_op,
     "RoPE (interleaved pairs times a per-position table constant over heads) as one realify.rotary_embedding op, "
     "for receivers with a fused rotary kernel (ONNX opset >= 23 RotaryEmbedding)"},
    {"rope.graph", mul, 1, rf_pattern_rope_graph,
     "RoPE for graph runtimes (targets onnx and openvino), its table in any form shared by the heads (Llama's, "
     "Qwen-Image's [S, 1, D/2], DeepSeek-V2's heads-first [1, 1, S, D/2]): the pair axis moved to the front, one "
     "transpose each way, instead of per-element splits and stacks on an innermost axis of 2"},
    {"rope.words", mul, 0, rf_pattern_rope_words,
     "bfloat16 RoPE (a float32 complex product between casts) reading and writing each pair as one int32 word: "
     "contiguous loads and stores, for Inductor"},
    {"fft.prune", fft_sliced, 1, rf_pattern_fft_prune,
     "a forward transform read only through step-1 slices (an FNO layer's kept low modes) computes the sliced "
     "outputs alone, with truncated DFT matrices, and publishes the slices from them (fft=\"matmul\")"},
    {"fft.sparse", fft_of_blocks, 1, rf_pattern_fft_sparse,
     "a transform whose input is a zeros tensor with a few blocks written in (slice_scatter, or pads and cat) "
     "reads only the blocks' frequencies, with truncated inverse DFT matrices (fft=\"matmul\")"},
    {"fft.blocks", fft_of_blocks, 1, rf_pattern_fft_blocks,
     "the same block spectrum for the FFT operators (fft=\"native\", \"onnx-dft\"), which read it whole: built "
     "as cat and zero pads of the blocks instead of the zeros and slice_scatter chain"},
    {"fft.long_conv", irfft, 1, rf_pattern_fft_long_conv,
     "irfft(rfft(a, n) * rfft(b, n), n) along the last dim (Hyena's long convolution) for graph runtimes: the "
     "product taken between the DFT matmul stages, so no transpose leaves the forwards or enters the inverse"},
    {"fft.crop", irfft, 1, rf_pattern_fft_crop,
     "an irfft read only through a [..., :keep] slice (Hyena's crop to L) for graph runtimes: the inverse's last "
     "DFT matmul computes the kept outputs alone and the slice is published from them"},
    {"fft.shift_fold", ifftshift, 1, rf_pattern_fft_shift,
     "ifftshift -> fft/ifft -> fftshift (a centred transform) for graph runtimes: the rolls folded into the "
     "direct DFT tables as permutations, so no Slice/Concat is left for them"},
    {"cx.mul_sum", mul, 1, rf_pattern_mul_sum,
     "sum(x * w, -1) of a packed complex x and a vector w over its last dim (a complex matrix-vector product, "
     "beamforming's (z * conj(steer)).sum(-1)) for graph runtimes: one MatMul of x's pairs by w's real [2M, 2] "
     "embedding, not a split of the pairs, four products and two reductions"},
    {"cx.exp_imag", exp_op, 1, rf_pattern_exp_imag,
     "exp(x * c) of a real x and an imaginary scalar c (torch.exp(1j * phase)) as (cos t, sin t) of the product's "
     "imaginary part t: the values exp gives, without its general form's scaling and special cases"},
    {"cx.abs_square", abs_op, 1, rf_pattern_abs_square,
     "abs(z) ** 2 and square(abs(z)) (a power spectrogram) as re*re + im*im, inf where a part is infinite: "
     "no hypot and no square of its result"},
};

enum { NPATTERNS = sizeof table / sizeof table[0] };
_Static_assert(NPATTERNS <= 32, "a pattern's bit is its row: at most 32 rows");

size_t rf_pattern_count(void) { return NPATTERNS; }

const char *rf_pattern_name(size_t i) { return i < NPATTERNS ? table[i].name : NULL; }

static const rf_pattern *find(const char *name, size_t *index) {
    for (size_t i = 0; name && i < NPATTERNS; i++)
        if (strcmp(table[i].name, name) == 0) {
            if (index) *index = i;
            return &table[i];
        }
    return NULL;
}

unsigned rf_pattern_bit(const char *name) {
    size_t i;
    return find(name, &i) ? 1u << i : 0u;
}

const char *rf_pattern_doc(const char *name) {
    const rf_pattern *p = find(name, NULL);
    return p ? p->doc : NULL;
}

unsigned rf_pattern_defaults(void) {
    unsigned bits = 0;
    for (size_t i = 0; i < NPATTERNS; i++)
        if (table[i].on_by_default) bits |= 1u << i;
    return bits;
}

int rf_pattern_enabled(const rf_lowering *L, const char *name) {
    return (rf_options(L)->patterns & rf_pattern_bit(name)) != 0;
}

const char *rf_pattern_try(rf_lowering *L, const rf_node *n) {
    unsigned on = rf_options(L)->patterns;
    for (size_t i = 0; i < NPATTERNS; i++) {
        if (!(on & (1u << i))) continue;
        const char *const *op = table[i].ops;
        while (*op && strcmp(*op, n->op) != 0) op++;
        if (*op && table[i].fn(L, n)) return table[i].name;
    }
    return NULL;
}
