#ifndef KITE_GPU_VULKAN_VK_SHADERS_H
#define KITE_GPU_VULKAN_VK_SHADERS_H

// The SPIR-V of shaders/vulkan/*.comp, compiled at build time by
// glslangValidator and embedded (generated/vk_shaders.cpp, see
// cmake/kite_vulkan.cmake).

#include <cstddef>
#include <cstdint>

namespace kite {
namespace vk {

// precision variants of every shader (shaders/vulkan/types.h)
enum ShaderVariant
{
    VARIANT_FP32 = 0,  // float blobs, float arithmetic
    VARIANT_FP16S = 1, // float16_t blobs, float arithmetic
    VARIANT_FP16A = 2  // float16_t blobs, float16_t arithmetic (afp)
};
// SPIR-V words of variant `variant` of shader `name` (file name without
// .comp) and its size in bytes, or nullptr
const uint32_t* embedded_spirv(const char* name, int variant, size_t* bytes);
// FNV-1a over every embedded shader: part of the pipeline cache file name
uint64_t shaders_hash();

} // namespace vk
} // namespace kite

#endif // KITE_GPU_VULKAN_VK_SHADERS_H
