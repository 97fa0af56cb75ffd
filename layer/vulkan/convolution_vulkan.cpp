// Convolution on Vulkan: direct grouped convolution (layer/vulkan/conv_vulkan.h)
#include "convolution.h"

#include "vulkan/conv_vulkan.h"

namespace kite {

class Convolution_vulkan : public Convolution
{
public:
    Convolution_vulkan()
    {
        support_vulkan = true;
        support_packing = true;
    }
    bool accept() const override
    {
        return vkl::ConvGpu::accept(*this);
    }
    int create_pipeline(const Option& opt) override
    {
        int ret = Convolution::create_pipeline(opt);
        return ret != 0 ? ret : gpu.create(*this, 1, opt);
    }
    const char* kernel_path() const override
    {
        return gpu.path();
    }
    int destroy_pipeline(const Option& opt) override
    {
        gpu.destroy();
        return Convolution::destroy_pipeline(opt);
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& s, const Option&) const override
    {
        return gpu.forward(*this, 1, bottoms, tops, s);
    }

private:
    vkl::ConvGpu gpu;
};

DEFINE_LAYER_CREATOR(Convolution_vulkan)

} // namespace kite
