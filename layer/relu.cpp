#include "relu.h"

namespace kite {

ReLU::ReLU()
{
    one_blob_only = true;
    support_inplace = true;
}

int ReLU::load_param(const ParamDict& pd)
{
    slope = pd.get(PARAM_SLOPE, 0.f);
    return 0;
}

int ReLU::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    const int channels = bottom_top_blob.dims >= 3 ? bottom_top_blob.c : 1;
    const size_t size = (size_t)bottom_top_blob.w * bottom_top_blob.h * bottom_top_blob.d;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < channels; q++)
    {
        float* ptr = bottom_top_blob.dims >= 3 ? (float*)bottom_top_blob.channel(q).data : (float*)bottom_top_blob.data;
        for (size_t i = 0; i < size; i++)
        {
            if (ptr[i] < 0.f)
                ptr[i] *= slope;
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(ReLU)

} // namespace kite
