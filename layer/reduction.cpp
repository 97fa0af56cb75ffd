#include "reduction.h"

#include "log.h"
#include "softmax.h"

#include <cfloat>
#include <cmath>
#include <vector>

namespace kite {

Reduction::Reduction()
{
    one_blob_only = true;
    support_inplace = false;
}

int Reduction::load_param(const ParamDict& pd)
{
    operation = pd.get(PARAM_OPERATION, 0);
    reduce_all = pd.get(PARAM_REDUCE_ALL, 1);
    coeff = pd.get(PARAM_COEFF, 1.f);
    axes = pd.get(PARAM_AXES, Mat());
    keepdims = pd.get(PARAM_KEEPDIMS, 0);
    const int fixbug0 = pd.get(PARAM_FIXBUG0, 0);
    if (operation < OP_SUM || operation > OP_LOGSUMEXP)
    {
        KITE_LOGE("Reduction '%s': operation %d is not 0..10", name.c_str(), operation);
        return -1;
    }
    if (fixbug0 == 0 && !axes.empty())
    {
        KITE_LOGE("Reduction '%s': axes without fixbug0=1 come from an old converter that counted the batch axis; regenerate the param file",
                  name.c_str());
        return -1;
    }
    return 0;
}

int Reduction::reduced_axes(int dims, bool reduce[4]) const
{
    for (int i = 0; i < 4; i++)
        reduce[i] = false;
    if (reduce_all || dims == 1)
    {
        for (int i = 0; i < dims; i++)
            reduce[i] = true;
        return 0;
    }
    const int* ap = axes;
    for (int i = 0; i < (int)axes.w; i++)
    {
        int a = ap[i];
        if (a < 0)
            a += dims;
        if (a < 0 || a >= dims)
        {
            KITE_LOGE("Reduction '%s': axis %d is out of range for a %d-D input", name.c_str(), ap[i], dims);
            return -1;
        }
        reduce[a] = true;
    }
    return 0;
}

int Reduction::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    const int dims = bottom_blob.dims;
    const BlobAxes in = blob_axes(bottom_blob);
    bool reduce[4];
    if (reduced_axes(dims, reduce) != 0)
        return -1;

    // dense accumulator in the keepdims shape, outermost first
    int oext[4];
    size_t ostride[4];
    size_t ocount = 1;
    for (int i = in.n - 1; i >= 0; i--)
    {
        oext[i] = reduce[i] ? 1 : in.ext[i];
        ostride[i] = ocount;
        ocount *= oext[i];
    }
    size_t rcount = 1;
    for (int i = 0; i < in.n; i++)
        if (reduce[i])
            rcount *= in.ext[i];

    float init = 0.f;
    if (operation == OP_MAX)
        init = -FLT_MAX;
    else if (operation == OP_MIN)
        init = FLT_MAX;
    else if (operation == OP_PROD)
        init = 1.f;
    std::vector<float> acc(ocount, init);

    const float* src = bottom_blob;
    int idx[4] = {0, 0, 0, 0};
    const int e0 = in.n > 0 ? in.ext[0] : 1;
    // walk every input element (up to 4 nested axes)
    for (idx[0] = 0; idx[0] < e0; idx[0]++)
    for (idx[1] = 0; idx[1] < (in.n > 1 ? in.ext[1] : 1); idx[1]++)
    for (idx[2] = 0; idx[2] < (in.n > 2 ? in.ext[2] : 1); idx[2]++)
    for (idx[3] = 0; idx[3] < (in.n > 3 ? in.ext[3] : 1); idx[3]++)
    {
        size_t ioff = 0, ooff = 0;
        for (int i = 0; i < in.n; i++)
        {
            ioff += in.st[i] * idx[i];
            if (!reduce[i])
                ooff += ostride[i] * idx[i];
        }
        const float x = src[ioff];
        float& a = acc[ooff];
        switch (operation)
        {
        case OP_SUM:
        case OP_MEAN:
        case OP_LOGSUM:
            a += x;
            break;
        case OP_ASUM:
        case OP_L1:
            a += fabsf(x);
            break;
        case OP_SUMSQ:
        case OP_L2:
            a += x * x;
            break;
        case OP_MAX:
            a = x > a ? x : a;
            break;
        case OP_MIN:
            a = x < a ? x : a;
            break;
        case OP_PROD:
            a *= x;
            break;
        default: // OP_LOGSUMEXP
            a += expf(x);
            break;
        }
    }
    for (size_t i = 0; i < ocount; i++)
    {
        float v = acc[i];
        if (operation == OP_MEAN)
            v = v / rcount;
        else if (operation == OP_L2)
            v = sqrtf(v);
        else if (operation == OP_LOGSUM || operation == OP_LOGSUMEXP)
            v = logf(v);
        acc[i] = v * coeff;
    }

    // output shape: keepdims keeps the rank, otherwise the kept axes only
    int shape[4];
    int rank = 0;
    for (int i = 0; i < in.n; i++)
    {
        if (keepdims)
            shape[rank++] = oext[i];
        else if (!reduce[i])
            shape[rank++] = in.ext[i];
    }
    if (rank == 0)
        shape[rank++] = 1;
    if (rank == 1)
        top_blob.create(shape[0], 4u, opt.blob_allocator);
    else if (rank == 2)
        top_blob.create(shape[1], shape[0], 4u, opt.blob_allocator);
    else if (rank == 3)
        top_blob.create(shape[2], shape[1], shape[0], 4u, opt.blob_allocator);
    else
        top_blob.create(shape[3], shape[2], shape[1], shape[0], 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    // copy the dense result in, honouring channel padding
    const int channels = top_blob.dims >= 3 ? top_blob.c : 1;
    const size_t plane = (size_t)top_blob.w * top_blob.h * top_blob.d;
    for (int q = 0; q < channels; q++)
    {
        float* dst = (float*)top_blob.data + (top_blob.dims >= 3 ? top_blob.cstep * q : 0);
        for (size_t i = 0; i < plane; i++)
            dst[i] = acc[plane * q + i];
    }
    return 0;
}

DEFINE_LAYER_CREATOR(Reduction)

} // namespace kite
