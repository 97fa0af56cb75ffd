#ifndef KITE_GPU_CPU_FALLBACK_H
#define KITE_GPU_CPU_FALLBACK_H

// The GPU fallback rule, the same for both backends: a GPU driver whose
// device cannot hold a blob of the layer (an OpenCL image over the 2D image
// limit) or that has no kernel for these shapes returns KITE_GPU_CANNOT_HOLD
// from forward_gpu (a session's upload or blob creation returns it for a blob
// too large) before storing any output; the Extractor then runs the layer's
// reference class (the driver's base) on the CPU and the placement report
// names cpu:reference for it.
//
// A driver that runs its layer on the CPU itself (custom backends) calls
// note_gpu_layer_on_cpu() from its forward_gpu instead, so that the
// Extractor counts that layer as a CPU layer (Extractor::layer_backend).
// Counted per thread: forward_gpu runs on the Extractor's thread.

namespace kite {

enum
{
    // a GPU backend cannot hold a blob of this shape (an OpenCL image larger
    // than the device's 2D image limit) or has no kernel for it: returned by
    // a session's upload / blob creation or by a layer's forward_gpu, it
    // makes the Extractor run that layer on the CPU instead (its reference
    // base class; the placement report shows cpu:reference), never failing
    // the forward
    KITE_GPU_CANNOT_HOLD = -101,
};

void note_gpu_layer_on_cpu();
// how many times this thread noted it so far
int gpu_layers_on_cpu();

// The same for a CPU driver (layer/cpu, layer/x86, layer/arm) that hands one
// run to its reference base class after all (a layout or shape it has no
// kernel for): calling note_cpu_layer_on_reference() from that forward makes
// the placement report (Extractor::layer_placement) name cpu:reference for the
// layer instead of the driver's row. Per thread: call it on the thread that
// called forward, not from inside an OpenMP region.
void note_cpu_layer_on_reference();
int cpu_layers_on_reference();

} // namespace kite

#endif // KITE_GPU_CPU_FALLBACK_H
