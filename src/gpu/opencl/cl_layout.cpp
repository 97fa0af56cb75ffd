#include "cl_layout.h"

#include "../../layer.h"
#include "../../log.h"
#include "../cpu_fallback.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace kite {
namespace cl {

static std::atomic<int> g_test_limit(-1); // -1: not read from the environment yet

void set_image_limit_for_tests(int n)
{
    g_test_limit = n > 0 ? n : 0;
}

static int test_limit()
{
    int n = g_test_limit;
    if (n < 0)
    {
        const char* e = getenv("KITE_OPENCL_IMAGE_LIMIT");
        n = e ? atoi(e) : 0;
        n = n > 0 ? n : 0;
        int expected = -1;
        g_test_limit.compare_exchange_strong(expected, n);
        n = g_test_limit;
    }
    return n;
}

int activation_image_size(const Context* ctx, int C, int H, int W, bool allow_fold, int& iw, int& ih)
{
    long long lw = (long long)ctx->image_max_w, lh = (long long)ctx->image_max_h;
    const int t = test_limit();
    if (t > 0)
    {
        lw = lw < t ? lw : t;
        lh = lh < t ? lh : t;
    }
    const long long niw = (long long)W * div4(C), nih = H;
    if (niw <= 0 || nih <= 0)
    {
        iw = (int)niw; // an empty blob: as before (the pool or the driver says no)
        ih = (int)nih;
        return 0;
    }
    if (niw <= lw && nih <= lh)
    {
        iw = (int)niw;
        ih = (int)nih;
        return 0;
    }
    if (!allow_fold || lw <= 0)
        return KITE_GPU_CANNOT_HOLD;
    const long long total = niw * nih;
    const long long fh = (total + lw - 1) / lw;
    // indices t = y * NIW + x stay in int in the kernels
    if (fh > lh || total > 0x7fffffffLL - lw)
        return KITE_GPU_CANNOT_HOLD;
    iw = (int)lw;
    ih = (int)fh;
    return 0;
}

bool folded_ok(const Layer* consumer)
{
    // the drivers that read their inputs only through cl::ShapeCache's gather
    // or the fold-aware kernels (shape.cl rd_fold), pass them on unread, or
    // run the texel-by-texel activation kernel over the whole image
    // (cl::run_activation: the unary layers of layer/opencl/unary_opencl.h and ReLU;
    // BinaryOp's binaryop on same-shaped or gathered inputs)
    static const char* const types[] = {"BinaryOp", "Clip", "Concat", "Crop", "Flatten", "HardSigmoid", "HardSwish",
                                        "MemoryData", "Mish", "Noop", "Padding", "Permute", "PriorBox",
                                        "ReLU", "Reshape", "ShuffleChannel", "Sigmoid", "Slice", "Softmax",
                                        "Split", "Swish", "TanH"};
    if (!consumer)
        return false;
    for (const char* t : types)
        if (consumer->type == t)
            return true;
    return false;
}

int Session::convert_for_layer(GpuBlobPtr& g, const Layer* consumer, const Option& opt)
{
    (void)opt;
    const ClBlob* b = static_cast<const ClBlob*>(g.get());
    if (b && is_folded(b) && !folded_ok(consumer))
        return KITE_GPU_CANNOT_HOLD; // the consumer runs on the CPU (the Extractor downloads the blob)
    return 0;
}

void mat_chw(const Mat& s, int& C, int& H, int& W)
{
    if (s.dims == 1)
    {
        C = s.w;
        H = 1;
        W = 1;
    }
    else if (s.dims == 2)
    {
        C = s.h;
        H = s.w;
        W = 1;
    }
    else if (s.dims == 3)
    {
        C = s.c;
        H = s.h;
        W = s.w;
    }
    else
    {
        C = s.c;
        H = s.d * s.h;
        W = s.w;
    }
}

void seed_image_size(int layout, int a, int b, int c, int d, int& iw, int& ih)
{
    switch (layout)
    {
    case SEED_CHANNEL_MAJOR: iw = c * div4(d); ih = a * b; break;  // N H W C
    case SEED_HEIGHT_MAJOR: iw = c * d; ih = a * div4(b); break;
    case SEED_WIDTH_MAJOR: iw = div4(c) * d; ih = a * b; break;
    case SEED_CONV_FILTER: iw = b; ih = div4(a) * c * d; break;    // O I H W
    case SEED_DW_FILTER: iw = b * c; ih = div4(a); break;          // I H W
    default: iw = div4(a); ih = 1; break;                          // W
    }
}

int upload_seed_layout(Context* ctx, int layout, const float* data, size_t count, int a, int b, int c, int d,
                       bool half, Image& out)
{
    int iw = 0, ih = 0;
    seed_image_size(layout, a, b, c, d, iw, ih);
    int ret = ctx->create_image(iw, ih, half, out);
    if (ret != 0)
        return ret;
    size_t gws[2] = {(size_t)iw, (size_t)ih};
    ret = ctx->upload_with_kernel("buffer_to_image", data, count, out, {layout, iw, ih, a, b, c, d}, gws);
    if (ret != 0)
        ctx->release_image(out);
    return ret;
}

// layout.cl's layout_index on the host (the same formulas)
static long seed_layout_index(int layout, int i, int j, int k, int a, int b, int c, int d)
{
    switch (layout)
    {
    case SEED_CHANNEL_MAJOR:
    {
        const int N = a, H = b, W = c, C = d;
        const int n = j / H, h = j % H, w = i % W, ch = i / W * 4 + k;
        return (n < N && ch < C) ? (((long)n * H + h) * W + w) * C + ch : -1;
    }
    case SEED_HEIGHT_MAJOR:
    {
        const int N = a, H = b, W = c, C = d;
        const int n = j % N, h = j / N * 4 + k, w = i % W, ch = i / W;
        return (h < H && ch < C) ? (((long)n * H + h) * W + w) * C + ch : -1;
    }
    case SEED_WIDTH_MAJOR:
    {
        const int N = a, H = b, W = c, C = d, Wb = div4(c);
        const int n = j / H, h = j % H, w = i % Wb * 4 + k, ch = i / Wb;
        return (n < N && w < W && ch < C) ? (((long)n * H + h) * W + w) * C + ch : -1;
    }
    case SEED_CONV_FILTER:
    {
        const int O = a, I = b, H = c, W = d, HW = c * d;
        const int T = j % HW, o = j / HW * 4 + k;
        return (o < O && i < I) ? (((long)o * I + i) * H + T / W) * W + T % W : -1;
    }
    case SEED_DW_FILTER:
    {
        const int I = a, H = b, W = c;
        const int ch = j * 4 + k;
        return (ch < I && i < H * W) ? ((long)ch * H + i / W) * W + i % W : -1;
    }
    default:
    {
        const int w = i * 4 + k;
        return (j == 0 && w < a) ? w : -1;
    }
    }
}

int upload_seed_layout_int8(Context* ctx, int layout, const signed char* data, size_t count, int a, int b, int c, int d,
                            Image& out)
{
    int iw = 0, ih = 0;
    seed_image_size(layout, a, b, c, d, iw, ih);
    if (iw <= 0 || ih <= 0 || (size_t)iw > ctx->image_max_w || (size_t)ih > ctx->image_max_h)
    {
        KITE_LOGE("OpenCL: image %d x %d exceeds the device's 2D image limit %d x %d", iw, ih, (int)ctx->image_max_w,
                  (int)ctx->image_max_h);
        return -1;
    }
    std::vector<signed char> texels((size_t)iw * ih * 4, 0);
    for (int j = 0; j < ih; j++)
        for (int i = 0; i < iw; i++)
            for (int k = 0; k < 4; k++)
            {
                const long idx = seed_layout_index(layout, i, j, k, a, b, c, d);
                if (idx >= 0 && (size_t)idx < count)
                    texels[((size_t)j * iw + i) * 4 + k] = data[idx];
            }
    cl_image_format fmt = {CL_RGBA, CL_SIGNED_INT8};
    cl_image_desc desc;
    memset(&desc, 0, sizeof(desc));
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = (size_t)iw;
    desc.image_height = (size_t)ih;
    cl_int err = 0;
    out.mem = api()->clCreateImage(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &fmt, &desc, texels.data(), &err);
    if (!out.mem)
    {
        KITE_LOGE("OpenCL: clCreateImage %d x %d int8 failed (%s)", iw, ih, error_string(err));
        return err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_HOST_MEMORY ? -100 : -1;
    }
    out.width = iw;
    out.height = ih;
    out.half = false;
    return 0;
}

int download_seed_layout(Context* ctx, int layout, const Image& img, float* data, size_t count, int a, int b, int c,
                         int d)
{
    const Api* api_ = api();
    cl_kernel k = ctx->create_kernel("layout", "image_to_buffer", "");
    if (!k)
        return -1;
    cl_int err = 0;
    cl_mem buf = api_->clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, count * sizeof(float), nullptr, &err);
    if (!buf)
    {
        api_->clReleaseKernel(k);
        return -100;
    }
    KernelArgs args(k);
    args.img(img).mem(buf).i(layout).i(img.width).i(img.height).i(a).i(b).i(c).i(d);
    size_t gws[2] = {(size_t)img.width, (size_t)img.height};
    {
        std::lock_guard<std::mutex> lock(ctx->mutex);
        err = args.error();
        std::vector<float> zero(count, 0.f);
        if (err == 0)
            err = api_->clEnqueueWriteBuffer(ctx->upload_queue, buf, CL_TRUE, 0, count * sizeof(float), zero.data(), 0, nullptr, nullptr);
        if (err == 0)
            err = api_->clEnqueueNDRangeKernel(ctx->upload_queue, k, 2, nullptr, gws, nullptr, 0, nullptr, nullptr);
        if (err == 0)
            err = api_->clEnqueueReadBuffer(ctx->upload_queue, buf, CL_TRUE, 0, count * sizeof(float), data, 0, nullptr, nullptr);
    }
    api_->clReleaseMemObject(buf);
    api_->clReleaseKernel(k);
    if (err != CL_SUCCESS)
    {
        KITE_LOGE("OpenCL: image_to_buffer failed (%s)", error_string(err));
        return -1;
    }
    return 0;
}

} // namespace cl
} // namespace kite
