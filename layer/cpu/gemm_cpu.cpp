// Gemm for the CPU, the inference case: A from the input, B constant (weights).
// The product is computed transposed, out^T = B^T A^T, so the constant B^T is
// the operand packed once in create_pipeline. Everything else (constant A,
// runtime B, a C input, N1M/transposed/typed outputs, int8) uses the reference.
#include "gemm.h"
#include "gpu/cpu_fallback.h"
#include "log.h"

#include "cpu/sgemm_cpu.h"

namespace kite {
namespace KITE_ISA_NS {

namespace {
float scale_by(float v, const void* ctx)
{
    return v * *(const float*)ctx;
}
} // namespace

class Gemm_cpu : public Gemm
{
public:
    bool accept() const override
    {
        const bool c_ok = !constantC || constant_broadcast_type_C == BROADCAST_C_SCALAR || constant_broadcast_type_C == BROADCAST_C_1N;
        return constantB && !constantA && c_ok && int8_scale_term == 0 && !output_N1M && output_elempack == 0
               && output_elemtype == 0 && !output_transpose;
    }

    int create_pipeline(const Option& opt) override
    {
        // a second create_pipeline after light mode released B
        if (b_released && B_data.empty())
        {
            B_data = loaded_B_data();
            if (B_data.empty())
                return -100;
        }
        b_released = false;
        int ret = Gemm::create_pipeline(opt);
        if (ret != 0)
            return ret;
        const int N = constantN, K = constantK;
        if (N <= 0 || K <= 0 || B_data.empty() || (size_t)B_data.w * B_data.h != (size_t)N * K)
            return 0; // shapes not as expected: forward uses the reference
        // B^T as an N x K matrix: transB means B_data is stored N rows of K
        const float* b = B_data;
        // vector rows: out^T is written transposed (crs == 1) in forward
        if (!pack_a(transB ? MatView{b, K, 1} : MatView{b, 1, N}, N, K, packed_bt, true))
            return -100;
        bias.assign(N, 0.f);
        if (constantC && !C_data.empty())
        {
            const float* c = C_data;
            for (int n = 0; n < N; n++)
                bias[n] = beta * (constant_broadcast_type_C == BROADCAST_C_SCALAR ? c[0] : c[n]);
        }
        // light mode (as ncnn): the loaded B goes, packed_bt holds it; the
        // reference fallback and a later create_pipeline rebuild it
        if (opt.lightmode && B_data.elemsize == 4u && B_data.elempack == 1)
        {
            b_w = B_data.w;
            b_h = B_data.h;
            B_data.release();
            b_released = true;
        }
        return 0;
    }

    Mat loaded_B_data() const override
    {
        if (!b_released)
            return B_data;
        Mat b(b_w, b_h, (size_t)4u);
        if (b.empty())
            return b;
        // B^T(n, k): transB stores N rows of K, else K rows of N
        const int K = packed_bt.K, N = packed_bt.M;
        if (transB)
            unpack_a(packed_bt, b, K, 1);
        else
            unpack_a(packed_bt, b, 1, N);
        return b;
    }

    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override
    {
        if (bottom_blobs.size() != 1 || top_blobs.size() != 1 || packed_bt.M == 0 || bottom_blobs[0].dims != 2
            || bottom_blobs[0].elempack != 1 || bottom_blobs[0].elemsize != 4u)
        {
            note_cpu_layer_on_reference();
            return Gemm::forward(bottom_blobs, top_blobs, opt);
        }
        const Mat& A = bottom_blobs[0];
        const int K = packed_bt.K, N = packed_bt.M;
        const int M = transA ? A.w : A.h;
        if ((transA ? A.h : A.w) != K)
        {
            KITE_LOGE("Gemm '%s': A is %d x %d, B expects K = %d", name.c_str(), A.h, A.w, K);
            return -1;
        }
        Mat& top = top_blobs[0];
        top.create(N, M, 4u, opt.blob_allocator);
        if (top.empty())
            return -100;
        // operand (k, m) of A^T: A(m, k)
        const float* a = A;
        MatView at = transA ? MatView{a, (long)M, 1} : MatView{a, 1, (long)K};
        GemmEpilogue ep;
        ep.bias = bias.data();
        if (alpha != 1.f)
        {
            ep.activation = scale_by;
            ep.activation_ctx = &alpha;
        }
        // out^T(n, m) at out[m * N + n]
        return sgemm(packed_bt, at, M, (float*)top.data, 1, (long)N, ep, opt);
    }

private:
    PackedA packed_bt;
    bool b_released = false; // light mode released B_data (packed_bt holds it)
    int b_w = 0, b_h = 0;    // its shape
    std::vector<float> bias; // beta * C per output column, already scaled
};

DEFINE_LAYER_CREATOR(Gemm_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
