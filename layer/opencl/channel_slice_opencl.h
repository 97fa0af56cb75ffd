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
#include <memory>
#include <vector>

namespace kite {
namespace cl {

// the plain channel-major image (not folded: cl_layout.h)
inline bool natural_image(const ClBlob* b)
{
    return b->image.width == b->W * ((b->C + 3) / 4) && b->image.height == b->H;
}

// where slice_c reads the channels of `in` from: `in` itself, or through a
// put-off ShuffleChannel (g, rev) and a put-off two-input Concat (src's
// first Ca channels, then src2's)
struct SliceSource
{
    ClBlobPtr src, src2;
    int Ca = 0, C = 0, H = 0, W = 0, g = 0, rev = 0;
};

inline SliceSource slice_source(const ClBlobPtr& in)
{
    SliceSource r;
    const bool through = in->deferred && !in->deferred->settled && in->perm_src && natural_image(in->perm_src.get());
    if (through)
        in->deferred->read_through = true;
    r.src = through ? in->perm_src : in;
    r.src2 = r.src;
    r.Ca = r.C = in->C;
    r.H = in->H;
    r.W = in->W;
    r.g = through ? in->perm_group : 0;
    r.rev = through ? in->perm_reverse : 0;
    if (pending(r.src.get()) && r.src->cat_src.size() == 2 && natural_image(r.src->cat_src[0].get()) &&
        natural_image(r.src->cat_src[1].get()))
    {
        r.src->deferred->read_through = true;
        const ClBlobPtr cat = r.src;
        r.Ca = cat->cat_src[0]->C;
        r.src = cat->cat_src[0];
        r.src2 = cat->cat_src[1];
    }
    return r;
}

// outputs i (up to 4) = channels [starts[i], starts[i] + lens[i]) of `from`
// into images outs[i], one launch
inline int launch_slices(Session& s, const SliceSource& from, const int* starts, const int* lens, const Image* outs, int m)
{
    cl_kernel k = s.kernel("shape", "slice_c");
    if (!k)
        return -1;
    int iw = 0;
    for (int j = 0; j < m; j++)
        iw = std::max(iw, outs[j].width);
    KernelArgs a(k);
    a.img(from.src->image).img(from.src2->image);
    for (int j = 0; j < 4; j++)
        a.img(outs[j < m ? j : 0]);
    a.i(m).i(from.Ca).i(from.C).i(from.H).i(from.W).i(from.g).i(from.rev);
    for (int j = 0; j < 4; j++)
        a.i(j < m ? starts[j] : 0);
    for (int j = 0; j < 4; j++)
        a.i(j < m ? lens[j] : 0);
    a.i(iw);
    return run2d(s, k, "slice_c", iw, from.H, a);
}

inline int slice_blob(Session& s, const ClBlob* in, int len, bool int8, ClBlobPtr& out)
{
    Mat shape = in->shape;
    if (shape.dims == 1)
        shape.w = len;
    else if (shape.dims == 2)
        shape.h = len;
    else
        shape.c = len;
    int ret = s.create_blob(shape, out);
    if (ret != 0)
        return ret;
    out->int8 = int8;
    return 0;
}

// outputs i = channels [starts[i], starts[i] + lens[i]) of `in` (natural_image)
inline int run_channel_slices(Session& s, const ClBlobPtr& in, const std::vector<int>& starts, const std::vector<int>& lens,
                              bool int8, std::vector<GpuBlobPtr>& tops)
{
    const SliceSource from = slice_source(in);
    const int n = (int)starts.size();
    std::vector<ClBlobPtr> outs((size_t)n);
    for (int i = 0; i < n; i++)
    {
        int ret = slice_blob(s, in.get(), lens[i], int8, outs[i]);
        if (ret != 0)
            return ret;
    }
    for (int first = 0; first < n; first += 4)
    {
        const int m = std::min(4, n - first);
        Image imgs[4];
        for (int j = 0; j < m; j++)
            imgs[j] = outs[first + j]->image;
        int ret = launch_slices(s, from, &starts[first], &lens[first], imgs, m);
        if (ret != 0)
            return ret;
    }
    tops.resize((size_t)n);
    for (int i = 0; i < n; i++)
        tops[i] = outs[i];
    return 0;
}

// Channel Crops of one blob put off together (ClBlob::crop_group): the first
// one read runs them all in one launch, each output still alive.
struct CropGroup
{
    SliceSource from;
    std::vector<int> starts, lens;
    std::vector<std::weak_ptr<ClBlob> > outs;
    bool ran = false;
    int run(Session& s)
    {
        if (ran)
            return 0;
        ran = true;
        int st[4], ln[4], m = 0;
        Image imgs[4];
        std::vector<ClBlobPtr> alive; // kept while the launch is enqueued
        for (size_t i = 0; i < outs.size(); i++)
        {
            ClBlobPtr o = outs[i].lock(); // a dead output's image may be another blob's now
            if (!o)
                continue;
            alive.push_back(o);
            st[m] = starts[i];
            ln[m] = lens[i];
            imgs[m++] = o->image;
        }
        return m > 0 ? launch_slices(s, from, st, ln, imgs, m) : 0;
    }
};

// a channel Crop of `in` (channels [start, start + len)): put off with the
// other Crops of `in` not yet run (one launch for up to 4)
inline int run_channel_crop(Session& s, const ClBlobPtr& in, int start, int len, bool int8, std::vector<GpuBlobPtr>& tops)
{
    if (!fusion_on("KITE_OPENCL_FUSE_CROP"))
        return run_channel_slices(s, in, {start}, {len}, int8, tops);
    ClBlobPtr out;
    int ret = slice_blob(s, in.get(), len, int8, out);
    if (ret != 0)
        return ret;
    std::shared_ptr<CropGroup> grp = in->crop_group.lock();
    if (!grp || grp->ran || grp->outs.size() >= 4)
    {
        grp = std::make_shared<CropGroup>();
        grp->from = slice_source(in);
        in->crop_group = grp;
    }
    grp->starts.push_back(start);
    grp->lens.push_back(len);
    grp->outs.push_back(out);
    Session* sp = &s;
    s.defer(*out, [sp, grp]() { return grp->run(*sp); });
    tops.resize(1);
    tops[0] = out;
    return 0;
}

} // namespace cl
} // namespace kite

#endif // KITE_LAYER_OPENCL_CHANNEL_SLICE_OPENCL_H
