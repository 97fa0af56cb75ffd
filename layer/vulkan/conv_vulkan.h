#ifndef KITE_LAYER_VULKAN_CONV_VULKAN_H
#define KITE_LAYER_VULKAN_CONV_VULKAN_H

// The Vulkan driver shared by Convolution and ConvolutionDepthWise (a
// template on the reference class, whose parameter members have the same
// names): weights go to the device once, forward_gpu records conv.comp on
// elempack-1 inputs and conv_pack4.comp on elempack-4/8 ones where every group
// has a multiple of 4 input and output channels, or for depth-wise with a
// multiple of 4 channels (other packed inputs are unpacked on the device).
// int8 weights (int8_scale_term) are stored 4 per uint: the input (elempack
// 1, 4 or 8) is quantized once by int8quant.comp, int8conv_q.comp sums in
// int32 and finishes with the CPU's scales and roundings (grouped layers
// whose groups have channel counts other than multiples of 4 run the
// scalar int8conv.comp on elempack 1); a requantizing layer's output is an
// int8 blob, packed by 4 or 8 where its channels allow. Dense int8 layers,
// and grouped ones with at least 8 output quads a group, run the tiled
// implicit GEMM int8conv_gemm.comp instead (any kernel, stride, dilation,
// pads; exact integer sums, see the shader), splitting K over work groups
// (int8conv_splitk.comp adds the splits) where the tiles are few and K
// long; depth-wise ones int8conv_q.comp. On devices with an integer dot
// product (vkl::use_int8_dot) the GEMM is its "int8conv_gemm_dot4" variant
// (packed 4 x int8 dot products into int32 sums, weights transposed per 4 x 4
// block; kernel_path "int8-dot4", else "int8-gemm").
// Dense 1x1 convolutions without padding on packed inputs run the tiled GEMM
// conv1x1_gemm.comp instead of conv_pack4.comp; dense 3x3 stride-1 ones with
// at least 16 input and output channels run Winograd F(2x2, 3x3)
// (winograd_input.comp, gemm.comp over the 16 tile positions,
// winograd_output.comp).

#include "common/activation.h"
#include "common/conv_kernel.h"
#include "common/int8.h"
#include "common/winograd23.h"
#include "vulkan/gemm_vulkan.h"
#include "vulkan/vulkan_common.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace kite {
namespace vkl {

struct ConvGpu
{
    const vk::Pipeline* pipe = nullptr;
    const vk::Pipeline* pipe4 = nullptr; // conv_pack4, where pack4 is set
    const vk::Pipeline* pipe1x1 = nullptr; // conv1x1_gemm: dense 1x1 on packed inputs
    // Winograd F(2x2, 3x3) for dense 3x3 stride-1 convolutions with enough
    // channels: input transform, 16 products through gemm.comp, output transform
    const vk::Pipeline* wino_in = nullptr;
    const vk::Pipeline* wino_gemm = nullptr;
    const vk::Pipeline* wino_out = nullptr;
    vk::VkBlobPtr wino_u; // [16][outch][inch]: G g G^T of every filter (fp16 with fp16 storage)
    bool wino_half = false;
    vk::VkBlobPtr weight;
    vk::VkBlobPtr weight4; // the weights in conv_pack4.comp's order
    vk::VkBlobPtr bias; // int8: the per-channel arguments (upload_int8_args)
    bool int8 = false;
    int int8_numerics = 0;
    // packed int8 (int8quant.comp + int8conv_q.comp): 0 off (grouped with
    // channel counts per group not multiples of 4: int8conv.comp on
    // elempack 1), 1 dense or grouped, 2 depth-wise
    int int8_mode = 0;
    int int8_inq_g = 0, int8_outq = 0, int8_cpg = 1; // input quads per group, output quads, channels per bottom scale
    // int8_mode 1 as a tiled implicit GEMM (int8conv_gemm.comp, its own
    // weight order): 16 x 16 invocations (64 channels x 64 pixels) or 8 x 8
    // (32 x 32) where the large tiles would leave a GPU's cores idle
    const vk::Pipeline* int8_gemm16 = nullptr;
    const vk::Pipeline* int8_gemm8 = nullptr;
    const vk::Pipeline* int8_splitk = nullptr; // int8conv_splitk.comp: the split-K sums finished
    bool int8_dot = false; // the GEMM is int8conv_gemm_dot4 (its weights transposed per 4 x 4 block)
    // a CPU device (lavapipe): the large tiles and no split by default (more,
    // smaller work groups only add overhead there)
    bool int8_cpu_device = false;
    const vk::Pipeline* quant = nullptr;
    vk::VkBlobPtr qscales; // the bottom scale of every channel group
    int pack4 = 0; // 0: elempack-1 only, 1: dense/grouped pack4, 2: depth-wise pack4

    // the int8 kernel for the placement report (Layer::kernel_path; nullptr
    // for float layers): the tiled GEMM with packed dot products or float
    // partial sums, int8conv_q.comp (dense/grouped or depth-wise), int8conv.comp
    const char* path() const
    {
        if (!int8)
            return nullptr;
        if (int8_gemm16)
            return int8_dot ? "int8-dot4" : "int8-gemm";
        if (int8_mode == 2)
            return "int8-dw";
        return int8_mode == 1 ? "int8-direct" : "int8-scalar";
    }

    template <class L>
    static bool accept(const L& l)
    {
        return !l.dynamic_weight && l.activation_type >= 0 && l.activation_type < ACTIVATION_TYPE_COUNT;
    }

    template <class L>
    int create(const L& l, int group, const Option& opt)
    {
        int8 = l.weight_data.elemsize == 1u;
        if (int8)
            return create_int8(l, opt);
        pipe = pipeline_for(opt, "conv", 4, 8, 8, 1);
        bias = upload_weights(opt, l.bias_term ? l.bias_data : Mat());
        if (!pipe || !bias)
            return -1;
        const int outch = l.num_output;
        const int taps = l.kernel_w * l.kernel_h;
        if (group <= 0 || outch % group != 0 || taps <= 0 || l.weight_data_size % (outch / group * taps) != 0)
        {
            weight = upload_weights(opt, l.weight_data, true);
            return weight ? 0 : -1; // the reference reports the bad shape at forward time
        }
        const int num_input = l.weight_data_size / (outch / group * taps);
        const int inch_g = num_input / group, outch_g = outch / group;
        // Winograd convolutions read only their transformed filters (every
        // input layout): the direct kernels' weights are not uploaded
        if (group == 1 && l.kernel_w == 3 && l.kernel_h == 3 && l.stride_w == 1 && l.stride_h == 1 && l.dilation_w == 1 &&
            l.dilation_h == 1 && num_input >= WINOGRAD_MIN_CHANNELS && outch >= WINOGRAD_MIN_CHANNELS && use_winograd(opt))
        {
            if (create_winograd(l.weight_data, outch, num_input, opt) != 0)
                return -1;
        }
        else if (!(weight = upload_weights(opt, l.weight_data, true))) // conv.comp reads them as wfp
            return -1;
        pack4 = 0;
        if (wino_u)
        {
            // packed inputs stay packed (winograd_input.comp reads them)
            pack4 = num_input % 4 == 0 && outch % 4 == 0 ? 1 : 0;
        }
        else if (group == num_input && group == outch && outch % 4 == 0)
            pack4 = 2; // depth-wise
        else if (num_input % group == 0 && inch_g % 4 == 0 && outch_g % 4 == 0)
            pack4 = 1;
        if (pack4 == 1 && !wino_u && group == 1 && taps == 1 && use_switch("KITE_VULKAN_CONV1X1"))
        {
            // the tiled GEMM reads the same weight order (one tap)
            pipe1x1 = pipeline_for(opt, "conv1x1_gemm", 4, 16, 16, 1);
            if (!pipe1x1)
                return -1;
        }
        if (pack4 && !wino_u)
        {
            pipe4 = pipeline_for(opt, "conv_pack4", 4, 8, 8, 1);
            weight4 = upload_pack4(opt, l.weight_data, outch, inch_g, taps, pack4 == 2);
            if (!pipe4 || !weight4)
                return -1;
        }
        return 0;
    }

    // conv_pack4.comp's weights, built at the flush (part by part over the
    // output channel quads): depth-wise [oq][tap] vec4 of channels
    // 4oq..4oq+3; dense/grouped [oq][icl][tap][input lane] vec4 over the
    // output lanes; fp16 in sessions with fp16 storage (wfpvec4)
    static vk::VkBlobPtr upload_pack4(const Option& opt, const Mat& weights, int outch, int inch_g, int taps, bool depthwise)
    {
        const int oqs = outch / 4;
        const size_t per_oq = depthwise ? (size_t)4 * taps : (size_t)4 * inch_g * taps;
        return upload_units(opt, weights, per_oq, (size_t)oqs, true, [=](const float* w, float* d, size_t oq0, size_t oq1) {
            if (depthwise)
            {
                for (size_t oq = oq0; oq < oq1; oq++)
                    for (int t = 0; t < taps; t++)
                    {
                        float* o = d + ((oq - oq0) * taps + t) * 4;
                        const float* s = w + (size_t)oq * 4 * taps + t;
                        o[0] = s[0];
                        o[1] = s[taps];
                        o[2] = s[2 * taps];
                        o[3] = s[3 * taps];
                    }
                return;
            }
            const int inq_g = inch_g / 4;
            const size_t orow = (size_t)inch_g * taps; // one output channel's weights
            for (size_t oq = oq0; oq < oq1; oq++)
            {
                const float* s = w + (size_t)oq * 4 * orow;
                float* o = d + (oq - oq0) * 4 * orow;
                for (int icl = 0; icl < inq_g; icl++)
                    for (int t = 0; t < taps; t++)
                        for (int il = 0; il < 4; il++, o += 4)
                        {
                            const float* c = s + (size_t)(icl * 4 + il) * taps + t;
                            o[0] = c[0];
                            o[1] = c[orow];
                            o[2] = c[2 * orow];
                            o[3] = c[3 * orow];
                        }
            }
        });
    }

    // KITE_VULKAN_CONV1X1=direct keeps dense 1x1 convolutions on the direct
    // shader (for comparisons; the tiled GEMM is the default)
    static bool use_switch(const char* env)
    {
        const char* e = getenv(env);
        return !e || strcmp(e, "direct") != 0;
    }

    // Winograd by default on GPUs; on a CPU device (lavapipe) the direct
    // shader was faster (resnet18 224x224 fp32 here: 15.2 s direct, 21.7 s
    // Winograd), so there it takes KITE_VULKAN_WINOGRAD=on
    static bool use_winograd(const Option& opt)
    {
        const char* e = getenv("KITE_VULKAN_WINOGRAD");
        if (e && strcmp(e, "on") == 0)
            return true;
        if (e && strcmp(e, "direct") == 0)
            return false;
        vk::VulkanDevice* d = vk::VulkanDevice::get(opt.vulkan_device);
        return d && d->props.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;
    }

    enum
    {
        WINOGRAD_MIN_CHANNELS = 16
    };

    // U[k][oc][ic] = (G g G^T)[k] of the 3x3 filter g of (oc, ic), built at
    // the flush (part by part over the output channels); fp16 in sessions
    // with fp16 storage (gemm.comp reads A in the storage type, sums in float)
    int create_winograd(const Mat& weights, int outch, int inch, const Option& opt)
    {
        const size_t n = 16 * (size_t)outch * inch;
        vk::VulkanDevice* d = vk::VulkanDevice::get(opt.vulkan_device);
        Mat keep = weights.refcount ? weights : weights.clone();
        if (!d || keep.empty())
            return -1;
        const bool half = d->variant(opt) != 0;
        wino_half = half;
        const size_t fp = (size_t)vk::VulkanDevice::fill_parts(n * (half ? 2 : 4));
        const int parts = (int)(fp < (size_t)outch ? fp : (size_t)outch);
        wino_u = d->upload_constant(Mat((int)n, (void*)nullptr), half, [keep, outch, inch, half](void* dst, int part, int nparts) {
            const int o0 = (int)((size_t)outch * part / nparts), o1 = (int)((size_t)outch * (part + 1) / nparts);
            const float* w = (const float*)keep.data;
            if (!half)
            {
                winograd23_transform_filters_range(w, outch, inch, (float*)dst, o0, o1);
                return;
            }
            // the part's filters as [16][o1 - o0][inch], then each of the 16
            // slabs into its place of [16][outch][inch] as fp16
            const int no = o1 - o0;
            const size_t slab = (size_t)no * inch;
            std::vector<float> tmp(16 * slab);
            winograd23_transform_filters_range(w + (size_t)o0 * inch * 9, no, inch, tmp.data(), 0, no);
            for (int k = 0; k < 16; k++)
                float32_to_float16_n(tmp.data() + k * slab, (unsigned short*)dst + ((size_t)k * outch + o0) * inch, slab);
        }, parts);
        wino_in = pipeline_for(opt, "winograd_input", 2, 64, 1, 1);
        wino_out = pipeline_for(opt, "winograd_output", 3, 64, 1, 1);
        wino_gemm = pipeline_for(opt, "gemm", 4, 16, 16, 1);
        return wino_u && wino_in && wino_out && wino_gemm ? 0 : -1;
    }

    template <class L>
    int forward_winograd(const L& l, vk::Session& s, const GpuBlobPtr& input, const vk::VkBlobPtr& top, const int* pads,
                         const Activation& act) const
    {
        const Mat& in = input->shape;
        const Mat& o = top->shape;
        const int inch = in.c * in.elempack, outch = o.c * o.elempack;
        const int tw = (o.w + 1) / 2, th = (o.h + 1) / 2, nt = tw * th;
        // V and M are float buffers in every session (see winograd_input.comp)
        const int f = (int)(4 / s.elemsize());
        vk::VkBlobPtr v = s.create_blob(1, 16 * inch * nt * f, 1, 1, 1);
        vk::VkBlobPtr m = s.create_blob(1, 16 * outch * nt * f, 1, 1, 1);
        if (!v || !m)
            return -100;
        struct
        {
            int w, h, c, ip;
            int tw, th, pl, pt;
            float pad_value;
        } pin = {in.w, in.h, inch, in.elempack, tw, th, pads[0], pads[2], l.pad_value};
        int ret = s.dispatch(wino_in, {blob_of(input), v.get()}, &pin, sizeof(pin), nt, inch, 1);
        if (ret != 0)
            return ret;
        GemmOp g = {};
        g.M = outch;
        g.N = nt;
        g.K = inch;
        g.a_bs = outch * inch;
        g.a_rs = inch;
        g.a_cs = 1;
        g.a_f32 = wino_half ? 0 : 1;
        g.b_bs = inch * nt;
        g.b_rs = nt;
        g.b_cs = 1;
        g.b_f32 = 1;
        g.o_f32 = 1;
        g.o_bs = outch * nt;
        g.o_rs = nt;
        g.o_cs = 1;
        g.alpha = 1.f;
        ret = record_gemm(s, wino_gemm, wino_u.get(), v.get(), nullptr, m.get(), g, 16);
        if (ret != 0)
            return ret;
        struct
        {
            int outw, outh, outc, op;
            int tw, th, bias_term, act;
            float p0, p1;
        } pout = {o.w, o.h, outch, o.elempack, tw, th, l.bias_term, act.type, act.p0, act.p1};
        return s.dispatch(wino_out, {m.get(), bias.get(), top.get()}, &pout, sizeof(pout), nt, outch, 1);
    }

    // the scales and numerics of Convolution::forward_int8
    template <class L>
    int create_int8(const L& l, const Option& opt)
    {
        const int n = l.num_output;
        const int maxk = l.kernel_w * l.kernel_h;
        const int inch_g = l.weight_data_size / (n * maxk);
        const int channels = inch_g * l.group;
        const bool requant = l.int8_scale_term > 100;
        const bool packed_dw = l.grouped && opt.use_packing_layout && channels == l.group && l.group == n && channels % 8 == 0;
        int8_numerics = CONV_INT8_FMA_BIAS | CONV_INT8_ROUND_ADDHALF;
        if (l.grouped)
            int8_numerics = packed_dw ? CONV_INT8_ROUND_ADDHALF : 0;
        const int outch_g = n / l.group;
        std::vector<float> scale_in(n), scale_out(n), bottom(n);
        for (int p = 0; p < n; p++)
        {
            const int gi = l.grouped ? p / outch_g : 0;
            const float wscale = l.weight_data_int8_scales[l.grouped ? gi : p];
            const float bs = l.bottom_blob_int8_scales[gi];
            scale_in[p] = packed_dw ? int8_dequant_scale_rcp(bs, wscale) : int8_dequant_scale(bs, wscale);
            scale_out[p] = requant ? l.top_blob_int8_scales[gi] : 1.f;
            bottom[p] = bs;
        }
        bias = upload_int8_args(opt, n, l.bias_term ? (const float*)l.bias_data : nullptr, scale_in, scale_out, bottom);
        const int group = l.grouped ? l.group : 1;
        int8_mode = 0;
        if (group == 1)
            int8_mode = 1;
        else if (group == channels && group == n)
            int8_mode = 2;
        else if (inch_g % 4 == 0 && outch_g % 4 == 0)
            int8_mode = 1;
        if (int8_mode == 0 || l.weight_data.elemsize != 1u || (size_t)l.weight_data_size != (size_t)n * inch_g * maxk)
        {
            int8_mode = 0;
            pipe = pipeline_for(opt, "int8conv", 4, 8, 8, 1);
            weight = upload_int8_weights(opt, l.weight_data);
            return pipe && weight && bias ? 0 : -1;
        }
        int8_inq_g = int8_mode == 2 ? 1 : (inch_g + 3) / 4;
        int8_outq = (n + 3) / 4;
        int8_cpg = l.grouped ? inch_g : channels;
        Mat qs(l.grouped ? l.group : 1);
        if (qs.empty())
            return -100;
        for (int g = 0; g < qs.w; g++)
            qs[g] = l.bottom_blob_int8_scales[g];
        quant = pipeline_for(opt, "int8quant", 3, 64, 1, 1);
        qscales = upload_weights(opt, qs);
        // the tiled GEMM for dense layers and grouped ones with at least
        // INT8_GEMM_MIN_GROUP_QUADS output quads per group (fewer would
        // leave most of a tile's rows empty); depth-wise stays direct
        if (int8_mode == 1 && (group == 1 || outch_g / 4 >= INT8_GEMM_MIN_GROUP_QUADS) && int8_gemm_choice() != 0)
        {
            int8_dot = use_int8_dot(opt, "int8conv_gemm");
            if (int8_dot)
            {
                int8_gemm16 = pipeline_for(opt, "int8conv_gemm_dot4", 4, 16, 16, 1);
                int8_gemm8 = pipeline_for(opt, "int8conv_gemm_dot4", 4, 8, 8, 1);
                // a driver that lists the feature but cannot build the
                // shader: the portable one
                int8_dot = int8_gemm16 && int8_gemm8;
            }
            if (!int8_dot)
            {
                int8_gemm16 = pipeline_for(opt, "int8conv_gemm", 4, 16, 16, 1);
                int8_gemm8 = pipeline_for(opt, "int8conv_gemm", 4, 8, 8, 1);
            }
            int8_splitk = pipeline_for(opt, "int8conv_splitk", 3, 64, 1, 1);
            vk::VulkanDevice* d = vk::VulkanDevice::get(opt.vulkan_device);
            int8_cpu_device = d && d->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
            weight = upload_int8_gemm(opt, l.weight_data, n, inch_g, maxk, int8_dot);
            return quant && int8_gemm16 && int8_gemm8 && int8_splitk && weight && bias && qscales ? 0 : -1;
        }
        pipe = pipeline_for(opt, "int8conv_q", 4, 4, 4, 4);
        weight = upload_int8_packed(opt, l.weight_data, n, inch_g, maxk, int8_mode == 2);
        return quant && pipe && weight && bias && qscales ? 0 : -1;
    }

    enum
    {
        INT8_GEMM_MIN_GROUP_QUADS = 8,
        // below this many 64 x 64 tiles the 32 x 32 ones run (4 times as
        // many work groups of a quarter of the invocations: the same
        // invocations, spread over more of a large GPU's multiprocessors)
        INT8_GEMM_SMALL_TILES_BELOW = 256,
        // split K where the work groups are fewer than this (up to it), each
        // split at least INT8_SPLITK_MIN_STEPS steps of 4 K pairs, at most
        // INT8_SPLITK_MAX splits
        INT8_SPLITK_GROUPS = 512,
        INT8_SPLITK_MIN_STEPS = 32,
        INT8_SPLITK_MAX = 32
    };

    // K splits of a layer with `wgs` work groups and `steps` steps of 4 K
    // pairs; KITE_VULKAN_INT8SPLITK=N forces N (1: none)
    static int int8_splits(uint32_t wgs, int steps, bool cpu_device)
    {
        const char* e = getenv("KITE_VULKAN_INT8SPLITK");
        int n = e ? atoi(e) : 0;
        if (n <= 0 && cpu_device)
            n = 1;
        if (n <= 0)
        {
            n = steps / INT8_SPLITK_MIN_STEPS;
            const int by_groups = (int)(INT8_SPLITK_GROUPS / (wgs ? wgs : 1));
            n = n < by_groups ? n : by_groups;
            n = n < INT8_SPLITK_MAX ? n : INT8_SPLITK_MAX;
        }
        n = n < steps ? n : steps;
        return n > 1 ? n : 1;
    }

    // KITE_VULKAN_INT8GEMM: unset (default) the tiled GEMM with the tile size
    // chosen by the layer's size (on a GPU; a CPU device takes 16); "direct" int8conv_q.comp (read when the
    // layer is made; for comparisons); "16" / "8" one tile size (read at
    // each forward)
    static int int8_gemm_choice()
    {
        const char* e = getenv("KITE_VULKAN_INT8GEMM");
        if (!e)
            return -1;
        if (strcmp(e, "direct") == 0)
            return 0;
        if (strcmp(e, "16") == 0)
            return 16;
        if (strcmp(e, "8") == 0)
            return 8;
        return -1;
    }

    // int8conv_gemm.comp's weights, 4 int8 per uint: word ((oq * taps +
    // tap) * inq_g + icq) * 4 + l holds the weights of output channels
    // 4oq..4oq+3 (byte j) for input lane l of the group's quad icq (0 beyond
    // the channel counts), built at the flush part by part over the output
    // quads; `dot` (int8conv_gemm_dot4): each 4 x 4 block transposed, word
    // ... * 4 + j holds output channel 4oq + j's weights of the 4 input lanes
    static vk::VkBlobPtr upload_int8_gemm(const Option& opt, const Mat& weights, int outch, int inch_g, int taps, bool dot)
    {
        const int oqs = (outch + 3) / 4;
        const int inq_g = (inch_g + 3) / 4;
        const size_t words = (size_t)oqs * taps * inq_g * 4;
        return upload_layout<signed char>(opt, weights, words, (size_t)oqs, [=](const signed char* w, float* dst, size_t oq0, size_t oq1) {
            uint32_t* d = (uint32_t*)dst;
            for (size_t oq = oq0; oq < oq1; oq++)
                for (int t = 0; t < taps; t++)
                    for (int icq = 0; icq < inq_g; icq++)
                        for (int a = 0; a < 4; a++) // the word of the block: input lane (dot: output lane)
                        {
                            uint32_t u = 0;
                            for (int b = 0; b < 4; b++) // its byte: output lane (dot: input lane)
                            {
                                const int oc = (int)oq * 4 + (dot ? a : b), ic = icq * 4 + (dot ? b : a);
                                if (oc < outch && ic < inch_g)
                                    u |= (uint32_t)(uint8_t)w[((size_t)oc * inch_g + ic) * taps + t] << (8 * b);
                            }
                            d[((oq * taps + t) * inq_g + icq) * 4 + a] = u;
                        }
        });
    }

    // int8conv_q.comp's weights, 4 int8 per uint (see the shader), built at
    // the flush part by part over the output quads
    static vk::VkBlobPtr upload_int8_packed(const Option& opt, const Mat& weights, int outch, int inch_g, int taps, bool depthwise)
    {
        const int oqs = (outch + 3) / 4;
        const int inq_g = depthwise ? 1 : (inch_g + 3) / 4;
        const size_t words = depthwise ? (size_t)oqs * taps : (size_t)oqs * inq_g * taps * 4;
        return upload_layout<signed char>(opt, weights, words, (size_t)oqs, [=](const signed char* w, float* dst, size_t oq0, size_t oq1) {
            uint32_t* d = (uint32_t*)dst;
            // weight (oc, ic of the group, tap) as the byte of lane j, 0 outside
            auto byte = [&](int oc, int ic, int t, int j) -> uint32_t {
                if (oc >= outch || ic >= inch_g)
                    return 0u;
                return (uint32_t)(uint8_t)w[((size_t)oc * inch_g + ic) * taps + t] << (8 * j);
            };
            for (size_t oq = oq0; oq < oq1; oq++)
            {
                const int oc0 = (int)oq * 4;
                if (depthwise)
                {
                    for (int t = 0; t < taps; t++)
                    {
                        uint32_t u = 0;
                        for (int j = 0; j < 4; j++)
                            u |= byte(oc0 + j, 0, t, j);
                        d[oq * taps + t] = u;
                    }
                    continue;
                }
                for (int icq = 0; icq < inq_g; icq++)
                    for (int t = 0; t < taps; t++)
                        for (int il = 0; il < 4; il++)
                        {
                            uint32_t u = 0;
                            for (int j = 0; j < 4; j++)
                                u |= byte(oc0 + j, icq * 4 + il, t, j);
                            d[((oq * inq_g + icq) * taps + t) * 4 + il] = u;
                        }
            }
        });
    }

    void destroy()
    {
        weight.reset();
        weight4.reset();
        wino_u.reset();
        bias.reset();
        qscales.reset();
    }

    // quantize the input once (int8quant.comp: 4 channels per uint), then
    // int8conv_q.comp; the input may be elempack 1, 4 or 8 (a packed one
    // holding int8 values is read directly: one dispatch)
    template <class L>
    int forward_int8_packed(const L& l, vk::Session& s, const GpuBlobPtr& input, int w, int h, int c, const vk::VkBlobPtr& top,
                            const int* pads, const Activation& act) const
    {
        const Mat& o = top->shape;
        const int outw = o.dims == 1 ? 1 : o.w, outh = o.dims == 1 ? 1 : o.h;
        const int op = o.elempack;
        const int ep = input->shape.dims == 3 ? input->shape.elempack : 1;
        const int quads = (c + 3) / 4;
        // a packed input that holds int8 values already (a requantized
        // output) is read as it is; others are quantized into q first
        const bool direct = blob_of(input)->int8 && (ep == 4 || ep == 8);
        vk::VkBlobPtr q;
        int ret = 0;
        if (!direct)
        {
            const int f = (int)(4 / s.elemsize()); // uints in a blob of the session's scalars
            q = s.create_blob(1, quads * w * h * f, 1, 1, 1);
            if (!q)
                return -100;
            struct
            {
                int plane, c, ep, quads, cpg, in_int8, in_f32;
            } pq = {w * h, c, ep, quads, int8_cpg, blob_of(input)->int8 ? 1 : 0, blob_of(input)->f32 ? 1 : 0};
            ret = s.dispatch(quant, {blob_of(input), qscales.get(), q.get()}, &pq, sizeof(pq), w * h, quads, 1);
            if (ret != 0)
                return ret;
        }
        const bool requant = l.int8_scale_term > 100;
        const uint32_t pad8 = (uint8_t)pad_value_int8(l.pad_value);
        struct
        {
            int w, h, outw, outh, outc, outq;
            int kw, kh, dlw, dlh, sw, sh, pl, pt;
            int inq_g, outq_g, dw_mode, direct;
            int act;
            float p0, p1;
            uint32_t pad_word;
            int numerics, requant, op;
            int isub, of32;
        } pc = {w, h, outw, outh, l.num_output, int8_outq, l.kernel_w, l.kernel_h, l.dilation_w, l.dilation_h, l.stride_w, l.stride_h,
                pads[0], pads[2], int8_inq_g, int8_mode == 2 ? 1 : int8_outq / (l.grouped ? l.group : 1), int8_mode == 2 ? 1 : 0,
                direct ? 1 : 0, act.type, act.p0, act.p1, pad8 * 0x01010101u, int8_numerics, requant ? 1 : 0, op, ep / 4, top->f32 ? 1 : 0};
        const vk::VkBlob* src = direct ? blob_of(input) : q.get();
        if (int8_gemm16)
        {
            const int group = l.grouped ? l.group : 1;
            struct
            {
                int w, h, outw, outh, outc;
                int kw, kh, dlw, dlh, sw, sh, pl, pt;
                int inq_g, outq_g, direct, isub;
                int act;
                float p0, p1;
                uint32_t pad_word;
                int numerics, requant, op;
                int groups, splits, kchunk, of32;
            } pg = {w, h, outw, outh, l.num_output, l.kernel_w, l.kernel_h, l.dilation_w, l.dilation_h, l.stride_w, l.stride_h,
                    pads[0], pads[2], int8_inq_g, int8_outq / group, direct ? 1 : 0, ep / 4, act.type, act.p0, act.p1,
                    pad8 * 0x01010101u, int8_numerics, requant ? 1 : 0, op, group, 1, 0, top->f32 ? 1 : 0};
            const uint32_t n = (uint32_t)(outw * outh), oq_g = (uint32_t)(int8_outq / group);
            int t = int8_gemm_choice();
            if (t != 8 && t != 16 && int8_cpu_device)
                t = 16;
            if (t != 8 && t != 16)
                t = ((n + 63) / 64) * ((oq_g + 15) / 16) * (uint32_t)group < INT8_GEMM_SMALL_TILES_BELOW ? 8 : 16;
            // t x t invocations, each 4 output channels at 4 pixels
            const uint32_t tiles_n = (n + 4 * t - 1) / (4 * t), tiles_m = (oq_g + t - 1) / t;
            // K pairs (tap, input quad) in steps of 4; split where the tiles
            // are few and K long (the deep layers of small maps)
            const int kq_total = int8_inq_g * l.kernel_w * l.kernel_h;
            const int steps = (kq_total + 3) / 4;
            int splits = int8_splits(tiles_n * tiles_m * (uint32_t)group, steps, int8_cpu_device);
            pg.kchunk = (steps + splits - 1) / splits * 4;
            splits = (kq_total + pg.kchunk - 1) / pg.kchunk; // none empty
            pg.splits = splits;
            const vk::Pipeline* gp = t == 16 ? int8_gemm16 : int8_gemm8;
            if (splits == 1)
            {
                ret = s.dispatch(gp, {src, weight.get(), bias.get(), top.get()}, &pg, sizeof(pg), tiles_n * t, tiles_m * t,
                                 (uint32_t)group);
            }
            else
            {
                const int f = (int)(4 / s.elemsize()); // int32 values in a blob of the session's scalars
                vk::VkBlobPtr part = s.create_blob(1, splits * l.num_output * (int)n * f, 1, 1, 1);
                if (!part)
                    return -100;
                ret = s.dispatch(gp, {src, weight.get(), bias.get(), part.get()}, &pg, sizeof(pg), tiles_n * t, tiles_m * t,
                                 (uint32_t)(group * splits));
                struct
                {
                    int plane, outc, splits, op;
                    int act;
                    float p0, p1;
                    int numerics, requant, of32;
                } pf = {(int)n, l.num_output, splits, op, act.type, act.p0, act.p1, int8_numerics, requant ? 1 : 0, top->f32 ? 1 : 0};
                if (ret == 0)
                    ret = s.dispatch(int8_splitk, {part.get(), bias.get(), top.get()}, &pf, sizeof(pf), n, (uint32_t)l.num_output, 1);
            }
            if (ret != 0)
                return ret;
            top->int8 = requant;
            return 0;
        }
        // 4 x positions per invocation (int8conv_q.comp's NX)
        ret = s.dispatch(pipe, {src, weight.get(), bias.get(), top.get()}, &pc, sizeof(pc), (outw + 3) / 4, outh, int8_outq);
        if (ret != 0)
            return ret;
        top->int8 = requant;
        return 0;
    }

    template <class L>
    int forward(const L& l, int group, const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session) const
    {
        vk::Session& s = session_of(session);
        GpuBlobPtr input = bottoms[0];
        // an fp32 blob (an int8 layer's dequantized output under fp16
        // storage) goes to the quantizer as it is; the float kernels and
        // int8conv.comp read the session's storage type
        if (blob_of(input)->f32 && !(int8 && int8_mode))
        {
            int ret = s.cast_to_storage(bottoms[0], input);
            if (ret != 0)
                return ret;
        }
        if (input->shape.elempack != 1 && !(pack4 && input->shape.dims == 3) && !(int8_mode && input->shape.dims == 3))
        {
            int ret = s.convert_packing(GpuBlobPtr(input), input, 1);
            if (ret != 0)
                return ret;
        }
        const Mat& in = input->shape;
        const int ip = in.elempack;
        const int outch = l.num_output;
        const int num_input = l.weight_data_size / (outch / group * l.kernel_w * l.kernel_h) ;
        // a flat vector with a 1x1 kernel is a 1x1xC image (as the reference)
        int w = in.w, h = in.h, c = in.c * ip;
        bool flat = in.dims == 1 && l.kernel_w == 1 && l.kernel_h == 1 && in.w == num_input;
        if (flat)
        {
            w = 1;
            h = 1;
            c = in.w;
        }
        else if (in.dims != 3)
        {
            KITE_LOGE("%s '%s': the Vulkan driver takes a 3-D input, got dims %d", l.type.c_str(), l.name.c_str(), in.dims);
            return -1;
        }
        if (c != num_input || c % group != 0)
        {
            KITE_LOGE("%s '%s': input has %d channels, the weights expect %d", l.type.c_str(), l.name.c_str(), c, num_input);
            return -1;
        }
        const int extents[2] = {conv_kernel_extent(l.kernel_w, l.dilation_w), conv_kernel_extent(l.kernel_h, l.dilation_h)};
        int pads[4];
        l.resolve_pads_2d(w, h, pads);
        const int spanw = w + pads[0] + pads[1] - extents[0];
        const int spanh = h + pads[2] + pads[3] - extents[1];
        if (spanw < 0 || spanh < 0)
        {
            KITE_LOGE("%s '%s': input %dx%d is smaller than the kernel extent", l.type.c_str(), l.name.c_str(), w, h);
            return -1;
        }
        const int outw = spanw / l.stride_w + 1;
        const int outh = spanh / l.stride_h + 1;
        // packed inputs give outputs packed by 8 where the session takes that
        // and the channels allow, else by 4 (every packed mode has outch % 4 == 0)
        int op = ip == 1 ? 1 : (s.elempack_limit() >= 8 && outch % 8 == 0 ? 8 : 4);
        if (int8_mode && !flat)
            op = s.elempack_limit() >= 8 && outch % 8 == 0 ? 8 : (s.elempack_limit() >= 4 && outch % 4 == 0 ? 4 : 1);
        // a packed int8 layer's dequantized (float) output stays fp32 under
        // fp16 storage (VkBlob::f32): the next int8 layer quantizes it as
        // the CPU does (rounded to fp16 first, a value may move by one step)
        const bool out_f32 = int8 && int8_mode && l.int8_scale_term <= 100 && s.elemsize() == 2;
        vk::VkBlobPtr top = flat ? s.create_blob(1, outch, 1, 1, 1, 1, out_f32) : s.create_blob(3, outw, outh, 1, outch / op, op, out_f32);
        if (!top)
            return -100;
        const Activation act(l.activation_type, l.activation_params);
        if (int8 && int8_mode)
        {
            int ret = forward_int8_packed(l, s, input, w, h, c, top, pads, act);
            if (ret == 0)
                tops[0] = top;
            return ret;
        }
        if (int8)
        {
            const bool requant = l.int8_scale_term > 100;
            const int ocb = (outch / group) % 4 == 0 ? 4 : 1;
            struct
            {
                int w, h, c, outw, outh, outc;
                int kw, kh, dw, dh, sw, sh, pl, pt;
                int group, act;
                float p0, p1;
                int pad_q, in_int8, numerics, requant, ocb;
            } pc = {w, h, c, outw, outh, outch, l.kernel_w, l.kernel_h, l.dilation_w, l.dilation_h, l.stride_w, l.stride_h,
                    pads[0], pads[2], group, act.type, act.p0, act.p1, (int)pad_value_int8(l.pad_value),
                    blob_of(input)->int8 ? 1 : 0, int8_numerics, requant ? 1 : 0, ocb};
            int ret = s.dispatch(pipe, {blob_of(input), weight.get(), bias.get(), top.get()}, &pc, sizeof(pc), outw, outh, outch / ocb);
            if (ret != 0)
                return ret;
            top->int8 = requant;
            tops[0] = top;
            return 0;
        }
        if (wino_u && !flat)
        {
            int ret = forward_winograd(l, s, input, top, pads, act);
            if (ret == 0)
                tops[0] = top;
            return ret;
        }
        if (ip != 1 && pipe1x1 && pads[0] == 0 && pads[1] == 0 && pads[2] == 0 && pads[3] == 0)
        {
            struct
            {
                int w, h, c4, outw, outh, outc4;
                int sw, sh, bias_term, act;
                float p0, p1;
                int isub, osub;
            } pc = {w, h, c / 4, outw, outh, outch / 4, l.stride_w, l.stride_h, l.bias_term, act.type, act.p0, act.p1, ip / 4, op / 4};
            const uint32_t tiles_n = (uint32_t)(outw * outh + 63) / 64, tiles_m = (uint32_t)(outch / 4 + 15) / 16;
            int ret = s.dispatch(pipe1x1, {blob_of(input), weight4.get(), bias.get(), top.get()}, &pc, sizeof(pc),
                                 tiles_n * 16, tiles_m * 16, 1);
            if (ret != 0)
                return ret;
            tops[0] = top;
            return 0;
        }
        if (ip != 1)
        {
            struct
            {
                int w, h, c4, outw, outh, outc4;
                int kw, kh, dw, dh, sw, sh, pl, pt;
                int group, bias_term, act;
                float p0, p1, pad_value;
                int dw_mode, nx;
                int isub, osub;
            } pc = {w, h, c / 4, outw, outh, outch / 4, l.kernel_w, l.kernel_h, l.dilation_w, l.dilation_h, l.stride_w, l.stride_h,
                    pads[0], pads[2], group, l.bias_term, act.type, act.p0, act.p1, l.pad_value, pack4 == 2, outw >= 4 ? 4 : 1,
                    ip / 4, op / 4};
            int ret = s.dispatch(pipe4, {blob_of(input), weight4.get(), bias.get(), top.get()}, &pc, sizeof(pc),
                                 (outw + pc.nx - 1) / pc.nx, outh, outch / 4);
            if (ret != 0)
                return ret;
            tops[0] = top;
            return 0;
        }
        struct
        {
            int w, h, c, outw, outh, outc;
            int kw, kh, dw, dh, sw, sh, pl, pt;
            int group, bias_term, act;
            float p0, p1, pad_value;
            int ocb;
        } pc = {w, h, c, outw, outh, outch, l.kernel_w, l.kernel_h, l.dilation_w, l.dilation_h, l.stride_w, l.stride_h,
                pads[0], pads[2], group, l.bias_term, act.type, act.p0, act.p1, l.pad_value,
                (outch / group) >= 4 ? 4 : 1};
        // z: every group's blocks of up to ocb channels (conv.comp)
        const int blocks = group * ((outch / group + pc.ocb - 1) / pc.ocb);
        int ret = s.dispatch(pipe, {blob_of(input), weight.get(), bias.get(), top.get()}, &pc, sizeof(pc), outw, outh, blocks);
        if (ret != 0)
            return ret;
        tops[0] = top;
        return 0;
    }
};

} // namespace vkl
} // namespace kite

#endif // KITE_LAYER_VULKAN_CONV_VULKAN_H
