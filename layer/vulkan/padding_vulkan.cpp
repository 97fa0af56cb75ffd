// Padding on Vulkan: an index map from the reference (shaders/vulkan/gather.comp)
// whose padded positions name constants: the map comes from a copy of the
// layer that pads with -1 (or -1-q for per-channel values q), and the gather
// writes value (per_channel_pad_data[q]) there. Every type and axis the
// reference pads (constant, replicate, reflect; w, h, d, c).
#include "padding.h"

#include "vulkan/rearrange_vulkan.h"

#include <memory>

namespace kite {

class Padding_vulkan : public vkl::GatherVulkan<Padding>
{
public:
    int create_pipeline(const Option& opt) override
    {
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
        if (per_channel_pad_data_size > 0 && type == PAD_CONSTANT)
        {
            const int n = per_channel_pad_data.w;
            map_->per_channel_pad_data.create(n);
            if (map_->per_channel_pad_data.empty())
                return -100;
            for (int q = 0; q < n; q++)
                ((float*)map_->per_channel_pad_data.data)[q] = -1.f - q;
            map_->per_channel_pad_data_size = n;
        }
        return vkl::GatherVulkan<Padding>::create_pipeline(opt);
    }

protected:
    const Layer& map_layer() const override { return *map_; }
    std::vector<float> fill_values() const override
    {
        if (map_->per_channel_pad_data_size > 0)
        {
            const float* p = per_channel_pad_data;
            return std::vector<float>(p, p + per_channel_pad_data.w);
        }
        return std::vector<float>(1, value);
    }

private:
    std::unique_ptr<Padding> map_;
};

DEFINE_LAYER_CREATOR(Padding_vulkan)

} // namespace kite
