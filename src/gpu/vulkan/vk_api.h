#ifndef KITE_GPU_VULKAN_VK_API_H
#define KITE_GPU_VULKAN_VK_API_H

// The Vulkan entry points kite uses, loaded at run time from libvulkan.so.1
// (dlopen + vkGetInstanceProcAddr) so that the library runs on machines
// without Vulkan. Headers only: VK_NO_PROTOTYPES.

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

namespace kite {
namespace vk {

#define KITE_VK_INSTANCE_FUNCS(X)              \
    X(vkDestroyInstance)                       \
    X(vkEnumeratePhysicalDevices)              \
    X(vkGetPhysicalDeviceProperties)           \
    X(vkGetPhysicalDeviceFeatures2)            \
    X(vkGetPhysicalDeviceProperties2)          \
    X(vkGetPhysicalDeviceQueueFamilyProperties) \
    X(vkGetPhysicalDeviceMemoryProperties)     \
    X(vkEnumerateDeviceExtensionProperties)    \
    X(vkCreateDevice)                          \
    X(vkGetDeviceProcAddr)                     \
    X(vkCreateDebugUtilsMessengerEXT)          \
    X(vkDestroyDebugUtilsMessengerEXT)

#define KITE_VK_DEVICE_FUNCS(X)          \
    X(vkDestroyDevice)                   \
    X(vkGetDeviceQueue)                  \
    X(vkDeviceWaitIdle)                  \
    X(vkQueueSubmit)                     \
    X(vkCreateBuffer)                    \
    X(vkDestroyBuffer)                   \
    X(vkGetBufferMemoryRequirements)     \
    X(vkAllocateMemory)                  \
    X(vkFreeMemory)                      \
    X(vkBindBufferMemory)                \
    X(vkMapMemory)                       \
    X(vkUnmapMemory)                     \
    X(vkInvalidateMappedMemoryRanges)    \
    X(vkFlushMappedMemoryRanges)         \
    X(vkCreateCommandPool)               \
    X(vkDestroyCommandPool)              \
    X(vkAllocateCommandBuffers)          \
    X(vkFreeCommandBuffers)              \
    X(vkBeginCommandBuffer)              \
    X(vkEndCommandBuffer)                \
    X(vkResetCommandBuffer)              \
    X(vkCmdBindPipeline)                 \
    X(vkCmdBindDescriptorSets)           \
    X(vkCmdPushConstants)                \
    X(vkCmdDispatch)                     \
    X(vkCmdCopyBuffer)                   \
    X(vkCmdFillBuffer)                   \
    X(vkCmdPipelineBarrier)              \
    X(vkCreateFence)                     \
    X(vkDestroyFence)                    \
    X(vkWaitForFences)                   \
    X(vkResetFences)                     \
    X(vkCreateShaderModule)              \
    X(vkDestroyShaderModule)             \
    X(vkCreateDescriptorSetLayout)       \
    X(vkDestroyDescriptorSetLayout)      \
    X(vkCreatePipelineLayout)            \
    X(vkDestroyPipelineLayout)           \
    X(vkCreateComputePipelines)          \
    X(vkDestroyPipeline)                 \
    X(vkCreatePipelineCache)             \
    X(vkDestroyPipelineCache)            \
    X(vkGetPipelineCacheData)            \
    X(vkCreateDescriptorPool)            \
    X(vkDestroyDescriptorPool)           \
    X(vkResetDescriptorPool)             \
    X(vkAllocateDescriptorSets)          \
    X(vkUpdateDescriptorSets)

#define KITE_VK_DECLARE(name) extern PFN_##name name;
KITE_VK_INSTANCE_FUNCS(KITE_VK_DECLARE)
KITE_VK_DEVICE_FUNCS(KITE_VK_DECLARE)
extern PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
extern PFN_vkCreateInstance vkCreateInstance;
extern PFN_vkEnumerateInstanceLayerProperties vkEnumerateInstanceLayerProperties;
extern PFN_vkEnumerateInstanceExtensionProperties vkEnumerateInstanceExtensionProperties;
#undef KITE_VK_DECLARE

// dlopen libvulkan.so.1 once; false (logged once) when it is missing
bool load_library();
// resolve the instance-level entry points for `inst`; false if a required one is missing
bool load_instance_funcs(VkInstance inst);
// resolve the device-level entry points (one device per process: kite's
// pointers are global; several devices share them, which the loader allows
// through its trampolines when resolved via vkGetInstanceProcAddr)
bool load_device_funcs(VkInstance inst);

} // namespace vk
} // namespace kite

#endif // KITE_GPU_VULKAN_VK_API_H
