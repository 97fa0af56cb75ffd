// DeconvolutionDepthWise for the CPU: the depth-wise case (group == channels ==
// num_output, fp32) on packed blobs. Each packed element holds P channels and
// every output pixel gathers its taps: output (oy, ox) takes input (iy, ix)
// through tap (ky, kx) where oy = iy * stride_h + ky * dilation_h - cut_top
// (and the same along x), so one vector FMA per tap computes P channels and
// no output is written twice. The taps of each output row and column are
// listed once per call; the weights are repacked once in create_pipeline to
// [channels/P][kh*kw][P]. The output keeps the input's elempack (1 included).
// Grouped (not depth-wise) layers and other inputs use the reference.
#include "deconvolutiondepthwise.h"

#include "common/activation.h"
#include "common/conv_kernel.h"
#include "cpu/conv_vec_cpu.h"
#include "cpu/depthwise_pack_cpu.h"
#include "log.h"

#include <algorithm>
#include <vector>

namespace kite {
namespace KITE_ISA_NS {

namespace {

// the taps reaching each of n outputs along one axis: for output o, cnt[o]
// pairs (input index, kernel index) in tap[o * k ...]
struct AxisTaps
{
    std::vector<int> cnt, in, k;
};

static void list_axis_taps(int n_out, int n_in, int kernel, int dilation, int stride, int cut, AxisTaps& t)
{
    t.cnt.assign(n_out, 0);
    t.in.resize((size_t)n_out * kernel);
    t.k.resize((size_t)n_out * kernel);
    for (int o = 0; o < n_out; o++)
        for (int kk = 0; kk < kernel; kk++)
        {
            const int s = o + cut - kk * dilation; // = i * stride
            if (s < 0 || s % stride != 0 || s / stride >= n_in)
                continue;
            const size_t j = (size_t)o * kernel + t.cnt[o]++;
            t.in[j] = s / stride;
            t.k[j] = kk;
        }
}

// in: elempack P, out: elempack P; weight [c/P][maxk][P]; bias [c] or null
template<int P>
void deconv_dw_packed(const Mat& in, Mat& out, const float* weight, const float* bias, const ConvGeometry& g,
                      const Activation& act, int num_threads)
{
    typedef simd::VF<P> V;
    const int outw = out.w, outh = out.h, kw = g.kernel_w, kh = g.kernel_h;
    AxisTaps tx, ty;
    list_axis_taps(outw, in.w, kw, g.dilation_w, g.stride_w, g.pad_left, tx);
    list_axis_taps(outh, in.h, kh, g.dilation_h, g.stride_h, g.pad_top, ty);
    // input element offsets of the x taps, weight offsets of the x taps
    std::vector<int> xin(tx.in.size()), xk(tx.k.size());
    for (size_t j = 0; j < tx.in.size(); j++)
    {
        xin[j] = tx.in[j] * P;
        xk[j] = tx.k[j] * P;
    }
    const int rows = out.c * outh;
    #pragma omp parallel for num_threads(num_threads)
    for (int r = 0; r < rows; r++)
    {
        const int q = r / outh, oy = r % outh;
        const float* src = (const float*)in.data + in.cstep * P * q;
        const float* wq = weight + (size_t)kw * kh * P * q;
        float* dst = (float*)out.data + out.cstep * P * q + (size_t)oy * outw * P;
        const typename V::T b = bias ? V::load(bias + q * P) : V::zero();
        const int ny = ty.cnt[oy];
        const int* yin = ty.in.data() + (size_t)oy * kh;
        const int* yk = ty.k.data() + (size_t)oy * kh;
        for (int ox = 0; ox < outw; ox++)
        {
            const int nx = tx.cnt[ox];
            const int* xi = xin.data() + (size_t)ox * kw;
            const int* xw = xk.data() + (size_t)ox * kw;
            typename V::T a = b;
            for (int j = 0; j < ny; j++)
            {
                const float* srow = src + (size_t)yin[j] * in.w * P;
                const float* wrow = wq + (size_t)yk[j] * kw * P;
                for (int i = 0; i < nx; i++)
                    a = V::fmadd(V::load(srow + xi[i]), V::load(wrow + xw[i]), a);
            }
            store_activated<P>(dst + (size_t)ox * P, a, act);
        }
    }
}

} // namespace

class DeconvolutionDepthWise_cpu : public DeconvolutionDepthWise
{
public:
    DeconvolutionDepthWise_cpu()
    {
        support_packing = true;
    }

    const char* kernel_path() const override
    {
        return packed[0].empty() && packed[1].empty() ? "reference" : "depthwise";
    }

    int create_pipeline(const Option& opt) override
    {
        int ret = DeconvolutionDepthWise::create_pipeline(opt);
        if (ret != 0 || !depthwise() || weight_data.elemsize != 4u)
            return ret;
        act = Activation(activation_type, activation_params);
        if (!dw_repack_weights(weight_data, num_output, kernel_w * kernel_h, packed))
            return -100;
        return 0;
    }

    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override
    {
        const int P = bottom_blob.elempack;
        const int pi = dw_packed_slot(bottom_blob, packed);
        if (pi < 0)
            return forward_reference(bottom_blob, top_blob, opt);
        if (!dw_channels_match(bottom_blob, num_output, type_name, name))
            return -1;
        ConvGeometry g;
        int outw, outh;
        if (output_geometry(bottom_blob.w, bottom_blob.h, g, &outw, &outh) != 0)
            return -1;
        top_blob.create(outw, outh, bottom_blob.c, 4u * P, P, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        const float* w = packed[pi].data();
        const float* b = bias_term ? (const float*)bias_data : nullptr;
        switch (P)
        {
#if defined(__AVX512F__)
        case 16:
            deconv_dw_packed<16>(bottom_blob, top_blob, w, b, g, act, opt.num_threads);
            break;
#endif
#if defined(__AVX__)
        case 8:
            deconv_dw_packed<8>(bottom_blob, top_blob, w, b, g, act, opt.num_threads);
            break;
#endif
        case 4:
            deconv_dw_packed<4>(bottom_blob, top_blob, w, b, g, act, opt.num_threads);
            break;
        default:
            deconv_dw_packed<1>(bottom_blob, top_blob, w, b, g, act, opt.num_threads);
            break;
        }
        return 0;
    }

    using DeconvolutionDepthWise::forward;

private:
    bool depthwise() const
    {
        return group == num_output && weight_data_size == num_output * kernel_w * kernel_h;
    }

    // what the packed kernel does not take: the reference on an elempack-1 copy
    int forward_reference(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
    {
        return dw_forward_unpacked(bottom_blob, opt, [&](const Mat& in) { return DeconvolutionDepthWise::forward(in, top_blob, opt); });
    }

    FastBuffer<float> packed[kDwPackCount];
    Activation act;
};

DEFINE_LAYER_CREATOR(DeconvolutionDepthWise_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
