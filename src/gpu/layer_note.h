#ifndef KITE_GPU_LAYER_NOTE_H
#define KITE_GPU_LAYER_NOTE_H

// The type of the layer whose forward_gpu runs now on this thread (set by
// the Extractor around each call; nullptr between layers): a GPU session
// counts its launches by layer type with it (KITE_OPENCL_LAUNCHES).

namespace kite {

void set_gpu_layer_type(const char* type);
const char* gpu_layer_type();

} // namespace kite

#endif // KITE_GPU_LAYER_NOTE_H
