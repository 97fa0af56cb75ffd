#ifndef KITE_BENCHMARK_FMA_PEAK_H
#define KITE_BENCHMARK_FMA_PEAK_H

// Measured fp32 multiply-add peak of this machine: every thread runs
// independent chains of fused multiply-adds on the widest vectors the CPU has
// (AVX-512, AVX2+FMA, NEON; plain multiply+add otherwise) for about `seconds`.
// Returns GFLOP/s (one FMA = 2 flops) and names the instruction set used.
double measure_fma_peak_gflops(int threads, double seconds, const char** isa_name);

#endif // KITE_BENCHMARK_FMA_PEAK_H
