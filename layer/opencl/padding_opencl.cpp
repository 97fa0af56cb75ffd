// Padding on OpenCL: the gather kernel with an index map from the reference
// (cl::ShapeCache) whose padded positions name constants: the map comes from
// a copy of the layer that pads with -1 (or -1-q for per-channel values q),
// and the gather writes value (per_channel_pad_data[q]) there. Every type and
// axis the reference pads (constant, replicate, reflect; w, h, d, c).
// A constant padding after the last channel and around the plane
// (BlazeFace's residual branches and stride-2 depth-wise convolutions) takes
// shape.cl pad_const, put off (ClBlob::pad_src): a same-shaped BinaryOp (zero
// channels) or a depth-wise convolution (the plane) reads the unpadded input
// and the Padding never runs. KITE_OPENCL_FUSE_PAD=0: off.
#include "padding.h"

#include "gpu/opencl/cl_ops.h"

#include <memory>

namespace kite {

class Padding_opencl : public Padding
{
public:
    Padding_opencl() { support_opencl = true; }
    int create_pipeline(const Option& opt) override
    {
        int ret = Padding::create_pipeline(opt);
        if (ret != 0)
            return ret;
        map_.reset(new Padding);
        map_->name = name;
        map_->top = top;
        map_->bottom = bottom;
        map_->left = left;
        map_->right = right;
        map_->type = type;
        map_->front = front;
        map_->behind = behind;
        map_->value = -1.f;
        map_->per_channel_pad_data_size = 0;
        std::vector<float> fill(1, value);
        if (per_channel_pad_data_size > 0 && type == PAD_CONSTANT)
        {
            const int n = per_channel_pad_data.w;
            map_->per_channel_pad_data.create(n);
            if (map_->per_channel_pad_data.empty())
                return -100;
            for (int q = 0; q < n; q++)
                ((float*)map_->per_channel_pad_data.data)[q] = -1.f - q;
            map_->per_channel_pad_data_size = n;
            const float* p = per_channel_pad_data;
            fill.assign(p, p + n);
        }
        cache_.set_fill(map_.get(), fill);
        return 0;
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        cl::Session& s = cl::session(gs);
        const cl::ClBlobPtr in = std::static_pointer_cast<cl::ClBlob>(bottoms[0]);
        if (bottoms.size() == 1 && in->dims() == 3 && !in->int8 && type == PAD_CONSTANT && per_channel_pad_data_size == 0 &&
            top >= 0 && bottom >= 0 && left >= 0 && right >= 0 && front == 0 && behind >= 0 &&
            in->image.width == in->W * ((in->C + 3) / 4) && in->image.height == in->H && cl::fusion_on("KITE_OPENCL_FUSE_PAD"))
        {
            Mat shape = in->shape;
            shape.c += behind;
            shape.h += top + bottom;
            shape.w += left + right;
            cl::ClBlobPtr out;
            int ret = s.create_blob(shape, out);
            if (ret != 0)
                return ret;
            if (out->image.width != out->W * ((out->C + 3) / 4) || out->image.height != out->H)
                return cache_.forward(this, bottoms, tops, s, opt); // folded: the gather
            out->pad_src = in;
            out->pad_top = top;
            out->pad_left = left;
            out->pad_value = value;
            cl::Session* sp = &s;
            const cl::Image dst = out->image;
            const int Co = out->C, OH = out->H, OW = out->W, t = top, l = left;
            const float v = value;
            s.defer(*out, [sp, in, dst, Co, OH, OW, t, l, v]() {
                cl_kernel k = sp->kernel("shape", "pad_const");
                if (!k)
                    return -1;
                cl::KernelArgs a(k);
                a.img(in->image).img(dst).i(in->C).i(in->H).i(in->W).i(Co).i(OH).i(OW).i(t).i(l).f(v);
                return cl::run2d(*sp, k, "pad_const", dst.width, dst.height, a);
            });
            tops[0] = out;
            return 0;
        }
        return cache_.forward(this, bottoms, tops, s, opt);
    }

private:
    std::unique_ptr<Padding> map_;
    mutable cl::ShapeCache cache_{cl::ShapeCache::GATHER};
};

DEFINE_LAYER_CREATOR(Padding_opencl)

} // namespace kite
