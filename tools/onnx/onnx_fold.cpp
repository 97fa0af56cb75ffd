// Constant folding: nodes whose inputs are all known constants (and Shape /
// Size, which only need the static shape) are evaluated here.
#include "onnx_ops.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace kite {
namespace convert {
namespace onnx {

Shape broadcast_shape(const Converter& cv, const Shape& a, const Shape& b)
{
    size_t r = std::max(a.size(), b.size());
    Shape o(r);
    for (size_t i = 0; i < r; i++)
    {
        int64_t x = i + a.size() >= r ? a[i + a.size() - r] : 1;
        int64_t y = i + b.size() >= r ? b[i + b.size() - r] : 1;
        if (x != y && x != 1 && y != 1)
            cv.fail("cannot broadcast " + shape_str(a) + " with " + shape_str(b));
        o[i] = x == 1 ? y : x;
    }
    return o;
}

// index into a tensor of shape s broadcast to shape o, flat index k of o
static size_t bindex(const Shape& s, const Shape& o, size_t k)
{
    size_t idx = 0, stride = 1;
    for (size_t i = o.size(); i-- > 0;)
    {
        size_t c = k % (size_t)o[i];
        k /= (size_t)o[i];
        size_t si = i + s.size() >= o.size() ? i + s.size() - o.size() : (size_t)-1;
        if (si != (size_t)-1)
        {
            if (s[si] != 1)
                idx += c * stride;
            stride *= (size_t)s[si];
        }
    }
    return idx;
}

static Const binary(const Converter& cv, const Const& a, const Const& b, const std::function<double(double, double)>& f, int dtype)
{
    Const o;
    o.shape = broadcast_shape(cv, a.shape, b.shape);
    o.dtype = dtype;
    size_t n = shape_numel(o.shape);
    o.v.resize(n);
    for (size_t k = 0; k < n; k++)
        o.v[k] = f(a.v[bindex(a.shape, o.shape, k)], b.v[bindex(b.shape, o.shape, k)]);
    return o;
}

Shape infer_reshape(const Converter& cv, const Shape& in, const std::vector<int64_t>& spec, bool allowzero)
{
    Shape o;
    int infer = -1;
    size_t known = 1;
    for (size_t i = 0; i < spec.size(); i++)
    {
        int64_t d = spec[i];
        if (d == 0 && !allowzero)
        {
            if (i >= in.size())
                cv.fail("reshape dimension 0 at position " + std::to_string(i) + " has no input axis to copy");
            d = in[i];
        }
        if (d == -1)
        {
            if (infer >= 0)
                cv.fail("reshape has more than one -1");
            infer = (int)i;
            o.push_back(1);
            continue;
        }
        if (d < 0)
            cv.fail("reshape dimension " + std::to_string(d) + " is invalid");
        o.push_back(d);
        known *= (size_t)d;
    }
    size_t n = shape_numel(in);
    if (infer >= 0)
    {
        if (known == 0 || n % known)
            cv.fail("cannot reshape " + shape_str(in) + " to " + shape_str(spec));
        o[infer] = (int64_t)(n / known);
    }
    if (shape_numel(o) != n)
        cv.fail("cannot reshape " + shape_str(in) + " to " + shape_str(spec));
    return o;
}

SliceRange resolve_slice(const Converter& cv, const Shape& in, std::vector<int64_t> starts, std::vector<int64_t> ends, std::vector<int64_t> axes, std::vector<int64_t> steps)
{
    SliceRange s;
    size_t r = in.size();
    s.start.assign(r, 0);
    s.step.assign(r, 1);
    s.end.assign(in.begin(), in.end());
    if (axes.empty())
        for (size_t i = 0; i < starts.size(); i++)
            axes.push_back((int64_t)i);
    if (steps.empty())
        steps.assign(starts.size(), 1);
    if (starts.size() != ends.size() || axes.size() != starts.size() || steps.size() != starts.size())
        cv.fail("starts, ends, axes and steps differ in length");
    for (size_t i = 0; i < axes.size(); i++)
    {
        int64_t a = Converter::norm_axis(axes[i], r);
        if (a < 0 || a >= (int64_t)r)
            cv.fail("slice axis " + std::to_string(axes[i]) + " out of range for " + shape_str(in));
        int64_t dim = in[a], st = steps[i];
        if (st == 0)
            cv.fail("slice step 0");
        int64_t b = starts[i], e = ends[i];
        if (b < 0) b += dim;
        if (e < 0) e += dim;
        if (st > 0)
        {
            b = std::max<int64_t>(0, std::min(b, dim));
            e = std::max<int64_t>(0, std::min(e, dim));
        }
        else
        {
            b = std::max<int64_t>(-1, std::min(b, dim - 1));
            e = std::max<int64_t>(-1, std::min(e, dim - 1));
        }
        s.start[a] = b;
        s.end[a] = e;
        s.step[a] = st;
    }
    for (size_t a = 0; a < r; a++)
    {
        int64_t n = s.step[a] > 0 ? (s.end[a] - s.start[a] + s.step[a] - 1) / s.step[a] : (s.start[a] - s.end[a] - s.step[a] - 1) / -s.step[a];
        s.out.push_back(std::max<int64_t>(0, n));
    }
    return s;
}

static std::vector<size_t> strides_of(const Shape& s)
{
    std::vector<size_t> st(s.size(), 1);
    for (size_t i = s.size(); i-- > 1;)
        st[i - 1] = st[i] * (size_t)s[i];
    return st;
}

// the values of an output of shape `out` read from `src`: output coordinate c
// on axis i contributes offset(i, c) to the source index
static std::vector<double> walk(const Shape& out, const std::vector<double>& src, const std::function<size_t(size_t, size_t)>& offset)
{
    std::vector<size_t> ost = strides_of(out);
    size_t n = shape_numel(out);
    std::vector<double> v;
    v.reserve(n);
    for (size_t k = 0; k < n; k++)
    {
        size_t rem = k, at = 0;
        for (size_t i = 0; i < out.size(); i++)
        {
            at += offset(i, rem / ost[i]);
            rem %= ost[i];
        }
        v.push_back(src[at]);
    }
    return v;
}

// the ONNX attributes or inputs (opset dependent) of Slice/Unsqueeze/Squeeze/Reduce*
std::vector<int64_t> axes_arg(const Converter& cv, int input_index, const char* attr)
{
    if (cv.has_in(input_index))
        return cv.cin(input_index).ints();
    return cv.attr_ints(attr);
}

void slice_args(const Converter& cv, std::vector<int64_t>& starts, std::vector<int64_t>& ends, std::vector<int64_t>& axes, std::vector<int64_t>& steps)
{
    if (cv.has_attr("starts"))
    {
        starts = cv.attr_ints("starts");
        ends = cv.attr_ints("ends");
        axes = cv.attr_ints("axes");
        return;
    }
    starts = cv.cin(1).ints();
    ends = cv.cin(2).ints();
    if (cv.has_in(3))
        axes = cv.cin(3).ints();
    if (cv.has_in(4))
        steps = cv.cin(4).ints();
}

Shape unsqueeze_shape(const Converter& cv, const Shape& in, const std::vector<int64_t>& axes)
{
    size_t r = in.size() + axes.size();
    std::vector<bool> ins(r, false);
    for (int64_t a : axes)
    {
        int64_t x = Converter::norm_axis(a, r);
        if (x < 0 || x >= (int64_t)r || ins[x])
            cv.fail("unsqueeze axis " + std::to_string(a) + " invalid for rank " + std::to_string(in.size()));
        ins[x] = true;
    }
    Shape o;
    size_t k = 0;
    for (size_t i = 0; i < r; i++)
        o.push_back(ins[i] ? 1 : in[k++]);
    return o;
}

Shape squeeze_shape(const Converter& cv, const Shape& in, const std::vector<int64_t>& axes)
{
    std::vector<bool> drop(in.size(), false);
    if (axes.empty())
        for (size_t i = 0; i < in.size(); i++)
            drop[i] = in[i] == 1;
    for (int64_t a : axes)
    {
        int64_t x = Converter::norm_axis(a, in.size());
        if (x < 0 || x >= (int64_t)in.size() || in[x] != 1)
            cv.fail("cannot squeeze axis " + std::to_string(a) + " of " + shape_str(in));
        drop[x] = true;
    }
    Shape o;
    for (size_t i = 0; i < in.size(); i++)
        if (!drop[i])
            o.push_back(in[i]);
    return o;
}

static Const transpose_const(const Const& a, const std::vector<int64_t>& perm)
{
    Const o;
    o.dtype = a.dtype;
    for (int64_t p : perm)
        o.shape.push_back(a.shape[p]);
    std::vector<size_t> ist = strides_of(a.shape);
    o.v = walk(o.shape, a.v, [&](size_t i, size_t c) { return c * ist[perm[i]]; });
    return o;
}

std::vector<int64_t> transpose_perm(const Converter& cv, size_t rank)
{
    std::vector<int64_t> perm = cv.attr_ints("perm");
    if (perm.empty())
        for (size_t i = 0; i < rank; i++)
            perm.push_back((int64_t)(rank - 1 - i));
    std::vector<bool> seen(rank, false);
    if (perm.size() != rank)
        cv.fail("perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(rank));
    for (int64_t& p : perm)
    {
        p = Converter::norm_axis(p, rank);
        if (p < 0 || p >= (int64_t)rank || seen[p])
            cv.fail("perm is not a permutation");
        seen[p] = true;
    }
    return perm;
}

// MatMul of two constants (numpy semantics: a 1-D operand is promoted and
// its axis dropped again, batch axes broadcast); false when it is too large
// to evaluate here (layers compute it then). Swin V2's continuous position
// bias MLP runs on a constant coordinate table.
static bool fold_matmul(const Converter& cv, const Const& a, const Const& b, Const& o)
{
    if (a.shape.empty() || b.shape.empty())
        cv.fail("MatMul of a scalar");
    Shape as = a.shape, bs = b.shape;
    const bool a1 = as.size() == 1, b1 = bs.size() == 1;
    if (a1)
        as.insert(as.begin(), 1);
    if (b1)
        bs.push_back(1);
    const size_t M = (size_t)as[as.size() - 2], K = (size_t)as.back(), N = (size_t)bs.back();
    if ((size_t)bs[bs.size() - 2] != K)
        cv.fail("inner dimensions of " + shape_str(a.shape) + " and " + shape_str(b.shape) + " differ");
    const Shape abatch(as.begin(), as.end() - 2), bbatch(bs.begin(), bs.end() - 2);
    const Shape batch = broadcast_shape(cv, abatch, bbatch);
    const size_t nb = shape_numel(batch);
    if ((double)nb * M * N * K > (double)(1 << 26) || (double)nb * M * N > (double)(1 << 24))
        return false;
    o.dtype = a.dtype;
    o.shape = batch;
    if (!a1)
        o.shape.push_back((int64_t)M);
    if (!b1)
        o.shape.push_back((int64_t)N);
    o.v.assign(nb * M * N, 0.0);
    for (size_t p = 0; p < nb; p++)
    {
        const double* A = a.v.data() + bindex(abatch, batch, p) * M * K;
        const double* B = b.v.data() + bindex(bbatch, batch, p) * K * N;
        double* O = o.v.data() + p * M * N;
        for (size_t m = 0; m < M; m++)
            for (size_t n = 0; n < N; n++)
            {
                double acc = 0;
                for (size_t k = 0; k < K; k++)
                    acc += A[m * K + k] * B[k * N + n];
                O[m * N + n] = a.is_int() ? acc : (double)(float)acc;
            }
    }
    return true;
}

// GatherND of constants (batch_dims 0; false otherwise): each index tuple of
// the last axis picks a slice of data (Swin V2's relative position bias)
static bool fold_gather_nd(const Converter& cv, const Const& data, const Const& idx, int64_t batch_dims, Const& o)
{
    if (batch_dims != 0)
        return false;
    if (idx.shape.empty())
        cv.fail("indices must have at least one axis");
    const size_t q = (size_t)idx.shape.back(), r = data.shape.size();
    if (q < 1 || q > r)
        cv.fail("index tuples of " + std::to_string(q) + " values for data of shape " + shape_str(data.shape));
    size_t inner = 1;
    for (size_t i = q; i < r; i++)
        inner *= (size_t)data.shape[i];
    o.dtype = data.dtype;
    o.shape.assign(idx.shape.begin(), idx.shape.end() - 1);
    o.shape.insert(o.shape.end(), data.shape.begin() + (int64_t)q, data.shape.end());
    if (shape_numel(o.shape) > ((size_t)1 << 24))
        cv.fail("output " + shape_str(o.shape) + " too large");
    const std::vector<int64_t> ix = idx.ints();
    const std::vector<size_t> st = strides_of(data.shape);
    for (size_t t = 0; t + q <= ix.size(); t += q)
    {
        size_t off = 0;
        for (size_t j = 0; j < q; j++)
        {
            int64_t v = ix[t + j];
            if (v < 0)
                v += data.shape[j];
            if (v < 0 || v >= data.shape[j])
                cv.fail("index " + std::to_string(ix[t + j]) + " out of range for axis " + std::to_string(j) + " of " + shape_str(data.shape));
            off += (size_t)v * st[j];
        }
        o.v.insert(o.v.end(), data.v.begin() + (int64_t)off, data.v.begin() + (int64_t)(off + inner));
    }
    return true;
}

static bool all_const(const Converter& cv)
{
    for (int i = 0; i < cv.n_in(); i++)
        if (cv.has_in(i) && !cv.in_const(i))
            return false;
    return true;
}

// ScatterND / ScatterElements of constants (reduction none, add, mul, max, min)
static Const scatter(const Converter& cv, const std::string& op, const Const& data, const Const& idx, const Const& upd)
{
    Const o = data;
    std::string red = cv.attr_s("reduction", "none");
    auto put = [&](size_t at, double v) {
        if (red == "add") o.v[at] += v;
        else if (red == "mul") o.v[at] *= v;
        else if (red == "max") o.v[at] = std::max(o.v[at], v);
        else if (red == "min") o.v[at] = std::min(o.v[at], v);
        else o.v[at] = v;
    };
    if (red != "none" && red != "add" && red != "mul" && red != "max" && red != "min")
        cv.fail("reduction '" + red + "' is not known");
    const size_t r = data.shape.size();
    std::vector<size_t> st(r, 1);
    for (size_t i = r; i-- > 1;)
        st[i - 1] = st[i] * (size_t)data.shape[i];
    std::vector<int64_t> ix = idx.ints();
    if (op == "ScatterND")
    {
        if (idx.shape.empty())
            cv.fail("indices must have rank >= 1");
        const size_t k = (size_t)idx.shape.back();
        if (k < 1 || k > r)
            cv.fail("the last indices axis " + std::to_string(k) + " does not fit data of rank " + std::to_string(r));
        size_t slice = 1;
        for (size_t i = k; i < r; i++)
            slice *= (size_t)data.shape[i];
        const size_t n = ix.size() / k;
        if (upd.v.size() != n * slice)
            cv.fail("updates hold " + std::to_string(upd.v.size()) + " values, indices and data need " + std::to_string(n * slice));
        for (size_t t = 0; t < n; t++)
        {
            size_t at = 0;
            for (size_t d = 0; d < k; d++)
            {
                int64_t v = ix[t * k + d];
                if (v < 0)
                    v += data.shape[d];
                if (v < 0 || v >= data.shape[d])
                    cv.fail("index " + std::to_string(ix[t * k + d]) + " out of range on axis " + std::to_string(d));
                at += (size_t)v * st[d];
            }
            for (size_t e = 0; e < slice; e++)
                put(at + e, upd.v[t * slice + e]);
        }
        return o;
    }
    // ScatterElements: indices and updates of one shape, indices along `axis`
    int64_t axis = Converter::norm_axis(cv.attr_i("axis", 0), r);
    if (axis < 0 || axis >= (int64_t)r || idx.shape != upd.shape || idx.shape.size() != r)
        cv.fail("indices " + shape_str(idx.shape) + " / updates " + shape_str(upd.shape) + " do not fit data " + shape_str(data.shape));
    const size_t n = ix.size();
    for (size_t t = 0; t < n; t++)
    {
        size_t rem = t, at = 0;
        for (size_t d = r; d-- > 0;)
        {
            size_t c = rem % (size_t)idx.shape[d];
            rem /= (size_t)idx.shape[d];
            if ((int64_t)d == axis)
            {
                int64_t v = ix[t];
                if (v < 0)
                    v += data.shape[d];
                if (v < 0 || v >= data.shape[d])
                    cv.fail("index " + std::to_string(ix[t]) + " out of range");
                c = (size_t)v;
            }
            at += c * st[d];
        }
        put(at, upd.v[t]);
    }
    return o;
}

bool Converter::fold()
{
    const std::string& op = node_->op_type();
    if (op == "Constant")
    {
        Const c;
        if (attr_tensor("value", c))
        {
        }
        else if (has_attr("value_float"))
            c.v = {attr_f("value_float", 0.f)}, c.dtype = 1;
        else if (has_attr("value_int"))
            c.v = {(double)attr_i("value_int", 0)}, c.dtype = 7;
        else if (has_attr("value_floats"))
        {
            for (float f : attr_floats("value_floats"))
                c.v.push_back(f);
            c.shape = {(int64_t)c.v.size()}, c.dtype = 1;
        }
        else if (has_attr("value_ints"))
        {
            for (int64_t x : attr_ints("value_ints"))
                c.v.push_back((double)x);
            c.shape = {(int64_t)c.v.size()}, c.dtype = 7;
        }
        else
            fail("has no value attribute kite reads");
        set_const(0, c);
        return true;
    }
    if (op == "Shape")
    {
        const Shape& s = in_shape(0);
        int64_t r = (int64_t)s.size();
        int64_t b = norm_axis(attr_i("start", 0), r), e = has_attr("end") ? norm_axis(attr_i("end", r), r) : r;
        b = std::max<int64_t>(0, std::min(b, r));
        e = std::max<int64_t>(0, std::min(e, r));
        Const c;
        c.dtype = 7;
        for (int64_t i = b; i < e; i++)
            c.v.push_back((double)s[i]);
        c.shape = {(int64_t)c.v.size()};
        set_const(0, c);
        return true;
    }
    if (op == "Size")
    {
        Const c;
        c.dtype = 7;
        c.v = {(double)shape_numel(in_shape(0))};
        set_const(0, c);
        return true;
    }
    if (op == "ConstantOfShape")
    {
        Const val;
        if (!attr_tensor("value", val))
            val.v = {0.0}, val.dtype = 1;
        if (val.v.size() != 1)
            fail("value must hold one element");
        Const c;
        c.dtype = val.dtype;
        for (int64_t d : cin(0).ints())
        {
            if (d < 0 || d > (1 << 24))
                fail("invalid shape value " + std::to_string(d));
            c.shape.push_back(d);
        }
        if (shape_numel(c.shape) > ((size_t)1 << 24))
            fail("shape too large");
        c.v.assign(shape_numel(c.shape), val.v[0]);
        set_const(0, c);
        return true;
    }
    if (!all_const(*this) || n_in() == 0)
        return false;
    if ((op == "MatMul" || op == "GatherND") && n_in() == 2)
    {
        Const o;
        if (!(op == "MatMul" ? fold_matmul(*this, cin(0), cin(1), o) : fold_gather_nd(*this, cin(0), cin(1), attr_i("batch_dims", 0), o)))
            return false;
        set_const(0, o);
        return true;
    }

    static const std::set<std::string> foldable = {
        "Identity", "Cast", "Gather", "Unsqueeze", "Squeeze", "Concat", "Reshape", "Flatten", "Slice",
        "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mod", "Neg", "Sqrt", "Reciprocal", "Floor", "Ceil",
        "Abs", "Exp", "Log", "Equal", "Less", "Greater", "Not", "And", "Or", "Where", "Range", "Expand",
        "Transpose", "ReduceProd", "Relu", "Sigmoid", "Tile", "Dropout", "Sum", "ScatterND", "ScatterElements",
        "LessOrEqual", "GreaterOrEqual", "Xor", "Sign", "CumSum"};
    if (!foldable.count(op))
        return false;

    const Const& a = cin(0);
    Const o;
    o.dtype = a.dtype;
    auto unary = [&](double (*f)(double)) {
        o.shape = a.shape;
        for (double x : a.v)
            o.v.push_back(f(x));
    };
    bool isint = a.is_int();
    if (op == "Identity" || op == "Dropout")
        o = a;
    else if (op == "Cast")
    {
        o = a;
        o.dtype = (int)attr_i("to", 1);
        if (o.is_int())
            for (double& x : o.v)
                x = std::trunc(x);
        else if (o.dtype == 1)
            for (double& x : o.v)
                x = (double)(float)x;
        if (o.dtype == 9)
            for (double& x : o.v)
                x = x != 0;
    }
    else if (op == "Neg") unary([](double x) { return -x; });
    else if (op == "Sqrt") unary([](double x) { return std::sqrt(x); });
    else if (op == "Reciprocal") unary([](double x) { return 1.0 / x; });
    else if (op == "Floor") unary([](double x) { return std::floor(x); });
    else if (op == "Ceil") unary([](double x) { return std::ceil(x); });
    else if (op == "Abs") unary([](double x) { return std::fabs(x); });
    else if (op == "Exp") unary([](double x) { return std::exp(x); });
    else if (op == "Log") unary([](double x) { return std::log(x); });
    else if (op == "Relu") unary([](double x) { return x > 0 ? x : 0.0; });
    else if (op == "Sigmoid") unary([](double x) { return 1.0 / (1.0 + std::exp(-x)); });
    else if (op == "Not") { unary([](double x) { return x == 0 ? 1.0 : 0.0; }); o.dtype = 9; }
    else if (op == "Sign") unary([](double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; });
    else if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow" || op == "Max" || op == "Min" || op == "Mod"
             || op == "Equal" || op == "Less" || op == "Greater" || op == "And" || op == "Or" || op == "Sum"
             || op == "LessOrEqual" || op == "GreaterOrEqual" || op == "Xor")
    {
        o = a;
        for (int i = 1; i < n_in(); i++)
        {
            const Const& b = cin(i);
            std::function<double(double, double)> f;
            if (op == "Add" || op == "Sum") f = [](double x, double y) { return x + y; };
            else if (op == "Sub") f = [](double x, double y) { return x - y; };
            else if (op == "Mul") f = [](double x, double y) { return x * y; };
            else if (op == "Div") f = isint ? std::function<double(double, double)>([](double x, double y) { return y == 0 ? 0.0 : std::trunc(x / y); })
                                          : std::function<double(double, double)>([](double x, double y) { return (double)((float)x / (float)y); });
            else if (op == "Pow") f = [](double x, double y) { return std::pow(x, y); };
            else if (op == "Max") f = [](double x, double y) { return std::max(x, y); };
            else if (op == "Min") f = [](double x, double y) { return std::min(x, y); };
            else if (op == "Mod") f = [](double x, double y) { return y == 0 ? 0.0 : x - y * std::floor(x / y); };
            else if (op == "Equal") f = [](double x, double y) { return x == y ? 1.0 : 0.0; };
            else if (op == "Less") f = [](double x, double y) { return x < y ? 1.0 : 0.0; };
            else if (op == "Greater") f = [](double x, double y) { return x > y ? 1.0 : 0.0; };
            else if (op == "And") f = [](double x, double y) { return (x != 0 && y != 0) ? 1.0 : 0.0; };
            else if (op == "LessOrEqual") f = [](double x, double y) { return x <= y ? 1.0 : 0.0; };
            else if (op == "GreaterOrEqual") f = [](double x, double y) { return x >= y ? 1.0 : 0.0; };
            else if (op == "Xor") f = [](double x, double y) { return ((x != 0) != (y != 0)) ? 1.0 : 0.0; };
            else f = [](double x, double y) { return (x != 0 || y != 0) ? 1.0 : 0.0; };
            int dt = (op == "Equal" || op == "Less" || op == "Greater" || op == "And" || op == "Or" || op == "LessOrEqual"
                      || op == "GreaterOrEqual" || op == "Xor") ? 9 : a.dtype;
            o = binary(*this, o, b, f, dt);
        }
    }
    else if (op == "Where")
    {
        const Const& x = cin(1);
        const Const& y = cin(2);
        o.shape = broadcast_shape(*this, broadcast_shape(*this, a.shape, x.shape), y.shape);
        o.dtype = x.dtype;
        size_t n = shape_numel(o.shape);
        for (size_t k = 0; k < n; k++)
            o.v.push_back(a.v[bindex(a.shape, o.shape, k)] != 0 ? x.v[bindex(x.shape, o.shape, k)] : y.v[bindex(y.shape, o.shape, k)]);
    }
    else if (op == "Gather")
    {
        const Const& idx = cin(1);
        int64_t axis = norm_axis(attr_i("axis", 0), a.shape.size());
        if (a.shape.empty() || axis < 0 || axis >= (int64_t)a.shape.size())
            fail("axis out of range for " + shape_str(a.shape));
        Shape os(a.shape.begin(), a.shape.begin() + axis);
        os.insert(os.end(), idx.shape.begin(), idx.shape.end());
        os.insert(os.end(), a.shape.begin() + axis + 1, a.shape.end());
        size_t outer = 1, inner = 1, dim = (size_t)a.shape[axis];
        for (int64_t i = 0; i < axis; i++) outer *= (size_t)a.shape[i];
        for (size_t i = axis + 1; i < a.shape.size(); i++) inner *= (size_t)a.shape[i];
        o.shape = os;
        for (size_t p = 0; p < outer; p++)
            for (int64_t ix : idx.ints())
            {
                if (ix < 0) ix += (int64_t)dim;
                if (ix < 0 || ix >= (int64_t)dim)
                    fail("index out of range");
                for (size_t q = 0; q < inner; q++)
                    o.v.push_back(a.v[(p * dim + ix) * inner + q]);
            }
    }
    else if (op == "Unsqueeze")
    {
        o = a;
        o.shape = unsqueeze_shape(*this, a.shape, axes_arg(*this, 1, "axes"));
    }
    else if (op == "Squeeze")
    {
        o = a;
        o.shape = squeeze_shape(*this, a.shape, axes_arg(*this, 1, "axes"));
    }
    else if (op == "Reshape")
    {
        o = a;
        o.shape = infer_reshape(*this, a.shape, cin(1).ints(), attr_i("allowzero", 0) != 0);
    }
    else if (op == "Flatten")
    {
        o = a;
        int64_t ax = norm_axis(attr_i("axis", 1), a.shape.size());
        if (ax < 0 || ax > (int64_t)a.shape.size())
            fail("axis out of range");
        int64_t p = 1, q = 1;
        for (int64_t i = 0; i < (int64_t)a.shape.size(); i++)
            (i < ax ? p : q) *= a.shape[i];
        o.shape = {p, q};
    }
    else if (op == "Concat")
    {
        int64_t axis = norm_axis(attr_i("axis", 0), a.shape.size());
        if (axis < 0 || axis >= (int64_t)a.shape.size())
            fail("axis out of range");
        o.shape = a.shape;
        o.shape[axis] = 0;
        std::vector<const Const*> parts;
        for (int i = 0; i < n_in(); i++)
        {
            if (!has_in(i))
                continue;
            const Const& c = cin(i);
            if (c.shape.size() != a.shape.size())
                fail("inputs differ in rank");
            for (size_t k = 0; k < c.shape.size(); k++)
                if ((int64_t)k != axis && c.shape[k] != a.shape[k])
                    fail("inputs differ in shape");
            o.shape[axis] += c.shape[axis];
            parts.push_back(&c);
        }
        size_t outer = 1;
        for (int64_t i = 0; i < axis; i++) outer *= (size_t)a.shape[i];
        for (size_t p = 0; p < outer; p++)
            for (const Const* c : parts)
            {
                size_t chunk = c->v.size() / std::max<size_t>(outer, 1);
                o.v.insert(o.v.end(), c->v.begin() + p * chunk, c->v.begin() + (p + 1) * chunk);
            }
    }
    else if (op == "Slice")
    {
        std::vector<int64_t> starts, ends, axes, steps;
        slice_args(*this, starts, ends, axes, steps);
        SliceRange s = resolve_slice(*this, a.shape, starts, ends, axes, steps);
        o.shape = s.out;
        std::vector<size_t> st = strides_of(a.shape);
        o.v = walk(o.shape, a.v, [&](size_t i, size_t c) { return (size_t)(s.start[i] + (int64_t)c * s.step[i]) * st[i]; });
    }
    else if (op == "Range")
    {
        double start = a.v.at(0), limit = cin(1).v.at(0), delta = cin(2).v.at(0);
        if (delta == 0)
            fail("delta 0");
        double n = std::max(0.0, std::ceil((limit - start) / delta));
        if (n > (1 << 24))
            fail("range too long");
        for (int64_t i = 0; i < (int64_t)n; i++)
            o.v.push_back(start + (double)i * delta);
        o.shape = {(int64_t)o.v.size()};
    }
    else if (op == "Expand")
    {
        Shape target;
        for (int64_t d : cin(1).ints())
            target.push_back(d);
        o.shape = broadcast_shape(*this, a.shape, target);
        if (shape_numel(o.shape) > ((size_t)1 << 24))
            fail("expanded constant too large");
        size_t n = shape_numel(o.shape);
        for (size_t k = 0; k < n; k++)
            o.v.push_back(a.v[bindex(a.shape, o.shape, k)]);
    }
    else if (op == "Tile")
    {
        std::vector<int64_t> rep = cin(1).ints();
        if (rep.size() != a.shape.size())
            fail("repeats length differs from the rank");
        for (size_t i = 0; i < rep.size(); i++)
            o.shape.push_back(a.shape[i] * rep[i]);
        if (shape_numel(o.shape) > ((size_t)1 << 24))
            fail("tiled constant too large");
        std::vector<size_t> ist = strides_of(a.shape);
        o.v = walk(o.shape, a.v, [&](size_t i, size_t c) { return (c % (size_t)a.shape[i]) * ist[i]; });
    }
    else if (op == "Transpose")
        o = transpose_const(a, transpose_perm(*this, a.shape.size()));
    else if (op == "ScatterND" || op == "ScatterElements")
        o = scatter(*this, op, a, cin(1), cin(2));
    else if (op == "CumSum")
    {
        int64_t axis = norm_axis((int64_t)cin(1).v.at(0), a.shape.size());
        if (axis < 0 || axis >= (int64_t)a.shape.size())
            fail("axis out of range");
        bool excl = attr_i("exclusive", 0) != 0, rev = attr_i("reverse", 0) != 0;
        o = a;
        size_t inner = 1, dim = (size_t)a.shape[axis], outer = shape_numel(a.shape) / std::max<size_t>(1, dim);
        for (size_t i = axis + 1; i < a.shape.size(); i++)
            inner *= (size_t)a.shape[i];
        outer /= std::max<size_t>(1, inner);
        for (size_t p = 0; p < outer; p++)
            for (size_t q = 0; q < inner; q++)
            {
                double acc = 0;
                for (size_t k = 0; k < dim; k++)
                {
                    size_t j = rev ? dim - 1 - k : k, at = (p * dim + j) * inner + q;
                    double v = a.v[at];
                    if (!excl)
                        acc += v;
                    o.v[at] = acc;
                    if (excl)
                        acc += v;
                }
            }
    }
    else if (op == "ReduceProd")
    {
        if (!attr_ints("axes").empty() || n_in() > 1 || attr_i("keepdims", 1) != 0)
            return false;
        double p = 1;
        for (double x : a.v)
            p *= x;
        o.v = {p};
        o.shape = {};
    }
    else
        return false;
    set_const(0, o);
    return true;
}

} // namespace onnx
} // namespace convert
} // namespace kite
