#ifndef KITE_LAYER_VULKAN_GEMM_VULKAN_H
#define KITE_LAYER_VULKAN_GEMM_VULKAN_H

// Recording shaders/vulkan/gemm.comp, the tiled batched matrix product that
// Gemm and MultiHeadAttention share: every operand is addressed by (batch,
// row, column) strides in elements, so transposes, broadcasts (stride 0) and
// per-head slices of one buffer need no copies.

#include "vulkan/vulkan_common.h"

namespace kite {
namespace vkl {

struct GemmOp
{
    int M, N, K;
    int a_bs, a_rs, a_cs;
    int b_bs, b_rs, b_cs;
    int o_bs, o_rs, o_cs;
    int c_bs, c_rs, c_cs;
    int has_c, act;
    float alpha, cbeta, p0, p1;
    int a_f32, b_f32, c_f32, o_f32; // operand is a float buffer (weights, float intermediates), not a blob of the session's storage
};

inline const vk::Pipeline* gemm_pipeline(const Option& opt)
{
    return pipeline_for(opt, "gemm", 4, 16, 16, 1);
}

// out[z] = act(alpha * A[z] B[z] + cbeta * C[z]) for z < batch; C may be null
// (then has_c must be 0)
inline int record_gemm(vk::Session& s, const vk::Pipeline* p, const vk::VkBlob* A, const vk::VkBlob* B, const vk::VkBlob* C,
                       const vk::VkBlob* out, const GemmOp& g, int batch)
{
    // a 64 x 64 tile per 16 x 16 work group
    const uint32_t gx = (uint32_t)((g.N + 63) / 64) * 16, gy = (uint32_t)((g.M + 63) / 64) * 16;
    return s.dispatch(p, {A, B, C ? C : A, out}, &g, sizeof(g), gx, gy, (uint32_t)batch);
}

// rows x n_out = (rows x n_in) * W^T + bias (W n_out x n_in row-major, as
// InnerProduct and the attention projections store it)
inline GemmOp linear_op(int rows, int n_in, int n_out, bool bias)
{
    GemmOp g = {};
    g.M = rows;
    g.N = n_out;
    g.K = n_in;
    g.a_rs = n_in;
    g.a_cs = 1;
    g.b_rs = 1;
    g.b_cs = n_in;
    g.o_rs = n_out;
    g.o_cs = 1;
    g.c_cs = 1; // bias per column
    g.has_c = bias ? 1 : 0;
    g.b_f32 = 1; // weights and bias are float constants
    g.c_f32 = 1;
    g.alpha = 1.f;
    g.cbeta = 1.f;
    return g;
}

} // namespace vkl
} // namespace kite

#endif // KITE_LAYER_VULKAN_GEMM_VULKAN_H
