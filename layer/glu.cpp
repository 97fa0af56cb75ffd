#include "glu.h"

#include "log.h"
#include "softmax.h"

#include <cmath>

namespace kite {

GLU::GLU()
{
    one_blob_only = true;
    support_inplace = false;
}

int GLU::load_param(const ParamDict& pd)
{
    axis = pd.get(PARAM_AXIS, 0);
    return 0;
}

int GLU::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    const int dims = bottom_blob.dims;
    const int positive_axis = axis < 0 ? dims + axis : axis;
    if (positive_axis < 0 || positive_axis >= dims)
    {
        KITE_LOGE("GLU '%s': axis %d is out of range for a %d-D input", name.c_str(), axis, dims);
        return -1;
    }
    const BlobAxes in = blob_axes(bottom_blob);
    const int len = in.ext[positive_axis];
    if (len % 2 != 0)
    {
        KITE_LOGE("GLU '%s': axis %d has odd size %d, cannot split in halves", name.c_str(), axis, len);
        return -1;
    }
    const int half = len / 2;
    int ext[4];
    for (int i = 0; i < in.n; i++)
        ext[i] = i == positive_axis ? half : in.ext[i];
    // ext is outermost first: (c, d, h, w) -> create with w first
    if (dims == 1)
        top_blob.create(ext[0], 4u, opt.blob_allocator);
    else if (dims == 2)
        top_blob.create(ext[1], ext[0], 4u, opt.blob_allocator);
    else if (dims == 3)
        top_blob.create(ext[2], ext[1], ext[0], 4u, opt.blob_allocator);
    else
        top_blob.create(ext[3], ext[2], ext[1], ext[0], 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;

    const BlobAxes out = blob_axes(top_blob);
    const std::vector<size_t> in_starts = line_starts(in, positive_axis);
    const std::vector<size_t> out_starts = line_starts(out, positive_axis);
    const size_t in_stride = in.st[positive_axis];
    const size_t out_stride = out.st[positive_axis];
    const float* src = bottom_blob;
    float* dst = top_blob;

    #pragma omp parallel for num_threads(opt.num_threads)
    for (int l = 0; l < (int)in_starts.size(); l++)
    {
        const float* a = src + in_starts[l];
        const float* b = a + in_stride * half;
        float* o = dst + out_starts[l];
        for (int i = 0; i < half; i++)
            o[out_stride * i] = a[in_stride * i] * (1.f / (1.f + expf(-b[in_stride * i])));
    }
    return 0;
}

DEFINE_LAYER_CREATOR(GLU)

} // namespace kite
