// Max-log-MAP turbo decoder kernels (TS 36.212 5.1.3.2), compiled on first use by
// refmodels/turbo_decoder.py and loaded with ctypes.
//
// A batch of LANES code blocks runs in SIMD lanes: every array is (step, [state,] lane) with the
// lane innermost, and each trellis quantity is one GCC vector of LANES elements, so the state
// metrics of a step stay in registers.  Two instantiations: float32 without saturation (the
// float decoder) and int16 with saturation (the bit-true decoder; the format widths bound every
// intermediate below 2^15, see turbo_decoder.py).  Compiled without fast-math and without
// floating-point contraction, so every lane computes exactly the operations written here; the
// float operation order (the 3-term sums as c + (b + g1), a fused multiply-add in the
// interleaver step) is the one the previous (numba, fast-math) decoder's compiler chose, so the
// float outputs are bit for bit those of that decoder.
//
// State s = 4*s1 + 2*s2 + s3; metrics are normalised to state 0, which is not stored: a metric
// is 7 vectors (states 1..7).  Branch metric gamma = u*g2 + p*g1 (g1 = Lp, g2 = Ls + La).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#define LANES 32
// Bytes per hardware vector: each array row of LANES values is processed as LANES / VL vectors
// of VL = VBYTES / sizeof(T) lanes (a GCC vector wider than the hardware's is split, and its
// selects may be scalarised).
#if defined(__AVX512BW__)
#define VBYTES 64
#elif defined(__AVX__)
#define VBYTES 32
#else
#define VBYTES 16
#endif
// Steps per window of recomputed forward metrics in a long SISO.
#define WINDOW 32
// A SISO over at most this many steps keeps every forward metric (no recomputation).
#define STORE_MAX 259

template <class T>
struct Vec;
template <>
struct Vec<float> {
    typedef float type __attribute__((vector_size(VBYTES)));
};
template <>
struct Vec<int16_t> {
    typedef int16_t type __attribute__((vector_size(VBYTES)));
};

template <class V, class T>
static inline V ld(const T *p) {
    V v;
    memcpy(&v, p, sizeof v);
    return v;
}

template <class V, class T>
static inline void st(T *p, V v) {
    memcpy(p, &v, sizeof v);
}

// v * 0.75 + x rounded once (a fused multiply-add), in vector instructions where there are.
template <class V>
static inline V fma075(V v, V x) {
#if VBYTES == 64 && defined(__AVX512F__)
    return (V)_mm512_fmadd_ps((__m512)v, _mm512_set1_ps(0.75f), (__m512)x);
#elif VBYTES == 32 && defined(__FMA__)
    return (V)_mm256_fmadd_ps((__m256)v, _mm256_set1_ps(0.75f), (__m256)x);
#else
    for (int e = 0; e < (int)(sizeof(V) / sizeof(float)); e++) x[e] = __builtin_fmaf(v[e], 0.75f, x[e]);
    return x;
#endif
}

template <class V>
static inline V mx(V x, V y) {
    return x > y ? x : y;
}

template <class T, bool CLIP>
struct Kernel {
    typedef typename Vec<T>::type V;
    enum { L = LANES, VL = VBYTES / sizeof(T) };
    static_assert(LANES % VL == 0, "LANES must be a multiple of the vector length");

    static inline V sat(V v, V lim) {
        if constexpr (!CLIP) return v;
        V nlim = -lim;
        v = v > lim ? lim : v;
        return v < nlim ? nlim : v;
    }

    // States 1..7 of a metric normalised to state 0, saturated to +-sm (bit-true only).
    static inline void put(V *dst, V v0, V v1, V v2, V v3, V v4, V v5, V v6, V v7, V sm) {
        dst[0] = sat(v1 - v0, sm);
        dst[1] = sat(v2 - v0, sm);
        dst[2] = sat(v3 - v0, sm);
        dst[3] = sat(v4 - v0, sm);
        dst[4] = sat(v5 - v0, sm);
        dst[5] = sat(v6 - v0, sm);
        dst[6] = sat(v7 - v0, sm);
    }

    // alpha_k (a) -> alpha_k+1 (a)
    static inline void fwd(V g1, V g2, V *a, V z, V sm) {
        V g3 = g2 + g1;
        V a1 = a[0], a2 = a[1], a3 = a[2], a4 = a[3], a5 = a[4], a6 = a[5], a7 = a[6];
        V n0 = mx(z, a1 + g3);
        V n1 = mx(a2 + g2, a3 + g1);
        V n2 = mx(a4 + g1, a5 + g2);
        V n3 = mx(a6 + g3, a7);
        V n4 = mx(g3, a1);
        V n5 = mx(a2 + g1, a3 + g2);
        V n6 = mx(a4 + g2, a5 + g1);
        V n7 = mx(a6, a7 + g3);
        put(a, n0, n1, n2, n3, n4, n5, n6, n7, sm);
    }

    // Extrinsic of the step from alpha_k (c) and beta_k+1 (b), then beta_k+1 -> beta_k (b).
    static inline V bwd(V g1, V g2, const V *c, V *b, V z, V sm, V ext) {
        V g3 = g2 + g1;
        V b1 = b[0], b2 = b[1], b3 = b[2], b4 = b[3], b5 = b[4], b6 = b[5], b7 = b[6];
        V c1 = c[0], c2 = c[1], c3 = c[2], c4 = c[3], c5 = c[4], c6 = c[5], c7 = c[6];
        V u0_1 = c1 + b4, u1_1 = c1 + g1;
        V u0_2 = c2 + (b5 + g1), u1_2 = c2 + b1;
        V u0_3 = c3 + (b1 + g1), u1_3 = c3 + b5;
        V u0_4 = c4 + (b2 + g1), u1_4 = c4 + b6;
        V u0_5 = c5 + (b6 + g1), u1_5 = c5 + b2;
        V u0_6 = c6 + b7, u1_6 = c6 + (b3 + g1);
        V u0_7 = c7 + b3, u1_7 = c7 + (b7 + g1);
        V u1_0 = b4 + g1;
        V u0 = mx(mx(mx(z, u0_1), mx(u0_2, u0_3)), mx(mx(u0_4, u0_5), mx(u0_6, u0_7)));
        V u1 = mx(mx(mx(u1_0, u1_1), mx(u1_2, u1_3)), mx(mx(u1_4, u1_5), mx(u1_6, u1_7)));
        V e = sat(u1 - u0, ext);
        V m0 = mx(z, b4 + g3);
        V m1 = mx(b4, g3);
        V m2 = mx(b5 + g1, b1 + g2);
        V m3 = mx(b1 + g1, b5 + g2);
        V m4 = mx(b2 + g1, b6 + g2);
        V m5 = mx(b6 + g1, b2 + g2);
        V m6 = mx(b7, b3 + g3);
        V m7 = mx(b3, b7 + g3);
        put(b, m0, m1, m2, m3, m4, m5, m6, m7, sm);
        return e;
    }

    // One max-log-MAP SISO over n steps of rows gs, lp (n, L) writing the extrinsic to le.
    // Starts from alpha cur and beta beta (7, L each); leaves the last alpha in cur and the
    // first beta in beta.  store: (max(n, WINDOW) or WINDOW, 7, L); ckpt: (ceil(n / WINDOW), 7, L).
    template <int NG>
    static void siso(int n, const T *gs, const T *lp, T *le, T *cur, T *beta, T *store, T *ckpt,
                     V sm, V ext) {
        const V z = {};
        V a[NG][7], b[NG][7], c[NG][7];
#define EACH for (int h = 0; h < NG; h++)
#define AT(ptr, row) ((ptr) + (row) * L + h * VL)
        EACH for (int s = 0; s < 7; s++) {
            a[h][s] = ld<V>(AT(cur, s));
            b[h][s] = ld<V>(AT(beta, s));
        }
        if (n <= STORE_MAX) {
            for (int j = 0; j < n; j++) {
                EACH {
                    for (int s = 0; s < 7; s++) st(AT(store, j * 7 + s), a[h][s]);
                    fwd(ld<V>(AT(lp, j)), ld<V>(AT(gs, j)), a[h], z, sm);
                }
            }
            for (int j = n - 1; j >= 0; j--) {
                EACH {
                    for (int s = 0; s < 7; s++) c[h][s] = ld<V>(AT(store, j * 7 + s));
                    st(AT(le, j), bwd(ld<V>(AT(lp, j)), ld<V>(AT(gs, j)), c[h], b[h], z, sm, ext));
                }
            }
        } else {
            int nwin = (n + WINDOW - 1) / WINDOW;
            for (int w = 0; w < nwin; w++) {
                EACH for (int s = 0; s < 7; s++) st(AT(ckpt, w * 7 + s), a[h][s]);
                int k0 = w * WINDOW, m = n - k0 < WINDOW ? n - k0 : WINDOW;
                for (int j = 0; j < m; j++)
                    EACH fwd(ld<V>(AT(lp, k0 + j)), ld<V>(AT(gs, k0 + j)), a[h], z, sm);
            }
            for (int w = nwin - 1; w >= 0; w--) {
                int k0 = w * WINDOW, m = n - k0 < WINDOW ? n - k0 : WINDOW;
                EACH for (int s = 0; s < 7; s++) c[h][s] = ld<V>(AT(ckpt, w * 7 + s));
                for (int j = 0; j < m; j++) {
                    EACH {
                        for (int s = 0; s < 7; s++) st(AT(store, j * 7 + s), c[h][s]);
                        if (j + 1 < m)
                            fwd(ld<V>(AT(lp, k0 + j)), ld<V>(AT(gs, k0 + j)), c[h], z, sm);
                    }
                }
                for (int j = m - 1; j >= 0; j--) {
                    int k = k0 + j;
                    EACH {
                        for (int s = 0; s < 7; s++) c[h][s] = ld<V>(AT(store, j * 7 + s));
                        st(AT(le, k),
                           bwd(ld<V>(AT(lp, k)), ld<V>(AT(gs, k)), c[h], b[h], z, sm, ext));
                    }
                }
            }
        }
        EACH for (int s = 0; s < 7; s++) {
            st(AT(cur, s), a[h][s]);
            st(AT(beta, s), b[h][s]);
        }
#undef AT
#undef EACH
    }

    // One constituent decoder as p parallel SISOs over sub-blocks of (n - 3) / p steps (the
    // last one also runs the 3 tail steps), each started from the boundary metrics abnd[q],
    // bbnd[q] (p, 7, L) its neighbours ended with in the previous iteration; the new
    // boundaries replace the old ones once every sub-block has run.
    static void blocks(int n, int p, const T *gs, const T *lp, T *le, T *abnd, T *bbnd, T *scratch,
                       unsigned groups, V sm, V ext) {
        const int ms = 7 * L;
        int m = (n - 3) / p;
        int longest = n - (p - 1) * m;
        int nstore = longest <= STORE_MAX ? (longest > WINDOW ? longest : WINDOW) : WINDOW;
        T *store = scratch;
        T *ckpt = store + (size_t)nstore * ms;
        T *anew = ckpt + (size_t)((longest + WINDOW - 1) / WINDOW) * ms;
        T *bnew = anew + (size_t)p * ms;
        T *cur = bnew + (size_t)p * ms;
        T *beta = cur + ms;
        for (int q = 0; q < p; q++) {
            int lo = q * m, hi = q < p - 1 ? lo + m : n;
            memcpy(cur, abnd + q * ms, ms * sizeof(T));
            memcpy(beta, bbnd + q * ms, ms * sizeof(T));
            // Two vectors per step where both run: twice the independent work per step, and
            // each row of gs / lp read in one pass.
            for (int g = 0; g < L;) {
                unsigned run = groups >> (g / VL);
                if ((run & 3) == 3 && g + 2 * VL <= L) {
                    siso<2>(hi - lo, gs + lo * L + g, lp + lo * L + g, le + lo * L + g, cur + g,
                            beta + g, store + g, ckpt + g, sm, ext);
                    g += 2 * VL;
                } else {
                    if (run & 1)
                        siso<1>(hi - lo, gs + lo * L + g, lp + lo * L + g, le + lo * L + g,
                                cur + g, beta + g, store + g, ckpt + g, sm, ext);
                    g += VL;
                }
            }
            if (q + 1 < p) memcpy(anew + (q + 1) * ms, cur, ms * sizeof(T));
            if (q > 0) memcpy(bnew + (q - 1) * ms, beta, ms * sizeof(T));
        }
        for (int q = 0; q < p; q++) {
            if (q > 0) memcpy(abnd + q * ms, anew + q * ms, ms * sizeof(T));
            if (q < p - 1) memcpy(bbnd + q * ms, bnew + q * ms, ms * sizeof(T));
        }
    }

    // out[i] = ls[i] + scale(le[idx[i]]), i < k: scale is x - (x >> 2) (integer) or 0.75 x,
    // the float one fused with the add (one rounding), as the decoder this kernel replaced.
    static void scale_permute(int k, const T *le, const int64_t *idx, const T *ls, T *out,
                              unsigned groups) {
        for (int i = 0; i < k; i++) {
            for (int g = 0; g < L; g += VL) {
                if (!(groups >> (g / VL) & 1)) continue;
                if constexpr (CLIP) {
                    V v = ld<V>(le + idx[i] * L + g);
                    st(out + i * L + g, ld<V>(ls + i * L + g) + (v - (v >> 2)));
                } else {
                    st(out + i * L + g, fma075(ld<V>(le + idx[i] * L + g), ld<V>(ls + i * L + g)));
                }
            }
        }
    }

    static size_t scratch_size(int n, int p) {
        int m = (n - 3) / p;
        int longest = n - (p - 1) * m;
        int nstore = longest <= STORE_MAX ? (longest > WINDOW ? longest : WINDOW) : WINDOW;
        return (size_t)(nstore + (longest + WINDOW - 1) / WINDOW + 2 * p + 2) * 7 * L;
    }

    // One full turbo iteration: decoder 1, interleave, decoder 2, de-interleave.  bnd is
    // (4, p, 7, L): alpha and beta boundaries of decoder 1, then of decoder 2.  Only the
    // vectors of lanes whose bit is set in groups (bit i: lanes i*VL .. i*VL+VL-1) are decoded;
    // the others are left as they are (padding, or blocks that already passed their CRC).
    static int iteration(int k, int p, const T *ls1, const T *ls2, const T *lp1, const T *lp2,
                         T *gs1, T *gs2, T *le, T *bnd, const int64_t *perm, const int64_t *inv,
                         unsigned groups, T sm_lim, T ext_lim) {
        int n = k + 3;
        T *scratch = (T *)malloc(scratch_size(n, p) * sizeof(T));
        if (!scratch) return -1;
        const V z = {};
        V sm = z + sm_lim, ext = z + ext_lim;
        size_t q = (size_t)p * 7 * L;
        blocks(n, p, gs1, lp1, le, bnd, bnd + q, scratch, groups, sm, ext);
        scale_permute(k, le, perm, ls2, gs2, groups);
        blocks(n, p, gs2, lp2, le, bnd + 2 * q, bnd + 3 * q, scratch, groups, sm, ext);
        scale_permute(k, le, inv, ls1, gs1, groups);
        free(scratch);
        return 0;
    }

    // A-posteriori LLR gs2 + le (interleaved domain), saturated to +-app_lim, de-interleaved
    // into app (k, L).
    static void app(int k, const T *gs2, const T *le, const int64_t *inv, T app_lim, T *out) {
        const V z = {};
        V lim = z + app_lim;
        V nlim = -lim;
        for (int j = 0; j < k; j++) {
            int64_t i = inv[j];
            for (int g = 0; g < L; g += VL) {
                V v = ld<V>(gs2 + i * L + g) + ld<V>(le + i * L + g);
                v = v > lim ? lim : v;
                v = v < nlim ? nlim : v;
                st(out + j * L + g, v);
            }
        }
    }
};

typedef Kernel<float, false> KF;
typedef Kernel<int16_t, true> KI;

extern "C" {

int turbo_lanes(void) { return LANES; }
int turbo_vector_lanes_f32(void) { return KF::VL; }
int turbo_vector_lanes_i16(void) { return KI::VL; }

int turbo_iteration_f32(int k, int p, const float *ls1, const float *ls2, const float *lp1,
                        const float *lp2, float *gs1, float *gs2, float *le, float *bnd,
                        const int64_t *perm, const int64_t *inv, unsigned groups, float sm_lim,
                        float ext_lim) {
    return KF::iteration(k, p, ls1, ls2, lp1, lp2, gs1, gs2, le, bnd, perm, inv, groups, sm_lim,
                         ext_lim);
}

int turbo_iteration_i16(int k, int p, const int16_t *ls1, const int16_t *ls2, const int16_t *lp1,
                        const int16_t *lp2, int16_t *gs1, int16_t *gs2, int16_t *le, int16_t *bnd,
                        const int64_t *perm, const int64_t *inv, unsigned groups, int sm_lim,
                        int ext_lim) {
    return KI::iteration(k, p, ls1, ls2, lp1, lp2, gs1, gs2, le, bnd, perm, inv, groups,
                         (int16_t)sm_lim, (int16_t)ext_lim);
}

void turbo_app_f32(int k, const float *gs2, const float *le, const int64_t *inv, float app_lim,
                   float *out) {
    KF::app(k, gs2, le, inv, app_lim, out);
}

void turbo_app_i16(int k, const int16_t *gs2, const int16_t *le, const int64_t *inv, int app_lim,
                   int16_t *out) {
    KI::app(k, gs2, le, inv, (int16_t)app_lim, out);
}
}
