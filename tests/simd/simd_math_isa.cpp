// Compiled once per x86 ISA level (see CMakeLists.txt here): evaluates the
// layer/simd math at every vector width this ISA has, for test_simd_math.
#include "simd/simd_math.h"

#include <cstddef>

namespace kite {
namespace KITE_ISA_NS {

template<int N>
static void eval_width(int func, const float* x, float* y, size_t n)
{
    typedef simd::VF<N> V;
    for (size_t i = 0; i + N <= n; i += N)
    {
        typename V::T v = V::load(x + i);
        switch (func)
        {
        case 0: v = simd::exp_ps<V>(v); break;
        case 1: v = simd::log_ps<V>(v); break;
        case 2: v = simd::tanh_ps<V>(v); break;
        case 3: v = simd::sigmoid_ps<V>(v); break;
        case 4: v = simd::erf_ps<V>(v); break;
        case 5: v = simd::gelu_erf_ps<V>(v); break;
        default: v = simd::gelu_tanh_ps<V>(v); break;
        }
        V::store(y + i, v);
    }
}

// y[i] = func(x[i]) at vector width `width` (n a multiple of 16); returns 0,
// or -1 if this ISA has no such width
int simd_math_eval(int func, int width, const float* x, float* y, size_t n)
{
    switch (width)
    {
    case 1: eval_width<1>(func, x, y, n); return 0;
#if KITE_SIMD_MAX_N >= 4
    case 4: eval_width<4>(func, x, y, n); return 0;
#endif
#if KITE_SIMD_MAX_N >= 8
    case 8: eval_width<8>(func, x, y, n); return 0;
#endif
#if KITE_SIMD_MAX_N >= 16
    case 16: eval_width<16>(func, x, y, n); return 0;
#endif
    default: return -1;
    }
}

} // namespace KITE_ISA_NS
} // namespace kite
