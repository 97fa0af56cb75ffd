// InnerProduct for the CPU, fp32: one input vector is a matrix-vector product
// (four outputs at a time, vectorised along the inputs); a dims-2 input of
// rows is a matrix product through the packed SGEMM with the weights packed
// once in create_pipeline. fp16 weights (Option::use_fp16_weights or
// use_fp16_storage, on ISA levels that convert fp16 in one instruction: F16C,
// aarch64 NEON): panels of rows in fp16, converted as they are read (the
// matrix-vector product reads half the bytes), converted block by block for
// rows >= 4; ncnn's x86 InnerProduct does the same under use_fp16_storage. int8: the input quantized as the reference does,
// int32 sums from the int8 matrix-vector kernel (vpdpbusd on the VNNI rows,
// pmaddwd otherwise), the reference's epilogue.
#include "innerproduct.h"
#include "gpu/cpu_fallback.h"

#include "common/activation.h"
#include "common/conv_kernel.h"
#include "common/int8.h"
#include "x86/conv_int8_vnni_x86.h"
#include "cpu/conv_int8_cpu.h"
#include "cpu/conv_vec_cpu.h"
#include "cpu.h"
#include "log.h"
#include "cpu/sgemm_cpu.h"

#include <algorithm>
#include <cstdint>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace kite {
namespace KITE_ISA_NS {

namespace {
float apply_activation(float v, const void* ctx)
{
    return (*(const Activation*)ctx)(v);
}

// dot products of x with four weight rows
static inline void dot4(const float* x, const float* w0, const float* w1, const float* w2, const float* w3, int n,
                        float* out)
{
    typedef simd::VF<kMaxPack> V;
    const int W = kMaxPack;
    typename V::T a0 = V::zero(), a1 = V::zero(), a2 = V::zero(), a3 = V::zero();
    int i = 0;
    for (; i + W <= n; i += W)
    {
        const typename V::T xv = V::load(x + i);
        a0 = V::fmadd(xv, V::load(w0 + i), a0);
        a1 = V::fmadd(xv, V::load(w1 + i), a1);
        a2 = V::fmadd(xv, V::load(w2 + i), a2);
        a3 = V::fmadd(xv, V::load(w3 + i), a3);
    }
    float s0 = V::reduce_add(a0), s1 = V::reduce_add(a1), s2 = V::reduce_add(a2), s3 = V::reduce_add(a3);
    for (; i < n; i++)
    {
        s0 += x[i] * w0[i];
        s1 += x[i] * w1[i];
        s2 += x[i] * w2[i];
        s3 += x[i] * w3[i];
    }
    out[0] = s0;
    out[1] = s1;
    out[2] = s2;
    out[3] = s3;
}

// the OS may take back the whole pages in [p, p + n): their contents are no
// longer needed (the buffer itself stays allocated and is freed as usual)
static inline void discard_pages(void* p, size_t n)
{
#if defined(__linux__)
    static const long page_size = sysconf(_SC_PAGESIZE);
    if (page_size <= 0)
        return;
    const uintptr_t page = (uintptr_t)page_size;
    const uintptr_t b = ((uintptr_t)p + page - 1) & ~(page - 1), e = ((uintptr_t)p + n) & ~(page - 1);
    if (e > b)
        madvise((void*)b, e - b, MADV_DONTNEED);
#else
    (void)p;
    (void)n;
#endif
}

// y[m] = W(m, :) . x for the rows of one vector-rows panel (A's layout
// [k][2 vectors of rows]): the weights stream through once, x broadcast
static inline void gemv_panel(const float* a, const float* x, int K, float* y)
{
    typedef simd::VF<kVecWidth> V;
    const int W = kVecWidth;
    typename V::T a0 = V::zero(), a1 = V::zero(), b0 = V::zero(), b1 = V::zero();
    int k = 0;
    for (; k + 2 <= K; k += 2)
    {
        const typename V::T x0 = V::set1(x[k]), x1 = V::set1(x[k + 1]);
        a0 = V::fmadd(x0, V::load(a + (size_t)k * 2 * W), a0);
        a1 = V::fmadd(x0, V::load(a + (size_t)k * 2 * W + W), a1);
        b0 = V::fmadd(x1, V::load(a + (size_t)(k + 1) * 2 * W), b0);
        b1 = V::fmadd(x1, V::load(a + (size_t)(k + 1) * 2 * W + W), b1);
    }
    for (; k < K; k++)
    {
        const typename V::T x0 = V::set1(x[k]);
        a0 = V::fmadd(x0, V::load(a + (size_t)k * 2 * W), a0);
        a1 = V::fmadd(x0, V::load(a + (size_t)k * 2 * W + W), a1);
    }
    V::store(y, V::add(a0, b0));
    V::store(y + W, V::add(a1, b1));
}

#if KITE_SIMD_F16C
// fp16 weights: panels of kRowsF16 rows, [k][kRowsF16] values each (rows past
// num_output are zero), converted as they are loaded
static const int kRowsF16 = 2 * kVecWidth;

// gemv_panel on one fp16 panel
static inline void gemv_panel_f16(const unsigned short* a, const float* x, int K, float* y)
{
    typedef simd::VF<kVecWidth> V;
    const int W = kVecWidth, R = kRowsF16;
    typename V::T a0 = V::zero(), a1 = V::zero(), b0 = V::zero(), b1 = V::zero();
    int k = 0;
    for (; k + 2 <= K; k += 2)
    {
        const typename V::T x0 = V::set1(x[k]), x1 = V::set1(x[k + 1]);
        a0 = V::fmadd(x0, V::load(a + (size_t)k * R), a0);
        a1 = V::fmadd(x0, V::load(a + (size_t)k * R + W), a1);
        b0 = V::fmadd(x1, V::load(a + (size_t)(k + 1) * R), b0);
        b1 = V::fmadd(x1, V::load(a + (size_t)(k + 1) * R + W), b1);
    }
    for (; k < K; k++)
    {
        const typename V::T x0 = V::set1(x[k]);
        a0 = V::fmadd(x0, V::load(a + (size_t)k * R), a0);
        a1 = V::fmadd(x0, V::load(a + (size_t)k * R + W), a1);
    }
    V::store(y, V::add(a0, b0));
    V::store(y + W, V::add(a1, b1));
}

// panels [p0, p1) of the row-major fp32 weights w (M x K) into dst
static inline void pack_f16_panels(const float* w, int M, int K, unsigned short* dst, int p0, int p1)
{
    typedef simd::VF<kVecWidth> V;
    const int W = kVecWidth, R = kRowsF16;
    float col[kRowsF16];
    for (int p = p0; p < p1; p++)
    {
        const int rows = std::min(R, M - p * R);
        const float* wp = w + (size_t)p * R * K;
        unsigned short* d = dst + (size_t)p * R * K;
        for (int r = rows; r < R; r++)
            col[r] = 0.f;
        for (int k = 0; k < K; k++)
        {
            for (int r = 0; r < rows; r++)
                col[r] = wp[(size_t)r * K + k];
            V::store(d + (size_t)k * R, V::load(col));
            V::store(d + (size_t)k * R + W, V::load(col + W));
        }
    }
}
#endif
} // namespace

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

class InnerProduct_cpu : public InnerProduct
{
public:
    bool accept() const override
    {
        return true;
    }

    const char* kernel_path() const override
    {
        if (weight_data.elemsize == 1u)
            return int8_kernel_name(isa);
        if (!weight_f16.empty())
            return "gemv-fp16";
        return packed_weight.M != 0 ? "sgemm" : "reference";
    }

    int create_pipeline(const Option& opt) override
    {
        // a second create_pipeline after light mode released the weights
        if (weights_released && weight_data.empty())
        {
            weight_data = loaded_weights();
            if (weight_data.empty())
                return -100;
        }
        weights_released = false;
        weight_f16.release();
        int ret = InnerProduct::create_pipeline(opt);
        act = Activation(activation_type, activation_params);
        if (ret != 0 || weight_data.elemsize != 4u)
            return ret;
        const int num_input = weight_data_size / num_output;
#if KITE_SIMD_F16C
        if (opt.use_fp16_weights || opt.use_fp16_storage)
        {
            packed_weight = PackedA();
            return create_pipeline_f16(opt, num_input);
        }
#endif
        // vector rows: y is written transposed (crs == 1) below
        if (!pack_a_begin(num_output, num_input, packed_weight, true))
            return -100; // out of memory
        const MatView w{(const float*)weight_data, num_input, 1};
        // light mode, weights this layer alone holds (loaded from a file or
        // stream, not a mapping or the caller's buffer): the pages of the rows
        // already packed go back to the OS as the packing proceeds, so the two
        // copies of a large layer are never both resident (vgg16's fc6:
        // 411 MB each)
        const bool discard = opt.lightmode && packed_weight.vec_rows && packed_weight.mr() == 2 * kVecWidth
                             && weight_data.refcount && *weight_data.refcount == 1 && !weight_data.allocator;
        const int panels = packed_weight.panels(), mr = packed_weight.mr();
        const size_t row_bytes = (size_t)num_input * sizeof(float);
        // about 4 MB of rows at a time
        const int step = discard ? std::max(1, (int)((4u << 20) / std::max((size_t)1, row_bytes * mr))) : panels;
        for (int p0 = 0; p0 < panels; p0 += step)
        {
            const int p1 = std::min(panels, p0 + step);
            pack_a_panels(w, packed_weight, p0, p1);
            if (discard)
                discard_pages(weight_data.data, std::min((size_t)p1 * mr, (size_t)num_output) * row_bytes);
        }
        // light mode (as ncnn's create_pipeline): where the packed panels also
        // serve the matrix-vector rows (the vector-rows layout, x86), the
        // loaded weights go; the reference fallback and a later
        // create_pipeline rebuild them from the panels (loaded_weights)
        if (opt.lightmode && packed_weight.vec_rows && packed_weight.mr() == 2 * kVecWidth)
        {
            weight_data.release();
            weights_released = true;
        }
        return 0;
    }

    Mat loaded_weights() const override
    {
        if (!weights_released)
            return weight_data;
        Mat w(weight_data_size, (size_t)4u);
        if (w.empty())
            return w;
        if (!weight_f16.empty())
        {
            // the fp16 panels, rounded values
            const int K = weight_data_size / num_output, R = f16_rows();
            const unsigned short* h = (const unsigned short*)weight_f16.data;
            float* d = w;
            for (int m = 0; m < num_output; m++)
                for (int k = 0; k < K; k++)
                    d[(size_t)m * K + k] = float16_to_float32(h[((size_t)(m / R) * K + k) * R + m % R]);
            return w;
        }
        unpack_a(packed_weight, w, packed_weight.K, 1);
        return w;
    }

    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override
    {
        if (weight_data.elemsize == 1u)
            return forward_int8(bottom_blob, top_blob, opt);
#if KITE_SIMD_F16C
        if (!weight_f16.empty())
            return forward_f16(bottom_blob, top_blob, opt);
#endif
        if (packed_weight.M == 0 || bottom_blob.elempack != 1 || bottom_blob.elemsize != 4u || bottom_blob.dims < 1
            || bottom_blob.dims > 4)
        {
            note_cpu_layer_on_reference();
            return InnerProduct::forward(bottom_blob, top_blob, opt);
        }
        const int num_input = packed_weight.K;
        int rows = 1;
        Mat flat;
        int ret = flat_input_and_output(bottom_blob, num_input, flat, &rows, top_blob, opt);
        if (ret != 0)
            return ret;
        const float* bias = bias_term ? (const float*)bias_data : nullptr;
        const float* x = flat;
        float* y = top_blob;

        if (rows >= 4)
        {
            // y^T(p, r) = W(p, k) x^T(k, r)
            GemmEpilogue ep;
            ep.bias = bias;
            if (activation_type != ACTIVATION_NONE)
            {
                ep.activation = apply_activation;
                ep.activation_ctx = &act;
            }
            return sgemm(packed_weight, MatView{x, 1, (long)num_input}, rows, y, 1, (long)num_output, ep, opt);
        }

        if (weights_released)
        {
            // the panels: [k][2 vectors of rows] each
            const int mr = packed_weight.mr();
            #pragma omp parallel for num_threads(opt.num_threads)
            for (int p = 0; p < packed_weight.panels(); p++)
            {
                float s[2 * kMaxPack];
                for (int r = 0; r < rows; r++)
                {
                    gemv_panel(packed_weight.panel(p), x + (size_t)num_input * r, num_input, s);
                    for (int j = 0; j < mr && p * mr + j < num_output; j++)
                        y[(size_t)num_output * r + p * mr + j] = act(s[j] + (bias ? bias[p * mr + j] : 0.f));
                }
            }
            return 0;
        }
        const float* w = weight_data;
        const int quads = (num_output + 3) / 4;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int qd = 0; qd < quads; qd++)
        {
            const int p0 = qd * 4;
            for (int r = 0; r < rows; r++)
            {
                const float* xr = x + (size_t)num_input * r;
                const float* wr[4];
                for (int j = 0; j < 4; j++)
                    wr[j] = w + (size_t)num_input * std::min(p0 + j, num_output - 1);
                float s[4];
                dot4(xr, wr[0], wr[1], wr[2], wr[3], num_input, s);
                for (int j = 0; j < 4 && p0 + j < num_output; j++)
                    y[(size_t)num_output * r + p0 + j] = act(s[j] + (bias ? bias[p0 + j] : 0.f));
            }
        }
        return 0;
    }

private:
    static int f16_rows()
    {
#if KITE_SIMD_F16C
        return kRowsF16;
#else
        return 1;
#endif
    }

#if KITE_SIMD_F16C
    // the fp16 panels from the loaded fp32 weights; in light mode the loaded
    // weights go (loaded_weights rebuilds them, fp16-rounded), and, where this
    // layer alone holds them, their pages go back to the OS as the packing
    // proceeds (see create_pipeline)
    int create_pipeline_f16(const Option& opt, int num_input)
    {
        const int R = kRowsF16, panels = (num_output + R - 1) / R;
        const size_t n = (size_t)panels * R * num_input;
        if (n <= (size_t)INT32_MAX)
            weight_f16.create((int)n, (size_t)2u);
        if (weight_f16.empty())
        {
            KITE_LOGE("InnerProduct '%s': out of memory for %zu fp16 weights", name.c_str(), n);
            return -100;
        }
        const bool discard = opt.lightmode && weight_data.refcount && *weight_data.refcount == 1 && !weight_data.allocator;
        const size_t row_bytes = (size_t)num_input * sizeof(float);
        const int step = discard ? std::max(1, (int)((4u << 20) / std::max((size_t)1, row_bytes * R))) : panels;
        for (int p0 = 0; p0 < panels; p0 += step)
        {
            const int p1 = std::min(panels, p0 + step);
            pack_f16_panels(weight_data, num_output, num_input, (unsigned short*)weight_f16.data, p0, p1);
            if (discard)
                discard_pages(weight_data.data, std::min((size_t)p1 * R, (size_t)num_output) * row_bytes);
        }
        if (opt.lightmode)
        {
            weight_data.release();
            weights_released = true;
        }
        return 0;
    }

    int forward_f16(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
    {
        if (bottom_blob.elempack != 1 || bottom_blob.elemsize != 4u || bottom_blob.dims < 1 || bottom_blob.dims > 4)
        {
            note_cpu_layer_on_reference();
            return InnerProduct::forward(bottom_blob, top_blob, opt); // loaded_weights(): the fp16-rounded weights
        }
        const int num_input = weight_data_size / num_output;
        int rows = 1;
        Mat flat;
        int ret = flat_input_and_output(bottom_blob, num_input, flat, &rows, top_blob, opt);
        if (ret != 0)
            return ret;
        const float* bias = bias_term ? (const float*)bias_data : nullptr;
        const float* x = flat;
        float* y = top_blob;
        const int R = kRowsF16, panels = (num_output + R - 1) / R;
        const unsigned short* wh = (const unsigned short*)weight_f16.data;

        if (rows >= 4)
        {
            // blocks of panels converted to fp32 SGEMM panels (about 512 KB
            // each) and multiplied: the conversion is 1/rows of the work. The
            // rows (B) are packed once for all the blocks (packed per block,
            // a 3072-input layer of ViT-B re-packed its 197 rows for each of
            // 96 blocks of 32 outputs)
            const bool vr = kVecRows && kMRV == R;
            PackedB xb;
            if (pack_b(MatView{x, 1, (long)num_input}, num_input, rows, vr, xb, opt) != 0)
                return -100;
            GemmEpilogue ep;
            if (activation_type != ACTIVATION_NONE)
            {
                ep.activation = apply_activation;
                ep.activation_ctx = &act;
            }
            const int bp = std::max(1, (int)((512u << 10) / ((size_t)R * num_input * sizeof(float))));
            for (int p0 = 0; p0 < panels; p0 += bp)
            {
                const int p1 = std::min(panels, p0 + bp), m0 = p0 * R, mb = std::min(num_output, p1 * R) - m0;
                PackedA blk;
                if (vr)
                {
                    // the same layout: convert in place order
                    blk.M = mb;
                    blk.K = num_input;
                    blk.vec_rows = true;
                    const size_t n = (size_t)(p1 - p0) * R * num_input;
                    blk.data.create((int)n, (size_t)4u, opt.workspace_allocator);
                    if (blk.data.empty())
                        return -100;
                    convert_f16(wh + (size_t)p0 * R * num_input, (float*)blk.data.data, n, opt.num_threads);
                }
                else
                {
                    Mat t((int)((size_t)mb * num_input), (size_t)4u, opt.workspace_allocator);
                    if (t.empty())
                        return -100;
                    float* d = t;
                    for (int m = 0; m < mb; m++)
                        for (int k = 0; k < num_input; k++)
                            d[(size_t)m * num_input + k]
                                = float16_to_float32(wh[((size_t)(p0 + m / R) * num_input + k) * R + m % R]);
                    if (!pack_a(MatView{d, (long)num_input, 1}, mb, num_input, blk))
                        return -100;
                }
                ep.bias = bias ? bias + m0 : nullptr;
                ret = sgemm(blk, xb, y + m0, 1, (long)num_output, ep, opt);
                if (ret != 0)
                    return ret;
            }
            return 0;
        }

        #pragma omp parallel for num_threads(opt.num_threads)
        for (int p = 0; p < panels; p++)
        {
            float s[kRowsF16];
            for (int r = 0; r < rows; r++)
            {
                gemv_panel_f16(wh + (size_t)p * R * num_input, x + (size_t)num_input * r, num_input, s);
                for (int j = 0; j < R && p * R + j < num_output; j++)
                    y[(size_t)num_output * r + p * R + j] = act(s[j] + (bias ? bias[p * R + j] : 0.f));
            }
        }
        return 0;
    }

    // n fp16 values to fp32
    static void convert_f16(const unsigned short* src, float* dst, size_t n, int num_threads)
    {
        typedef simd::VF<kVecWidth> V;
        const int W = kVecWidth;
        const long chunks = (long)((n + 4095) / 4096);
        #pragma omp parallel for num_threads(num_threads)
        for (long c = 0; c < chunks; c++)
        {
            const size_t b = (size_t)c * 4096, e = std::min(n, b + 4096);
            size_t i = b;
            for (; i + W <= e; i += W)
                V::store(dst + i, V::load(src + i));
            for (; i < e; i++)
                dst[i] = float16_to_float32(src[i]);
        }
    }
#endif

    // the input's values as rows of num_input (one row unless a dims-2 input
    // has w == num_input) and the output blob for them
    int flat_input_and_output(const Mat& bottom_blob, int num_input, Mat& flat, int* rows, Mat& top_blob,
                              const Option& opt) const
    {
        const bool row_mode = bottom_blob.dims == 2 && bottom_blob.w == num_input;
        *rows = row_mode ? bottom_blob.h : 1;
        if (flatten_blob(bottom_blob, flat, opt.workspace_allocator) != 0)
            return -100;
        if (flat.w != num_input * *rows)
        {
            KITE_LOGE("InnerProduct '%s': input of %d values (dims=%d w=%d h=%d d=%d c=%d) does not match num_input %d",
                      name.c_str(), flat.w, bottom_blob.dims, bottom_blob.w, bottom_blob.h, bottom_blob.d, bottom_blob.c,
                      num_input);
            return -1;
        }
        if (row_mode)
            top_blob.create(num_output, *rows, 4u, opt.blob_allocator);
        else
            top_blob.create(num_output, 4u, opt.blob_allocator);
        return top_blob.empty() ? -100 : 0;
    }

    // the reference's int8 path with the int32 sums from the x86 kernels
    int forward_int8(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
    {
        const int num_input = weight_data_size / num_output;
        if (!opt.use_int8_inference || bottom_blob.elempack != 1 || bottom_blob.dims < 1 || bottom_blob.dims > 4
            || !(bottom_blob.elemsize == 4u || bottom_blob.elemsize == 1u))
            return InnerProduct::forward(bottom_blob, top_blob, opt); // (reports the error)
        int rows = 1;
        Mat flat;
        int ret = flat_input_and_output(bottom_blob, num_input, flat, &rows, top_blob, opt);
        if (ret != 0)
            return ret;
        Mat xq = flat;
        if (flat.elemsize != 1u)
        {
            ret = quantize_blob_int8(flat, xq, bottom_blob_int8_scales, 1, opt.workspace_allocator, opt.num_threads);
            if (ret != 0)
                return ret;
        }
        std::vector<int32_t> sums((size_t)num_output * rows);
        for (int r = 0; r < rows; r++)
        {
            const signed char* x = (const signed char*)xq.data + (size_t)num_input * r;
            int32_t* s = sums.data() + (size_t)num_output * r;
#if defined(KITE_X86_VNNI_NS)
            if (isa == CPU_ISA_AVX512VNNI || isa == CPU_ISA_AVXVNNI)
            {
                KITE_X86_VNNI_NS::int8_gemv_vnni(x, weight_data, num_output, num_input, s, opt.num_threads);
                continue;
            }
#endif
            int8_gemv(x, weight_data, num_output, num_input, s, opt.num_threads);
        }
        // the reference's epilogue
        const float bottom_scale = bottom_blob_int8_scales[0];
        const float* bias = bias_term ? (const float*)bias_data : nullptr;
        float* y = top_blob;
        for (int p = 0; p < num_output; p++)
        {
            const float scale_in = int8_dequant_scale(bottom_scale, weight_data_int8_scales[p]);
            for (int r = 0; r < rows; r++)
            {
                float v = sums[(size_t)num_output * r + p] * scale_in;
                if (bias)
                    v += bias[p];
                y[(size_t)num_output * r + p] = act(v);
            }
        }
        return 0;
    }

    PackedA packed_weight;
    Mat weight_f16; // fp16 weights (see create_pipeline_f16); empty: the fp32 paths
    bool weights_released = false; // light mode released weight_data (packed_weight holds it)
    Activation act;
};

DEFINE_LAYER_CREATOR(InnerProduct_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
