#include "eltwise.h"

#include "log.h"

#include <algorithm>

namespace kite {

Eltwise::Eltwise()
{
    one_blob_only = false;
    support_inplace = false;
}

int Eltwise::load_param(const ParamDict& pd)
{
    op_type = pd.get(PARAM_OP_TYPE, 0);
    coeffs = pd.get(PARAM_COEFFS, Mat());
    if (op_type < Operation_PROD || op_type > Operation_MAX)
    {
        KITE_LOGE("Eltwise '%s': unknown op_type %d (0 prod, 1 sum, 2 max)", name.c_str(), op_type);
        return -1;
    }
    if (!coeffs.empty() && (coeffs.elemsize != 4u || coeffs.dims != 1))
    {
        KITE_LOGE("Eltwise '%s': coeffs must be a 1-D array", name.c_str());
        return -1;
    }
    return 0;
}

static bool same_shape(const Mat& a, const Mat& b)
{
    return a.dims == b.dims && a.w == b.w && a.h == b.h && a.d == b.d && a.c == b.c;
}

int Eltwise::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    const int n = (int)bottom_blobs.size();
    if (n < 1)
    {
        KITE_LOGE("Eltwise '%s': no inputs", name.c_str());
        return -1;
    }
    const Mat& first = bottom_blobs[0];
    for (int i = 0; i < n; i++)
    {
        const Mat& m = bottom_blobs[i];
        if (m.empty() || m.elempack != 1 || m.elemsize != 4u || m.dims < 1 || m.dims > 4)
        {
            KITE_LOGE("Eltwise '%s': input %d must be non-empty fp32 elempack 1", name.c_str(), i);
            return -1;
        }
        if (!same_shape(m, first))
        {
            KITE_LOGE("Eltwise '%s': input %d has shape dims %d [%d,%d,%d,%d], input 0 dims %d [%d,%d,%d,%d]",
                      name.c_str(), i, m.dims, m.w, m.h, m.d, m.c, first.dims, first.w, first.h, first.d, first.c);
            return -1;
        }
    }
    const bool weighted = op_type == Operation_SUM && coeffs.w > 0;
    if (weighted && coeffs.w < n)
    {
        KITE_LOGE("Eltwise '%s': %d coeffs for %d inputs", name.c_str(), coeffs.w, n);
        return -1;
    }

    if (top_blobs.empty())
        top_blobs.resize(1);
    Mat& top = top_blobs[0];
    top.create_like(first, opt.blob_allocator);
    if (top.empty())
        return -100;

    const float* cf = weighted ? (const float*)coeffs.data : nullptr;
    const int channels = first.dims >= 3 ? first.c : 1;
    const size_t size = (size_t)first.w * first.h * first.d;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < channels; q++)
    {
        float* out = (float*)top.data + (top.dims >= 3 ? top.cstep * q : 0);
        // input 0 initialises, the others accumulate in order (as ncnn does)
        for (int b = 0; b < n; b++)
        {
            const Mat& m = bottom_blobs[b];
            const float* p = (const float*)m.data + (m.dims >= 3 ? m.cstep * q : 0);
            if (op_type == Operation_PROD)
            {
                for (size_t i = 0; i < size; i++)
                    out[i] = b == 0 ? p[i] : out[i] * p[i];
            }
            else if (op_type == Operation_SUM && weighted)
            {
                const float c = cf[b];
                for (size_t i = 0; i < size; i++)
                    out[i] = b == 0 ? p[i] * c : out[i] + p[i] * c;
            }
            else if (op_type == Operation_SUM)
            {
                for (size_t i = 0; i < size; i++)
                    out[i] = b == 0 ? p[i] : out[i] + p[i];
            }
            else
            {
                for (size_t i = 0; i < size; i++)
                    out[i] = b == 0 ? p[i] : std::max(out[i], p[i]);
            }
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(Eltwise)

} // namespace kite
