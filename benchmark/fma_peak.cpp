#include "fma_peak.h"

#include "cpu.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define KITE_BENCH_X86 1
#elif defined(__aarch64__)
#include <arm_neon.h>
#define KITE_BENCH_NEON 1
#endif

namespace {

// 12 independent accumulators hide the FMA latency (4 cycles x 2 ports on
// current x86 cores needs at least 8); returns flops done.
const int kChains = 12;

#if KITE_BENCH_X86
__attribute__((target("avx512f"))) double run_avx512(long iters, float seed)
{
    __m512 acc[kChains];
    for (int i = 0; i < kChains; i++)
        acc[i] = _mm512_set1_ps(seed + i);
    const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
    for (long n = 0; n < iters; n++)
        for (int i = 0; i < kChains; i++)
            acc[i] = _mm512_fmadd_ps(acc[i], a, b);
    __m512 s = acc[0];
    for (int i = 1; i < kChains; i++)
        s = _mm512_add_ps(s, acc[i]);
    volatile float sink = _mm512_reduce_add_ps(s);
    (void)sink;
    return 2.0 * 16 * kChains * (double)iters;
}

__attribute__((target("avx2,fma"))) double run_avx2(long iters, float seed)
{
    __m256 acc[kChains];
    for (int i = 0; i < kChains; i++)
        acc[i] = _mm256_set1_ps(seed + i);
    const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    for (long n = 0; n < iters; n++)
        for (int i = 0; i < kChains; i++)
            acc[i] = _mm256_fmadd_ps(acc[i], a, b);
    float out[8];
    __m256 s = acc[0];
    for (int i = 1; i < kChains; i++)
        s = _mm256_add_ps(s, acc[i]);
    _mm256_storeu_ps(out, s);
    volatile float sink = out[0];
    (void)sink;
    return 2.0 * 8 * kChains * (double)iters;
}
#endif

#if KITE_BENCH_NEON
double run_neon(long iters, float seed)
{
    float32x4_t acc[kChains];
    for (int i = 0; i < kChains; i++)
        acc[i] = vdupq_n_f32(seed + i);
    const float32x4_t a = vdupq_n_f32(0.999999f), b = vdupq_n_f32(1e-7f);
    for (long n = 0; n < iters; n++)
        for (int i = 0; i < kChains; i++)
            acc[i] = vfmaq_f32(b, acc[i], a);
    float32x4_t s = acc[0];
    for (int i = 1; i < kChains; i++)
        s = vaddq_f32(s, acc[i]);
    volatile float sink = vgetq_lane_f32(s, 0);
    (void)sink;
    return 2.0 * 4 * kChains * (double)iters;
}
#endif

double run_scalar(long iters, float seed)
{
    float acc[kChains];
    for (int i = 0; i < kChains; i++)
        acc[i] = seed + i;
    for (long n = 0; n < iters; n++)
        for (int i = 0; i < kChains; i++)
            acc[i] = acc[i] * 0.999999f + 1e-7f;
    float s = 0;
    for (int i = 0; i < kChains; i++)
        s += acc[i];
    volatile float sink = s;
    (void)sink;
    return 2.0 * kChains * (double)iters;
}

} // namespace

double measure_fma_peak_gflops(int threads, double seconds, const char** isa_name)
{
    double (*kernel)(long, float) = run_scalar;
    const char* name = "scalar";
#if KITE_BENCH_X86
    if (kite::cpu_support_isa(kite::CPU_ISA_AVX512))
    {
        kernel = run_avx512;
        name = "AVX-512 FMA";
    }
    else if (kite::cpu_support_isa(kite::CPU_ISA_AVX2))
    {
        kernel = run_avx2;
        name = "AVX2 FMA";
    }
#elif KITE_BENCH_NEON
    kernel = run_neon;
    name = "NEON FMA";
#endif
    if (isa_name)
        *isa_name = name;
    if (threads < 1)
        threads = 1;
    // calibrate the iteration count on one thread, then run all threads at once
    long iters = 1 << 16;
    for (;;)
    {
        auto t0 = std::chrono::steady_clock::now();
        kernel(iters, 1.f);
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s > seconds / 4 || iters > (1L << 40))
        {
            iters = (long)(iters * (seconds / (s > 0 ? s : 1e-9)));
            break;
        }
        iters *= 4;
    }
    std::vector<double> flops(threads, 0.0);
    std::vector<std::thread> pool;
    auto t0 = std::chrono::steady_clock::now();
    for (int t = 0; t < threads; t++)
        pool.emplace_back([&, t] { flops[t] = kernel(iters, 1.f + t); });
    for (auto& th : pool)
        th.join();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double total = 0;
    for (double f : flops)
        total += f;
    return total / s * 1e-9;
}
