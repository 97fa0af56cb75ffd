#include "interp.h"

#include "common/shape_util.h"
#include "log.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kite {

Interp::Interp()
{
    one_blob_only = true;
    support_inplace = false;
}

int Interp::load_param(const ParamDict& pd)
{
    resize_type = pd.get(PARAM_RESIZE_TYPE, 0);
    height_scale = pd.get(PARAM_HEIGHT_SCALE, 1.f);
    width_scale = pd.get(PARAM_WIDTH_SCALE, 1.f);
    output_height = pd.get(PARAM_OUTPUT_HEIGHT, 0);
    output_width = pd.get(PARAM_OUTPUT_WIDTH, 0);
    dynamic_target_size = pd.get(PARAM_DYNAMIC_TARGET_SIZE, 0);
    align_corner = pd.get(PARAM_ALIGN_CORNER, 0);
    if (resize_type == 0)
        resize_type = RESIZE_NEAREST;
    if (resize_type < RESIZE_NEAREST || resize_type > RESIZE_BICUBIC)
    {
        KITE_LOGE("Interp '%s': unknown resize_type %d (1 nearest, 2 bilinear, 3 bicubic)", name.c_str(), resize_type);
        return -1;
    }
    if (output_height < 0 || output_width < 0 || !(height_scale > 0.f) || !(width_scale > 0.f))
    {
        KITE_LOGE("Interp '%s': invalid output size %d x %d or scales %g x %g", name.c_str(), output_height, output_width, height_scale, width_scale);
        return -1;
    }
    one_blob_only = dynamic_target_size == 0;
    return 0;
}

static void nearest_taps(int in, int out, float scale, InterpTaps& t)
{
    t.ntaps = 1;
    t.ofs.resize(out);
    t.alpha.assign(out, 1.f);
    for (int i = 0; i < out; i++)
        t.ofs[i] = std::min((int)(i * scale), in - 1);
}

static float source_coord(int i, double scale, bool align_corner)
{
    if (align_corner)
        return (float)(i * scale);
    return (float)((i + 0.5) * scale - 0.5);
}

static void linear_taps(int in, int out, float s, bool align_corner, InterpTaps& t)
{
    t.ntaps = 2;
    t.ofs.resize(out);
    t.alpha.resize(out * 2);
    double scale = s;
    if (align_corner)
        scale = out > 1 ? (double)(in - 1) / (out - 1) : 0.0;
    for (int i = 0; i < out; i++)
    {
        float fx = source_coord(i, scale, align_corner);
        int sx = (int)floorf(fx);
        fx -= sx;
        if (sx < 0)
        {
            sx = 0;
            fx = 0.f;
        }
        if (sx >= in - 1)
        {
            sx = std::max(in - 2, 0);
            fx = in >= 2 ? 1.f : 0.f;
        }
        t.ofs[i] = sx;
        t.alpha[i * 2] = 1.f - fx;
        t.alpha[i * 2 + 1] = fx;
    }
}

static void cubic_taps(int in, int out, float s, bool align_corner, InterpTaps& t)
{
    t.ntaps = 4;
    t.ofs.resize(out);
    t.alpha.resize(out * 4);
    double scale = s;
    if (align_corner)
        scale = out > 1 ? (double)(in - 1) / (out - 1) : 0.0;
    const float A = -0.75f;
    for (int i = 0; i < out; i++)
    {
        float fx = source_coord(i, scale, align_corner);
        int sx = (int)floorf(fx);
        fx -= sx;
        const float x0 = fx + 1.f, x1 = fx, x2 = 1.f - fx;
        float* a = &t.alpha[i * 4];
        a[0] = A * x0 * x0 * x0 - 5 * A * x0 * x0 + 8 * A * x0 - 4 * A;
        a[1] = (A + 2) * x1 * x1 * x1 - (A + 3) * x1 * x1 + 1;
        a[2] = (A + 2) * x2 * x2 * x2 - (A + 3) * x2 * x2 + 1;
        a[3] = 1.f - a[0] - a[1] - a[2];
        t.ofs[i] = sx - 1;
    }
}

void interp_make_taps(int type, int in, int out, float s, bool align_corner, InterpTaps& t)
{
    if (type == Interp::RESIZE_NEAREST)
        nearest_taps(in, out, s, t);
    else if (type == Interp::RESIZE_BILINEAR)
        linear_taps(in, out, s, align_corner, t);
    else
        cubic_taps(in, out, s, align_corner, t);
}

// one row resized along w
static void resize_row(const float* src, int w, const InterpTaps& tx, float* dst, int outw)
{
    for (int x = 0; x < outw; x++)
    {
        const float* a = &tx.alpha[x * tx.ntaps];
        float v = 0.f;
        for (int k = 0; k < tx.ntaps; k++)
        {
            int sx = std::min(std::max(tx.ofs[x] + k, 0), w - 1);
            v += src[sx] * a[k];
        }
        dst[x] = v;
    }
}

int Interp::resize(const Mat& bottom_blob, Mat& top_blob, int outw, int outh, float hs, float ws, const Option& opt) const
{
    const int dims = bottom_blob.dims;
    if (bottom_blob.elempack != 1 || bottom_blob.elemsize != 4)
    {
        KITE_LOGE("Interp '%s': the reference takes fp32 elempack 1 blobs (elemsize %d, elempack %d)", name.c_str(),
                  (int)bottom_blob.elemsize, bottom_blob.elempack);
        return -1;
    }
    if (outw <= 0 || outh <= 0)
    {
        KITE_LOGE("Interp '%s': empty output size %d x %d", name.c_str(), outw, outh);
        return -1;
    }

    if (dims == 1)
    {
        const int channels = bottom_blob.w;
        top_blob.create(outw, outh, channels, 4u, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < channels; q++)
        {
            Mat m = top_blob.channel(q);
            m.fill(((const float*)bottom_blob.data)[q]);
        }
        return 0;
    }

    const int w = bottom_blob.w;
    const int h = bottom_blob.h;
    InterpTaps tx;
    interp_make_taps(resize_type, w, outw, ws, align_corner != 0, tx);

    if (dims == 2)
    {
        top_blob.create(outw, h, 4u, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int y = 0; y < h; y++)
            resize_row(bottom_blob.row(y), w, tx, top_blob.row(y), outw);
        return 0;
    }

    const int channels = bottom_blob.c;
    InterpTaps ty;
    interp_make_taps(resize_type, h, outh, hs, align_corner != 0, ty);
    top_blob.create(outw, outh, channels, 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < channels; q++)
    {
        const Mat src = bottom_blob.channel(q);
        Mat dst = top_blob.channel(q);
        std::vector<float> rows((size_t)ty.ntaps * outw);
        for (int y = 0; y < outh; y++)
        {
            // resize the source rows this output row needs, then blend them
            const float* b = &ty.alpha[y * ty.ntaps];
            for (int k = 0; k < ty.ntaps; k++)
            {
                int sy = std::min(std::max(ty.ofs[y] + k, 0), h - 1);
                resize_row(src.row(sy), w, tx, &rows[(size_t)k * outw], outw);
            }
            float* outptr = dst.row(y);
            for (int x = 0; x < outw; x++)
            {
                float v = 0.f;
                for (int k = 0; k < ty.ntaps; k++)
                    v += rows[(size_t)k * outw + x] * b[k];
                outptr[x] = v;
            }
        }
    }
    return 0;
}

static bool interp_input_ok(const Mat& m)
{
    return !m.empty() && m.dims >= 1 && m.dims <= 3;
}

int Interp::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (!interp_input_ok(bottom_blob))
    {
        KITE_LOGE("Interp '%s': input must be a non-empty blob of dims 1..3 (dims %d)", name.c_str(), bottom_blob.dims);
        return -1;
    }
    const int w = bottom_blob.dims == 1 ? 1 : bottom_blob.w;
    const int h = bottom_blob.dims == 1 ? 1 : bottom_blob.h;
    int outw, outh;
    float hs, ws;
    target_size(w, h, outw, outh, hs, ws);
    return resize(bottom_blob, top_blob, outw, outh, hs, ws, opt);
}

void Interp::target_size(int w, int h, int& outw, int& outh, float& hs, float& ws) const
{
    outw = output_width;
    outh = output_height;
    if (outw == 0 || outh == 0)
    {
        outw = (int)(w * width_scale);
        outh = (int)(h * height_scale);
    }
    hs = output_height ? h / (float)outh : 1.f / height_scale;
    ws = output_width ? w / (float)outw : 1.f / width_scale;
}

int Interp::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    if (bottom_blobs.empty() || top_blobs.size() != 1)
    {
        KITE_LOGE("Interp '%s': expects 1 or 2 inputs and 1 output", name.c_str());
        return -1;
    }
    if (!dynamic_target_size)
        return forward(bottom_blobs[0], top_blobs[0], opt);
    if (bottom_blobs.size() != 2)
    {
        KITE_LOGE("Interp '%s': dynamic_target_size needs a second input giving the size", name.c_str());
        return -1;
    }
    const Mat& bottom_blob = bottom_blobs[0];
    const Mat& reference_blob = bottom_blobs[1];
    if (!interp_input_ok(bottom_blob) || reference_blob.dims < 1)
    {
        KITE_LOGE("Interp '%s': input must be a non-empty blob of dims 1..3 and a reference blob", name.c_str());
        return -1;
    }
    const int w = bottom_blob.dims == 1 ? 1 : bottom_blob.w;
    const int h = bottom_blob.dims == 1 ? 1 : bottom_blob.h;
    const int outw = reference_blob.w;
    const int outh = reference_blob.h;
    if (outw <= 0 || outh <= 0)
    {
        KITE_LOGE("Interp '%s': reference gives an empty size %d x %d", name.c_str(), outw, outh);
        return -1;
    }
    return resize(bottom_blob, top_blobs[0], outw, outh, h / (float)outh, w / (float)outw, opt);
}

DEFINE_LAYER_CREATOR(Interp)

} // namespace kite
