#ifndef KITE_LAYER_GPU_REDUCTION_PLAN_H
#define KITE_LAYER_GPU_REDUCTION_PLAN_H

// What a GPU Reduction kernel needs for one input shape, the same on both
// backends (shaders/vulkan/reduction.comp, shaders/opencl/shape.cl reduce):
// the input as 4 axes c, d, h, w (outermost first, missing ones 1), which of
// them are reduced (the reference's axis rules: reduce_all, a 1-D blob, or
// the axes counted on the blob's own dims, negative from the end), how many
// elements each output sums and the output's shape (keepdims or the kept
// axes only; a 1-element 1-D blob when nothing is kept). Output element i is
// the kept axes' coordinates in that order, w fastest.

#include "log.h"
#include "mat.h"
#include "reduction.h"
#include "softmax.h" // blob_axes

namespace kite {

struct ReductionPlan
{
    int ext[4];
    int red[4];
    int rcount; // elements per output
    int nout;   // outputs
    Mat out;    // output shape (no data)
};

inline int reduction_plan(const Reduction& l, const Mat& in_shape, ReductionPlan& p)
{
    const BlobAxes in = blob_axes(in_shape);
    bool reduce[4] = {false, false, false, false};
    if (l.reduce_all || in_shape.dims == 1)
    {
        for (int i = 0; i < in.n; i++)
            reduce[i] = true;
    }
    else
    {
        const int* ap = l.axes;
        for (int i = 0; i < (int)l.axes.w; i++)
        {
            int a = ap[i] < 0 ? ap[i] + in_shape.dims : ap[i];
            if (a < 0 || a >= in_shape.dims)
            {
                KITE_LOGE("Reduction '%s': axis %d is out of range for a %d-D input", l.name.c_str(), ap[i], in_shape.dims);
                return -1;
            }
            reduce[a] = true;
        }
    }
    const int pad = 4 - in.n;
    p.rcount = 1;
    p.nout = 1;
    int shape[4];
    int rank = 0;
    for (int i = 0; i < 4; i++)
    {
        const int k = i - pad;
        p.ext[i] = k >= 0 ? in.ext[k] : 1;
        p.red[i] = k >= 0 && reduce[k] ? 1 : 0;
        if (p.red[i])
            p.rcount *= p.ext[i];
        else
            p.nout *= p.ext[i];
        if (k < 0)
            continue;
        if (l.keepdims)
            shape[rank++] = reduce[k] ? 1 : in.ext[k];
        else if (!reduce[k])
            shape[rank++] = in.ext[k];
    }
    if (rank == 0)
        shape[rank++] = 1;
    Mat& o = p.out;
    o = Mat();
    o.dims = rank;
    o.w = shape[rank - 1];
    o.h = rank >= 2 ? shape[rank - 2] : 1;
    o.d = rank == 4 ? shape[1] : 1;
    o.c = rank >= 3 ? shape[0] : 1;
    o.elempack = 1;
    o.elemsize = 4;
    o.cstep = (size_t)o.w * o.h * o.d;
    return 0;
}

} // namespace kite

#endif // KITE_LAYER_GPU_REDUCTION_PLAN_H
