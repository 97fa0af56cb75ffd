// ReLU for x86: compiled once per ISA level by CMake, which defines
// KITE_ISA_NS (sse2, avx, avx2, avx512) and sets the matching flags.
#include "relu.h"

#include <immintrin.h>

namespace kite {
namespace KITE_ISA_NS {

class ReLU_x86 : public ReLU
{
public:
    ReLU_x86()
    {
        support_packing = true;
    }

    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override
    {
        const int channels = bottom_top_blob.dims >= 3 ? bottom_top_blob.c : 1;
        const size_t size = (size_t)bottom_top_blob.w * bottom_top_blob.h * bottom_top_blob.d * bottom_top_blob.elempack;
        const size_t stride = bottom_top_blob.dims >= 3 ? bottom_top_blob.cstep * bottom_top_blob.elempack : 0;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < channels; q++)
        {
            float* ptr = (float*)bottom_top_blob.data + stride * q;
            size_t i = 0;
#if defined(__AVX512F__)
            __m512 s16 = _mm512_set1_ps(slope);
            for (; i + 16 <= size; i += 16)
            {
                __m512 v = _mm512_loadu_ps(ptr + i);
                __mmask16 neg = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ);
                _mm512_storeu_ps(ptr + i, _mm512_mask_mul_ps(v, neg, v, s16));
            }
#endif
#if defined(__AVX__)
            __m256 s8 = _mm256_set1_ps(slope);
            for (; i + 8 <= size; i += 8)
            {
                __m256 v = _mm256_loadu_ps(ptr + i);
                __m256 neg = _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LT_OQ);
                _mm256_storeu_ps(ptr + i, _mm256_blendv_ps(v, _mm256_mul_ps(v, s8), neg));
            }
#endif
            __m128 s4 = _mm_set1_ps(slope);
            for (; i + 4 <= size; i += 4)
            {
                __m128 v = _mm_loadu_ps(ptr + i);
                __m128 neg = _mm_cmplt_ps(v, _mm_setzero_ps());
                __m128 scaled = _mm_mul_ps(v, s4);
                _mm_storeu_ps(ptr + i, _mm_or_ps(_mm_and_ps(neg, scaled), _mm_andnot_ps(neg, v)));
            }
            for (; i < size; i++)
            {
                if (ptr[i] < 0.f)
                    ptr[i] *= slope;
            }
        }
        return 0;
    }
};

DEFINE_LAYER_CREATOR(ReLU_x86)

} // namespace KITE_ISA_NS
} // namespace kite
