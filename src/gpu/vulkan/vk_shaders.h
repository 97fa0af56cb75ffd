#ifndef KITE_GPU_VULKAN_VK_SHADERS_H
#define KITE_GPU_VULKAN_VK_SHADERS_H

// The SPIR-V of shaders/vulkan/*.comp, compiled at build time by
// glslangValidator and embedded (generated/vk_shaders.cpp, see
// cmake/kite_vulkan.cmake).

#include <cstddef>
#include <cstdint>

namespace kite {
namespace vk {

// SPIR-V words of shader `name` (file name without .comp) and its size in
// bytes, or nullptr
const uint32_t* embedded_spirv(const char* name, size_t* bytes);
// FNV-1a over every embedded shader: part of the pipeline cache file name
uint64_t shaders_hash();

} // namespace vk
} // namespace kite

#endif // KITE_GPU_VULKAN_VK_SHADERS_H
