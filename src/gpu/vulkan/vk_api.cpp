#include "vk_api.h"

#include "../../allocator_hook.h"
#include "../../log.h"

#include <dlfcn.h>
#include <cstdint>
#include <mutex>
#include <unordered_map>

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
// a refused allocation fails as an exhausted device does; and the bytes of
// each allocation until vkFreeMemory, for gpu_memory_in_use()
static PFN_vkAllocateMemory g_real_allocate_memory = nullptr;
static PFN_vkFreeMemory g_real_free_memory = nullptr;
static std::mutex g_sizes_lock;
static std::unordered_map<uint64_t, VkDeviceSize> g_sizes;
static uint64_t memory_key(VkDeviceMemory m)
{
    return (uint64_t)(uintptr_t)m; // a pointer or a 64-bit integer handle
}
static VKAPI_ATTR VkResult VKAPI_CALL hooked_allocate_memory(VkDevice device, const VkMemoryAllocateInfo* info,
                                                             const VkAllocationCallbacks* callbacks, VkDeviceMemory* memory)
{
    if (info && !gpu_allocation_allowed((size_t)info->allocationSize))
        return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    VkResult r = g_real_allocate_memory(device, info, callbacks, memory);
    if (r == VK_SUCCESS && info && memory && *memory)
    {
        std::lock_guard<std::mutex> g(g_sizes_lock);
        g_sizes[memory_key(*memory)] = info->allocationSize;
        gpu_memory_add((long long)info->allocationSize);
    }
    return r;
}
static VKAPI_ATTR void VKAPI_CALL hooked_free_memory(VkDevice device, VkDeviceMemory memory, const VkAllocationCallbacks* callbacks)
{
    if (memory)
    {
        std::lock_guard<std::mutex> g(g_sizes_lock);
        auto it = g_sizes.find(memory_key(memory));
        if (it != g_sizes.end())
        {
            gpu_memory_add(-(long long)it->second);
            g_sizes.erase(it);
        }
    }
    g_real_free_memory(device, memory, callbacks);
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
    if (vkAllocateMemory && vkFreeMemory)
    {
        g_real_allocate_memory = vkAllocateMemory;
        vkAllocateMemory = hooked_allocate_memory;
        g_real_free_memory = vkFreeMemory;
        vkFreeMemory = hooked_free_memory;
    }
    return ok;
}

} // namespace vk
} // namespace kite
