#ifndef KITE_MAT_CAST_H
#define KITE_MAT_CAST_H

// Scalar-span conversions (mat_convert.cpp), for code that converts into
// memory it does not hold as a Mat (e.g. mapped GPU memory).

#include <cstddef>

namespace kite {

// n contiguous scalars, F16C where the CPU has it, with the same results as
// float32_to_float16 (mat.h)
void float32_to_float16_n(const float* src, unsigned short* dst, size_t n);
// the other way, with the same results as float16_to_float32 (mat.h)
void float16_to_float32_n(const unsigned short* src, float* dst, size_t n);

} // namespace kite

#endif // KITE_MAT_CAST_H
