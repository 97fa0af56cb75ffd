#include "softplus.h"

#include <cmath>

namespace kite {

Softplus::Softplus()
{
    one_blob_only = true;
    support_inplace = true;
}

int Softplus::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    const int channels = bottom_top_blob.dims >= 3 ? bottom_top_blob.c : 1;
    const size_t size = (size_t)bottom_top_blob.w * bottom_top_blob.h * bottom_top_blob.d;
    const size_t step = bottom_top_blob.dims >= 3 ? bottom_top_blob.cstep : 0;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < channels; q++)
    {
        float* ptr = (float*)bottom_top_blob.data + step * q;
        for (size_t i = 0; i < size; i++)
        {
            const float x = ptr[i];
            // beyond 20, exp(x) + 1 == exp(x) in fp32 and exp may overflow
            ptr[i] = x > 20.f ? x : logf(expf(x) + 1.f);
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(Softplus)

} // namespace kite
