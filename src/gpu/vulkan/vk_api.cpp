#include "vk_api.h"

#include "../../allocator_hook.h"
#include "../../log.h"

#include <dlfcn.h>
#include <mutex>

namespace kite {
namespace vk {

#define KITE_VK_DEFINE(name) PFN_##name name = nullptr;
KITE_VK_INSTANCE_FUNCS(KITE_VK_DEFINE)
KITE_VK_DEVICE_FUNCS(KITE_VK_DEFINE)
#undef KITE_VK_DEFINE
PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
PFN_vkCreateInstance vkCreateInstance = nullptr;
PFN_vkEnumerateInstanceLayerProperties vkEnumerateInstanceLayerProperties = nullptr;
PFN_vkEnumerateInstanceExtensionProperties vkEnumerateInstanceExtensionProperties = nullptr;

bool load_library()
{
    static std::once_flag once;
    static bool ok = false;
    std::call_once(once, [] {
        void* h = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!h)
            h = dlopen("libvulkan.so", RTLD_NOW | RTLD_LOCAL);
        if (!h)
        {
            KITE_LOGW("Vulkan: libvulkan.so.1 not found (%s)", dlerror());
            return;
        }
        vkGetInstanceProcAddr = (PFN_vkGetInstanceProcAddr)dlsym(h, "vkGetInstanceProcAddr");
        if (!vkGetInstanceProcAddr)
        {
            KITE_LOGW("Vulkan: libvulkan has no vkGetInstanceProcAddr");
            return;
        }
        vkCreateInstance = (PFN_vkCreateInstance)vkGetInstanceProcAddr(nullptr, "vkCreateInstance");
        vkEnumerateInstanceLayerProperties = (PFN_vkEnumerateInstanceLayerProperties)vkGetInstanceProcAddr(nullptr, "vkEnumerateInstanceLayerProperties");
        vkEnumerateInstanceExtensionProperties = (PFN_vkEnumerateInstanceExtensionProperties)vkGetInstanceProcAddr(nullptr, "vkEnumerateInstanceExtensionProperties");
        ok = vkCreateInstance && vkEnumerateInstanceLayerProperties && vkEnumerateInstanceExtensionProperties;
        if (!ok)
            KITE_LOGW("Vulkan: the loader lacks global entry points");
    });
    return ok;
}

bool load_instance_funcs(VkInstance inst)
{
#define KITE_VK_LOAD(name) name = (PFN_##name)vkGetInstanceProcAddr(inst, #name);
    KITE_VK_INSTANCE_FUNCS(KITE_VK_LOAD)
#undef KITE_VK_LOAD
    // the debug-utils pair is optional (only with the validation layer)
    return vkDestroyInstance && vkEnumeratePhysicalDevices && vkGetPhysicalDeviceProperties && vkGetPhysicalDeviceFeatures2
        && vkGetPhysicalDeviceProperties2 && vkGetPhysicalDeviceQueueFamilyProperties && vkGetPhysicalDeviceMemoryProperties
        && vkEnumerateDeviceExtensionProperties && vkCreateDevice && vkGetDeviceProcAddr;
}

// the driver's vkAllocateMemory behind the allocation hook (allocator_hook.h):
// a refused allocation fails as an exhausted device does
static PFN_vkAllocateMemory g_real_allocate_memory = nullptr;
static VKAPI_ATTR VkResult VKAPI_CALL hooked_allocate_memory(VkDevice device, const VkMemoryAllocateInfo* info,
                                                             const VkAllocationCallbacks* callbacks, VkDeviceMemory* memory)
{
    if (info && !gpu_allocation_allowed((size_t)info->allocationSize))
        return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    return g_real_allocate_memory(device, info, callbacks, memory);
}

bool load_device_funcs(VkInstance inst)
{
    bool ok = true;
#define KITE_VK_LOAD(name)                                          \
    name = (PFN_##name)vkGetInstanceProcAddr(inst, #name);          \
    if (!name)                                                      \
    {                                                               \
        KITE_LOGE("Vulkan: entry point %s missing", #name);         \
        ok = false;                                                 \
    }
    KITE_VK_DEVICE_FUNCS(KITE_VK_LOAD)
#undef KITE_VK_LOAD
    if (vkAllocateMemory)
    {
        g_real_allocate_memory = vkAllocateMemory;
        vkAllocateMemory = hooked_allocate_memory;
    }
    return ok;
}

} // namespace vk
} // namespace kite
