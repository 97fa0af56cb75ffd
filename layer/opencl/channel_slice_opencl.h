#ifndef KITE_LAYER_OPENCL_CHANNEL_SLICE_OPENCL_H
#define KITE_LAYER_OPENCL_CHANNEL_SLICE_OPENCL_H

// Ranges of channels (axis 0 of any dims: the channel-major image's C) cut
// out of an OpenCL blob, up to 4 per launch (shape.cl slice_c), for Slice and
// Crop. Where the input's launch is a ShuffleChannel that was put off
// (ClBlob::perm_src), the ranges are read through the permutation from the
// shuffle's input and the shuffle never runs; where that input (or the
// input itself) is a put-off two-input Concat (ClBlob::cat_src), from the
// concat's inputs, and the concat never runs either.

#include "gpu/opencl/cl_ops.h"

#include <algorithm>
#include <vector>

namespace kite {
namespace cl {

// the plain channel-major image (not folded: cl_layout.h)
inline bool natural_image(const ClBlob* b)
{
    return b->image.width == b->W * ((b->C + 3) / 4) && b->image.height == b->H;
}

// outputs i = channels [starts[i], starts[i] + lens[i]) of `in` (natural_image)
inline int run_channel_slices(Session& s, const ClBlob* in, const std::vector<int>& starts, const std::vector<int>& lens,
                              bool int8, std::vector<GpuBlobPtr>& tops)
{
    const bool through = in->deferred && !in->deferred->settled && in->perm_src && natural_image(in->perm_src.get());
    if (through)
        in->deferred->read_through = true;
    const ClBlob* src = through ? in->perm_src.get() : in;
    const ClBlob* src2 = src; // channels from Ca on (a concat read through)
    int Ca = in->C;
    if (pending(src) && src->cat_src.size() == 2 && natural_image(src->cat_src[0].get()) &&
        natural_image(src->cat_src[1].get()))
    {
        src->deferred->read_through = true;
        Ca = src->cat_src[0]->C;
        src2 = src->cat_src[1].get();
        src = src->cat_src[0].get();
    }
    const int g = through ? in->perm_group : 0, rev = through ? in->perm_reverse : 0;
    const int n = (int)starts.size();
    std::vector<ClBlobPtr> outs((size_t)n);
    for (int i = 0; i < n; i++)
    {
        Mat shape = in->shape;
        if (shape.dims == 1)
            shape.w = lens[i];
        else if (shape.dims == 2)
            shape.h = lens[i];
        else
            shape.c = lens[i];
        int ret = s.create_blob(shape, outs[i]);
        if (ret != 0)
            return ret;
        outs[i]->int8 = int8;
    }
    cl_kernel k = s.kernel("shape", "slice_c");
    if (!k)
        return -1;
    for (int first = 0; first < n; first += 4)
    {
        const int m = std::min(4, n - first);
        int iw = 0;
        for (int j = 0; j < m; j++)
            iw = std::max(iw, outs[first + j]->image.width);
        KernelArgs a(k);
        a.img(src->image).img(src2->image);
        for (int j = 0; j < 4; j++)
            a.img(outs[first + (j < m ? j : 0)]->image);
        a.i(m).i(Ca).i(in->C).i(in->H).i(in->W).i(g).i(rev);
        for (int j = 0; j < 4; j++)
            a.i(j < m ? starts[first + j] : 0);
        for (int j = 0; j < 4; j++)
            a.i(j < m ? lens[first + j] : 0);
        a.i(iw);
        int ret = run2d(s, k, "slice_c", iw, in->H, a);
        if (ret != 0)
            return ret;
    }
    tops.resize((size_t)n);
    for (int i = 0; i < n; i++)
        tops[i] = outs[i];
    return 0;
}

} // namespace cl
} // namespace kite

#endif // KITE_LAYER_OPENCL_CHANNEL_SLICE_OPENCL_H
