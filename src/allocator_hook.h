#ifndef KITE_ALLOCATOR_HOOK_H
#define KITE_ALLOCATOR_HOOK_H

#include <cstddef>

namespace kite {

// Fault injection for tests (issue 20): while a hook is set, every fast_malloc
// asks it first and fails (returns nullptr) when it returns false. The pool
// allocators take their new blocks from fast_malloc, so the hook sees every
// CPU allocation of Mat data, whichever allocator the Mat uses. nullptr
// removes the hook. Set or change it while no other thread allocates; the
// hook itself may be called from several threads at once.
typedef bool (*allocation_hook_func)(size_t size, void* userdata);
void set_allocation_hook(allocation_hook_func hook, void* userdata);

// The same for the GPU runtimes' device memory: Vulkan's vkAllocateMemory and
// OpenCL's clCreateBuffer / clCreateImage ask the hook first and fail as the
// driver does when the device is out of memory (VK_ERROR_OUT_OF_DEVICE_MEMORY,
// CL_MEM_OBJECT_ALLOCATION_FAILURE) when it returns false.
void set_gpu_allocation_hook(allocation_hook_func hook, void* userdata);
// what the GPU runtimes ask before each device allocation (true: go ahead)
bool gpu_allocation_allowed(size_t size);

// Device memory kite holds now, in bytes: Vulkan device memory allocations and
// OpenCL buffers and images (an image at its texel size; one that views a
// buffer adds nothing), counted where they are created and freed
// (kiterun loop=N prints it; issue 20's long runs check it does not grow).
size_t gpu_memory_in_use();
// the GPU runtimes' bookkeeping for gpu_memory_in_use (+bytes when created, -bytes when freed)
void gpu_memory_add(long long bytes);

} // namespace kite

#endif // KITE_ALLOCATOR_HOOK_H
