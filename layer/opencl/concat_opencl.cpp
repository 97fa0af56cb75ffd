// Concat on OpenCL images along the channel-major image's C (axis 0 of any
// dims: c, h of dims 2, w of dims 1), 4 inputs per launch; other axes, folded
// blobs (cl_layout.h) and outputs over the image limit through the gather
// kernel (cl::ShapeCache), 8 inputs a launch. The launch of a concat of two
// inputs is put off (ClBlob::cat_src): a Slice, Crop or ShuffleChannel after
// it reads the two inputs and the concat never runs (ShuffleNet units:
// concat, shuffle, split in one launch). KITE_OPENCL_FUSE_CONCAT=0: off.
#include "concat.h"

#include "gpu/opencl/cl_ops.h"

namespace kite {

class Concat_opencl : public Concat
{
public:
    Concat_opencl() { support_opencl = true; }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        cl::Session& s = cl::session(gs);
        const cl::ClBlob* b0 = cl::blob(bottoms[0]);
        const int dims = b0->dims();
        bool ok = axis == 0 || axis == -dims;
        for (const GpuBlobPtr& g : bottoms)
        {
            const cl::ClBlob* b = cl::blob(g);
            ok = ok && b->dims() == dims && b->H == b0->H && b->W == b0->W;
        }
        // concat_c addresses natural images only: a folded input, or an
        // output over the image limit (folded by the gather), goes through the gather
        int total_c = 0;
        for (const GpuBlobPtr& g : bottoms)
        {
            ok = ok && !cl::is_folded(cl::blob(g));
            total_c += cl::blob(g)->C;
        }
        int iw = 0, ih = 0;
        ok = ok && cl::activation_image_size(s.ctx, total_c, b0->H, b0->W, false, iw, ih) == 0;
        if (!ok)
            return forward_gather(bottoms, tops, s, opt);
        GpuBlobPtr acc = bottoms[0];
        size_t next = 1;
        if (bottoms.size() == 1)
        {
            tops[0] = acc;
            return 0;
        }
        while (next < bottoms.size())
        {
            const cl::ClBlob* in[4] = {cl::blob(acc), nullptr, nullptr, nullptr};
            int n = 1;
            while (n < 4 && next < bottoms.size())
                in[n++] = cl::blob(bottoms[next++]);
            int C[4] = {0, 0, 0, 0};
            int total = 0;
            for (int i = 0; i < n; i++)
                total += (C[i] = in[i]->C);
            Mat shape = b0->shape;
            if (dims == 1)
                shape.w = total;
            else if (dims == 2)
                shape.h = total;
            else
                shape.c = total;
            // float images in, a float image out (fp16 storage keeps the
            // float outputs of int8 layers in float: Convolution_opencl)
            bool keep_float = false;
            for (int i = 0; i < n; i++)
                keep_float = keep_float || !in[i]->image.half;
            cl::ClBlobPtr out;
            int ret = s.create_blob(shape, out, keep_float);
            if (ret != 0)
                return ret;
            const bool put_off = bottoms.size() == 2 && cl::fusion_on("KITE_OPENCL_FUSE_CONCAT");
            std::vector<cl::ClBlobPtr> src;
            for (int i = 0; i < n; i++)
                src.push_back(std::static_pointer_cast<cl::ClBlob>(i == 0 ? acc : bottoms[next - n + i]));
            cl::Session* sp = &s;
            const cl::Image dst = out->image;
            const int H = b0->H, W = b0->W;
            auto run = [sp, src, dst, C, H, W]() {
                cl_kernel k = sp->kernel("shape", "concat_c");
                if (!k)
                    return -1;
                cl::KernelArgs a(k);
                for (int i = 0; i < 4; i++)
                    a.img(src[i < (int)src.size() ? i : 0]->image);
                a.img(dst).i(C[0]).i(C[1]).i(C[2]).i(C[3]).i(H).i(W);
                return cl::run2d(*sp, k, "concat_c", dst.width, dst.height, a);
            };
            if (put_off)
            {
                out->cat_src = src;
                s.defer(*out, run);
            }
            else
            {
                ret = run();
                if (ret != 0)
                    return ret;
            }
            acc = out;
        }
        tops[0] = acc;
        return 0;
    }

private:
    // the gather takes 8 inputs a launch: more are joined 8 at a time (the
    // partial result first), each step's map from the reference on those inputs
    int forward_gather(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, cl::Session& s,
                       const Option& opt) const
    {
        if (bottoms.size() <= 8)
            return gather_.forward(this, bottoms, tops, s, opt);
        GpuBlobPtr acc;
        size_t next = 0;
        std::vector<GpuBlobPtr> part, out(1);
        while (next < bottoms.size())
        {
            part.clear();
            if (acc)
                part.push_back(acc);
            while (part.size() < 8 && next < bottoms.size())
                part.push_back(bottoms[next++]);
            int ret = gather_.forward(this, part, out, s, opt);
            if (ret != 0)
                return ret;
            acc = out[0];
        }
        tops.resize(1);
        tops[0] = acc;
        return 0;
    }
    mutable cl::ShapeCache gather_{cl::ShapeCache::GATHER};
};

DEFINE_LAYER_CREATOR(Concat_opencl)

} // namespace kite
