#include "option.h"

#include "cpu.h"

namespace kite {

Option::Option()
{
    lightmode = true;
    num_threads = get_physical_big_cpu_count();
    blob_allocator = nullptr;
    workspace_allocator = nullptr;
    use_packing_layout = true;
    use_fp16_storage = false;
    use_fp16_arithmetic = false;
    use_bf16_storage = false;
    use_int8_inference = true;
    use_winograd_convolution = true;
    use_sgemm_convolution = true;
    use_vulkan_compute = false;
    vulkan_device = 0;
    use_opencl = false;
    opencl_device = 0;
    max_cpu_isa = -1;
}

} // namespace kite
