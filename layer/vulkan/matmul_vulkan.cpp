// MatMul on Vulkan: the batched product of shaders/vulkan/gemm.comp, one
// dispatch with the batches on z (c outer, d inner, as the reference orders
// them). Device blobs are contiguous, so an operand's batch z starts at
// z * rows * cols where it has every batch, and at 0 where it broadcasts
// (stride 0). An operand of a 4-D product that broadcasts along one batch
// axis only (c but not d, or d but not c) has no such stride: there one
// dispatch per c batch would need buffer offsets gemm.comp does not take,
// and the layer runs on the CPU (KITE_GPU_CANNOT_HOLD, the one fallback rule).
#include "matmul.h"

#include "gpu/cpu_fallback.h"
#include "vulkan/gemm_vulkan.h"

namespace kite {

class MatMul_vulkan : public MatMul
{
public:
    MatMul_vulkan()
    {
        support_vulkan = true;
    }
    int create_pipeline(const Option& opt) override
    {
        int ret = MatMul::create_pipeline(opt);
        if (ret != 0)
            return ret;
        pipe = vkl::gemm_pipeline(opt);
        return pipe ? 0 : -1;
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session, const Option&) const override
    {
        vk::Session& s = vkl::session_of(session);
        if (bottoms.size() != 2 || tops.empty())
        {
            KITE_LOGE("MatMul '%s': expects 2 inputs, got %d", name.c_str(), (int)bottoms.size());
            return -1;
        }
        const vk::VkBlob* A = vkl::blob_of(bottoms[0]);
        const vk::VkBlob* B = vkl::blob_of(bottoms[1]);
        Sizes z;
        if (sizes(A->shape, B->shape, z) != 0)
            return -1;
        int a_bs, b_bs;
        if (!batch_stride(z.a_bc, z.a_bd, z, z.M * z.K, a_bs) || !batch_stride(z.b_bc, z.b_bd, z, z.K * z.N, b_bs))
            return KITE_GPU_CANNOT_HOLD;
        vkl::GemmOp g = {};
        g.M = z.M;
        g.N = z.N;
        g.K = z.K;
        g.a_bs = a_bs;
        g.a_rs = z.K;
        g.a_cs = 1;
        g.b_bs = b_bs;
        g.b_rs = z.b_trans ? 1 : z.N;
        g.b_cs = z.b_trans ? z.K : 1;
        g.o_bs = z.M * z.N;
        g.o_rs = z.N;
        g.o_cs = 1;
        g.alpha = 1.f;
        const int* sh = z.shape;
        vk::VkBlobPtr top = z.rank == 1   ? s.create_blob(1, sh[0], 1, 1, 1)
                            : z.rank == 2 ? s.create_blob(2, sh[1], sh[0], 1, 1)
                            : z.rank == 3 ? s.create_blob(3, sh[2], sh[1], 1, sh[0])
                                          : s.create_blob(4, sh[3], sh[2], sh[1], sh[0]);
        if (!top)
            return -100;
        if (z.M > 0 && z.N > 0 && z.bc * z.bd > 0)
        {
            int ret = vkl::record_gemm(s, pipe, A, B, nullptr, top.get(), g, z.bc * z.bd);
            if (ret != 0)
                return ret;
        }
        tops[0] = top;
        return 0;
    }

private:
    // the element step between batches z = ci * bd + di of an operand with
    // (bc, bd) batches of `size` elements; false where none exists
    static bool batch_stride(int bc, int bd, const Sizes& z, int size, int& stride)
    {
        if (bc == 1 && bd == 1)
            stride = 0;
        else if ((bc == z.bc && bd == z.bd) || z.bc == 1 || z.bd == 1)
            stride = size; // every batch, or batches along one axis only
        else
            return false;
        return true;
    }

    const vk::Pipeline* pipe = nullptr;
};

DEFINE_LAYER_CREATOR(MatMul_vulkan)

} // namespace kite
