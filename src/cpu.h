#ifndef KITE_CPU_H
#define KITE_CPU_H

namespace kite {

// Instruction-set levels that layer implementations are compiled for.
// x86 levels are ordered: a CPU with AVX2 (+FMA+F16C) also has AVX and SSE2.
enum CpuIsa
{
    CPU_ISA_NONE = 0, // the reference implementation, runs everywhere
    CPU_ISA_SSE2 = 1,
    CPU_ISA_AVX = 2,
    CPU_ISA_AVX2 = 3,       // AVX2 + FMA + F16C
    CPU_ISA_AVXVNNI = 4,    // AVX2 + AVX-VNNI (VEX vpdpbusd): the avx2 drivers with their VNNI int8 kernels
    CPU_ISA_AVX512 = 5,     // AVX-512 F/CD/BW/DQ/VL
    CPU_ISA_AVX512VNNI = 6, // AVX-512 + VNNI: the avx512 drivers with their VNNI int8 kernels
    CPU_ISA_NEON = 16,  // aarch64 / armv7 NEON (Advanced SIMD), fp32
    CPU_ISA_ARM82 = 17, // aarch64 armv8.2-a with fp16 arithmetic (asimdhp) and dot product (asimddp)
};

const char* cpu_isa_name(int isa);
// The name of a layer registry row, as the placement report prints it:
// backend 0 (CPU) gives "cpu:" + cpu_isa_name(isa) ("cpu:reference",
// "cpu:avx2", "cpu:neon", ...), backend 1 "vulkan", backend 2 "opencl"
// (the isa is ignored for GPU rows); "unknown" for anything else.
const char* layer_row_name(int backend, int isa);
// whether this CPU can run code compiled for isa
bool cpu_support_isa(int isa);
// the best x86 or ARM level this CPU has
int cpu_best_isa();

int cpu_support_x86_avx512_vnni();
int cpu_support_x86_avx_vnni();
// widest fp32 vector of an ISA level in lanes (16 AVX-512, 8 AVX/AVX2, 4 others)
int cpu_isa_vector_floats(int isa);
int cpu_support_arm_asimdhp();  // armv8.2 fp16 arithmetic
int cpu_support_arm_asimddp();  // dot product

int get_cpu_count();
int get_physical_big_cpu_count();

// 0: all cores, 1: little cores, 2: big cores
int set_cpu_powersave(int powersave);
int get_cpu_powersave();

} // namespace kite

#endif // KITE_CPU_H
