// ShuffleChannel on OpenCL (shape.cl shuffle_c). The launch is put off
// (cl::Session::defer): a Slice that takes the shuffled blob reads its input
// through the permutation, and the shuffle runs only when some other launch
// or a download reads its output (ShuffleNet-style channel shuffle + split:
// one launch instead of three). Folded images and shapes the reference
// refuses go through the gather kernel (cl::ShapeCache), which logs the error.
#include "shufflechannel.h"

#include "gpu/opencl/cl_ops.h"

namespace kite {

class ShuffleChannel_opencl : public ShuffleChannel
{
public:
    ShuffleChannel_opencl() { support_opencl = true; }
    bool accept() const override { return true; }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        cl::Session& s = cl::session(gs);
        cl::ClBlobPtr in = std::static_pointer_cast<cl::ClBlob>(bottoms[0]);
        if (in->dims() < 3 || group <= 0 || in->C % group != 0 || in->image.width != in->W * ((in->C + 3) / 4) ||
            in->image.height != in->H)
            return cache_.forward(this, bottoms, tops, s, opt);
        int ret = s.settle(in.get()); // a shuffle of a shuffle: the first one runs
        if (ret != 0)
            return ret;
        cl::ClBlobPtr out;
        ret = s.create_blob(in->shape, out);
        if (ret != 0)
            return ret;
        out->int8 = support_int8_storage && in->int8;
        out->perm_src = in;
        out->perm_group = group;
        out->perm_reverse = reverse;
        cl::Session* sp = &s;
        const cl::Image dst = out->image;
        const int g = group, rev = reverse;
        s.defer(*out, [sp, in, dst, g, rev]() {
            cl_kernel k = sp->kernel("shape", "shuffle_c");
            if (!k)
                return -1;
            cl::KernelArgs a(k);
            a.img(in->image).img(dst).i(in->C).i(in->H).i(in->W).i(g).i(rev);
            return cl::run2d(*sp, k, "shuffle_c", dst.width, dst.height, a);
        });
        tops[0] = out;
        return 0;
    }

private:
    mutable cl::ShapeCache cache_{cl::ShapeCache::GATHER};
};

DEFINE_LAYER_CREATOR(ShuffleChannel_opencl)

} // namespace kite
