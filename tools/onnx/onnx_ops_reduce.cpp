// ONNX ops that reduce over axes: Softmax/LogSoftmax, Reduce*, and the
// normalisations (BatchNormalization, InstanceNormalization, LayerNormalization).
#include "onnx_ops.h"

#include "reduction.h"
#include "unaryop.h"

#include <algorithm>

namespace kite {
namespace convert {
namespace onnx {

void emit_softmax(Converter& cv, bool log)
{
    Shape s = cv.in_shape(0);
    int64_t axis = Converter::norm_axis(cv.attr_i("axis", cv.opset_ >= 13 ? -1 : 1), s.size());
    if (axis < 0 || axis >= (int64_t)s.size())
        cv.fail("axis out of range");
    std::string b = cv.blob(0);
    Shape work = s;
    int64_t ax = axis;
    if (cv.opset_ < 13)
    {
        int64_t p = 1, q = 1;
        for (int64_t i = 0; i < (int64_t)s.size(); i++)
            (i < axis ? p : q) *= s[i];
        work = {p, q};
        ax = 1;
        b = cv.reshape(b, Converter::kshape(s), Converter::kshape(work));
    }
    int ka = cv.kaxis(work, ax);
    std::string t = log ? cv.uniq(cv.out_name(0)) : cv.top_name(0);
    if (ka < 0)
        cv.fail("softmax over a dropped unit axis");
    SoftmaxSpec sm;
    sm.axis = ka;
    sm.fixbug0 = 1;
    cv.emit(sm, {b}, {t});
    if (log)
    {
        std::string t2 = cv.top_name(0);
        cv.emit(UnaryOpSpec::op(UnaryOp::Operation_LOG), {t}, {t2});
        t = t2;
    }
    cv.set_out(0, s, t, Converter::kshape(work));
}

void emit_reduce(Converter& cv, int op)
{
    Shape s = cv.in_shape(0);
    bool keep = cv.attr_i("keepdims", 1) != 0;
    std::vector<int64_t> axes;
    bool axes_input = cv.opset_ >= 18 || (cv.node_->op_type() == "ReduceSum" && cv.opset_ >= 13);
    axes = axes_input ? axes_arg(cv, 1, "axes") : cv.attr_ints("axes");
    if (axes.empty() && cv.attr_i("noop_with_empty_axes", 0))
    {
        cv.set_out(0, s, cv.blob(0), Converter::kshape(s));
        return;
    }
    std::vector<bool> red(s.size(), axes.empty());
    for (int64_t a : axes)
    {
        int64_t x = Converter::norm_axis(a, s.size());
        if (x < 0 || x >= (int64_t)s.size())
            cv.fail("axis out of range");
        red[x] = true;
    }
    Shape o;
    for (size_t i = 0; i < s.size(); i++)
        if (!red[i])
            o.push_back(s[i]);
        else if (keep)
            o.push_back(1);
    std::vector<int> kept = Converter::kept_axes(s);
    Shape k = Converter::kshape(s), ko;
    std::vector<int> kaxes;
    for (size_t i = 0; i < kept.size(); i++)
        if (red[kept[i]])
            kaxes.push_back((int)i);
    for (size_t i = 0; i < k.size(); i++)
    {
        bool r = std::find(kaxes.begin(), kaxes.end(), (int)i) != kaxes.end();
        if (!r)
            ko.push_back(k[i]);
        else if (keep)
            ko.push_back(1);
    }
    if (ko.empty())
        ko.push_back(1);
    if (kaxes.empty())
    {
        if (op == Reduction::OP_SUM || op == Reduction::OP_MEAN || op == Reduction::OP_MAX || op == Reduction::OP_MIN
            || op == Reduction::OP_PROD)
        {
            cv.set_out(0, o, cv.blob(0), k);
            return;
        }
        cv.fail("reduces only dropped unit axes");
    }
    std::string t = cv.top_name(0);
    ReductionSpec rs;
    rs.operation = op;
    bool all = kaxes.size() == k.size();
    rs.reduce_all = all ? 1 : 0;
    rs.coeff = 1.f;
    if (!all)
        rs.axes = kaxes;
    rs.keepdims = keep ? 1 : 0;
    rs.fixbug0 = 1;
    cv.emit(rs, {cv.blob(0)}, {t});
    cv.set_out(0, o, t, ko);
}

static std::vector<float> per_channel(const Converter& cv, int i, int64_t C, float def)
{
    if (!cv.has_in(i))
        return std::vector<float>((size_t)C, def);
    const Const& c = cv.cin(i);
    if (c.numel() != (size_t)C)
        cv.fail("input " + std::to_string(i) + " has " + std::to_string(c.numel()) + " values for " + std::to_string(C) + " channels");
    return c.floats();
}

void emit_norms(Converter& cv, const std::string& op)
{
    Shape s = cv.in_shape(0);
    if (op == "BatchNormalization")
    {
        if (s.size() < 2 || s[0] != 1 || s.size() > 4)
            cv.fail("input " + shape_str(s) + " is not converted (batch 1, rank 2..4)");
        int64_t C = s[1];
        std::vector<float> sc = per_channel(cv, 1, C, 1), b = per_channel(cv, 2, C, 0), m = per_channel(cv, 3, C, 0), v = per_channel(cv, 4, C, 1);
        float eps = cv.attr_f("epsilon", 1e-5f);
        BatchNormSpec bn;
        bn.channels = (int)C;
        bn.eps = eps;
        emit_same(cv, bn, {raw(sc), raw(m), raw(v), raw(b)});
        return;
    }
    if (op == "InstanceNormalization")
    {
        if (s.size() != 4 || s[0] != 1)
            cv.fail("input " + shape_str(s) + " is not converted (batch 1, rank 4)");
        int64_t C = s[1];
        std::vector<float> sc = per_channel(cv, 1, C, 1), b = per_channel(cv, 2, C, 0);
        float eps = cv.attr_f("epsilon", 1e-5f);
        InstanceNormSpec in;
        in.channels = (int)C;
        in.eps = eps;
        in.affine = 1;
        emit_same(cv, in, {raw(sc), raw(b)});
        return;
    }
    // LayerNormalization over the axes from `axis` on: rows of Q values
    int64_t axis = Converter::norm_axis(cv.attr_i("axis", -1), s.size());
    if (axis < 0 || axis >= (int64_t)s.size())
        cv.fail("axis out of range");
    int64_t P = 1, Q = 1;
    for (int64_t i = 0; i < (int64_t)s.size(); i++)
        (i < axis ? P : Q) *= s[i];
    std::vector<float> sc = per_channel(cv, 1, Q, 1), b = per_channel(cv, 2, Q, 0);
    float eps = cv.attr_f("epsilon", 1e-5f);
    if (cv.n_out() > 1 && !cv.out_name(1).empty())
        cv.fail("Mean/InvStdDev outputs are not converted");
    Shape rows = {P, Q};
    std::string x = cv.reshape(cv.blob(0), Converter::kshape(s), Converter::kshape(rows));
    std::string t = cv.top_name(0);
    LayerNormSpec ln;
    ln.affine_size = (int)Q;
    ln.eps = eps;
    ln.affine = 1;
    KLayer& l = cv.emit(ln, {x}, {t});
    l.weights = {raw(sc), raw(b)};
    cv.set_out(0, s, t, Converter::kshape(rows));
}

} // namespace onnx
} // namespace convert
} // namespace kite
