#include "cl_layout.h"

#include "../../log.h"

#include <vector>

namespace kite {
namespace cl {

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
