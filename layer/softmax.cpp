#include "softmax.h"

#include "log.h"

#include <cmath>

namespace kite {

BlobAxes blob_axes(const Mat& m)
{
    BlobAxes b;
    b.n = 0;
    if (m.dims >= 3)
        b.ext[b.n] = m.c, b.st[b.n++] = m.cstep;
    if (m.dims == 4)
        b.ext[b.n] = m.d, b.st[b.n++] = (size_t)m.w * m.h;
    if (m.dims >= 2)
        b.ext[b.n] = m.h, b.st[b.n++] = m.w;
    b.ext[b.n] = m.w, b.st[b.n++] = 1;
    return b;
}

std::vector<size_t> line_starts(const BlobAxes& b, int axis)
{
    std::vector<size_t> starts(1, 0);
    for (int i = 0; i < b.n; i++)
    {
        if (i == axis)
            continue;
        std::vector<size_t> next;
        next.reserve(starts.size() * b.ext[i]);
        for (size_t s : starts)
            for (int k = 0; k < b.ext[i]; k++)
                next.push_back(s + b.st[i] * k);
        starts.swap(next);
    }
    return starts;
}

Softmax::Softmax()
{
    one_blob_only = true;
    support_inplace = true;
}

int Softmax::load_param(const ParamDict& pd)
{
    axis = pd.get(PARAM_AXIS, 0);
    const int fixbug0 = pd.get(PARAM_FIXBUG0, 0);
    if (fixbug0 == 0 && axis != 0)
    {
        KITE_LOGE("Softmax '%s': axis %d without fixbug0=1 comes from an old converter with another axis convention; regenerate the param file",
                  name.c_str(), axis);
        return -1;
    }
    return 0;
}

int Softmax::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    const int dims = bottom_top_blob.dims;
    const int positive_axis = axis < 0 ? dims + axis : axis;
    if (positive_axis < 0 || positive_axis >= dims)
    {
        KITE_LOGE("Softmax '%s': axis %d is out of range for a %d-D input", name.c_str(), axis, dims);
        return -1;
    }
    const BlobAxes b = blob_axes(bottom_top_blob);
    const std::vector<size_t> starts = line_starts(b, positive_axis);
    const int len = b.ext[positive_axis];
    const size_t stride = b.st[positive_axis];
    float* data = bottom_top_blob;

    #pragma omp parallel for num_threads(opt.num_threads)
    for (int l = 0; l < (int)starts.size(); l++)
    {
        float* ptr = data + starts[l];
        float max = ptr[0];
        for (int i = 1; i < len; i++)
            max = ptr[stride * i] > max ? ptr[stride * i] : max;
        float sum = 0.f;
        for (int i = 0; i < len; i++)
        {
            float v = expf(ptr[stride * i] - max);
            ptr[stride * i] = v;
            sum += v;
        }
        for (int i = 0; i < len; i++)
            ptr[stride * i] /= sum;
    }
    return 0;
}

DEFINE_LAYER_CREATOR(Softmax)

} // namespace kite
