#include "gpu.h"
#include "layer_note.h"
#include "gpu_int8.h"

#include "../layer.h"
#include "../log.h"
#include "platform.h"

#include <atomic>
#include <cmath>

namespace kite {

#if KITE_VULKAN
GpuBackend* vulkan_gpu_backend(); // src/gpu/vulkan
#endif
#if KITE_OPENCL
GpuBackend* opencl_gpu_backend(); // src/gpu/opencl
#endif

Mat gpu_shape_of(const Mat& m)
{
    Mat s;
    s.dims = m.dims;
    s.w = m.w;
    s.h = m.h;
    s.d = m.d;
    s.c = m.c;
    s.elemsize = m.elemsize;
    s.elempack = m.elempack;
    s.cstep = m.cstep;
    return s;
}

static GpuBackend* g_override[3] = {nullptr, nullptr, nullptr};

void set_gpu_backend(int backend, GpuBackend* b)
{
    if (backend > 0 && backend < 3)
        g_override[backend] = b;
}

GpuBackend* gpu_backend(int backend)
{
    if (backend > 0 && backend < 3 && g_override[backend])
        return g_override[backend];
#if KITE_VULKAN
    if (backend == BACKEND_VULKAN)
        return vulkan_gpu_backend();
#endif
#if KITE_OPENCL
    if (backend == BACKEND_OPENCL)
        return opencl_gpu_backend();
#endif
    (void)backend;
    return nullptr;
}

bool gpu_backend_usable(int backend, const Option& opt)
{
    static std::atomic<int> noticed[3];
    bool wanted = (backend == BACKEND_VULKAN && opt.use_vulkan_compute) || (backend == BACKEND_OPENCL && opt.use_opencl);
    if (!wanted || backend < 0 || backend > 2)
        return false;
    GpuBackend* b = gpu_backend(backend);
    if (b && b->available(opt))
        return true;
    if (noticed[backend].exchange(1) == 0)
    {
        const char* what = backend == BACKEND_VULKAN ? "Vulkan" : "OpenCL";
        if (!b)
            KITE_LOGW("%s requested but this build has no %s backend (KITE_%s=OFF): running on the CPU", what, what, backend == BACKEND_VULKAN ? "VULKAN" : "OPENCL");
        else
            KITE_LOGW("%s requested but no usable %s device %d: running on the CPU", what, what, backend == BACKEND_VULKAN ? opt.vulkan_device : opt.opencl_device);
    }
    return false;
}

} // namespace kite

namespace kite {

int float_integers_to_int8(Mat& m, const Option& opt)
{
    Mat i8;
    if (m.dims == 1)
        i8.create(m.w, (size_t)1u, opt.blob_allocator);
    else if (m.dims == 2)
        i8.create(m.w, m.h, (size_t)1u, opt.blob_allocator);
    else if (m.dims == 3)
        i8.create(m.w, m.h, m.c, (size_t)1u, opt.blob_allocator);
    else
        i8.create(m.w, m.h, m.d, m.c, (size_t)1u, opt.blob_allocator);
    if (i8.empty())
        return -100;
    const size_t plane = (size_t)m.w * m.h * m.d;
    for (int q = 0; q < m.c; q++)
    {
        const float* f = m.channel(q);
        signed char* d = i8.channel(q);
        for (size_t i = 0; i < plane; i++)
            d[i] = (signed char)lrintf(f[i]);
    }
    m = i8;
    return 0;
}

} // namespace kite

namespace kite {

static thread_local const char* g_gpu_layer_type = nullptr;

void set_gpu_layer_type(const char* type)
{
    g_gpu_layer_type = type;
}

const char* gpu_layer_type()
{
    return g_gpu_layer_type;
}

} // namespace kite
