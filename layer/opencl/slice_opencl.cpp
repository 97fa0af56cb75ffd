// Slice on OpenCL. Along axis 0 (the channel-major image's C: c, h of dims 2,
// w of dims 1) every output in one launch, 4 outputs per launch (shape.cl
// slice_c), reading through a ShuffleChannel whose launch was put off
// (ClBlob::perm_src) so that the shuffle itself never runs. Other axes and
// folded images: the element map worked out once per input shape and applied
// by the gather kernel (cl::ShapeCache).
#include "slice.h"

#include "gpu/opencl/cl_ops.h"

#include <algorithm>

namespace kite {

class Slice_opencl : public Slice
{
public:
    Slice_opencl() { support_opencl = true; }
    bool accept() const override { return true; }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        cl::Session& s = cl::session(gs);
        const cl::ClBlob* in = cl::blob(bottoms[0]);
        const int dims = in->dims();
        const int n = (int)tops.size();
        if (bottoms.size() != 1 || n < 1 || dims < 1 || dims > 4 || !(axis == 0 || axis == -dims) || !natural(in))
            return cache_.forward(this, bottoms, tops, s, opt);
        // the blob the kernel reads: a put-off shuffle's input, or in
        const bool through = in->deferred && !in->deferred->settled && in->perm_src && natural(in->perm_src.get());
        const cl::ClBlob* src = through ? in->perm_src.get() : in;
        const int g = through ? in->perm_group : 0, rev = through ? in->perm_reverse : 0;
        std::vector<int> starts, lens;
        if (resolve_slices(in->C, n, starts, lens) != 0)
            return -1;
        std::vector<cl::ClBlobPtr> outs((size_t)n);
        for (int i = 0; i < n; i++)
        {
            Mat shape = in->shape;
            if (dims == 1)
                shape.w = lens[i];
            else if (dims == 2)
                shape.h = lens[i];
            else
                shape.c = lens[i];
            int ret = s.create_blob(shape, outs[i]);
            if (ret != 0)
                return ret;
            outs[i]->int8 = support_int8_storage && in->int8;
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
            cl::KernelArgs a(k);
            a.img(src->image);
            for (int j = 0; j < 4; j++)
                a.img(outs[first + (j < m ? j : 0)]->image);
            a.i(m).i(in->C).i(in->H).i(in->W).i(g).i(rev);
            for (int j = 0; j < 4; j++)
                a.i(j < m ? starts[first + j] : 0);
            for (int j = 0; j < 4; j++)
                a.i(j < m ? lens[first + j] : 0);
            a.i(iw);
            int ret = cl::run2d(s, k, "slice_c", iw, in->H, a);
            if (ret != 0)
                return ret;
        }
        for (int i = 0; i < n; i++)
            tops[i] = outs[i];
        return 0;
    }

private:
    // the plain channel-major image (not folded)
    static bool natural(const cl::ClBlob* b)
    {
        return b->image.width == b->W * ((b->C + 3) / 4) && b->image.height == b->H;
    }
    mutable cl::ShapeCache cache_{cl::ShapeCache::GATHER};
};

DEFINE_LAYER_CREATOR(Slice_opencl)

} // namespace kite
