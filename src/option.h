#ifndef KITE_OPTION_H
#define KITE_OPTION_H

#include <cstddef>

namespace kite {

class Allocator;

// Run-time switches. Set Net::opt before load_param; an Extractor copies it
// and may change num_threads, lightmode and the allocators.
class Option
{
public:
    Option();

    bool lightmode;             // release intermediate blobs as soon as they are consumed
    int num_threads;            // OpenMP threads for each layer
    Allocator* blob_allocator;  // for blobs handed between layers (nullptr: malloc)
    Allocator* workspace_allocator; // for a layer's temporary buffers

    bool use_packing_layout;    // let layers that support it use elempack 4/8
    bool use_fp16_storage;      // store blobs as fp16 where layers support it
    bool use_fp16_arithmetic;   // compute in fp16 where the CPU/GPU can
    // CPU: keep the weights of layers bound by reading them (InnerProduct) in
    // fp16, converted on load by the CPU (x86 F16C, aarch64 NEON), half the
    // memory and bytes read; results carry fp16-rounded weights. This is what
    // ncnn's use_fp16_storage does on x86. use_fp16_storage implies it.
    bool use_fp16_weights;
    bool use_bf16_storage;      // store blobs as bf16 where layers support it
    bool use_int8_inference;    // use int8 weights/arithmetic where the model has scales
    bool use_winograd_convolution;
    bool use_sgemm_convolution;

    bool use_vulkan_compute;
    int vulkan_device;          // index of the Vulkan physical device
    bool use_opencl;
    int opencl_device;          // index of the OpenCL device over all platforms, GPUs first

    // Highest CPU ISA the registry may pick (CpuIsa value); -1: what the CPU has.
    // CPU_ISA_NONE (0) forces the reference implementation of every layer.
    int max_cpu_isa;

    // The most memory, in bytes, a model may declare: each blob shape of the
    // param (Input sizes, -23330 shape hints) and all weights together. A
    // param or model that needs more fails to load, naming the layer, before
    // anything of that size is allocated. Default: the machine's physical
    // memory; 0: no limit.
    size_t memory_limit;
};

// the machine's physical memory in bytes (0 if unknown): Option::memory_limit's default
size_t physical_memory_bytes();

} // namespace kite

#endif // KITE_OPTION_H
