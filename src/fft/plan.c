/* FFT plans: factor choice by a cost model, and the DFT constants in double. */
#include "fft/plan.h"
#include "ir/mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846264338327950288

/* ---- planning ---- */

/* Largest prime factor of n (n >= 1; 1 for n = 1). */
static int64_t largest_prime_factor(int64_t n) {
    int64_t best = 1;
    for (int64_t p = 2; p * p <= n; p++)
        while (n % p == 0) {
            best = p;
            n /= p;
        }
    return n > 1 ? n : best;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* All divisors of n, ascending; *count gets their number. Caller frees. */
static int64_t *divisors(int64_t n, size_t *count) {
    size_t cap = 64, k = 0;
    int64_t *d = rf_malloc(cap * sizeof(*d));
    if (!d) return NULL;
    for (int64_t i = 1; i * i <= n; i++) {
        if (n % i) continue;
        for (int j = 0; j < 2; j++) {
            int64_t v = j ? n / i : i;
            if (j && v == i) break;
            if (k == cap) {
                int64_t *nd = rf_realloc(d, 2 * cap * sizeof(*d));
                if (!nd) {
                    rf_free(d);
                    return NULL;
                }
                d = nd;
                cap *= 2;
            }
            d[k++] = v;
        }
    }
    qsort(d, k, sizeof(*d), cmp_i64);
    *count = k;
    return d;
}

static size_t index_of(const int64_t *d, size_t count, int64_t v) {
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (d[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Cooley–Tukey factors of a RF_FFT_MAX_RADIX-smooth n, by dynamic programming
 * over its divisors: cost(d) is the cheaper of one direct matmul (d*d, when
 * d <= RF_FFT_MAX_RADIX) and a first stage of radix f (d*f for the stage,
 * d*RF_FFT_STAGE_COST for its twiddle and transpose, f*cost(d/f) for the rest). */
static int plan_smooth(int64_t n, int64_t *factors) {
    size_t nd;
    int64_t *d = divisors(n, &nd);
    double *cost = d ? rf_malloc(nd * sizeof(*cost)) : NULL;
    int64_t *first = d ? rf_malloc(nd * sizeof(*first)) : NULL;
    if (!d || !cost || !first) {
        rf_free(d);
        rf_free(cost);
        rf_free(first);
        return -1;
    }
    for (size_t i = 0; i < nd; i++) {
        double di = (double)d[i];
        cost[i] = d[i] <= RF_FFT_MAX_RADIX ? di * di : HUGE_VAL;
        first[i] = 0;
        for (size_t j = 1; j < i && d[j] <= RF_FFT_MAX_RADIX; j++) {
            if (d[i] % d[j]) continue;
            double rest = cost[index_of(d, nd, d[i] / d[j])];
            double c = di * (double)d[j] + di * RF_FFT_STAGE_COST + (double)d[j] * rest;
            if (c < cost[i]) {
                cost[i] = c;
                first[i] = d[j];
            }
        }
    }
    int k = 0;
    int64_t rest = n;
    for (;;) {
        int64_t f = first[index_of(d, nd, rest)];
        if (!f || k == RF_FFT_MAX_FACTORS - 1) break;
        factors[k++] = f;
        rest /= f;
    }
    factors[k++] = rest;
    rf_free(d);
    rf_free(cost);
    rf_free(first);
    return k;
}

int rf_fft_plan_make(int64_t n, rf_fft_plan *plan) {
    memset(plan, 0, sizeof *plan);
    if (n < 1 || n > RF_FFT_MAX_N) return -1;
    plan->n = n;
    int64_t len = n;
    if (largest_prime_factor(n) > RF_FFT_MAX_RADIX) { /* Bluestein */
        plan->m = 1;
        while (plan->m < 2 * n - 1) plan->m *= 2;
        len = plan->m;
    }
    int k = plan_smooth(len, plan->factors);
    if (k < 0) return -1;
    plan->nfactors = k;
    return rf_fft_plan_table_bytes(plan) > RF_FFT_MAX_TABLE_BYTES ? -2 : 0;
}

int64_t rf_fft_plan_table_bytes(const rf_fft_plan *plan) {
    /* Per stage a (2f x 2f) DFT matrix and a twiddle table of the full length
     * (re, im); Bluestein adds its chirp (n) and kernel (m), re and im. Every
     * term is at most 2^31 * 64 doubles, so the sum cannot overflow. */
    int64_t len = plan->m ? plan->m : plan->n, doubles = plan->m ? 2 * plan->n + 2 * plan->m : 0;
    for (int i = 0; i < plan->nfactors; i++) doubles += 4 * plan->factors[i] * plan->factors[i] + 2 * len;
    return 8 * doubles;
}

int rf_fft_plan_is_direct(const rf_fft_plan *plan) { return !plan->m && plan->nfactors == 1; }

int64_t rf_fft_plan_max_radix(const rf_fft_plan *plan) {
    int64_t r = 0;
    for (int i = 0; i < plan->nfactors; i++)
        if (plan->factors[i] > r) r = plan->factors[i];
    return r;
}

void rf_fft_plan_format(const rf_fft_plan *plan, char *buf, size_t len) {
    int w = plan->m ? snprintf(buf, len, "%lld: bluestein %lld = ", (long long)plan->n, (long long)plan->m)
                    : snprintf(buf, len, "%lld: ", (long long)plan->n);
    if (rf_fft_plan_is_direct(plan)) {
        snprintf(buf + w, len > (size_t)w ? len - (size_t)w : 0, "direct");
        return;
    }
    for (int i = 0; i < plan->nfactors && (size_t)w < len; i++)
        w += snprintf(buf + w, len - (size_t)w, i ? "x%lld" : "%lld", (long long)plan->factors[i]);
}

/* ---- constants ---- */

void rf_fft_unit_root(int64_t num, int64_t den, double *c, double *s) {
    int64_t r = num % den;
    if (r < 0) r += den;
    /* 2*pi*r/den = quadrant*pi/2 + (pi/2)*rem/den with rem in [0, den): the
     * quadrant is the largest q with q*den <= 4r */
    int quadrant = 0;
    while (quadrant < 3 && (quadrant + 1) * den <= 4 * r) quadrant++;
    int64_t rem = 4 * r - quadrant * den; /* angle within the quadrant = (pi/2) * rem / den */
    double cc, ss;
    if (2 * rem <= den) {
        double t = (PI / 2) * (double)rem / (double)den;
        cc = cos(t);
        ss = sin(t);
    } else { /* use the complementary angle, which is at most pi/4 */
        double t = (PI / 2) * (double)(den - rem) / (double)den;
        cc = sin(t);
        ss = cos(t);
    }
    switch (quadrant) {
    case 0: *c = cc; *s = ss; break;
    case 1: *c = -ss; *s = cc; break;
    case 2: *c = -cc; *s = -ss; break;
    default: *c = ss; *s = -cc; break;
    }
}

void rf_fft_cos_sin_table(int64_t rows, int64_t cols, int64_t n, double *c, double *s) {
    for (int64_t j = 0; j < rows; j++)
        for (int64_t k = 0; k < cols; k++) {
            int64_t e = (int64_t)(((uint64_t)(j % n) * (uint64_t)(k % n)) % (uint64_t)n);
            rf_fft_unit_root(e, n, &c[j * cols + k], &s[j * cols + k]);
        }
}

void rf_fft_bluestein_chirp(int64_t n, int sign, double *re, double *im) {
    /* exp(sign*i*pi*j^2/n) = exp(2*pi*i * sign*(j^2 mod 2n) / (2n)) */
    uint64_t two_n = 2 * (uint64_t)n;
    for (int64_t j = 0; j < n; j++) {
        uint64_t jj = (uint64_t)j % two_n;
        int64_t e = (int64_t)((jj * jj) % two_n);
        rf_fft_unit_root(sign < 0 ? -e : e, (int64_t)two_n, &re[j], &im[j]);
    }
}

/* In-place forward radix-2 DFT (exp(-2*pi*i*jk/m)) of a power-of-two length m. */
static int fft_radix2(int64_t m, double *re, double *im) {
    double *wc = rf_malloc((size_t)(m / 2 + 1) * sizeof(double));
    double *ws = rf_malloc((size_t)(m / 2 + 1) * sizeof(double));
    if (!wc || !ws) {
        rf_free(wc);
        rf_free(ws);
        return -1;
    }
    for (int64_t k = 0; k < m / 2; k++) rf_fft_unit_root(-k, m, &wc[k], &ws[k]);
    for (int64_t i = 1, j = 0; i < m; i++) { /* bit reversal */
        int64_t bit = m >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) {
            double t = re[i];
            re[i] = re[j];
            re[j] = t;
            t = im[i];
            im[i] = im[j];
            im[j] = t;
        }
    }
    for (int64_t len = 2; len <= m; len *= 2) {
        int64_t step = m / len;
        for (int64_t i = 0; i < m; i += len)
            for (int64_t k = 0; k < len / 2; k++) {
                double c = wc[k * step], s = ws[k * step];
                int64_t a = i + k, b = i + k + len / 2;
                double tr = re[b] * c - im[b] * s, ti = re[b] * s + im[b] * c;
                re[b] = re[a] - tr;
                im[b] = im[a] - ti;
                re[a] += tr;
                im[a] += ti;
            }
    }
    rf_free(wc);
    rf_free(ws);
    return 0;
}

int rf_fft_bluestein_kernel(int64_t n, int64_t m, int sign, double *re, double *im) {
    if (m < 2 * n - 1 || (m & (m - 1))) return -1;
    double *wr = rf_malloc((size_t)n * sizeof(double)), *wi = rf_malloc((size_t)n * sizeof(double));
    if (!wr || !wi) {
        rf_free(wr);
        rf_free(wi);
        return -1;
    }
    rf_fft_bluestein_chirp(n, sign, wr, wi);
    memset(re, 0, (size_t)m * sizeof(double));
    memset(im, 0, (size_t)m * sizeof(double));
    for (int64_t l = 0; l < n; l++) {
        re[l] = wr[l];
        im[l] = -wi[l];
        if (l) {
            re[m - l] = wr[l];
            im[m - l] = -wi[l];
        }
    }
    rf_free(wr);
    rf_free(wi);
    if (fft_radix2(m, re, im)) return -1;
    for (int64_t k = 0; k < m; k++) {
        re[k] /= (double)m;
        im[k] /= (double)m;
    }
    return 0;
}
