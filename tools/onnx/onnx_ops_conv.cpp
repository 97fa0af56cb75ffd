// ONNX Conv/ConvTranspose, pooling, Gemm and MatMul.
#include "onnx_ops.h"

#include <algorithm>

namespace kite {
namespace convert {
namespace onnx {

// explicit [top, left, bottom, right] for auto_pad SAME_UPPER / SAME_LOWER
static std::vector<int64_t> same_pads(int64_t H, int64_t W, int64_t oh, int64_t ow, int64_t ekh, int64_t ekw, const std::vector<int64_t>& st, bool upper)
{
    int64_t th = std::max<int64_t>(0, (oh - 1) * st[0] + ekh - H), tw = std::max<int64_t>(0, (ow - 1) * st[1] + ekw - W);
    int64_t t = upper ? th / 2 : th - th / 2, l = upper ? tw / 2 : tw - tw / 2;
    return {t, l, th - t, tw - l};
}

void emit_conv(Converter& cv, bool transpose)
{
    Shape x = cv.in_shape(0);
    check_batch1(cv, x);
    if (x.size() != 4)
        cv.fail("only 2-D convolutions (4-D input) are converted, got " + shape_str(x));
    const Const& W = cv.cin(1);
    if (W.shape.size() != 4)
        cv.fail("weight must be 4-D");
    int64_t group = cv.attr_i("group", 1);
    if (group < 1 || x[1] % group)
        cv.fail("group " + std::to_string(group) + " does not divide the input channels");
    std::vector<int64_t> ks = cv.attr_ints("kernel_shape");
    int64_t kh = W.shape[2], kw = W.shape[3];
    if (!ks.empty() && (ks.size() != 2 || ks[0] != kh || ks[1] != kw))
        cv.fail("kernel_shape disagrees with the weight");
    std::vector<int64_t> st = cv.attr_ints("strides"), dl = cv.attr_ints("dilations"), pads = cv.attr_ints("pads");
    if (st.empty()) st = {1, 1};
    if (dl.empty()) dl = {1, 1};
    if (pads.empty()) pads = {0, 0, 0, 0};
    if (st.size() != 2 || dl.size() != 2 || pads.size() != 4)
        cv.fail("strides/dilations/pads must have 2/2/4 values");
    for (int64_t v : st) if (v < 1) cv.fail("stride must be >= 1");
    for (int64_t v : dl) if (v < 1) cv.fail("dilation must be >= 1");
    for (int64_t v : pads) if (v < 0) cv.fail("negative pads");
    std::string autopad = cv.attr_s("auto_pad", "NOTSET");
    int64_t C = x[1], H = x[2], Wd = x[3];
    int64_t O = transpose ? W.shape[1] * group : W.shape[0];
    if (transpose ? W.shape[0] != C : W.shape[1] * group != C)
        cv.fail("weight " + shape_str(W.shape) + " does not fit input " + shape_str(x));
    int64_t ekh = dl[0] * (kh - 1) + 1, ekw = dl[1] * (kw - 1) + 1;
    int64_t oh, ow;
    // the fields Convolution and Deconvolution (ConvGeometrySpec) fill alike
    auto geometry = [&](auto& s) {
        s.num_output = (int)O;
        s.kernel((int)kw, (int)kh).dilation((int)dl[1], (int)dl[0]).stride((int)st[1], (int)st[0]);
        s.pads((int)pads[1], (int)pads[3], (int)pads[0], (int)pads[2]);
        s.bias_term = cv.has_in(2) ? 1 : 0;
        s.weight_data_size = (int)W.numel();
        if (group > 1)
            s.group = (int)group;
    };
    if (!transpose)
    {
        if (autopad == "SAME_UPPER" || autopad == "SAME_LOWER")
        {
            oh = (H + st[0] - 1) / st[0];
            ow = (Wd + st[1] - 1) / st[1];
            pads = same_pads(H, Wd, oh, ow, ekh, ekw, st, autopad == "SAME_UPPER");
        }
        else
        {
            if (autopad == "VALID")
                pads = {0, 0, 0, 0};
            oh = (H + pads[0] + pads[2] - ekh) / st[0] + 1;
            ow = (Wd + pads[1] + pads[3] - ekw) / st[1] + 1;
        }
    }
    else
    {
        std::vector<int64_t> op = cv.attr_ints("output_padding");
        if (op.empty()) op = {0, 0};
        if (cv.has_attr("output_shape") || (autopad != "NOTSET" && autopad != "VALID"))
            cv.fail("output_shape / auto_pad SAME are not converted for ConvTranspose");
        if (autopad == "VALID")
            pads = {0, 0, 0, 0};
        oh = (H - 1) * st[0] + ekh + op[0] - pads[0] - pads[2];
        ow = (Wd - 1) * st[1] + ekw + op[1] - pads[1] - pads[3];
        std::string t = cv.top_name(0);
        DeconvolutionSpec s;
        s.type = group == 1 ? "Deconvolution" : "DeconvolutionDepthWise";
        geometry(s);
        s.output_pad_right = (int)op[1];
        s.output_pad_bottom = (int)op[0];
        KLayer& l = cv.emit(s, {cv.blob(0)}, {t});
        // ONNX [C_in][O/g][k] -> kite [O][C_in/g][k]
        int64_t icg = C / group, ocg = O / group, maxk = kh * kw;
        std::vector<float> w(W.numel());
        for (int64_t g = 0; g < group; g++)
            for (int64_t o = 0; o < ocg; o++)
                for (int64_t i = 0; i < icg; i++)
                    for (int64_t k = 0; k < maxk; k++)
                        w[(((g * ocg + o) * icg) + i) * maxk + k] = (float)W.v[(((g * icg + i) * ocg) + o) * maxk + k];
        l.weights.push_back(tagged(w));
        if (cv.has_in(2))
            l.weights.push_back(raw(cv.cin(2).floats()));
        if (oh < 1 || ow < 1)
            cv.fail("output would be empty");
        cv.set_out(0, {1, O, oh, ow}, t, {O, oh, ow});
        return;
    }
    if (oh < 1 || ow < 1)
        cv.fail("output would be empty for input " + shape_str(x));
    std::string t = cv.top_name(0);
    ConvolutionSpec s;
    s.type = group == 1 ? "Convolution" : "ConvolutionDepthWise";
    geometry(s);
    KLayer& l = cv.emit(s, {cv.blob(0)}, {t});
    l.weights.push_back(tagged(W.floats()));
    if (cv.has_in(2))
    {
        if (cv.cin(2).numel() != (size_t)O)
            cv.fail("bias size differs from the output channels");
        l.weights.push_back(raw(cv.cin(2).floats()));
    }
    cv.set_out(0, {1, O, oh, ow}, t, {O, oh, ow});
}

void emit_pool(Converter& cv, int type, bool global)
{
    Shape x = cv.in_shape(0);
    check_batch1(cv, x);
    if (x.size() != 4)
        cv.fail("only 2-D pooling (4-D input) is converted, got " + shape_str(x));
    std::string t = cv.top_name(0);
    PoolingSpec ps;
    ps.pooling_type = type;
    if (global)
    {
        ps.global_pooling = 1;
        cv.emit(ps, {cv.blob(0)}, {t});
        cv.set_out(0, {1, x[1], 1, 1}, t, {x[1]});
        return;
    }
    std::vector<int64_t> ks = cv.attr_ints("kernel_shape"), st = cv.attr_ints("strides"), pads = cv.attr_ints("pads"), dl = cv.attr_ints("dilations");
    if (st.empty()) st = {1, 1};
    if (pads.empty()) pads = {0, 0, 0, 0};
    if (ks.size() != 2 || st.size() != 2 || pads.size() != 4)
        cv.fail("kernel_shape/strides/pads must have 2/2/4 values");
    for (int64_t d : dl)
        if (d != 1)
            cv.fail("dilated pooling is not converted");
    for (int64_t v : ks) if (v < 1) cv.fail("kernel must be >= 1");
    for (int64_t v : st) if (v < 1) cv.fail("stride must be >= 1");
    std::string autopad = cv.attr_s("auto_pad", "NOTSET");
    bool ceil_mode = cv.attr_i("ceil_mode", 0) != 0;
    int64_t H = x[2], W = x[3], oh, ow;
    ps.kernel((int)ks[1], (int)ks[0]).stride((int)st[1], (int)st[0]);
    ps.avgpool_count_include_pad = type == PoolingSpec::AVG ? (int)cv.attr_i("count_include_pad", 0) : 0;
    if (autopad == "SAME_UPPER" || autopad == "SAME_LOWER")
    {
        oh = (H + st[0] - 1) / st[0];
        ow = (W + st[1] - 1) / st[1];
        pads = same_pads(H, W, oh, ow, ks[0], ks[1], st, autopad == "SAME_UPPER");
        autopad = "NOTSET";
    }
    {
        if (autopad == "VALID")
            pads = {0, 0, 0, 0};
        auto outsz = [](int64_t in, int64_t k, int64_t s, int64_t p0, int64_t p1, bool c) {
            int64_t span = in + p0 + p1 - k;
            int64_t o = (c ? (span + s - 1) / s : span / s) + 1;
            if (c && (o - 1) * s >= in + p0)
                o--; // the last window must start inside the input or its leading pad
            return o;
        };
        oh = outsz(H, ks[0], st[0], pads[0], pads[2], ceil_mode);
        ow = outsz(W, ks[1], st[1], pads[1], pads[3], ceil_mode);
        int64_t fh = outsz(H, ks[0], st[0], pads[0], pads[2], false), fw = outsz(W, ks[1], st[1], pads[1], pads[3], false);
        // kite's "full" mode adds a tail pad up to the ceil size; grow the
        // bottom/right pads instead so the sizes are exactly ONNX's
        int64_t pb = pads[2] + (oh - fh) * st[0], pr = pads[3] + (ow - fw) * st[1];
        if ((oh != fh || ow != fw) && type == PoolingSpec::AVG && cv.attr_i("count_include_pad", 0))
            cv.fail("ceil_mode with count_include_pad is not converted");
        ps.pad_mode = 1; // valid: exactly the pads given
        ps.pads((int)pads[1], (int)pr, (int)pads[0], (int)pb);
    }
    if (oh < 1 || ow < 1)
        cv.fail("output would be empty");
    cv.emit(ps, {cv.blob(0)}, {t});
    cv.set_out(0, {1, x[1], oh, ow}, t, {x[1], oh, ow});
}

// InnerProduct over rows: x [P, K] (any leading shape) times W^T (N x K) + bias
static void emit_fc(Converter& cv, const Shape& x, const std::vector<float>& w, int64_t N, const std::vector<float>& bias, const Shape& out)
{
    int64_t K = x.back();
    int64_t P = (int64_t)(shape_numel(x) / (size_t)std::max<int64_t>(K, 1));
    Shape in2 = {P, K};
    std::string b = cv.reshape(cv.blob(0), Converter::kshape(x), Converter::kshape(in2));
    std::string t = cv.top_name(0);
    InnerProductSpec s;
    s.num_output = (int)N;
    s.bias_term = bias.empty() ? 0 : 1;
    s.weight_data_size = (int)w.size();
    KLayer& l = cv.emit(s, {b}, {t});
    l.weights.push_back(tagged(w));
    if (!bias.empty())
        l.weights.push_back(raw(bias));
    cv.set_out(0, out, t, Converter::kshape({P, N}));
}

void emit_gemm(Converter& cv)
{
    Shape a = cv.in_shape(0);
    if (a.size() != 2)
        cv.fail("A must be 2-D, got " + shape_str(a));
    if (cv.attr_i("transA", 0))
        cv.fail("transA=1 is not converted");
    const Const& B = cv.cin(1);
    if (B.shape.size() != 2)
        cv.fail("B must be 2-D");
    bool tb = cv.attr_i("transB", 0) != 0;
    int64_t K = tb ? B.shape[1] : B.shape[0], N = tb ? B.shape[0] : B.shape[1];
    if (K != a[1])
        cv.fail("A " + shape_str(a) + " and B " + shape_str(B.shape) + " disagree on K");
    float alpha = cv.attr_f("alpha", 1.f), beta = cv.attr_f("beta", 1.f);
    std::vector<float> w((size_t)(N * K));
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++)
            w[n * K + k] = alpha * (float)(tb ? B.v[n * K + k] : B.v[k * N + n]);
    std::vector<float> bias;
    if (cv.has_in(2))
    {
        const Const& C = cv.cin(2);
        if (C.numel() == 1)
            bias.assign((size_t)N, beta * (float)C.v[0]);
        else if ((size_t)N == C.numel() && C.shape.back() == N)
            for (double v : C.v)
                bias.push_back(beta * (float)v);
        else
            cv.fail("C of shape " + shape_str(C.shape) + " is not a per-column bias");
    }
    emit_fc(cv, a, w, N, bias, {a[0], N});
}

void emit_matmul(Converter& cv)
{
    Shape a = cv.in_shape(0), b = cv.in_shape(1);
    if (a.size() < 2 || b.size() < 2)
        cv.fail("1-D MatMul operands are not converted");
    if (cv.in_const(1) && b.size() == 2)
    {
        const Const& B = cv.cin(1);
        int64_t K = b[0], N = b[1];
        if (a.back() != K)
            cv.fail("shapes " + shape_str(a) + " and " + shape_str(b) + " disagree on K");
        std::vector<float> w((size_t)(N * K));
        for (int64_t n = 0; n < N; n++)
            for (int64_t k = 0; k < K; k++)
                w[n * K + k] = (float)B.v[k * N + n];
        Shape out = a;
        out.back() = N;
        emit_fc(cv, a, w, N, {}, out);
        return;
    }
    size_t r = std::max(a.size(), b.size());
    Shape ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
    Shape o = broadcast_shape(cv, ab, bb);
    o.insert(o.begin(), r - 2 - o.size(), 1);
    if (a[a.size() - 1] != b[b.size() - 2])
        cv.fail("shapes " + shape_str(a) + " and " + shape_str(b) + " disagree on K");
    o.push_back(a[a.size() - 2]);
    o.push_back(b.back());
    // keep the matrix axes even when they are 1
    std::vector<int> axes = Converter::kept_axes(o);
    for (int m : {(int)r - 2, (int)r - 1})
        if (std::find(axes.begin(), axes.end(), m) == axes.end())
            axes.push_back(m);
    std::sort(axes.begin(), axes.end());
    if (axes.size() > 4)
        cv.fail("more than 4 axes");
    // the operands: their own matrix sizes on the last two axes
    Shape ka, kb;
    auto frame = [&](int i, const Shape& s, Shape* k) {
        Shape padded(r - s.size(), 1);
        padded.insert(padded.end(), s.begin(), s.end());
        Shape kk;
        for (int ax : axes)
            kk.push_back(padded[ax]);
        *k = kk;
        if (cv.in_const(i))
            return cv.const_blob(cv.in_name(i), cv.cin(i), kk);
        return cv.reshape(cv.blob(i), Converter::kshape(s), kk);
    };
    std::string x = frame(0, a, &ka), y = frame(1, b, &kb);
    std::string t = cv.top_name(0);
    cv.emit(MatMulSpec(), {x, y}, {t});
    Shape ko;
    for (int ax : axes)
        ko.push_back(o[ax]);
    cv.set_out(0, o, t, ko);
}

} // namespace onnx
} // namespace convert
} // namespace kite
