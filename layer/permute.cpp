#include "permute.h"

#include "common/shape_util.h"
#include "log.h"

#include <cstring>

namespace kite {

Permute::Permute()
{
    one_blob_only = true;
    support_inplace = false;
    support_fp16_storage = true;
    support_bf16_storage = true;
    support_int8_storage = true;
}

int Permute::load_param(const ParamDict& pd)
{
    order_type = pd.get(PARAM_ORDER_TYPE, 0);
    if (order_type < 0 || order_type > 23)
    {
        KITE_LOGE("Permute '%s': order_type %d out of range 0..23", name.c_str(), order_type);
        return -1;
    }
    return 0;
}

bool Permute::permutation(int dims, int order, int* perm)
{
    // new (w, h, [d,] c) as letters of the old axes, ncnn's numbering
    static const char* const orders3[6] = {"whc", "hwc", "wch", "cwh", "hcw", "chw"};
    static const char* const orders4[24] = {
        "whdc", "hwdc", "wdhc", "dwhc", "hdwc", "dhwc", "whcd", "hwcd", "wchd", "cwhd", "hcwd", "chwd",
        "wdch", "dwch", "wcdh", "cwdh", "dcwh", "cdwh", "hdcw", "dhcw", "hcdw", "chdw", "dchw", "cdhw"};
    if (dims == 1)
    {
        perm[0] = 0;
        return true;
    }
    if (dims == 2)
    {
        if (order < 0 || order > 1)
            return false;
        perm[0] = order == 0 ? 0 : 1;
        perm[1] = order == 0 ? 1 : 0;
        return true;
    }
    const char* letters = dims == 3 ? "chw" : "cdhw"; // logical axes, outermost first
    const char* spec = nullptr;
    if (dims == 3 && order >= 0 && order < 6)
        spec = orders3[order];
    if (dims == 4 && order >= 0 && order < 24)
        spec = orders4[order];
    if (!spec)
        return false;
    for (int i = 0; i < dims; i++)
    {
        // spec lists w first, so logical output axis i is spec[dims - 1 - i]
        perm[i] = (int)(strchr(letters, spec[dims - 1 - i]) - letters);
    }
    return true;
}

int Permute::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (!shape::plain_blob(bottom_blob))
    {
        KITE_LOGE("Permute '%s': input must be a non-empty elempack 1 blob of dims 1..4", name.c_str());
        return -1;
    }
    const int dims = bottom_blob.dims;
    int perm[4];
    if (!permutation(dims, order_type, perm))
    {
        KITE_LOGE("Permute '%s': order_type %d is not defined for a %d-dims blob", name.c_str(), order_type, dims);
        return -1;
    }
    const shape::Dims in = shape::dims_of(bottom_blob);
    shape::Dims out = in;
    for (int i = 0; i < dims; i++)
        out.s[i] = in.s[perm[i]];
    shape::create_dims(top_blob, out, bottom_blob.elemsize, opt.blob_allocator);
    if (top_blob.empty())
        return -100;

    // element stride of every input logical axis, then per output (c, d, h, w)
    size_t in_stride_logical[4];
    {
        int cdhw[4];
        shape::to_cdhw(in, cdhw);
        size_t st[4];
        st[3] = 1;
        st[2] = (size_t)cdhw[3];
        st[1] = (size_t)cdhw[3] * cdhw[2];
        st[0] = bottom_blob.cstep;
        for (int i = 0; i < dims; i++)
            in_stride_logical[i] = st[shape::cdhw_axis(dims, i)];
    }
    size_t stride[4] = {0, 0, 0, 0}; // input stride for output (c, d, h, w)
    int ext[4];
    shape::to_cdhw(out, ext);
    for (int i = 0; i < dims; i++)
        stride[shape::cdhw_axis(dims, i)] = in_stride_logical[perm[i]];

    const size_t es = bottom_blob.elemsize;
    const unsigned char* src = (const unsigned char*)bottom_blob.data;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < ext[0]; q++)
    {
        for (int z = 0; z < ext[1]; z++)
        {
            for (int y = 0; y < ext[2]; y++)
            {
                unsigned char* outptr = shape::ptr_at(top_blob, q, z, y, 0);
                const size_t base = q * stride[0] + z * stride[1] + y * stride[2];
                for (int x = 0; x < ext[3]; x++)
                    memcpy(outptr + x * es, src + (base + x * stride[3]) * es, es);
            }
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(Permute)

} // namespace kite
