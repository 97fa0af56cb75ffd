// CPU feature detection (src/cpu.*): the ISA levels are consistent with each
// other, and, when the environment says which level this machine (or
// emulated CPU) has, that the detection finds exactly it. CI runs the aarch64
// suite under qemu twice, with KITE_EXPECT_ISA=arm82 (qemu's default "max"
// CPU has fp16 arithmetic and dot product) and with QEMU_CPU=cortex-a53
// KITE_EXPECT_ISA=neon (neither), so both sides of every runtime switch run.
#include "cpu.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

using namespace kite;

TEST(Cpu, LevelsAreConsistent)
{
    EXPECT_TRUE(cpu_support_isa(CPU_ISA_NONE));
    const int best = cpu_best_isa();
    EXPECT_TRUE(cpu_support_isa(best));
    EXPECT_STRNE(cpu_isa_name(best), "unknown");
    // x86 levels nest
    if (cpu_support_isa(CPU_ISA_AVX512))
        EXPECT_TRUE(cpu_support_isa(CPU_ISA_AVX2));
    if (cpu_support_isa(CPU_ISA_AVX2))
        EXPECT_TRUE(cpu_support_isa(CPU_ISA_AVX));
    if (cpu_support_isa(CPU_ISA_AVX))
        EXPECT_TRUE(cpu_support_isa(CPU_ISA_SSE2));
    // arm82 is NEON plus fp16 arithmetic and dot product
    EXPECT_EQ(cpu_support_isa(CPU_ISA_ARM82),
              cpu_support_isa(CPU_ISA_NEON) && cpu_support_arm_asimdhp() && cpu_support_arm_asimddp());
#if defined(__aarch64__)
    EXPECT_TRUE(cpu_support_isa(CPU_ISA_NEON));
#endif
#if defined(__x86_64__)
    EXPECT_TRUE(cpu_support_isa(CPU_ISA_SSE2));
    EXPECT_FALSE(cpu_support_isa(CPU_ISA_NEON));
#endif
    EXPECT_STREQ(cpu_isa_name(12345), "unknown");
    EXPECT_FALSE(cpu_support_isa(12345));
}

TEST(Cpu, ExpectedLevel)
{
    const char* want = getenv("KITE_EXPECT_ISA");
    printf("best ISA: %s (asimdhp %d, asimddp %d)\n", cpu_isa_name(cpu_best_isa()), cpu_support_arm_asimdhp(),
           cpu_support_arm_asimddp());
    if (!want || !*want)
        GTEST_SKIP() << "KITE_EXPECT_ISA not set";
    EXPECT_EQ(std::string(cpu_isa_name(cpu_best_isa())), want);
}
