// ShuffleChannel on OpenCL (shape.cl shuffle_c). The launch is put off
// (cl::Session::defer): a Slice that takes the shuffled blob reads its input
// through the permutation, and the shuffle runs only when some other launch
// or a download reads its output (ShuffleNet-style channel shuffle + split:
// one launch instead of three). A shuffle of a put-off two-input Concat
// (ClBlob::cat_src) reads the concat's inputs when it runs (shape.cl
// slice_c), and a Slice after it reads them through both: concat, shuffle
// and split in one launch. Folded images and shapes the reference
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
        // a shuffle of a shuffle: the first one runs; a put-off concat is read through
        const bool through_cat = cl::pending(in.get()) && in->cat_src.size() == 2;
        if (through_cat)
            in->deferred->read_through = true;
        int ret = through_cat ? 0 : s.settle(in.get());
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
            if (cl::pending(in.get()) && in->cat_src.size() == 2)
            {
                // the concat's inputs through the permutation, the concat never runs
                const cl::ClBlob* a0 = in->cat_src[0].get();
                const cl::ClBlob* a1 = in->cat_src[1].get();
                cl_kernel k = sp->kernel("shape", "slice_c");
                if (!k)
                    return -1;
                cl::KernelArgs a(k);
                a.img(a0->image).img(a1->image).img(dst).img(dst).img(dst).img(dst);
                a.i(1).i(a0->C).i(in->C).i(in->H).i(in->W).i(g).i(rev);
                a.i(0).i(0).i(0).i(0).i(in->C).i(0).i(0).i(0).i(dst.width);
                return cl::run2d(*sp, k, "slice_c", dst.width, in->H, a);
            }
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
