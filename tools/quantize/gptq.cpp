// Error-compensating int8 weight rounding (GPTQ, Frantar et al. 2022, "GPTQ:
// Accurate Post-Training Quantization for Generative Pre-trained Transformers",
// after Optimal Brain Quantization): the weights of one output are rounded one
// at a time, and the rounding error of each is spread over the weights not yet
// rounded in the way that least changes the output on the calibration inputs,
// measured by the inputs' covariance H = E[(x - mean)(x - mean)^T]. With the
// mean removed, bias correction (quantize.cpp) takes the remaining mean error.

#include "quantize.h"

#include "layer/convolution.h"
#include "layer/innerproduct.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kite {
namespace quantize {

// inputs per output above which a layer keeps rounding to nearest (covariance memory)
static const int kMaxInputsPerOutput = 4608;

// the convolution geometry a patch needs
struct PatchGeom
{
    int groups = 1, ing = 0, kw = 1, kh = 1, dw = 1, dh = 1, sw = 1, sh = 1, pl = 0, pr = 0, pt = 0, pb = 0;
    float pad_value = 0.f;
    bool ip = false;
};

static bool patch_geometry(const convert::Layer& l, int c, PatchGeom& g, std::string& error)
{
    if (l.type == "InnerProduct")
    {
        g.ip = true;
        return true;
    }
    const convert::ParamSet& p = l.params;
    g.kw = p.get_int(Convolution::PARAM_KERNEL_W, 0);
    g.kh = p.get_int(Convolution::PARAM_KERNEL_H, g.kw);
    g.dw = p.get_int(Convolution::PARAM_DILATION_W, 1);
    g.dh = p.get_int(Convolution::PARAM_DILATION_H, g.dw);
    g.sw = p.get_int(Convolution::PARAM_STRIDE_W, 1);
    g.sh = p.get_int(Convolution::PARAM_STRIDE_H, g.sw);
    g.pl = p.get_int(Convolution::PARAM_PAD_LEFT, 0);
    g.pr = p.get_int(Convolution::PARAM_PAD_RIGHT, g.pl);
    g.pt = p.get_int(Convolution::PARAM_PAD_TOP, g.pl);
    g.pb = p.get_int(Convolution::PARAM_PAD_BOTTOM, g.pt);
    g.pad_value = p.get_float(Convolution::PARAM_PAD_VALUE, 0.f);
    g.groups = l.type == "ConvolutionDepthWise" ? std::max(1, p.get_int(Convolution::PARAM_GROUP, 1)) : 1;
    if (g.kw <= 0 || g.kh <= 0 || g.dw <= 0 || g.dh <= 0 || g.sw <= 0 || g.sh <= 0 || g.pl < 0 || g.pr < 0 || g.pt < 0
        || g.pb < 0)
    {
        error = "layer '" + l.name + "': geometry not supported for gptq (SAME padding or invalid)";
        return false;
    }
    if (c % g.groups != 0)
    {
        error = "layer '" + l.name + "': " + std::to_string(c) + " input channels do not split into " + std::to_string(g.groups)
                + " groups";
        return false;
    }
    g.ing = c / g.groups;
    return true;
}

int add_input_moments(const convert::Layer& l, const float* x, int c, int h, int w, InputMoments& m, std::string& error)
{
    PatchGeom g;
    if (!patch_geometry(l, c, g, error))
        return -1;
    const long long Kl = g.ip ? (long long)c * h * w : (long long)g.ing * g.kh * g.kw;
    if (Kl > kMaxInputsPerOutput)
    {
        // the K x K covariance would take K^2 doubles (a VGG fc6 with K = 25088: 5 GB)
        error = "layer '" + l.name + "': " + std::to_string(Kl) + " inputs per output, more than gptq handles ("
                + std::to_string(kMaxInputsPerOutput) + ")";
        return -1;
    }
    const int K = (int)Kl;
    const int groups = g.groups;
    if (m.K == 0)
    {
        m.K = K;
        m.groups = groups;
        m.sum.assign((size_t)groups * K, 0.0);
        m.outer.assign((size_t)groups * K * K, 0.0);
    }
    if (m.K != K || m.groups != groups)
    {
        error = "layer '" + l.name + "': input size changed between inputs";
        return -1;
    }
    // patches as columns: cols[k * L + j] is element k of patch j
    int L;
    std::vector<float> cols;
    if (g.ip)
    {
        L = 1;
        cols.assign(x, x + (size_t)K);
    }
    const int kext_w = g.dw * (g.kw - 1) + 1, kext_h = g.dh * (g.kh - 1) + 1;
    const int outw = g.ip ? 1 : (w + g.pl + g.pr - kext_w) / g.sw + 1;
    const int outh = g.ip ? 1 : (h + g.pt + g.pb - kext_h) / g.sh + 1;
    if (!g.ip && (outw <= 0 || outh <= 0))
    {
        error = "layer '" + l.name + "': input smaller than the kernel";
        return -1;
    }
    if (!g.ip)
        L = outw * outh;
    for (int gi = 0; gi < groups; gi++)
    {
        if (!g.ip)
        {
            cols.assign((size_t)K * L, 0.f);
            for (int i = 0; i < g.ing; i++)
            {
                const float* xc = x + (size_t)(gi * g.ing + i) * h * w;
                for (int ky = 0; ky < g.kh; ky++)
                    for (int kx = 0; kx < g.kw; kx++)
                    {
                        float* col = &cols[(size_t)((i * g.kh + ky) * g.kw + kx) * L];
                        for (int oy = 0; oy < outh; oy++)
                        {
                            const int iy = oy * g.sh - g.pt + ky * g.dh;
                            for (int ox = 0; ox < outw; ox++)
                            {
                                const int ix = ox * g.sw - g.pl + kx * g.dw;
                                col[oy * outw + ox] = iy >= 0 && iy < h && ix >= 0 && ix < w ? xc[(size_t)iy * w + ix] : g.pad_value;
                            }
                        }
                    }
            }
        }
        double* sum = &m.sum[(size_t)gi * K];
        double* outer = &m.outer[(size_t)gi * K * K];
        for (int a = 0; a < K; a++)
        {
            const float* ca = &cols[(size_t)a * L];
            double s = 0;
            for (int j = 0; j < L; j++)
                s += ca[j];
            sum[a] += s;
            for (int b = a; b < K; b++)
            {
                const float* cb = &cols[(size_t)b * L];
                double d = 0;
                for (int j = 0; j < L; j++)
                    d += (double)ca[j] * cb[j];
                outer[(size_t)a * K + b] += d;
            }
        }
    }
    m.n += L;
    return 0;
}

// lower Cholesky factor of the K x K symmetric a (in place, upper part ignored); false if not positive definite
static bool cholesky(std::vector<double>& a, int K)
{
    for (int j = 0; j < K; j++)
    {
        double d = a[(size_t)j * K + j];
        for (int k = 0; k < j; k++)
            d -= a[(size_t)j * K + k] * a[(size_t)j * K + k];
        if (!(d > 0))
            return false;
        d = std::sqrt(d);
        a[(size_t)j * K + j] = d;
        for (int i = j + 1; i < K; i++)
        {
            double s = a[(size_t)i * K + j];
            for (int k = 0; k < j; k++)
                s -= a[(size_t)i * K + k] * a[(size_t)j * K + k];
            a[(size_t)i * K + j] = s / d;
        }
    }
    for (int i = 0; i < K; i++)
        for (int j = i + 1; j < K; j++)
            a[(size_t)i * K + j] = 0;
    return true;
}

// U (upper, row-major) with H^-1 = U^T U, for the symmetric positive definite H
static bool inverse_upper_factor(const std::vector<double>& H, int K, std::vector<double>& U)
{
    std::vector<double> Lf = H;
    if (!cholesky(Lf, K))
        return false;
    // H^-1 = L^-T L^-1: invert the lower triangle L, then Hinv = Li^T Li
    std::vector<double> Li((size_t)K * K, 0.0);
    for (int i = 0; i < K; i++)
    {
        Li[(size_t)i * K + i] = 1.0 / Lf[(size_t)i * K + i];
        for (int j = 0; j < i; j++)
        {
            double s = 0;
            for (int k = j; k < i; k++)
                s -= Lf[(size_t)i * K + k] * Li[(size_t)k * K + j];
            Li[(size_t)i * K + j] = s / Lf[(size_t)i * K + i];
        }
    }
    std::vector<double> Hinv((size_t)K * K, 0.0);
    for (int i = 0; i < K; i++)
        for (int j = 0; j <= i; j++)
        {
            double s = 0;
            for (int k = i; k < K; k++) // Li[k][i] * Li[k][j], nonzero for k >= max(i, j) = i
                s += Li[(size_t)k * K + i] * Li[(size_t)k * K + j];
            Hinv[(size_t)i * K + j] = Hinv[(size_t)j * K + i] = s;
        }
    if (!cholesky(Hinv, K)) // lower L2 with Hinv = L2 L2^T; U = L2^T
        return false;
    U.assign((size_t)K * K, 0.0);
    for (int i = 0; i < K; i++)
        for (int j = 0; j <= i; j++)
            U[(size_t)j * K + i] = Hinv[(size_t)i * K + j];
    return true;
}

int gptq_weights(const convert::Layer& l, const std::vector<float>& ws, const InputMoments& m, std::vector<signed char>& q,
                 std::string& error, int min_inputs_per_weight, bool* applied)
{
    const std::vector<float>& w = l.weights[0].data;
    const int K = m.K, G = m.groups;
    const int num_output = l.params.get_int(Convolution::PARAM_NUM_OUTPUT, 0); // same id for InnerProduct
    if (K <= 0 || G <= 0 || m.n <= 0 || num_output <= 0 || num_output % G != 0 || (size_t)num_output * K != w.size())
    {
        error = "layer '" + l.name + "': input statistics do not match the weights";
        return -1;
    }
    const int outg = num_output / G;
    const bool per_group_scale = l.type == "ConvolutionDepthWise";
    if ((int)ws.size() != (per_group_scale ? G : num_output))
    {
        error = "layer '" + l.name + "': weight scale count does not match";
        return -1;
    }
    q.resize(w.size());
    // too few inputs for a K x K covariance (e.g. an InnerProduct after global
    // pooling): the compensation would fit the calibration set, round to nearest
    const bool enough = m.n >= (double)min_inputs_per_weight * K;
    if (applied)
        *applied = false;
    for (int gi = 0; gi < G; gi++)
    {
        // centred covariance, damped (1% of the mean variance, GPTQ's default)
        std::vector<double> H((size_t)K * K);
        const double* sum = &m.sum[(size_t)gi * K];
        const double* outer = &m.outer[(size_t)gi * K * K];
        for (int a = 0; a < K; a++)
            for (int b = a; b < K; b++)
            {
                const double v = outer[(size_t)a * K + b] / m.n - sum[a] / m.n * (sum[b] / m.n);
                H[(size_t)a * K + b] = H[(size_t)b * K + a] = v;
            }
        double mean_diag = 0;
        for (int a = 0; a < K; a++)
            mean_diag += std::max(0.0, H[(size_t)a * K + a]);
        mean_diag /= K;
        // columns in the order of decreasing variance (GPTQ's act-order)
        std::vector<int> perm(K);
        std::iota(perm.begin(), perm.end(), 0);
        std::stable_sort(perm.begin(), perm.end(), [&](int a, int b) { return H[(size_t)a * K + a] > H[(size_t)b * K + b]; });
        std::vector<double> Hp((size_t)K * K);
        for (int a = 0; a < K; a++)
            for (int b = 0; b < K; b++)
                Hp[(size_t)a * K + b] = H[(size_t)perm[a] * K + perm[b]];
        std::vector<double> U;
        bool ok = enough && mean_diag > 0;
        for (double damp = 0.01; ok; damp *= 10)
        {
            std::vector<double> Hd = Hp;
            for (int a = 0; a < K; a++)
            {
                if (!(Hd[(size_t)a * K + a] > 0)) // an input that never changes: any rounding, bias correction takes it
                    Hd[(size_t)a * K + a] = 0;
                Hd[(size_t)a * K + a] += damp * mean_diag;
            }
            if (inverse_upper_factor(Hd, K, U))
                break;
            if (damp > 10)
                ok = false;
        }
        if (ok && applied)
            *applied = true;
        for (int o = gi * outg; o < (gi + 1) * outg; o++)
        {
            const float s = ws[per_group_scale ? gi : o];
            const size_t base = (size_t)o * K;
            if (!ok)
            {
                for (int k = 0; k < K; k++)
                    q[base + k] = float2int8(w[base + k] * s);
                continue;
            }
            std::vector<double> r(K);
            for (int k = 0; k < K; k++)
                r[k] = w[base + perm[k]];
            for (int k = 0; k < K; k++)
            {
                const signed char v = float2int8((float)(r[k] * s));
                q[base + perm[k]] = v;
                const double e = (r[k] - (double)v / s) / U[(size_t)k * K + k];
                const double* u = &U[(size_t)k * K];
                for (int j = k + 1; j < K; j++)
                    r[j] -= e * u[j];
            }
        }
    }
    return 0;
}

} // namespace quantize
} // namespace kite
