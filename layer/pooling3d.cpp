#include "pooling3d.h"

#include "log.h"

#include <cfloat>
#include <vector>

namespace kite {

namespace {

enum PoolType
{
    POOL_MAX = 0,
    POOL_AVG = 1,
};

enum PadMode
{
    PAD_FULL = 0,
    PAD_VALID = 1,
    PAD_SAME_UPPER = 2,
    PAD_SAME_LOWER = 3,
};

typedef PoolingAxisPlan AxisPlan;

// ncnn's padding rules for one axis
AxisPlan plan_axis(const PoolingNdParams& p, int axis, int n)
{
    const int k = p.kernel[axis];
    const int s = p.stride[axis];
    AxisPlan a;
    a.n = n;
    int lo = p.pad_lo[axis];
    int hi = p.pad_hi[axis];
    int tailpad = 0;
    if (p.pad_mode == PAD_FULL)
    {
        int tail = (n + lo + hi - k) % s;
        if (tail != 0)
            tailpad = s - tail;
        hi += tailpad;
    }
    else if (p.pad_mode == PAD_SAME_UPPER || p.pad_mode == PAD_SAME_LOWER)
    {
        int pad = k + (n - 1) / s * s - n;
        if (pad < 0)
            pad = 0; // gives the same output extent as ncnn's negative (cropping) pad
        // ncnn's Pooling3D splits the depth pad the SAME_UPPER way in both
        // SAME modes; followed here for compatibility
        if (p.pad_mode == PAD_SAME_UPPER || axis == 2)
        {
            lo = pad / 2;
            hi = pad - pad / 2;
        }
        else
        {
            lo = pad - pad / 2;
            hi = pad / 2;
        }
    }
    a.lo = lo;
    a.padded = n + lo + hi;
    a.out = a.padded >= k ? (a.padded - k) / s + 1 : 0;
    // ncnn excludes the parameter pads (and the full-mode tail pad) only
    a.ex_lo = p.pad_lo[axis];
    a.ex_hi = a.padded - p.pad_hi[axis] - tailpad;
    return a;
}

inline bool create_top(Mat& top, int kind, int ow, int oh, int od, int channels, const Option& opt)
{
    if (kind == 1)
        top.create(ow, channels, 4u, opt.blob_allocator);
    else if (kind == 2)
        top.create(ow, oh, channels, 4u, opt.blob_allocator);
    else
        top.create(ow, oh, od, channels, 4u, opt.blob_allocator);
    return !top.empty();
}

inline float* top_channel(Mat& top, int kind, int q)
{
    if (kind == 1)
        return top.row(q);
    return (float*)top.channel(q).data;
}

} // namespace

PoolingAxisPlan pooling_plan_axis(const PoolingNdParams& p, int axis, int n)
{
    return plan_axis(p, axis, n);
}

int pooling_nd_check(const PoolingNdParams& p, const char* type, const char* name, int spatial_dims)
{
    if (p.pooling_type != POOL_MAX && p.pooling_type != POOL_AVG)
    {
        KITE_LOGE("%s '%s': pooling_type %d is not 0 (max) or 1 (avg)", type, name, p.pooling_type);
        return -1;
    }
    if (p.global_pooling || p.adaptive_pooling)
    {
        if (p.adaptive_pooling && !p.global_pooling)
        {
            for (int i = 0; i < spatial_dims; i++)
            {
                if (p.out_size[i] <= 0 && p.out_size[i] != -233)
                {
                    KITE_LOGE("%s '%s': adaptive pooling output size %d must be positive", type, name, p.out_size[i]);
                    return -1;
                }
            }
        }
        return 0;
    }
    if (p.pad_mode < PAD_FULL || p.pad_mode > PAD_SAME_LOWER)
    {
        KITE_LOGE("%s '%s': pad_mode %d is not 0..3", type, name, p.pad_mode);
        return -1;
    }
    for (int i = 0; i < spatial_dims; i++)
    {
        if (p.kernel[i] <= 0 || p.stride[i] <= 0)
        {
            KITE_LOGE("%s '%s': kernel %d and stride %d must be positive", type, name, p.kernel[i], p.stride[i]);
            return -1;
        }
        if (p.pad_lo[i] < 0 || p.pad_hi[i] < 0)
        {
            KITE_LOGE("%s '%s': negative padding %d/%d", type, name, p.pad_lo[i], p.pad_hi[i]);
            return -1;
        }
    }
    return 0;
}

int pooling_nd_forward(const PoolingNdParams& p, const char* type, const char* name, const Mat& bottom_blob,
                       int w, int h, int d, int channels, size_t cstep, int kind, Mat& top_blob,
                       const Option& opt)
{
    const float* base = (const float*)bottom_blob.data;
    const size_t size = (size_t)w * h * d;
    if (size == 0 || channels <= 0)
    {
        KITE_LOGE("%s '%s': empty input", type, name);
        return -1;
    }

    if (p.global_pooling)
    {
        top_blob.create(channels, 4u, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        float* outptr = top_blob;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < channels; q++)
        {
            const float* ptr = base + cstep * q;
            if (p.pooling_type == POOL_MAX)
            {
                float m = ptr[0];
                for (size_t i = 0; i < size; i++)
                    m = ptr[i] > m ? ptr[i] : m;
                outptr[q] = m;
            }
            else
            {
                float sum = 0.f;
                for (size_t i = 0; i < size; i++)
                    sum += ptr[i];
                outptr[q] = sum / size;
            }
        }
        return 0;
    }

    if (p.adaptive_pooling)
    {
        const int ow = p.out_size[0] == -233 ? w : p.out_size[0];
        const int oh = kind >= 2 ? (p.out_size[1] == -233 ? h : p.out_size[1]) : 1;
        const int od = kind >= 3 ? (p.out_size[2] == -233 ? d : p.out_size[2]) : 1;
        if (!create_top(top_blob, kind, ow, oh, od, channels, opt))
            return -100;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < channels; q++)
        {
            const float* ptr = base + cstep * q;
            float* outptr = top_channel(top_blob, kind, q);
            for (int z = 0; z < od; z++)
            {
                const int z0 = d * z / od;
                const int z1 = (d * (z + 1) + od - 1) / od;
                for (int y = 0; y < oh; y++)
                {
                    const int y0 = h * y / oh;
                    const int y1 = (h * (y + 1) + oh - 1) / oh;
                    for (int x = 0; x < ow; x++)
                    {
                        const int x0 = w * x / ow;
                        const int x1 = (w * (x + 1) + ow - 1) / ow;
                        float v;
                        if (p.pooling_type == POOL_MAX)
                        {
                            v = ptr[((size_t)z0 * h + y0) * w + x0];
                            for (int zz = z0; zz < z1; zz++)
                                for (int yy = y0; yy < y1; yy++)
                                    for (int xx = x0; xx < x1; xx++)
                                    {
                                        float t = ptr[((size_t)zz * h + yy) * w + xx];
                                        v = t > v ? t : v;
                                    }
                        }
                        else
                        {
                            float sum = 0.f;
                            for (int zz = z0; zz < z1; zz++)
                                for (int yy = y0; yy < y1; yy++)
                                    for (int xx = x0; xx < x1; xx++)
                                        sum += ptr[((size_t)zz * h + yy) * w + xx];
                            v = sum / ((z1 - z0) * (y1 - y0) * (x1 - x0));
                        }
                        *outptr++ = v;
                    }
                }
            }
        }
        return 0;
    }

    const AxisPlan ax = plan_axis(p, 0, w);
    const AxisPlan ay = plan_axis(p, 1, h);
    const AxisPlan az = plan_axis(p, 2, d);
    if (ax.out <= 0 || ay.out <= 0 || az.out <= 0)
    {
        KITE_LOGE("%s '%s': input %d x %d x %d with padding is smaller than the kernel %d x %d x %d", type, name,
                  w, h, d, p.kernel[0], p.kernel[1], p.kernel[2]);
        return -1;
    }
    if (!create_top(top_blob, kind, ax.out, ay.out, az.out, channels, opt))
        return -100;

    const bool is_max = p.pooling_type == POOL_MAX;
    const float pad_value = is_max ? -FLT_MAX : 0.f;
    const bool exclude_pad = !is_max && !p.avgpool_count_include_pad;
    const int kw = p.kernel[0], kh = p.kernel[1], kd = p.kernel[2];
    const int maxk = kw * kh * kd;

    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < channels; q++)
    {
        const float* ptr = base + cstep * q;
        float* outptr = top_channel(top_blob, kind, q);
        for (int oz = 0; oz < az.out; oz++)
        {
            for (int oy = 0; oy < ay.out; oy++)
            {
                for (int ox = 0; ox < ax.out; ox++)
                {
                    const int sz0 = oz * p.stride[2];
                    const int sy0 = oy * p.stride[1];
                    const int sx0 = ox * p.stride[0];
                    float v;
                    if (is_max)
                    {
                        v = -FLT_MAX;
                        for (int a = 0; a < kd; a++)
                        {
                            const int z = sz0 + a - az.lo;
                            for (int b = 0; b < kh; b++)
                            {
                                const int y = sy0 + b - ay.lo;
                                for (int c = 0; c < kw; c++)
                                {
                                    const int x = sx0 + c - ax.lo;
                                    float t = pad_value;
                                    if (z >= 0 && z < d && y >= 0 && y < h && x >= 0 && x < w)
                                        t = ptr[((size_t)z * h + y) * w + x];
                                    v = t > v ? t : v;
                                }
                            }
                        }
                    }
                    else
                    {
                        float sum = 0.f;
                        int area = 0;
                        for (int a = 0; a < kd; a++)
                        {
                            const int pz = sz0 + a;
                            if (exclude_pad && (pz < az.ex_lo || pz >= az.ex_hi))
                                continue;
                            const int z = pz - az.lo;
                            for (int b = 0; b < kh; b++)
                            {
                                const int py = sy0 + b;
                                if (exclude_pad && (py < ay.ex_lo || py >= ay.ex_hi))
                                    continue;
                                const int y = py - ay.lo;
                                for (int c = 0; c < kw; c++)
                                {
                                    const int px = sx0 + c;
                                    if (exclude_pad && (px < ax.ex_lo || px >= ax.ex_hi))
                                        continue;
                                    const int x = px - ax.lo;
                                    if (z >= 0 && z < d && y >= 0 && y < h && x >= 0 && x < w)
                                        sum += ptr[((size_t)z * h + y) * w + x];
                                    area++;
                                }
                            }
                        }
                        v = exclude_pad ? sum / area : sum / maxk;
                    }
                    *outptr++ = v;
                }
            }
        }
    }
    return 0;
}

Pooling3D::Pooling3D()
{
    one_blob_only = true;
    support_inplace = false;
}

int Pooling3D::load_param(const ParamDict& pd)
{
    p.pooling_type = pd.get(PARAM_POOLING_TYPE, 0);
    p.kernel[0] = pd.get(PARAM_KERNEL_W, 0);
    p.kernel[1] = pd.get(PARAM_KERNEL_H, p.kernel[0]);
    p.kernel[2] = pd.get(PARAM_KERNEL_D, p.kernel[0]);
    p.stride[0] = pd.get(PARAM_STRIDE_W, 1);
    p.stride[1] = pd.get(PARAM_STRIDE_H, p.stride[0]);
    p.stride[2] = pd.get(PARAM_STRIDE_D, p.stride[0]);
    p.pad_lo[0] = pd.get(PARAM_PAD_LEFT, 0);
    p.pad_hi[0] = pd.get(PARAM_PAD_RIGHT, p.pad_lo[0]);
    p.pad_lo[1] = pd.get(PARAM_PAD_TOP, p.pad_lo[0]);
    p.pad_hi[1] = pd.get(PARAM_PAD_BOTTOM, p.pad_lo[1]);
    p.pad_lo[2] = pd.get(PARAM_PAD_FRONT, p.pad_lo[0]);
    p.pad_hi[2] = pd.get(PARAM_PAD_BEHIND, p.pad_lo[2]);
    p.global_pooling = pd.get(PARAM_GLOBAL_POOLING, 0);
    p.pad_mode = pd.get(PARAM_PAD_MODE, 0);
    p.avgpool_count_include_pad = pd.get(PARAM_AVGPOOL_COUNT_INCLUDE_PAD, 0);
    p.adaptive_pooling = pd.get(PARAM_ADAPTIVE_POOLING, 0);
    p.out_size[0] = pd.get(PARAM_OUT_W, 0);
    p.out_size[1] = pd.get(PARAM_OUT_H, p.out_size[0]);
    p.out_size[2] = pd.get(PARAM_OUT_D, p.out_size[0]);
    return pooling_nd_check(p, "Pooling3D", name.c_str(), 3);
}

int Pooling3D::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (bottom_blob.dims != 4)
    {
        KITE_LOGE("Pooling3D '%s': expects a 4-D (w, h, d, c) input, got dims %d", name.c_str(), bottom_blob.dims);
        return -1;
    }
    return pooling_nd_forward(p, "Pooling3D", name.c_str(), bottom_blob, bottom_blob.w, bottom_blob.h, bottom_blob.d,
                              bottom_blob.c, bottom_blob.cstep, 3, top_blob, opt);
}

DEFINE_LAYER_CREATOR(Pooling3D)

} // namespace kite
