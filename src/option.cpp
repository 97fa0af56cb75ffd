#include "option.h"

#include "cpu.h"

#include <cstdint>
#include <unistd.h>

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
    use_fp16_weights = false;
    use_bf16_storage = false;
    use_int8_inference = true;
    use_winograd_convolution = true;
    use_sgemm_convolution = true;
    use_vulkan_compute = false;
    vulkan_device = 0;
    use_opencl = false;
    opencl_device = 0;
    max_cpu_isa = -1;
    memory_limit = physical_memory_bytes();
}

size_t physical_memory_bytes()
{
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && (unsigned long long)pages <= (unsigned long long)SIZE_MAX / (unsigned long long)page)
        return (size_t)pages * (size_t)page;
#endif
    return 0; // unknown: no limit
}

} // namespace kite
