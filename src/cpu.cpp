#include "cpu.h"

#include <thread>
#include <cstdio>
#include <cstring>
#include <cstdlib>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if (defined(__aarch64__) || defined(__arm__)) && defined(__linux__)
#include <sys/auxv.h>
#endif
#if defined(_OPENMP)
#include <omp.h>
#endif
#if defined(__APPLE__) && defined(__aarch64__)
#include <sys/sysctl.h>
#endif

namespace kite {

namespace {

#if defined(__APPLE__) && defined(__aarch64__)
// Apple reports arm features as sysctl integers (absent on older systems: 0)
bool apple_feature(const char* name)
{
    int v = 0;
    size_t len = sizeof(v);
    return sysctlbyname(name, &v, &len, nullptr, 0) == 0 && v != 0;
}
#endif

struct CpuFeatures
{
    bool sse2 = false, avx = false, avx2 = false, fma = false, f16c = false;
    bool avx512 = false, avx512vnni = false, avxvnni = false;
    bool neon = false, asimdhp = false, asimddp = false;

    CpuFeatures()
    {
#if defined(__x86_64__) || defined(__i386__)
        unsigned int a, b, c, d;
        if (!__get_cpuid(1, &a, &b, &c, &d))
            return;
        sse2 = (d >> 26) & 1;
        bool osxsave = (c >> 27) & 1;
        bool cpu_avx = (c >> 28) & 1;
        fma = (c >> 12) & 1;
        f16c = (c >> 29) & 1;
        unsigned long long xcr0 = 0;
        if (osxsave)
        {
            unsigned int lo, hi;
            __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
            xcr0 = ((unsigned long long)hi << 32) | lo;
        }
        bool os_avx = (xcr0 & 6) == 6;
        bool os_avx512 = (xcr0 & 0xe6) == 0xe6;
        avx = cpu_avx && os_avx;
        if (__get_cpuid_max(0, 0) >= 7)
        {
            __cpuid_count(7, 0, a, b, c, d);
            avx2 = avx && ((b >> 5) & 1) && fma && f16c;
            bool f = (b >> 16) & 1, dq = (b >> 17) & 1, cd = (b >> 28) & 1, bw = (b >> 30) & 1, vl = (b >> 31) & 1;
            avx512 = avx2 && os_avx512 && f && dq && cd && bw && vl;
            avx512vnni = avx512 && ((c >> 11) & 1);
            if (a >= 1)
            {
                // leaf 7 subleaf 1: EAX bit 4 is AVX-VNNI (VEX-encoded vpdpbusd)
                unsigned int a1, b1, c1, d1;
                __cpuid_count(7, 1, a1, b1, c1, d1);
                avxvnni = avx2 && ((a1 >> 4) & 1);
            }
        }
#endif
#if defined(__aarch64__)
        neon = true; // Advanced SIMD is part of the aarch64 base
#if defined(__linux__)
        // the kernel's view of the CPU (Linux arm64 hwcap bits; Android too)
        unsigned long hw = getauxval(AT_HWCAP);
        asimdhp = (hw >> 10) & 1; // HWCAP_ASIMDHP: fp16 vector arithmetic
        asimddp = (hw >> 20) & 1; // HWCAP_ASIMDDP: sdot/udot
#elif defined(__APPLE__)
        asimdhp = apple_feature("hw.optional.arm.FEAT_FP16");
        asimddp = apple_feature("hw.optional.arm.FEAT_DotProd");
#endif
#elif defined(__arm__) && defined(__ARM_NEON)
        // armv7: the build was made with -mfpu=neon; the kernel confirms
#if defined(__linux__)
        neon = (getauxval(AT_HWCAP) >> 12) & 1; // HWCAP_NEON
#else
        neon = true;
#endif
#endif
    }
};

const CpuFeatures& features()
{
    static CpuFeatures f;
    return f;
}

int g_powersave = 0;

} // namespace

const char* cpu_isa_name(int isa)
{
    switch (isa)
    {
    case CPU_ISA_NONE: return "reference";
    case CPU_ISA_SSE2: return "sse2";
    case CPU_ISA_AVX: return "avx";
    case CPU_ISA_AVX2: return "avx2";
    case CPU_ISA_AVXVNNI: return "avxvnni";
    case CPU_ISA_AVX512: return "avx512";
    case CPU_ISA_AVX512VNNI: return "avx512vnni";
    case CPU_ISA_NEON: return "neon";
    case CPU_ISA_ARM82: return "arm82";
    }
    return "unknown";
}

const char* layer_row_name(int backend, int isa)
{
    if (backend == 1)
        return "vulkan";
    if (backend == 2)
        return "opencl";
    if (backend != 0)
        return "unknown";
    switch (isa)
    {
    case CPU_ISA_NONE: return "cpu:reference";
    case CPU_ISA_SSE2: return "cpu:sse2";
    case CPU_ISA_AVX: return "cpu:avx";
    case CPU_ISA_AVX2: return "cpu:avx2";
    case CPU_ISA_AVXVNNI: return "cpu:avxvnni";
    case CPU_ISA_AVX512: return "cpu:avx512";
    case CPU_ISA_AVX512VNNI: return "cpu:avx512vnni";
    case CPU_ISA_NEON: return "cpu:neon";
    case CPU_ISA_ARM82: return "cpu:arm82";
    }
    return "unknown";
}

bool cpu_support_isa(int isa)
{
    const CpuFeatures& f = features();
    switch (isa)
    {
    case CPU_ISA_NONE: return true;
    case CPU_ISA_SSE2: return f.sse2;
    case CPU_ISA_AVX: return f.avx;
    case CPU_ISA_AVX2: return f.avx2;
    case CPU_ISA_AVXVNNI: return f.avxvnni;
    case CPU_ISA_AVX512: return f.avx512;
    case CPU_ISA_AVX512VNNI: return f.avx512vnni;
    case CPU_ISA_NEON: return f.neon;
    case CPU_ISA_ARM82: return f.neon && f.asimdhp && f.asimddp;
    }
    return false;
}

int cpu_best_isa()
{
    const int order[] = {CPU_ISA_AVX512VNNI, CPU_ISA_AVX512, CPU_ISA_AVXVNNI, CPU_ISA_AVX2, CPU_ISA_AVX, CPU_ISA_SSE2, CPU_ISA_ARM82, CPU_ISA_NEON};
    for (int isa : order)
        if (cpu_support_isa(isa))
            return isa;
    return CPU_ISA_NONE;
}

int cpu_support_x86_avx512_vnni() { return features().avx512vnni; }
int cpu_support_x86_avx_vnni() { return features().avxvnni; }

int cpu_isa_vector_floats(int isa)
{
    if (isa == CPU_ISA_AVX512 || isa == CPU_ISA_AVX512VNNI)
        return 16;
    if (isa == CPU_ISA_AVX || isa == CPU_ISA_AVX2 || isa == CPU_ISA_AVXVNNI)
        return 8;
    return 4;
}
int cpu_support_arm_asimdhp() { return features().asimdhp; }
int cpu_support_arm_asimddp() { return features().asimddp; }

int get_cpu_count()
{
    int n = (int)std::thread::hardware_concurrency();
    return n > 0 ? n : 1;
}

int get_physical_big_cpu_count()
{
    // without a topology table, count every logical cpu
    return get_cpu_count();
}

int set_cpu_powersave(int powersave)
{
    if (powersave < 0 || powersave > 2)
        return -1;
    // Linux/Android big.LITTLE affinity is applied by the threads themselves
    // when they start; on symmetric machines all settings run on every core.
    g_powersave = powersave;
    return 0;
}

int get_cpu_powersave()
{
    return g_powersave;
}

} // namespace kite
