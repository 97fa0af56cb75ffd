// Convolution for the CPU: packed GEMM with implicit im2col (conv_gemm_cpu.h)
// on blobs of any elempack; the output takes the widest elempack this ISA
// has that divides num_output, so consecutive convolutions pass packed blobs
// without conversions. Compiled once per ISA level. Falls back to the
// reference for dynamic weights and non-3-D inputs. int8 goes through the
// reference's scales and the family's int8 GEMM (cpu/conv_int8_cpu.h: pmaddwd
// on x86, VNNI on the VNNI rows, SDOT / SMLAL on ARM; on the VNNI rows a 1x1
// stride-1 layer reads its packed input quantized in place:
// forward_int8_1x1_vnni). On arm82 with fp16
// storage and fp16 arithmetic, layers whose channels pack by 8 run the fp16
// GEMM of arm/conv_fp16_arm.h.
#include "convolution.h"

#include "common/activation.h"
#include "common/conv_kernel.h"
#include "cpu/conv1x1_planar_cpu.h"
#include "cpu/conv_direct_planar_cpu.h"
#include "cpu/conv_gemm_cpu.h"
#include "cpu/conv_int8_cpu.h"
#include "cpu/conv_winograd_cpu.h"
#include "x86/conv_int8_vnni_x86.h" // declarations only; called on the VNNI rows
#if defined(__ARM_FEATURE_FP16_VECTOR_ARITHMETIC)
#define KITE_CPU_CONV_FP16 1
#include "arm/conv_fp16_arm.h" // the arm82 fp16 kernels
#else
#define KITE_CPU_CONV_FP16 0
#endif
#include "cpu.h"
#include "log.h"
#include "modelbin.h"
#include "paramdict.h"

#include <climits>
#include <cstring>

namespace kite {
namespace KITE_ISA_NS {

// the int8 kernel family of this build (kernel_path)
static inline const char* int8_kernel_name(int isa)
{
    (void)isa;
#if defined(KITE_X86_VNNI_NS)
    if (isa == CPU_ISA_AVX512VNNI || isa == CPU_ISA_AVXVNNI)
        return "int8-vnni";
#endif
#if defined(__ARM_FEATURE_DOTPROD)
    return "int8-sdot";
#elif defined(__ARM_NEON)
    return "int8-smlal";
#else
    return "int8";
#endif
}

class Convolution_cpu : public Convolution
{
public:
    Convolution_cpu()
    {
        support_packing = true;
    }

    ~Convolution_cpu() override
    {
        delete center_op;
    }

    bool accept() const override
    {
        return !dynamic_weight;
    }


    int create_pipeline(const Option& opt) override
    {
        // a second create_pipeline after light mode released the weights:
        // they come back from the packed copy
        if (weights_released && weight_data.empty())
        {
            weight_data = loaded_weights();
            if (weight_data.empty())
                return -100;
        }
        weights_released = false;
        wino_only = false;
        wino = WinogradWeights();
        int ret = create_pipeline_fp32(opt);
        if (ret == 0)
            ret = create_center_op(opt);
#if KITE_CPU_CONV_FP16
        if (ret == 0)
            ret = create_pipeline_fp16(opt);
#endif
        path = choose_path();
        // light mode (as ncnn's create_pipeline): the loaded fp32 weights go
        // once the packed GEMM copy holds them; the reference fallbacks and a
        // later create_pipeline rebuild them from it (loaded_weights)
        if (ret == 0 && opt.lightmode && weight_data.elemsize == 4u && packed.M != 0)
        {
            weight_data.release();
            weights_released = true;
        }
        return ret;
    }

    Mat loaded_weights() const override
    {
        if (!weights_released || packed.M == 0)
            return weight_data;
        Mat w(weight_data_size, (size_t)4u);
        if (w.empty())
            return w;
        if (wino_only)
            winograd_unpack_weights(wino, w); // to the float rounding of the transform
        else
            conv_unpack_weights(packed, w);
        return w;
    }

    const char* kernel_path() const override
    {
        return path;
    }

    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override
    {
        // a dilation at least the map's size: every tap but the centre reads
        // only padding (zeros), the layer is the 1x1 convolution of its centre
        if (center_op && bottom_blob.dims == 3 && bottom_blob.w <= dilation_w && bottom_blob.h <= dilation_h)
            return center_op->forward(bottom_blob, top_blob, opt);
#if KITE_CPU_CONV_FP16
        if (fp16w.M != 0 && bottom_blob.elembits() == 16)
            return forward_fp16(bottom_blob, top_blob, opt);
#endif
        return forward_fp32(bottom_blob, top_blob, opt);
    }

    using Convolution::forward;

private:
    // Dilated kernels with "same" zero padding at stride 1 (deeplabv3's ASPP:
    // 3x3 at dilation 12, 24, 36 on a 14x14 map): where the dilation is at
    // least the input's size every tap but the centre reads only padding, so
    // the layer is a 1x1 convolution with the centre weights (1/maxk of the
    // layer's); the padded input of such a layer is mostly zeros (86x86 per
    // channel at dilation 36) and the im2col GEMM streamed it: 2.2x ncnn's CPU
    // time at dilation 36 (benchmark/layer_graphs.py dl_aspp_*)
    int create_center_op(const Option& opt)
    {
        delete center_op;
        center_op = nullptr;
        const int maxk = kernel_w * kernel_h;
        if (weight_data.elemsize != 4u || maxk == 1 || kernel_w % 2 == 0 || kernel_h % 2 == 0 || stride_w != 1
            || stride_h != 1 || dilation_w <= 1 || dilation_h <= 1 || pad_value != 0.f
            || pad_left != kernel_w / 2 * dilation_w || pad_right != pad_left || pad_top != kernel_h / 2 * dilation_h
            || pad_bottom != pad_top)
            return 0;
        const int num_input = weight_data_size / (num_output * maxk);
        const int center = kernel_h / 2 * kernel_w + kernel_w / 2;
        Mat weights[2];
        weights[0].create(num_output * num_input, (size_t)4u);
        if (weights[0].empty())
            return -100;
        const float* w = weight_data;
        float* cw = weights[0];
        for (int i = 0; i < num_output * num_input; i++)
            cw[i] = w[(size_t)i * maxk + center];
        if (bias_term)
            weights[1] = bias_data;
        ParamDict pd;
        pd.set(PARAM_NUM_OUTPUT, num_output);
        pd.set(PARAM_KERNEL_W, 1);
        pd.set(PARAM_BIAS_TERM, bias_term);
        pd.set(PARAM_WEIGHT_DATA_SIZE, num_output * num_input);
        pd.set(PARAM_ACTIVATION_TYPE, activation_type);
        if (!activation_params.empty())
            pd.set(PARAM_ACTIVATION_PARAMS, activation_params);
        Convolution_cpu* op = new Convolution_cpu;
        center_op = op;
        op->name = name;
        op->isa = isa;
        int ret = op->load_param(pd);
        if (ret == 0)
            ret = op->load_model(ModelBinFromMatArray(weights, bias_term ? 2 : 1));
        if (ret == 0)
            ret = op->create_pipeline(opt);
        return ret;
    }

    int create_pipeline_fp32(const Option& opt)
    {
        int ret = Convolution::create_pipeline(opt);
        if (ret != 0)
            return ret;
        // the output elempack (fp32 outputs): the widest this ISA has that
        // divides num_output
        out_pack = 1;
        for (int p = kMaxPack; p >= 4; p /= 2)
            if (num_output % p == 0)
            {
                out_pack = p;
                break;
            }
        if (weight_data.elemsize == 1u)
        {
#if defined(KITE_X86_VNNI_NS)
            // created for the VNNI row: the vpdpbusd kernels
            if (isa == CPU_ISA_AVX512VNNI || isa == CPU_ISA_AVXVNNI)
            {
                KITE_X86_VNNI_NS::conv_int8_vnni_pack_weights(weight_data, num_output, weight_data_size / num_output,
                                                               packed_vnni);
                return 0;
            }
#endif
            conv_int8_pack_weights(weight_data, num_output, weight_data_size / num_output, packed_int8);
            return 0;
        }
        if (weight_data.elemsize != 4u)
            return 0;
        const int maxk = kernel_w * kernel_h;
        const int num_input = weight_data_size / (num_output * maxk);
        // the GEMM's vector width: the widest whose 2-vector panels are at
        // least half used (the output elempack does not constrain it)
        int gemm_pack = kMaxPack;
        while (gemm_pack > 4 && gemm_pack > num_output)
            gemm_pack /= 2;
        if (!conv_pack_weights(weight_data, bias_term ? (const float*)bias_data : nullptr, num_output, num_input, maxk,
                               gemm_pack, packed))
            return -100;
        // 1x1 stride 1 with planar outputs (num_output packs by nothing) and
        // few input channels: the pixel-vector kernel of conv1x1_planar_cpu.h
        // (with many, the GEMM's per-value scatter is a small part of its work
        // and the GEMM stays ahead: yolov4-tiny's 256 -> 255 head at 26x26 ran
        // about 3x slower planar)
        planar = ConvPlanarWeights();
        if (maxk == 1 && stride_w == 1 && stride_h == 1 && out_pack == 1 && num_input <= 128
            && !conv_planar_pack_weights(weight_data, bias_term ? (const float*)bias_data : nullptr, num_output, num_input,
                                         planar))
            return -100;
        // a planar input of 1-3 channels (the first layer) into outputs that
        // pack: the direct kernel of conv_direct_planar_cpu.h
        direct = ConvDirectWeights();
        if (num_input <= kDirectMaxC && num_input * maxk <= kDirectMaxK && out_pack >= 4
            && (stride_w == 1 || stride_w == 2 || stride_w == 4)
            && !conv_direct_pack_weights(weight_data, bias_term ? (const float*)bias_data : nullptr, num_output,
                                         num_input * maxk, out_pack, direct))
            return -100;
        // 3x3 stride 1: Winograd. Without a shape hint (kite's converters
        // write none) F(6,3) only where input and output have at most 32
        // channels (layers that narrow run on large maps), F(4,3) (less weight
        // memory, less rounding, cheaper transforms, less waste on small maps)
        // elsewhere: densenet121's 3x3 128 -> 32 took 1.4-2.9x ncnn's CPU time
        // at 56x56 to 7x7 on F(6,3) (ncnn, without shapes, takes F(4,3) there;
        // benchmark/layer_graphs.py dn_3x3_*). With the param file's output shape hint:
        // F(6,3) only for narrow layers on large maps (yolov4-tiny's
        // 104x104x64: ~15% faster than F(4,3)); F(4,3) elsewhere (at 56x56 and
        // below it was as fast or faster on every shared graph's layer:
        // squeezenet's 14x14x48 -> 192 0.27 against 0.37 ms, F(6,3)'s 3x3
        // tiles of 8x8 waste 40% of their outputs there); F(2,3) where
        // those would have too few tiles (resnet18's 7x7x512: 16 tiles of
        // 16 products per channel pair against 49 pixels x 9 taps of the
        // im2col GEMM) and where F(4,3) has fewer than 16 (maps of 9x9 to
        // 12x12: its transformed weights, 4x the layer's, are read from
        // memory for 9 tiles; with F(2,3) on its three 9x9 layers of 768
        // inputs squeezenet_ssd took ~5% less CPU time); not prepared where even
        // F(2,3) has too few tiles
        if (opt.use_winograd_convolution && kernel_w == 3 && kernel_h == 3 && dilation_w == 1 && dilation_h == 1
            && stride_w == 1 && stride_h == 1 && num_input >= 8 && num_output >= 8)
        {
            const bool narrow = (long long)num_input * num_output < 128 * 128;
            int m = num_input <= 32 && num_output <= 32 ? 6 : 4;
            bool use = true;
            if (!top_shapes.empty() && top_shapes[0].dims == 3 && top_shapes[0].w > 0 && top_shapes[0].h > 0)
            {
                const int ow = top_shapes[0].w, oh = top_shapes[0].h;
                m = narrow && ow * oh >= 64 * 64 ? 6 : 4;
                if (winograd_tiles(m, ow, oh) < 2 * kWinogradMinTiles)
                    m = 2;
                use = winograd_tiles(m, ow, oh) >= kWinogradMinTiles;
            }
            if (use && !winograd_pack_weights(weight_data, bias_term ? (const float*)bias_data : nullptr, num_output,
                                              num_input, packed.P, m, wino))
                return -100;
            // light mode (as ncnn, which keeps only the transformed weights):
            // Winograd then runs every input this layer takes, small maps
            // too, an unpacked input packed by 4 first; the GEMM copy goes
            // (its shape stays for the checks)
            if (wino.m && opt.lightmode && num_input % 4 == 0)
            {
                packed.w.clear();
                wino_only = true;
            }
        }
        act = Activation(activation_type, activation_params);
        return 0;
    }

    int forward_fp32(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
    {
        const int pi = bottom_blob.elempack;
        if (weight_data.elemsize == 1u && (pi > 1 || bottom_blob.elemsize == 4u) && bottom_blob.dims == 3 && opt.use_int8_inference)
            return forward_int8_packed(bottom_blob, top_blob, opt);
        if (bottom_blob.dims != 3 || bottom_blob.elemsize != 4u * pi || packed.M == 0)
            return forward_reference(bottom_blob, top_blob, opt);

        if (bottom_blob.c * pi != packed.C)
        {
            KITE_LOGE("Convolution '%s': input has %d channels, the weights expect %d", name.c_str(), bottom_blob.c * pi, packed.C);
            return -1;
        }
        const int extents[2] = {conv_kernel_extent(kernel_w, dilation_w), conv_kernel_extent(kernel_h, dilation_h)};
        int pads[4];
        resolve_pads_2d(bottom_blob.w, bottom_blob.h, pads);

        // SAME padding with a stride above the kernel extent can crop (a negative
        // pad); the reference handles that rare case
        if (pads[0] < 0 || pads[1] < 0 || pads[2] < 0 || pads[3] < 0)
            return forward_reference(bottom_blob, top_blob, opt);

        // Winograd where there are enough tiles to amortise the transformed
        // weights (packed inputs only: the transforms run on whole elements);
        // every input where only the transformed weights were kept
        if (wino.m && (pi >= 4 || wino_only))
        {
            const int outw = bottom_blob.w + pads[0] + pads[1] - 2, outh = bottom_blob.h + pads[2] + pads[3] - 2;
            if (outw >= 1 && outh >= 1 && (wino_only || winograd_tiles(wino.m, outw, outh) >= kWinogradMinTiles))
            {
                if (pi >= 4)
                    return forward_winograd(bottom_blob, top_blob, pads, outw, outh, opt);
                Option opt_ws = opt;
                opt_ws.blob_allocator = opt.workspace_allocator;
                Mat packed4;
                convert_packing(bottom_blob, packed4, 4, opt_ws);
                if (packed4.empty())
                    return -100;
                return forward_winograd(packed4, top_blob, pads, outw, outh, opt);
            }
            if (wino_only) // smaller than the kernel: the reference's message
                return forward_reference(bottom_blob, top_blob, opt);
        }

        // 1x1 stride 1 to a planar output: the pixel-vector kernel (a packed
        // input unpacked first: one pass over K values a pixel instead of a
        // scatter of M)
        if (planar.M != 0 && kernel_w == 1 && kernel_h == 1 && stride_w == 1 && stride_h == 1 && pads[0] == 0
            && pads[1] == 0 && pads[2] == 0 && pads[3] == 0)
            return forward_1x1_planar(bottom_blob, top_blob, opt);

        // 1x1 stride 1 on a packed input: a GEMM straight on the blob
        if (kernel_w == 1 && kernel_h == 1 && stride_w == 1 && stride_h == 1 && pi >= 4 && pads[0] == 0 && pads[1] == 0
            && pads[2] == 0 && pads[3] == 0)
            return forward_1x1(bottom_blob, top_blob, opt);

        // 1x1 stride 1 with zero pads on a packed input: the GEMM on the input
        // as it is, the border outputs (every input a pad: the activated bias)
        // filled around it (squeezenet's conv10: 60 of 256 output pixels)
        if (kernel_w == 1 && kernel_h == 1 && stride_w == 1 && stride_h == 1 && pi >= 4 && pad_value == 0.f)
            return forward_1x1_zero_pads(bottom_blob, top_blob, pads, opt);

        Mat padded = bottom_blob;
        if (pads[0] > 0 || pads[1] > 0 || pads[2] > 0 || pads[3] > 0)
        {
            Option opt_ws = opt;
            opt_ws.blob_allocator = opt.workspace_allocator;
            copy_make_border(bottom_blob, padded, pads[2], pads[3], pads[0], pads[1], BORDER_CONSTANT, pad_value, opt_ws);
            if (padded.empty())
                return -100;
        }
        const int w = padded.w, h = padded.h;
        if (w < extents[0] || h < extents[1])
        {
            KITE_LOGE("Convolution '%s': input %dx%d (padded %dx%d) is smaller than the kernel extent %dx%d", name.c_str(),
                      bottom_blob.w, bottom_blob.h, w, h, extents[0], extents[1]);
            return -1;
        }
        const int outw = (w - extents[0]) / stride_w + 1;
        const int outh = (h - extents[1]) / stride_h + 1;

        // 1x1 on a packed input with pads or a stride: the pixels it reads
        // (strided: gathered, whole elements, into a compact blob), then the
        // GEMM straight on the blob
        if (kernel_w == 1 && kernel_h == 1 && pi >= 4)
        {
            if (stride_w == 1 && stride_h == 1)
                return forward_1x1(padded, top_blob, opt);
            Mat compact;
            compact.create(outw, outh, padded.c, padded.elemsize, pi, opt.workspace_allocator);
            if (compact.empty())
                return -100;
            switch (pi)
            {
#if defined(__AVX512F__)
            case 16:
                gather_strided<16>(padded, compact, opt.num_threads);
                break;
#endif
#if defined(__AVX__)
            case 8:
                gather_strided<8>(padded, compact, opt.num_threads);
                break;
#endif
            default:
                gather_strided<4>(padded, compact, opt.num_threads);
                break;
            }
            return forward_1x1(compact, top_blob, opt);
        }

        top_blob.create(outw, outh, num_output / out_pack, 4u * out_pack, out_pack, opt.blob_allocator);
        if (top_blob.empty())
            return -100;

        if (direct.M != 0 && pi == 1)
        {
            switch (out_pack)
            {
#if defined(__AVX512F__)
            case 16:
                conv_direct_planar_forward<16>(padded, top_blob, direct, kernel_w, kernel_h, dilation_w, dilation_h,
                                               stride_w, stride_h, act, opt.num_threads);
                return 0;
#endif
#if defined(__AVX__)
            case 8:
                conv_direct_planar_forward<8>(padded, top_blob, direct, kernel_w, kernel_h, dilation_w, dilation_h,
                                              stride_w, stride_h, act, opt.num_threads);
                return 0;
#endif
            default:
                conv_direct_planar_forward<4>(padded, top_blob, direct, kernel_w, kernel_h, dilation_w, dilation_h,
                                              stride_w, stride_h, act, opt.num_threads);
                return 0;
            }
        }

        ConvGemmGeometry g = {kernel_w, kernel_h, dilation_w, dilation_h, stride_w, stride_h};
        if (pad_value == 0.f)
        {
            // zero padding: the GEMM skips the taps a tile reads only padding with
            g.pad_left = pads[0];
            g.pad_top = pads[2];
            g.src_w = bottom_blob.w;
            g.src_h = bottom_blob.h;
        }
        switch (packed.P)
        {
#if defined(__AVX512F__)
        case 16:
            return conv_gemm_forward<16>(padded, top_blob, packed, g, act, opt.num_threads, opt.workspace_allocator);
#endif
#if defined(__AVX__)
        case 8:
            return conv_gemm_forward<8>(padded, top_blob, packed, g, act, opt.num_threads, opt.workspace_allocator);
#endif
        default:
            return conv_gemm_forward<4>(padded, top_blob, packed, g, act, opt.num_threads, opt.workspace_allocator);
        }
    }


protected:
    // fp32 int8-path outputs come packed, as the fp32 path's
    int int8_out_elempack() const override
    {
        return (packed_int8.M == num_output || packed_vnni.M == num_output) ? out_pack : 1;
    }

    void run_int8(const ConvInt8Job& job, int num_threads) const override
    {
#if defined(KITE_X86_VNNI_NS)
        if (job.group == 1 && job.in.d == 1 && job.out.d == 1 && packed_vnni.M == job.out.c * job.out_elempack
            && packed_vnni.K == job.in.c * kernel_w * kernel_h)
            return KITE_X86_VNNI_NS::conv_int8_vnni_gemm(job, packed_vnni, num_threads);
#endif
        if (job.group == 1 && job.in.d == 1 && job.out.d == 1 && packed_int8.M == job.out.c * job.out_elempack
            && packed_int8.K == job.in.c * kernel_w * kernel_h)
            return conv_int8_gemm(job, packed_int8, num_threads);
        if (job.out_elempack == 1)
            return Convolution::run_int8(job, num_threads);
        // the reference kernels write planar outputs: run them on a planar
        // copy of the job and pack the result
        ConvInt8Job planar = job;
        Mat tmp(job.out.w, job.out.h, job.out.c * job.out_elempack, (size_t)4u);
        if (tmp.empty())
            return;
        planar.out = conv_view_spatial(tmp);
        planar.out_elempack = 1;
        Convolution::run_int8(planar, num_threads);
        Mat packed_out;
        Option o;
        o.num_threads = num_threads;
        convert_packing(tmp, packed_out, job.out_elempack, o);
        for (int q = 0; q < job.out.c && !packed_out.empty(); q++)
            memcpy((float*)job.out.data + job.out.cstep * job.out_elempack * q, packed_out.channel(q).data,
                   (size_t)job.out.w * job.out.h * job.out_elempack * sizeof(float));
    }

private:
    // int8 weights, fp32 or packed input: fp32 quantized (and unpacked) in one
    // vector pass (as the reference quantizes), int8 unpacked; then the
    // reference's int8 path
    int forward_int8_packed(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
    {
        Mat planar;
        const int pi = bottom_blob.elempack;
#if defined(KITE_X86_VNNI_NS)
        if (pi >= 4 && bottom_blob.elemsize == 4u * pi && kernel_w == 1 && kernel_h == 1 && stride_w == 1 && stride_h == 1
            && int8_scale_term <= 100 && packed_vnni.M == num_output && packed_vnni.K == bottom_blob.c * pi && out_pack > 1
            && !bottom_blob_int8_scales.empty())
        {
            int pads[4];
            resolve_pads_2d(bottom_blob.w, bottom_blob.h, pads);
            if (pads[0] == 0 && pads[1] == 0 && pads[2] == 0 && pads[3] == 0)
                return forward_int8_1x1_vnni(bottom_blob, top_blob, opt);
        }
#endif
        if (bottom_blob.elemsize == 4u * pi && !bottom_blob_int8_scales.empty())
        {
            const float scale = bottom_blob_int8_scales[0];
            int ret = -1;
            switch (pi)
            {
#if defined(__AVX512F__)
            case 16:
                ret = quantize_unpack_int8<16>(bottom_blob, planar, scale, opt.workspace_allocator, opt.num_threads);
                break;
#endif
#if defined(__AVX__)
            case 8:
                ret = quantize_unpack_int8<8>(bottom_blob, planar, scale, opt.workspace_allocator, opt.num_threads);
                break;
#endif
            case 4:
                ret = quantize_unpack_int8<4>(bottom_blob, planar, scale, opt.workspace_allocator, opt.num_threads);
                break;
            case 1:
                ret = quantize_unpack_int8<1>(bottom_blob, planar, scale, opt.workspace_allocator, opt.num_threads);
                break;
            default:
                break;
            }
            if (ret == 0)
                return Convolution::forward(planar, top_blob, opt);
            if (ret == -100)
                return ret;
        }
        Option opt_ws = opt;
        opt_ws.blob_allocator = opt.workspace_allocator;
        convert_packing(bottom_blob, planar, 1, opt_ws);
        if (planar.empty())
            return -100;
        return Convolution::forward(planar, top_blob, opt);
    }

#if defined(KITE_X86_VNNI_NS)
    // int8 1x1 stride 1 on a packed fp32 input: quantized once into a u8 blob
    // of the same packing (float2int8(x * scale) + 128, as the reference
    // quantizes), which the VNNI channel-lane kernel reads as it is: no
    // planar unpack, no per-tile rearranging (conv1x1_int8_vnni_packed)
    int forward_int8_1x1_vnni(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
    {
        const int E = bottom_blob.elempack;
        const float scale = bottom_blob_int8_scales[0];
        const size_t n = (size_t)bottom_blob.w * bottom_blob.h * E;
        // channel groups 64-byte aligned; the kernel's last pixel block reads
        // up to a register block of pixels past the last group (never stored):
        // slack for them
        const size_t group_bytes = (n + 63) / 64 * 64;
        if (group_bytes * bottom_blob.c + 256 > (size_t)INT_MAX)
        {
            KITE_LOGE("Convolution '%s': int8 input of %zu bytes is too large", name.c_str(), group_bytes * bottom_blob.c);
            return -1;
        }
        Mat qin;
        qin.create((int)(group_bytes * bottom_blob.c + 256), (size_t)1u, opt.workspace_allocator);
        if (qin.empty())
            return -100;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < bottom_blob.c; q++)
        {
            const float* src = (const float*)bottom_blob.data + bottom_blob.cstep * E * q;
            unsigned char* dst = (unsigned char*)qin.data + group_bytes * q;
            quantize_u8(src, dst, n, scale);
        }
        std::vector<float> scale_in, scale_out;
        const int numerics = int8_epilogue(opt, scale_in, scale_out);
        top_blob.create(bottom_blob.w, bottom_blob.h, num_output / out_pack, 4u * out_pack, out_pack, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        ConvInt8Job job;
        job.in = ConvView(nullptr, bottom_blob.w, bottom_blob.h, 1, bottom_blob.c * E, 0);
        job.out = conv_view_spatial(top_blob);
        job.weight = weight_data;
        job.bias = bias_term ? (const float*)bias_data : nullptr;
        job.scale_in = scale_in.data();
        job.scale_out = nullptr;
        job.group = 1;
        job.g.kernel_w = job.g.kernel_h = 1;
        job.g.dilation_w = job.g.dilation_h = 1;
        job.g.stride_w = job.g.stride_h = 1;
        job.pad_value = pad_value_int8(pad_value);
        job.act = Activation(activation_type, activation_params);
        job.numerics = numerics;
        job.out_elempack = out_pack;
        KITE_X86_VNNI_NS::conv1x1_int8_vnni_packed(job, (const unsigned char*)qin.data, group_bytes, E, packed_vnni,
                                                   opt.num_threads);
        return 0;
    }

    // float2int8(src[i] * scale) + 128 as u8 (the reference's rounding)
    static void quantize_u8(const float* src, unsigned char* dst, size_t n, float scale)
    {
        typedef simd::VF<KITE_SIMD_MAX_N> V;
        const V::T s = V::set1(scale);
        size_t i = 0;
        for (; i + V::N <= n; i += V::N)
        {
            const V::T f = float2int8_ps<V>(V::mul(V::load(src + i), s));
#if defined(__AVX512F__)
            _mm_storeu_si128((__m128i*)(dst + i), _mm512_cvtepi32_epi8(_mm512_add_epi32(_mm512_cvtps_epi32(f), _mm512_set1_epi32(128))));
#else
            float lanes[V::N];
            V::store(lanes, f);
            for (int r = 0; r < V::N; r++)
                dst[i + r] = (unsigned char)((int)lanes[r] + 128);
#endif
        }
        for (; i < n; i++)
            dst[i] = (unsigned char)(float2int8(src[i] * scale) + 128);
    }
#endif

    // out (outw x outh) = in's pixels (x * stride_w, y * stride_h), whole
    // elements of PI floats
    template<int PI>
    void gather_strided(const Mat& in, Mat& out, int num_threads) const
    {
        #pragma omp parallel for num_threads(num_threads)
        for (int q = 0; q < in.c; q++)
        {
            const float* s = (const float*)in.channel(q).data;
            float* d = (float*)out.channel(q).data;
            for (int y = 0; y < out.h; y++)
                for (int x = 0; x < out.w; x++)
                    simd::VF<PI>::store(d + ((size_t)y * out.w + x) * PI,
                                    simd::VF<PI>::load(s + ((size_t)y * stride_h * in.w + (size_t)x * stride_w) * PI));
        }
    }

    int forward_1x1(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
    {
        top_blob.create(bottom_blob.w, bottom_blob.h, num_output / out_pack, 4u * out_pack, out_pack, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        switch (packed.P)
        {
#if defined(__AVX512F__)
        case 16:
            conv1x1_forward<16>(bottom_blob, top_blob, packed, act, opt.num_threads);
            break;
#endif
#if defined(__AVX__)
        case 8:
            conv1x1_forward<8>(bottom_blob, top_blob, packed, act, opt.num_threads);
            break;
#endif
        default:
            conv1x1_forward<4>(bottom_blob, top_blob, packed, act, opt.num_threads);
            break;
        }
        return 0;
    }

    int forward_1x1_planar(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
    {
        Mat in = bottom_blob;
        if (bottom_blob.elempack != 1)
        {
            Option opt_ws = opt;
            opt_ws.blob_allocator = opt.workspace_allocator;
            convert_packing(bottom_blob, in, 1, opt_ws);
            if (in.empty())
                return -100;
        }
        top_blob.create(in.w, in.h, num_output, 4u, 1, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        conv1x1_planar_forward(in, top_blob, planar, act, opt.num_threads);
        return 0;
    }

    int forward_1x1_zero_pads(const Mat& bottom_blob, Mat& top_blob, const int* pads, const Option& opt) const
    {
        Option opt_ws = opt;
        opt_ws.blob_allocator = opt.workspace_allocator;
        Mat inner;
        int ret = forward_1x1(bottom_blob, inner, opt_ws);
        if (ret != 0)
            return ret;
        const int w = bottom_blob.w, h = bottom_blob.h, po = inner.elempack;
        const int outw = w + pads[0] + pads[1], outh = h + pads[2] + pads[3];
        top_blob.create(outw, outh, inner.c, inner.elemsize, po, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < inner.c; q++)
        {
            float border[16];
            for (int i = 0; i < po; i++)
                border[i] = act(bias_term ? ((const float*)bias_data)[q * po + i] : 0.f);
            const float* s = (const float*)inner.channel(q).data;
            float* d = (float*)top_blob.channel(q).data;
            for (int y = 0; y < outh; y++)
            {
                float* row = d + (size_t)y * outw * po;
                const bool inside = y >= pads[2] && y < pads[2] + h;
                for (int x = 0; x < outw; x++)
                {
                    if (inside && x == pads[0])
                    {
                        memcpy(row + (size_t)x * po, s + (size_t)(y - pads[2]) * w * po, (size_t)w * po * sizeof(float));
                        x += w - 1;
                        continue;
                    }
                    memcpy(row + (size_t)x * po, border, po * sizeof(float));
                }
            }
        }
        return 0;
    }

    int forward_winograd(const Mat& bottom_blob, Mat& top_blob, const int* pads, int outw, int outh, const Option& opt) const
    {
        // pad right and bottom up to whole tiles
        const int m = wino.m;
        const int extra_w = (outw + m - 1) / m * m - outw, extra_h = (outh + m - 1) / m * m - outh;
        Option opt_ws = opt;
        opt_ws.blob_allocator = opt.workspace_allocator;
        Mat padded;
        copy_make_border(bottom_blob, padded, pads[2], pads[3] + extra_h, pads[0], pads[1] + extra_w, BORDER_CONSTANT,
                         pad_value, opt_ws);
        if (padded.empty())
            return -100;
        top_blob.create(outw, outh, num_output / out_pack, 4u * out_pack, out_pack, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        switch (wino.P)
        {
#if defined(__AVX512F__)
        case 16:
            return winograd_forward<16>(padded, top_blob, wino, act, opt.num_threads, opt.workspace_allocator);
#endif
#if defined(__AVX__)
        case 8:
            return winograd_forward<8>(padded, top_blob, wino, act, opt.num_threads, opt.workspace_allocator);
#endif
        default:
            return winograd_forward<4>(padded, top_blob, wino, act, opt.num_threads, opt.workspace_allocator);
        }
    }

    // inputs the packed path does not take: the reference on an elempack-1 copy
    int forward_reference(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
    {
        if (bottom_blob.elempack == 1)
            return Convolution::forward(bottom_blob, top_blob, opt);
        Option opt_ws = opt;
        opt_ws.blob_allocator = opt.workspace_allocator;
        Mat unpacked;
        convert_packing(bottom_blob, unpacked, 1, opt_ws);
        if (unpacked.empty())
            return -100;
        return Convolution::forward(unpacked, top_blob, opt);
    }

#if KITE_CPU_CONV_FP16
    // arm82 with fp16 storage and fp16 arithmetic: layers whose input and
    // output channels pack by 8 run the pack-8 fp16 GEMM of
    // arm/conv_fp16_arm.h; other shapes convert to fp32 and run forward_fp32
    int create_pipeline_fp16(const Option& opt)
    {
        fp16w = ConvFp16Weights();
        if (weight_data.elemsize != 4u || !opt.use_fp16_storage || !opt.use_fp16_arithmetic)
            return 0;
        const int maxk = kernel_w * kernel_h;
        int ret = conv_fp16_pack_weights(weight_data, bias_term ? (const float*)bias_data : nullptr, num_output,
                                         weight_data_size / (num_output * maxk), maxk, fp16w);
        support_fp16_storage = fp16w.M != 0;
        act16 = Activation(activation_type, activation_params);
        return ret;
    }

    int forward_fp16(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
    {
        int pads[4];
        resolve_pads_2d(bottom_blob.w, bottom_blob.h, pads);
        if (bottom_blob.dims != 3 || pads[0] < 0 || pads[1] < 0 || pads[2] < 0 || pads[3] < 0)
        {
            // shapes the fp16 kernel does not take: the fp32 driver
            Mat f;
            int ret = conv_fp16_to_fp32(bottom_blob, f, opt);
            return ret != 0 ? ret : forward_fp32(f, top_blob, opt);
        }
        const ConvFp16Geometry g = {kernel_w, kernel_h, dilation_w, dilation_h, stride_w, stride_h};
        const std::string what = "Convolution '" + name + "'";
        Mat padded;
        int ret = conv_fp16_begin(bottom_blob, padded, top_blob, pads, pad_value, fp16w.C, num_output, g, what.c_str(), opt);
        if (ret != 0)
            return ret;
        conv_fp16_forward(padded, top_blob, fp16w, g, act16, opt.num_threads);
        return 0;
    }

    ConvFp16Weights fp16w;
    Activation act16;
#endif

    // the kernel create_pipeline prepared (kernel_path); shapes that turn up
    // at run time outside it (non-3-D inputs, cropping SAME pads) run the reference
    const char* choose_path() const
    {
        if (weight_data.elemsize == 1u)
            return int8_kernel_name(isa);
#if KITE_CPU_CONV_FP16
        if (fp16w.M != 0)
            return "fp16-gemm";
#endif
        if (packed.M == 0)
            return "reference";
        if (wino.m == 6)
            return "winograd63";
        if (wino.m == 4)
            return "winograd43";
        if (wino.m == 2)
            return "winograd23";
        if (planar.M != 0)
            return "planar-1x1";
        if (direct.M != 0)
            return "direct-planar";
        if (kernel_w == 1 && kernel_h == 1 && stride_w == 1 && stride_h == 1)
            return "gemm-1x1";
        return "gemm";
    }

    const char* path = nullptr;
    Convolution_cpu* center_op = nullptr; // dilation >= the map: the centre tap alone (create_center_op)
    bool weights_released = false; // light mode released weight_data (packed, or wino alone, holds it)
    bool wino_only = false;        // light mode kept only the Winograd weights (packed.w is empty)
    ConvPackedWeights packed;
    ConvPlanarWeights planar; // 1x1 stride 1, planar output
    ConvDirectWeights direct; // planar input of 1-3 channels, packed output
    ConvInt8PackedWeights packed_int8;
    ConvInt8VnniWeights packed_vnni; // VNNI rows only
    WinogradWeights wino;
    int out_pack = 1;
    Activation act;
};

DEFINE_LAYER_CREATOR(Convolution_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
