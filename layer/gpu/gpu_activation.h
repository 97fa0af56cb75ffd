#ifndef KITE_LAYER_GPU_GPU_ACTIVATION_H
#define KITE_LAYER_GPU_GPU_ACTIVATION_H

// The activation codes both GPU shader sets use for element-wise work
// (shaders/vulkan/activation.h ACT_*, `activate` of shaders/opencl/common.h.cl):
// 0-6 are the fused activation types (layer/common/activation.h
// ActivationType), these the standalone layers' extras.

#include "common/activation.h"

namespace kite {

enum GpuActivationType
{
    GPU_ACT_TANH = 7,
    GPU_ACT_GELU_ERF = 8,
    GPU_ACT_GELU_TANH = 9,
    GPU_ACT_SWISH = 10,
    GPU_ACT_HARDSIGMOID = 11, // p0 alpha, p1 beta: clamp(alpha * v + beta, 0, 1) as HardSigmoid
};

} // namespace kite

#endif // KITE_LAYER_GPU_GPU_ACTIVATION_H
