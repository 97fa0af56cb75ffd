// Padding on OpenCL: the gather kernel with an index map from the reference
// (cl::ShapeCache) whose padded positions name constants: the map comes from
// a copy of the layer that pads with -1 (or -1-q for per-channel values q),
// and the gather writes value (per_channel_pad_data[q]) there. Every type and
// axis the reference pads (constant, replicate, reflect; w, h, d, c).
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
        return cache_.forward(this, bottoms, tops, cl::session(gs), opt);
    }

private:
    std::unique_ptr<Padding> map_;
    mutable cl::ShapeCache cache_{cl::ShapeCache::GATHER};
};

DEFINE_LAYER_CREATOR(Padding_opencl)

} // namespace kite
