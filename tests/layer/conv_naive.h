#ifndef KITE_TESTS_CONV_NAIVE_H
#define KITE_TESTS_CONV_NAIVE_H

// Independent, deliberately naive computations for the convolution family
// tests: the input is copied into an explicitly padded dense buffer, the
// transposed convolution is computed by gathering (not scattering), and the
// activations and int8 rounding are written out again here, so that the
// tests do not share code with the layers they check.

#include "testutil.h"

#include <cmath>
#include <string>
#include <vector>

namespace kite {
namespace test {

// a dense [c][d][h][w] copy of a blob (dims 1: w; dims 2: w x h; for the 1-D
// layers use rows_as_channels: dims 2 is h channels of w)
struct Dense
{
    int w = 1, h = 1, d = 1, c = 1;
    std::vector<float> v;
    float& at(int q, int z, int y, int x) { return v[(((size_t)q * d + z) * h + y) * w + x]; }
    float at(int q, int z, int y, int x) const { return v[(((size_t)q * d + z) * h + y) * w + x]; }
};

inline Dense to_dense(const Mat& m0, bool rows_as_channels = false)
{
    Mat m = to_fp32_pack1(m0, false);
    Dense r;
    if (m.elemsize == 1)
        m = m0;
    r.w = m.w;
    r.h = m.dims >= 2 ? m.h : 1;
    r.d = m.dims == 4 ? m.d : 1;
    r.c = m.dims >= 3 ? m.c : 1;
    r.v.resize((size_t)r.w * r.h * r.d * r.c);
    for (int q = 0; q < r.c; q++)
        for (int i = 0; i < r.w * r.h * r.d; i++)
        {
            size_t off = (m.dims >= 3 ? m.cstep * q : 0) + i;
            r.v[(size_t)q * r.w * r.h * r.d + i] = m.elemsize == 1 ? (float)((const signed char*)m.data)[off] : ((const float*)m.data)[off];
        }
    if (rows_as_channels && m.dims == 2)
    {
        r.c = r.h;
        r.h = 1;
    }
    return r;
}

inline float naive_act(float v, int type, const std::vector<float>& p)
{
    switch (type)
    {
    case 1: return v < 0 ? 0 : v;
    case 2: return v < 0 ? v * p[0] : v;
    case 3: return std::min(std::max(v, p[0]), p[1]);
    case 4: return 1.f / (1.f + std::exp(-v));
    case 5: return v * std::tanh(std::log1p(std::exp(v)));
    case 6:
    {
        // hardswish: v * clamp(alpha * v + beta, 0, 1)
        float t = p[0] * v + p[1];
        t = std::min(std::max(t, 0.f), 1.f);
        return v * t;
    }
    default: return v;
    }
}

inline int naive_round_clamp(float x)
{
    float r = x >= 0 ? std::floor(x + 0.5f) : -std::floor(-x + 0.5f);
    if (r > 127) r = 127;
    if (r < -127) r = -127;
    return (int)r;
}

struct NaiveConv
{
    int outc = 1, group = 1;
    int k[3] = {1, 1, 1}, dil[3] = {1, 1, 1}, stride[3] = {1, 1, 1};
    int pad0[3] = {0, 0, 0}, pad1[3] = {0, 0, 0}; // begin/end per axis w, h, d
    float pad_value = 0.f;
    int act = 0;
    std::vector<float> act_params;
    // int8: when set, input and weights are quantized here and the sum is integer
    bool int8 = false;
    float bottom_scale = 1.f;
    std::vector<float> weight_scales; // per out channel
    bool requant = false;
    float top_scale = 1.f;
};

// weights [outc][inc/group][kd][kh][kw] as floats (int8 weights already as their integer values)
inline Dense naive_conv(const Dense& in0, const std::vector<float>& weight, const std::vector<float>& bias, const NaiveConv& p,
                        bool weights_are_int8 = false)
{
    Dense in = in0;
    float padv = p.pad_value;
    if (p.int8)
    {
        for (float& x : in.v)
            x = (float)naive_round_clamp(x * p.bottom_scale);
        padv = (float)(int)p.pad_value;
    }
    // explicit padding
    Dense pd;
    pd.w = in.w + p.pad0[0] + p.pad1[0];
    pd.h = in.h + p.pad0[1] + p.pad1[1];
    pd.d = in.d + p.pad0[2] + p.pad1[2];
    pd.c = in.c;
    pd.v.assign((size_t)pd.w * pd.h * pd.d * pd.c, padv);
    for (int q = 0; q < in.c; q++)
        for (int z = 0; z < in.d; z++)
            for (int y = 0; y < in.h; y++)
                for (int x = 0; x < in.w; x++)
                    pd.at(q, z + p.pad0[2], y + p.pad0[1], x + p.pad0[0]) = in.at(q, z, y, x);
    const int inc_g = in.c / p.group, outc_g = p.outc / p.group;
    Dense out;
    out.w = (pd.w - (p.dil[0] * (p.k[0] - 1) + 1)) / p.stride[0] + 1;
    out.h = (pd.h - (p.dil[1] * (p.k[1] - 1) + 1)) / p.stride[1] + 1;
    out.d = (pd.d - (p.dil[2] * (p.k[2] - 1) + 1)) / p.stride[2] + 1;
    out.c = p.outc;
    out.v.assign((size_t)out.w * out.h * out.d * out.c, 0.f);
    for (int oc = 0; oc < p.outc; oc++)
    {
        int g = oc / outc_g;
        std::vector<float> wq(weight.begin() + (size_t)oc * inc_g * p.k[0] * p.k[1] * p.k[2],
                              weight.begin() + (size_t)(oc + 1) * inc_g * p.k[0] * p.k[1] * p.k[2]);
        if (p.int8 && !weights_are_int8)
            for (float& x : wq)
                x = (float)naive_round_clamp(x * p.weight_scales[oc]);
        for (int z = 0; z < out.d; z++)
            for (int y = 0; y < out.h; y++)
                for (int x = 0; x < out.w; x++)
                {
                    double sum = 0;
                    long long isum = 0;
                    int wi = 0;
                    for (int ic = 0; ic < inc_g; ic++)
                        for (int kz = 0; kz < p.k[2]; kz++)
                            for (int ky = 0; ky < p.k[1]; ky++)
                                for (int kx = 0; kx < p.k[0]; kx++, wi++)
                                {
                                    float v = pd.at(g * inc_g + ic, z * p.stride[2] + kz * p.dil[2], y * p.stride[1] + ky * p.dil[1],
                                                    x * p.stride[0] + kx * p.dil[0]);
                                    if (p.int8)
                                        isum += (long long)v * (long long)wq[wi];
                                    else
                                        sum += (double)v * wq[wi];
                                }
                    float r;
                    if (p.int8)
                        r = p.weight_scales[oc] == 0 ? 0.f : (float)isum / (p.bottom_scale * p.weight_scales[oc]);
                    else
                        r = (float)sum;
                    if (!bias.empty())
                        r += bias[oc];
                    r = naive_act(r, p.act, p.act_params);
                    if (p.requant)
                        r = (float)naive_round_clamp(r * p.top_scale);
                    out.at(oc, z, y, x) = r;
                }
    }
    return out;
}

// transposed convolution by gathering; pad0/pad1 cut the full output
inline Dense naive_deconv(const Dense& in, const std::vector<float>& weight, const std::vector<float>& bias, const NaiveConv& p,
                          const int output_pad[3])
{
    const int inc_g = in.c / p.group, outc_g = p.outc / p.group;
    int full[3];
    const int insz[3] = {in.w, in.h, in.d};
    for (int a = 0; a < 3; a++)
        full[a] = (insz[a] - 1) * p.stride[a] + p.dil[a] * (p.k[a] - 1) + 1 + output_pad[a];
    Dense out;
    out.w = full[0] - p.pad0[0] - p.pad1[0];
    out.h = full[1] - p.pad0[1] - p.pad1[1];
    out.d = full[2] - p.pad0[2] - p.pad1[2];
    out.c = p.outc;
    out.v.assign((size_t)out.w * out.h * out.d * out.c, 0.f);
    const int kk = p.k[0] * p.k[1] * p.k[2];
    for (int oc = 0; oc < p.outc; oc++)
    {
        int g = oc / outc_g;
        for (int z = 0; z < out.d; z++)
            for (int y = 0; y < out.h; y++)
                for (int x = 0; x < out.w; x++)
                {
                    const int f[3] = {x + p.pad0[0], y + p.pad0[1], z + p.pad0[2]};
                    double sum = bias.empty() ? 0 : bias[oc];
                    for (int ic = 0; ic < inc_g; ic++)
                        for (int kz = 0; kz < p.k[2]; kz++)
                            for (int ky = 0; ky < p.k[1]; ky++)
                                for (int kx = 0; kx < p.k[0]; kx++)
                                {
                                    const int kidx[3] = {kx, ky, kz};
                                    int src[3];
                                    bool ok = true;
                                    for (int a = 0; a < 3 && ok; a++)
                                    {
                                        int t = f[a] - kidx[a] * p.dil[a];
                                        if (t < 0 || t % p.stride[a] != 0 || t / p.stride[a] >= insz[a])
                                            ok = false;
                                        else
                                            src[a] = t / p.stride[a];
                                    }
                                    if (!ok)
                                        continue;
                                    float wv = weight[((size_t)oc * inc_g + ic) * kk + (kz * p.k[1] + ky) * p.k[0] + kx];
                                    sum += (double)in.at(g * inc_g + ic, src[2], src[1], src[0]) * wv;
                                }
                    out.at(oc, z, y, x) = naive_act((float)sum, p.act, p.act_params);
                }
    }
    return out;
}

// compare a layer output with a naive result: shapes (w, h, d, c) and values
inline std::string compare_dense(const Dense& got, const Dense& want, float eps)
{
    if (got.w != want.w || got.h != want.h || got.d != want.d || got.c != want.c)
        return "shape " + std::to_string(got.w) + "x" + std::to_string(got.h) + "x" + std::to_string(got.d) + "x" + std::to_string(got.c) +
               " != naive " + std::to_string(want.w) + "x" + std::to_string(want.h) + "x" + std::to_string(want.d) + "x" + std::to_string(want.c);
    for (size_t i = 0; i < got.v.size(); i++)
    {
        float tol = eps * std::max(1.f, std::fabs(want.v[i]));
        if (!(std::fabs(got.v[i] - want.v[i]) <= tol))
            return "value " + std::to_string(i) + ": got " + std::to_string(got.v[i]) + ", naive " + std::to_string(want.v[i]) +
                   " (seed " + std::to_string(seed()) + ")";
    }
    return "";
}

inline std::vector<float> mat_values(const Mat& m)
{
    std::vector<float> v(m.w);
    for (int i = 0; i < m.w; i++)
        v[i] = m.elemsize == 1 ? (float)((const signed char*)m.data)[i] : ((const float*)m.data)[i];
    return v;
}

} // namespace test
} // namespace kite

#endif // KITE_TESTS_CONV_NAIVE_H
