// ConvolutionDepthWise on Vulkan: direct grouped convolution (layer/vulkan/conv_vulkan.h)
#include "convolutiondepthwise.h"

#include "vulkan/conv_vulkan.h"

namespace kite {

class ConvolutionDepthWise_vulkan : public ConvolutionDepthWise
{
public:
    ConvolutionDepthWise_vulkan()
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
        int ret = ConvolutionDepthWise::create_pipeline(opt);
        return ret != 0 ? ret : gpu.create(*this, group, opt);
    }
    const char* kernel_path() const override
    {
        return gpu.path();
    }
    int destroy_pipeline(const Option& opt) override
    {
        gpu.destroy();
        return ConvolutionDepthWise::destroy_pipeline(opt);
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& s, const Option&) const override
    {
        return gpu.forward(*this, group, bottoms, tops, s);
    }

private:
    vkl::ConvGpu gpu;
};

DEFINE_LAYER_CREATOR(ConvolutionDepthWise_vulkan)

} // namespace kite
