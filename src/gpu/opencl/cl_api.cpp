#include "cl_api.h"

#include "../../allocator_hook.h"
#include "../../log.h"

#include <dlfcn.h>
#include <mutex>
#include <unordered_map>

namespace kite {
namespace cl {

static Api g_api;
static const Api* g_loaded = nullptr;

// the driver's clCreateBuffer / clCreateImage behind the allocation hook
// (allocator_hook.h): a refused allocation fails as an exhausted device does;
// and each object's bytes until its release, for gpu_memory_in_use() (kite
// never retains a cl_mem: one release frees it)
static Api g_real;
static std::mutex g_sizes_lock;
static std::unordered_map<cl_mem, size_t> g_sizes;
static cl_mem tracked(cl_mem m, size_t bytes)
{
    if (m)
    {
        std::lock_guard<std::mutex> g(g_sizes_lock);
        g_sizes[m] = bytes;
        gpu_memory_add((long long)bytes);
    }
    return m;
}
static cl_int CL_API_CALL hooked_release_mem(cl_mem m)
{
    if (m)
    {
        std::lock_guard<std::mutex> g(g_sizes_lock);
        auto it = g_sizes.find(m);
        if (it != g_sizes.end())
        {
            gpu_memory_add(-(long long)it->second);
            g_sizes.erase(it);
        }
    }
    return g_real.clReleaseMemObject(m);
}
static cl_mem CL_API_CALL hooked_create_buffer(cl_context c, cl_mem_flags f, size_t size, void* host, cl_int* err)
{
    if (!gpu_allocation_allowed(size))
    {
        if (err)
            *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        return nullptr;
    }
    return tracked(g_real.clCreateBuffer(c, f, size, host, err), size);
}
static cl_mem CL_API_CALL hooked_create_image(cl_context c, cl_mem_flags f, const cl_image_format* fmt, const cl_image_desc* desc,
                                              void* host, cl_int* err)
{
    const size_t texel = fmt && fmt->image_channel_data_type == CL_HALF_FLOAT ? 8 : 16;
    const size_t bytes = desc ? desc->image_width * (desc->image_height ? desc->image_height : 1) * texel : 0;
    if (desc && !gpu_allocation_allowed(bytes))
    {
        if (err)
            *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        return nullptr;
    }
    // an image over a buffer (image1d_buffer) holds the buffer's memory
    return tracked(g_real.clCreateImage(c, f, fmt, desc, host, err), desc && desc->buffer ? 0 : bytes);
}

static const Api* load()
{
    const char* names[] = {"libOpenCL.so.1", "libOpenCL.so"};
    void* lib = nullptr;
    for (const char* n : names)
    {
        lib = dlopen(n, RTLD_NOW | RTLD_LOCAL);
        if (lib)
            break;
    }
    if (!lib)
    {
        KITE_LOGW("OpenCL: libOpenCL.so.1 not found (%s)", dlerror());
        return nullptr;
    }
#define KITE_CL_LOAD(name, ret, args)                                     \
    g_api.name = reinterpret_cast<ret(CL_API_CALL*) args>(dlsym(lib, #name)); \
    if (!g_api.name)                                                      \
    {                                                                     \
        KITE_LOGW("OpenCL: libOpenCL lacks %s", #name);                   \
        dlclose(lib);                                                     \
        return nullptr;                                                   \
    }
    KITE_CL_FUNCTIONS(KITE_CL_LOAD)
#undef KITE_CL_LOAD
    g_real = g_api;
    g_api.clCreateBuffer = hooked_create_buffer;
    g_api.clCreateImage = hooked_create_image;
    g_api.clReleaseMemObject = hooked_release_mem;
    // the library stays loaded for the life of the process: drivers keep
    // threads and atexit handlers that must not be unmapped
    return &g_api;
}

const Api* api()
{
    static std::once_flag once;
    std::call_once(once, [] { g_loaded = load(); });
    return g_loaded;
}

const char* error_string(cl_int err)
{
    switch (err)
    {
    case CL_SUCCESS: return "CL_SUCCESS";
    case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
    case CL_DEVICE_NOT_AVAILABLE: return "CL_DEVICE_NOT_AVAILABLE";
    case CL_COMPILER_NOT_AVAILABLE: return "CL_COMPILER_NOT_AVAILABLE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_IMAGE_FORMAT_NOT_SUPPORTED: return "CL_IMAGE_FORMAT_NOT_SUPPORTED";
    case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_DEVICE: return "CL_INVALID_DEVICE";
    case CL_INVALID_BINARY: return "CL_INVALID_BINARY";
    case CL_INVALID_BUILD_OPTIONS: return "CL_INVALID_BUILD_OPTIONS";
    case CL_INVALID_PROGRAM: return "CL_INVALID_PROGRAM";
    case CL_INVALID_KERNEL_NAME: return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_KERNEL_ARGS: return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_ARG_INDEX: return "CL_INVALID_ARG_INDEX";
    case CL_INVALID_ARG_VALUE: return "CL_INVALID_ARG_VALUE";
    case CL_INVALID_ARG_SIZE: return "CL_INVALID_ARG_SIZE";
    case CL_INVALID_MEM_OBJECT: return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_IMAGE_SIZE: return "CL_INVALID_IMAGE_SIZE";
    case CL_INVALID_IMAGE_FORMAT_DESCRIPTOR: return "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR";
    case CL_INVALID_WORK_DIMENSION: return "CL_INVALID_WORK_DIMENSION";
    case CL_INVALID_WORK_GROUP_SIZE: return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_WORK_ITEM_SIZE: return "CL_INVALID_WORK_ITEM_SIZE";
    case CL_INVALID_GLOBAL_OFFSET: return "CL_INVALID_GLOBAL_OFFSET";
    case CL_INVALID_COMMAND_QUEUE: return "CL_INVALID_COMMAND_QUEUE";
    case CL_INVALID_CONTEXT: return "CL_INVALID_CONTEXT";
    case CL_INVALID_OPERATION: return "CL_INVALID_OPERATION";
    case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
    default: return "CL error";
    }
}

} // namespace cl
} // namespace kite
