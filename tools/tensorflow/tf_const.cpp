#include "tf_const.h"
#include "input_size.h"

#include "tf_graph.pb.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace kite {
namespace convert {
namespace tf {

namespace {

// TensorFlow DataType values (types.proto)
enum DataType
{
    DT_FLOAT = 1,
    DT_DOUBLE = 2,
    DT_INT32 = 3,
    DT_UINT8 = 4,
    DT_INT16 = 5,
    DT_INT8 = 6,
    DT_INT64 = 9,
    DT_BOOL = 10,
    DT_UINT16 = 17,
    DT_HALF = 19,
    DT_UINT32 = 22,
    DT_UINT64 = 23,
};

// more elements than this in one constant is treated as a malformed file
int64_t kMaxElements = (int64_t)1 << 28;

double half_to_double(uint16_t h)
{
    const int sign = (h >> 15) & 1, exp = (h >> 10) & 31, mant = h & 1023;
    double v;
    if (exp == 0)
        v = std::ldexp((double)mant, -24);
    else if (exp == 31)
        v = mant ? NAN : INFINITY;
    else
        v = std::ldexp((double)(mant | 1024), exp - 25);
    return sign ? -v : v;
}

template<typename T>
void read_raw(const std::string& bytes, int64_t n, std::vector<double>& out)
{
    if ((int64_t)bytes.size() != n * (int64_t)sizeof(T))
        throw ConvertError("tensor_content has " + std::to_string(bytes.size()) + " bytes, the shape needs "
                                 + std::to_string(n * (int64_t)sizeof(T)));
    out.resize((size_t)n);
    for (int64_t i = 0; i < n; i++)
    {
        T x;
        memcpy(&x, bytes.data() + i * sizeof(T), sizeof(T));
        out[(size_t)i] = (double)x;
    }
}

// TF fills a tensor from a shorter value list by repeating the last value
template<typename Src>
void read_values(const Src& src, int64_t n, std::vector<double>& out)
{
    if (src.size() == 0)
    {
        out.assign((size_t)n, 0.0);
        return;
    }
    if ((int64_t)src.size() > n)
        throw ConvertError("tensor has " + std::to_string(src.size()) + " values, its shape holds " + std::to_string(n));
    out.resize((size_t)n);
    for (int64_t i = 0; i < n; i++)
        out[(size_t)i] = (double)src.Get((int)std::min<int64_t>(i, src.size() - 1));
}

double apply_binary(int op, double a, double b)
{
    switch (op)
    {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a / b;
    case 4: return std::max(a, b);
    case 5: return std::min(a, b);
    case 6: return std::pow(a, b);
    case 7: return std::floor(a / b);
    case 8: return a - std::floor(a / b) * b;
    case 9: return (a - b) * (a - b);
    }
    return 0;
}

} // namespace

void set_element_limit(int64_t n)
{
    kMaxElements = n;
}

int64_t shape_count(const Shape& s)
{
    int64_t n = 1;
    for (int64_t d : s)
    {
        if (d < 0)
            throw ConvertError("shape " + shape_string(s) + " has an unknown or negative dimension");
        if (d > kMaxElements || (d > 0 && n > kMaxElements / d))
            throw ConvertError("shape " + shape_string(s) + " is too large");
        n *= d;
    }
    return n;
}

std::string shape_string(const Shape& s)
{
    return convert::dims_text(s);
}

std::vector<int64_t> Const::ints() const
{
    std::vector<int64_t> r(v.size());
    for (size_t i = 0; i < v.size(); i++)
    {
        if (!(std::fabs(v[i]) < 9e15))
            throw ConvertError("integer constant out of range");
        r[i] = (int64_t)v[i];
    }
    return r;
}

std::vector<float> Const::floats() const
{
    return std::vector<float>(v.begin(), v.end());
}

Shape shape_from_proto(const pb::TensorShapeProto& s)
{
    if (s.unknown_rank())
        throw ConvertError("unknown rank");
    Shape r;
    for (const auto& d : s.dim())
        r.push_back(d.size() < 0 ? -1 : d.size());
    return r;
}

Const const_from_proto(const pb::TensorProto& t)
{
    Const c;
    c.shape = shape_from_proto(t.tensor_shape());
    const int64_t n = shape_count(c.shape);
    const std::string& raw = t.tensor_content();
    const bool has_raw = !raw.empty();
    switch (t.dtype())
    {
    case DT_FLOAT:
        has_raw ? read_raw<float>(raw, n, c.v) : read_values(t.float_val(), n, c.v);
        break;
    case DT_DOUBLE:
        has_raw ? read_raw<double>(raw, n, c.v) : read_values(t.double_val(), n, c.v);
        break;
    case DT_HALF:
        if (has_raw)
        {
            read_raw<uint16_t>(raw, n, c.v);
        }
        else
        {
            read_values(t.half_val(), n, c.v);
        }
        for (double& x : c.v)
            x = half_to_double((uint16_t)(int64_t)x);
        break;
    case DT_INT32:
        c.is_int = true;
        has_raw ? read_raw<int32_t>(raw, n, c.v) : read_values(t.int_val(), n, c.v);
        break;
    case DT_INT16:
    case DT_INT8:
    case DT_UINT8:
    case DT_UINT16:
        c.is_int = true;
        if (has_raw)
        {
            if (t.dtype() == DT_INT16)
                read_raw<int16_t>(raw, n, c.v);
            else if (t.dtype() == DT_INT8)
                read_raw<int8_t>(raw, n, c.v);
            else if (t.dtype() == DT_UINT8)
                read_raw<uint8_t>(raw, n, c.v);
            else
                read_raw<uint16_t>(raw, n, c.v);
        }
        else
        {
            read_values(t.int_val(), n, c.v);
        }
        break;
    case DT_INT64:
        c.is_int = true;
        has_raw ? read_raw<int64_t>(raw, n, c.v) : read_values(t.int64_val(), n, c.v);
        break;
    case DT_UINT32:
    case DT_UINT64:
        c.is_int = true;
        if (!has_raw)
            throw ConvertError("unsigned constant without tensor_content");
        t.dtype() == DT_UINT32 ? read_raw<uint32_t>(raw, n, c.v) : read_raw<uint64_t>(raw, n, c.v);
        break;
    case DT_BOOL:
        c.is_int = true;
        has_raw ? read_raw<uint8_t>(raw, n, c.v) : read_values(t.bool_val(), n, c.v);
        break;
    default:
        throw ConvertError("constant of dtype " + std::to_string(t.dtype()) + " is not supported");
    }
    return c;
}

Shape broadcast_shape(const Shape& a, const Shape& b)
{
    const size_t r = std::max(a.size(), b.size());
    Shape out(r);
    for (size_t i = 0; i < r; i++)
    {
        const int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
        const int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
        if (da != db && da != 1 && db != 1)
            throw ConvertError("shapes " + shape_string(a) + " and " + shape_string(b) + " do not broadcast");
        out[i] = da == 1 ? db : da;
    }
    return out;
}

Const const_broadcast_to(const Const& a, const Shape& s)
{
    if (broadcast_shape(a.shape, s) != s)
        throw ConvertError("constant of shape " + shape_string(a.shape) + " does not broadcast to " + shape_string(s));
    Const out;
    out.shape = s;
    out.is_int = a.is_int;
    const int64_t n = shape_count(s);
    out.v.resize((size_t)n);
    const size_t r = s.size();
    Shape as(r, 1);
    for (size_t i = 0; i < a.shape.size(); i++)
        as[r - a.shape.size() + i] = a.shape[i];
    std::vector<int64_t> idx(r, 0);
    for (int64_t k = 0; k < n; k++)
    {
        int64_t src = 0;
        for (size_t i = 0; i < r; i++)
            src = src * as[i] + (as[i] == 1 ? 0 : idx[i]);
        out.v[(size_t)k] = a.v[(size_t)src];
        for (int i = (int)r - 1; i >= 0; i--)
        {
            if (++idx[(size_t)i] < s[(size_t)i])
                break;
            idx[(size_t)i] = 0;
        }
    }
    return out;
}

bool const_binary(const std::string& op, const Const& a, const Const& b, Const& out)
{
    static const char* const names[] = {"Add", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Pow", "FloorDiv", "FloorMod",
                                        "SquaredDifference"};
    int code = -1;
    for (int i = 0; i < 10; i++)
        if (op == names[i])
            code = i;
    if (op == "AddV2")
        code = 0;
    if (op == "Div")
        code = a.is_int && b.is_int ? 7 : 3;
    if (code < 0)
        return false;
    const Shape s = broadcast_shape(a.shape, b.shape);
    const Const ea = const_broadcast_to(a, s), eb = const_broadcast_to(b, s);
    out.shape = s;
    out.is_int = a.is_int && b.is_int;
    out.v.resize(ea.v.size());
    for (size_t i = 0; i < out.v.size(); i++)
    {
        double r = apply_binary(code, ea.v[i], eb.v[i]);
        if (out.is_int && code == 3)
            r = std::trunc(r);
        out.v[i] = r;
    }
    return true;
}

bool const_unary(const std::string& op, const Const& a, Const& out)
{
    out = a;
    for (double& x : out.v)
    {
        if (op == "Rsqrt")
            x = 1.0 / std::sqrt(x);
        else if (op == "Sqrt")
            x = std::sqrt(x);
        else if (op == "Neg")
            x = -x;
        else if (op == "Square")
            x = x * x;
        else if (op == "Exp")
            x = std::exp(x);
        else if (op == "Log")
            x = std::log(x);
        else if (op == "Abs")
            x = std::fabs(x);
        else if (op == "Reciprocal" || op == "Inv")
            x = 1.0 / x;
        else if (op == "Sigmoid")
            x = 1.0 / (1.0 + std::exp(-x));
        else if (op == "Tanh")
            x = std::tanh(x);
        else if (op == "Relu")
            x = std::max(x, 0.0);
        else if (op == "Relu6")
            x = std::min(std::max(x, 0.0), 6.0);
        else if (op == "Floor")
            x = std::floor(x);
        else if (op == "Ceil")
            x = std::ceil(x);
        else if (op == "Round")
            x = std::nearbyint(x);
        else if (op == "Cast" || op == "Identity" || op == "StopGradient" || op == "Snapshot")
            ;
        else
            return false;
    }
    return true;
}

Const const_transpose(const Const& a, const std::vector<int>& perm)
{
    const size_t r = a.shape.size();
    if (perm.size() != r)
        throw ConvertError("transpose permutation of the wrong length");
    std::vector<bool> seen(r, false);
    for (int p : perm)
    {
        if (p < 0 || p >= (int)r || seen[(size_t)p])
            throw ConvertError("transpose permutation is not a permutation");
        seen[(size_t)p] = true;
    }
    Const out;
    out.is_int = a.is_int;
    out.shape.resize(r);
    for (size_t i = 0; i < r; i++)
        out.shape[i] = a.shape[(size_t)perm[i]];
    // strides of the input
    std::vector<int64_t> stride(r, 1);
    for (int i = (int)r - 2; i >= 0; i--)
        stride[(size_t)i] = stride[(size_t)i + 1] * a.shape[(size_t)i + 1];
    out.v.resize(a.v.size());
    std::vector<int64_t> idx(r, 0);
    for (size_t k = 0; k < out.v.size(); k++)
    {
        int64_t src = 0;
        for (size_t i = 0; i < r; i++)
            src += idx[i] * stride[(size_t)perm[i]];
        out.v[k] = a.v[(size_t)src];
        for (int i = (int)r - 1; i >= 0; i--)
        {
            if (++idx[(size_t)i] < out.shape[(size_t)i])
                break;
            idx[(size_t)i] = 0;
        }
    }
    return out;
}

SliceSpec resolve_strided_slice(const Shape& in, const std::vector<int64_t>& begin, const std::vector<int64_t>& end,
                                const std::vector<int64_t>& strides, int64_t begin_mask, int64_t end_mask,
                                int64_t ellipsis_mask, int64_t new_axis_mask, int64_t shrink_mask)
{
    if (ellipsis_mask || new_axis_mask)
        throw ConvertError("StridedSlice with ellipsis_mask or new_axis_mask is not supported");
    const size_t n = begin.size();
    if (in.size() > 8)
        throw ConvertError("StridedSlice of a rank " + std::to_string(in.size()) + " tensor");
    if (end.size() != n || strides.size() != n || n > in.size())
        throw ConvertError("StridedSlice begin/end/strides lengths do not match the input rank");
    SliceSpec s;
    for (size_t i = 0; i < in.size(); i++)
    {
        const int64_t dim = in[i];
        if (dim < 0)
            throw ConvertError("StridedSlice on an unknown dimension");
        int64_t b = 0, e = dim, st = 1;
        bool shrink = false;
        if (i < n)
        {
            st = strides[i];
            if (st == 0)
                throw ConvertError("StridedSlice stride 0");
            shrink = (shrink_mask >> i) & 1;
            b = begin[i];
            e = end[i];
            if (b < 0)
                b += dim;
            if (e < 0)
                e += dim;
            if (shrink)
            {
                if (b < 0 || b >= dim)
                    throw ConvertError("StridedSlice shrink index out of range");
                e = b + 1;
                st = 1;
            }
            else
            {
                if ((begin_mask >> i) & 1)
                    b = st > 0 ? 0 : dim - 1;
                if ((end_mask >> i) & 1)
                    e = st > 0 ? dim : -1;
                if (st > 0)
                {
                    b = std::min(std::max(b, (int64_t)0), dim);
                    e = std::min(std::max(e, (int64_t)0), dim);
                }
                else
                {
                    b = std::min(std::max(b, (int64_t)-1), dim - 1);
                    e = std::min(std::max(e, (int64_t)-1), dim - 1);
                }
            }
        }
        int64_t len = st > 0 ? (e - b + st - 1) / st : (b - e + (-st) - 1) / (-st);
        if (len < 0)
            len = 0;
        s.begin.push_back(b);
        s.end.push_back(e);
        s.stride.push_back(st);
        s.shrink.push_back(shrink);
        s.out_shape_full.push_back(len);
        if (!shrink)
            s.out_shape.push_back(len);
    }
    return s;
}

Const const_strided_slice(const Const& a, const SliceSpec& s)
{
    Const out;
    out.is_int = a.is_int;
    out.shape = s.out_shape;
    const size_t r = a.shape.size();
    const int64_t n = shape_count(s.out_shape_full);
    std::vector<int64_t> stride(r, 1);
    for (int i = (int)r - 2; i >= 0; i--)
        stride[(size_t)i] = stride[(size_t)i + 1] * a.shape[(size_t)i + 1];
    std::vector<int64_t> idx(r, 0);
    out.v.resize((size_t)n);
    for (int64_t k = 0; k < n; k++)
    {
        int64_t src = 0;
        for (size_t i = 0; i < r; i++)
            src += (s.begin[i] + idx[i] * s.stride[i]) * stride[i];
        out.v[(size_t)k] = a.v[(size_t)src];
        for (int i = (int)r - 1; i >= 0; i--)
        {
            if (++idx[(size_t)i] < s.out_shape_full[(size_t)i])
                break;
            idx[(size_t)i] = 0;
        }
    }
    return out;
}

Shape resolve_reshape(const Shape& in, const std::vector<int64_t>& target)
{
    const int64_t n = shape_count(in);
    Shape out(target.begin(), target.end());
    int infer = -1;
    int64_t known = 1;
    for (size_t i = 0; i < out.size(); i++)
    {
        if (out[i] == -1)
        {
            if (infer >= 0)
                throw ConvertError("Reshape target " + shape_string(out) + " has more than one -1");
            infer = (int)i;
        }
        else if (out[i] < 0)
        {
            throw ConvertError("Reshape target " + shape_string(out) + " has a negative dimension");
        }
        else
        {
            if (out[i] > kMaxElements)
                throw ConvertError("Reshape target " + shape_string(out) + " is too large");
            known *= out[i];
            if (known > n && n > 0)
                throw ConvertError("Reshape target " + shape_string(out) + " does not fit " + shape_string(in));
        }
    }
    if (infer >= 0)
    {
        if (known == 0 || n % known)
            throw ConvertError("Reshape target " + shape_string(out) + " does not fit " + shape_string(in));
        out[(size_t)infer] = n / known;
    }
    if (shape_count(out) != n)
        throw ConvertError("Reshape of " + shape_string(in) + " to " + shape_string(out) + " changes the element count");
    return out;
}

} // namespace tf
} // namespace convert
} // namespace kite
