#ifndef KITE_LAYER_GPU_INTERP_PLAN_H
#define KITE_LAYER_GPU_INTERP_PLAN_H

// What a GPU Interp kernel needs for one input shape, the same on both
// backends (shaders/vulkan/interp.comp, shaders/opencl/shape.cl interp): the
// input seen as C planes of H x W (dims 3: c, h, w; dims 2: one plane of
// h x w whose rows are resized along w only; dims 1: w planes of 1 x 1), the
// output plane OH x OW, and the reference's taps (interp_make_taps) for both
// axes in one float array:
//   [xofs(OW) | xalpha(OW * ntx) | yofs(OH) | yalpha(OH * nty)]
// out(c, y, x) = sum_ky yalpha * (sum_kx xalpha * in(c, clamp(yofs + ky), clamp(xofs + kx)))
// in the reference's order (rows first, then blended), so nearest is exact.

#include "interp.h"
#include "log.h"
#include "mat.h"

#include <vector>

namespace kite {

struct InterpPlan
{
    int C, H, W, OH, OW;
    int ntx, nty;
    std::vector<float> taps;
    Mat out; // output shape (no data)
};

// ref: the second input's shape with dynamic_target_size, else nullptr
inline int interp_plan(const Interp& l, const Mat& in, const Mat* ref, InterpPlan& p)
{
    if (in.dims < 1 || in.dims > 3)
    {
        KITE_LOGE("Interp '%s': input must be a blob of dims 1..3 (dims %d)", l.name.c_str(), in.dims);
        return -1;
    }
    const int w = in.dims == 1 ? 1 : in.w;
    const int h = in.dims == 1 ? 1 : in.h;
    int outw, outh;
    float hs, ws;
    if (ref)
    {
        outw = ref->w;
        outh = ref->h;
        hs = outh > 0 ? h / (float)outh : 1.f;
        ws = outw > 0 ? w / (float)outw : 1.f;
    }
    else
        l.target_size(w, h, outw, outh, hs, ws);
    if (outw <= 0 || outh <= 0)
    {
        KITE_LOGE("Interp '%s': empty output size %d x %d", l.name.c_str(), outw, outh);
        return -1;
    }
    InterpTaps tx, ty;
    Mat& o = p.out;
    o = Mat();
    o.elempack = 1;
    o.elemsize = 4;
    o.d = 1;
    if (in.dims == 1)
    {
        // every value becomes a constant outw x outh plane
        p.C = in.w;
        p.H = p.W = 1;
        tx.ntaps = ty.ntaps = 1;
        tx.ofs.assign(outw, 0);
        tx.alpha.assign(outw, 1.f);
        ty.ofs.assign(outh, 0);
        ty.alpha.assign(outh, 1.f);
        p.OH = outh;
        o.dims = 3;
        o.w = outw;
        o.h = outh;
        o.c = in.w;
    }
    else
    {
        interp_make_taps(l.resize_type, w, outw, ws, l.align_corner != 0, tx);
        if (in.dims == 2)
        {
            // rows resized along w, h kept
            p.C = 1;
            ty.ntaps = 1;
            ty.ofs.resize(h);
            for (int y = 0; y < h; y++)
                ty.ofs[y] = y;
            ty.alpha.assign(h, 1.f);
            p.OH = h;
            o.dims = 2;
            o.w = outw;
            o.h = h;
            o.c = 1;
        }
        else
        {
            interp_make_taps(l.resize_type, h, outh, hs, l.align_corner != 0, ty);
            p.C = in.c;
            p.OH = outh;
            o.dims = 3;
            o.w = outw;
            o.h = outh;
            o.c = in.c;
        }
        p.H = h;
        p.W = w;
    }
    o.cstep = (size_t)o.w * o.h;
    p.OW = outw;
    p.ntx = tx.ntaps;
    p.nty = ty.ntaps;
    p.taps.clear();
    p.taps.reserve(tx.ofs.size() + tx.alpha.size() + ty.ofs.size() + ty.alpha.size());
    for (int v : tx.ofs)
        p.taps.push_back((float)v);
    p.taps.insert(p.taps.end(), tx.alpha.begin(), tx.alpha.end());
    for (int v : ty.ofs)
        p.taps.push_back((float)v);
    p.taps.insert(p.taps.end(), ty.alpha.begin(), ty.alpha.end());
    return 0;
}

} // namespace kite

#endif // KITE_LAYER_GPU_INTERP_PLAN_H
