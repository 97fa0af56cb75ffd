// BinaryOp, compiled once per CPU ISA level (x86 and ARM), fp32 or fp16 storage:
// vectorised on packed blobs for add/sub/mul/div/max/min/rsub/rdiv with a
// scalar, with an operand of the same shape and layout, and with a 1-D
// per-channel operand against a dims 3/4 blob. Other broadcasts, the pow and
// atan2 families and mixed layouts run the reference on unpacked fp32 copies.
#include "binaryop.h"
#include "cpu/binary_cpu.h"
#include "cpu/packing_cpu.h"
#include "cpu/unary_cpu.h"

namespace kite {
namespace KITE_ISA_NS {

class BinaryOp_cpu : public BinaryOp
{
public:
    BinaryOp_cpu()
    {
        support_packing = true;
        support_fp16_storage = KITE_SIMD_F16C;
    }

    int forward_inplace(Mat& m, const Option& opt) const override
    {
        const int op = op_type;
        const float s = b;
        if (!binary_kernel_has(op))
            return unary_inplace_scalar(m, opt, [op, s](float x) { return BinaryOp::apply(op, x, s); });
        return unary_inplace_cpu(m, opt, [op, s](auto tag, auto x) {
            typedef decltype(tag) V;
            return binary_kernel<V>(op, x, V::set1(s));
        });
    }

    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override
    {
        if (bottom_blobs.size() == 2 && top_blobs.size() == 1 && binary_kernel_has(op_type))
        {
            const Mat& A = bottom_blobs[0];
            const Mat& B = bottom_blobs[1];
            if (!A.empty() && same_layout(A, B))
                return A.elembits() == 16 ? same_shape<unsigned short>(A, B, top_blobs[0], opt) : same_shape<float>(A, B, top_blobs[0], opt);
            if (!A.empty() && !B.empty() && A.dims >= 3 && B.dims == 1 && B.w * B.elempack == A.c * A.elempack
                && B.elembits() == A.elembits() && dispatchable_pack(A.elempack))
            {
                const int ep = A.elempack;
                if (A.elembits() == 16)
                {
                    KITE_CPU_DISPATCH_PACK(P, ep, return per_channel<P, unsigned short>(A, B, top_blobs[0], opt))
                }
                KITE_CPU_DISPATCH_PACK(P, ep, return per_channel<P, float>(A, B, top_blobs[0], opt))
            }
        }
        std::vector<Mat> unpacked;
        int ret = to_fp32_pack1(bottom_blobs, unpacked, opt);
        return ret != 0 ? ret : BinaryOp::forward(unpacked, top_blobs, opt);
    }

private:
    template<class S>
    int same_shape(const Mat& A, const Mat& B, Mat& top, const Option& opt) const
    {
        top.create_like(A, opt.blob_allocator);
        if (top.empty())
            return -100;
        const int channels = A.dims >= 3 ? A.c : 1;
        const size_t n = channel_scalars(A);
        const size_t sa = channel_stride(A), sb = channel_stride(B), st = channel_stride(top);
        const int op = op_type;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < channels; q++)
            binary_run(op, (const S*)A.data + sa * q, (const S*)B.data + sb * q, (S*)top.data + st * q, n);
        return 0;
    }

    template<int P, class S>
    int per_channel(const Mat& A, const Mat& B, Mat& top, const Option& opt) const
    {
        top.create_like(A, opt.blob_allocator);
        if (top.empty())
            return -100;
        const size_t n = channel_scalars(A);
        const size_t sa = channel_stride(A), st = channel_stride(top);
        const int op = op_type;
        // a 1-D blob keeps its scalars in order whatever its elempack
        const S* bp = (const S*)B.data;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < A.c; q++)
            binary_run_repeat<P, S>(op, (const S*)A.data + sa * q, bp + (size_t)q * P, (S*)top.data + st * q, n);
        return 0;
    }
};

DEFINE_LAYER_CREATOR(BinaryOp_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
