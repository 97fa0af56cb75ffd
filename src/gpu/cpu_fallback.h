#ifndef KITE_GPU_CPU_FALLBACK_H
#define KITE_GPU_CPU_FALLBACK_H

// A GPU driver that runs a layer on the CPU after all (a shape it has no
// kernel for) calls note_gpu_layer_on_cpu() from its forward_gpu, so that the
// Extractor counts that layer as a CPU layer (Extractor::layer_backend).
// Counted per thread: forward_gpu runs on the Extractor's thread.

namespace kite {

void note_gpu_layer_on_cpu();
// how many times this thread noted it so far
int gpu_layers_on_cpu();

} // namespace kite

#endif // KITE_GPU_CPU_FALLBACK_H
