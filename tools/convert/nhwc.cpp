#include "nhwc.h"
#include "input_size.h"

#include <algorithm>
#include <climits>

namespace kite {
namespace convert {
namespace nhwc {

std::string shape_string(const Shape& s)
{
    return dims_text(s);
}

int64_t shape_count(const Shape& s)
{
    int64_t n = 1;
    for (int64_t d : s)
    {
        if (d < 0 || (d > 0 && n > ((int64_t)1 << 40) / d))
            throw ConvertError("shape " + shape_string(s) + " is negative or too large");
        n *= d;
    }
    return n;
}

int checked_int(int64_t v)
{
    if (v < 0 || v > INT_MAX)
        throw ConvertError("dimension " + std::to_string(v) + " out of range");
    return (int)v;
}

std::vector<int> kite_dims(const Shape& s)
{
    switch (s.size())
    {
    case 0: return {1};
    case 1: return {checked_int(s[0])};
    case 2:
    case 3:
    case 4:
        if (s[0] != 1)
            throw NotSupported("batch " + std::to_string(s[0]) + " in " + shape_string(s) + " (only batch 1 is supported)");
        if (s.size() == 2)
            return {checked_int(s[1])};
        if (s.size() == 3)
            return {checked_int(s[1]), checked_int(s[2])};
        return {checked_int(s[3]), checked_int(s[1]), checked_int(s[2])};
    }
    throw NotSupported("activation of rank " + std::to_string(s.size()));
}

std::vector<int> source_dims(const Shape& s)
{
    std::vector<int> k = kite_dims(s);
    if (s.size() == 4)
        return {checked_int(s[1]), checked_int(s[2]), checked_int(s[3])};
    return k;
}

bool order_differs(const Shape& s)
{
    return s.size() == 4 && s[1] * s[2] > 1 && s[3] > 1;
}

int kite_axis(int64_t a, size_t rank)
{
    if (a < 0)
        a += (int64_t)rank;
    if (a < 0 || a >= (int64_t)rank)
        throw ConvertError("axis " + std::to_string(a) + " out of range for rank " + std::to_string(rank));
    if (rank == 1)
        return 0;
    if (a == 0)
        throw NotSupported("operation along the batch axis");
    if (rank == 4)
        return a == 3 ? 0 : (int)a;
    return (int)a - 1;
}

void set_shape_params(Layer& l, const std::vector<int>& k)
{
    // Reshape, MemoryData and Input read w, h, c alike
    ReshapeSpec s;
    const size_t n = k.size();
    s.w = k[n - 1];
    if (n >= 2)
        s.h = k[n - 2];
    if (n >= 3)
        s.c = k[n - 3];
    s.write(l.params);
}

int permute_order(const std::vector<int64_t>& p)
{
    const size_t r = p.size();
    if (r < 2 || r > 4 || p[0] != 0)
        throw NotSupported(r > 4 ? "rank above 4" : "moving the batch axis");
    if (r == 2)
        return 0;
    // kite letters of the source axes: rank 4 is CHW, rank 3 is (h, w)
    const char* letters = r == 4 ? "?hwc" : "?hw";
    if (r == 3)
        return letters[p[2]] == 'w' ? 0 : 1;
    // the new (w, h, c) as old letters, among Permute's six orders
    const std::string spec = std::string() + letters[p[2]] + letters[p[1]] + letters[p[3]];
    static const char* const orders3[6] = {"whc", "hwc", "wch", "cwh", "hcw", "chw"};
    for (int i = 0; i < 6; i++)
        if (spec == orders3[i])
            return i;
    throw ConvertError("perm is not a permutation");
}

void same_pads(int64_t in, int64_t ek, int64_t s, int64_t& before, int64_t& after)
{
    const int64_t out = (in + s - 1) / s;
    const int64_t total = std::max((out - 1) * s + ek - in, (int64_t)0);
    before = total / 2;
    after = total - before;
}

PaddingSpec pad_spec(const std::vector<int64_t>& p, const Shape& in, int pad_type, float value, Shape& out)
{
    const size_t r = in.size();
    for (int64_t v : p)
        if (v < 0 || v > 65536)
            throw NotSupported("padding " + std::to_string(v));
    if (r >= 2 && (p[0] || p[1]))
        throw NotSupported("padding of the batch axis");
    if (r < 2 || r > 4)
        throw NotSupported("rank " + std::to_string(r));
    // kite's axes: rank 4 NHWC -> (c as depth: front/behind, h: top/bottom,
    // w: left/right); rank 3 -> its last two; rank 2 -> w
    PaddingSpec ps;
    ps.top = r >= 3 ? (int)p[2] : 0;
    ps.bottom = r >= 3 ? (int)p[3] : 0;
    ps.left = (int)p[r >= 3 ? 4 : 2];
    ps.right = (int)p[r >= 3 ? 5 : 3];
    ps.pad_type = pad_type;
    ps.value = value;
    if (r == 4 && (p[6] || p[7]))
    {
        ps.front = (int)p[6];
        ps.behind = (int)p[7];
    }
    out = in;
    for (size_t i = 0; i < r; i++)
        out[i] += p[2 * i] + p[2 * i + 1];
    return ps;
}

ReducePlan reduce_plan(const std::vector<int64_t>& raw_axes, const Shape& in, bool keepdims, int operation)
{
    ReducePlan p;
    const size_t r = in.size();
    for (int64_t a : raw_axes)
    {
        if (a < 0)
            a += (int64_t)r;
        if (a < 0 || a >= (int64_t)r)
            throw ConvertError("reduction axis out of range");
        if (std::find(p.axes.begin(), p.axes.end(), a) == p.axes.end())
            p.axes.push_back(a);
    }
    std::sort(p.axes.begin(), p.axes.end());
    p.kept = in;
    Shape dropped;
    for (size_t i = 0; i < r; i++)
    {
        if (std::find(p.axes.begin(), p.axes.end(), (int64_t)i) != p.axes.end())
            p.kept[i] = 1;
        else
            dropped.push_back(in[i]);
    }
    p.out = keepdims ? p.kept : dropped;
    p.over_hw = r == 4 && p.axes == std::vector<int64_t>{1, 2};
    std::vector<int> kaxes;
    for (int64_t a : p.axes)
        kaxes.push_back(kite_axis(a, r));
    std::sort(kaxes.begin(), kaxes.end());
    p.reshape_after = !keepdims && r == 4;
    p.spec.operation = operation;
    p.spec.reduce_all = 0;
    p.spec.coeff = 1.f;
    p.spec.axes = kaxes;
    p.spec.keepdims = keepdims || p.reshape_after ? 1 : 0;
    p.spec.fixbug0 = 1;
    return p;
}

Shape permuted_shape(const Shape& in, const std::vector<int64_t>& perm)
{
    const size_t r = in.size();
    if (perm.size() != r)
        throw ConvertError("perm length differs from the input rank");
    Shape out(r);
    std::vector<bool> seen(r, false);
    for (size_t i = 0; i < r; i++)
    {
        if (perm[i] < 0 || perm[i] >= (int64_t)r || seen[(size_t)perm[i]])
            throw ConvertError("perm is not a permutation");
        seen[(size_t)perm[i]] = true;
        out[i] = in[(size_t)perm[i]];
    }
    return out;
}

Shape concat_shape(const std::vector<Shape>& shapes, int64_t axis)
{
    Shape out;
    for (const Shape& s : shapes)
    {
        if (!out.empty() && s.size() != out.size())
            throw ConvertError("concatenation of inputs with different ranks");
        if (out.empty())
        {
            out = s;
            if (axis < 0 || axis >= (int64_t)s.size())
                throw ConvertError("concatenation axis " + std::to_string(axis) + " of a rank " + std::to_string(s.size()) + " input");
            continue;
        }
        for (size_t i = 0; i < s.size(); i++)
            if ((int64_t)i != axis && s[i] != out[i])
                throw ConvertError("concatenation of " + shape_string(s) + " and " + shape_string(out));
        out[(size_t)axis] += s[(size_t)axis];
    }
    return out;
}

std::string Layout::to_source_order(const Blob& v, const std::string& name)
{
    if (!order_differs(v.shape))
        return v.name;
    const std::string top = g.unique_blob_name(v.name + "_nhwc");
    emit(g, PermuteSpec::order(PERMUTE_CHW_TO_HWC), name + "_to_nhwc", {v.name}, {top});
    return top;
}

Blob Layout::reshape(const Blob& v, const Shape& target, const std::string& name, const std::string& top)
{
    if (shape_count(v.shape) != shape_count(target))
        throw ConvertError("reshape of " + shape_string(v.shape) + " to " + shape_string(target) + " changes the element count");
    const std::vector<int> src_k = order_differs(v.shape) ? source_dims(v.shape) : kite_dims(v.shape);
    const std::string src = to_source_order(v, name);
    if (order_differs(target))
    {
        const std::vector<int> mid_k = source_dims(target);
        std::string mid = src;
        if (mid_k != src_k)
        {
            mid = g.unique_blob_name(top + "_nhwc");
            set_shape_params(emit(g, ReshapeSpec(), name, {src}, {mid}), mid_k);
        }
        emit(g, PermuteSpec::order(PERMUTE_HWC_TO_CHW), name + "_to_nchw", {mid}, {top});
        return Blob{top, target};
    }
    const std::vector<int> k = kite_dims(target);
    if (k == src_k && src == v.name)
        return Blob{v.name, target};
    set_shape_params(emit(g, ReshapeSpec(), name, {src}, {top}), k);
    return Blob{top, target};
}

Blob Layout::expand_rank(const Blob& v, size_t rank, const std::string& name)
{
    if (v.shape.size() >= rank)
        return v;
    Shape s(rank - v.shape.size(), 1);
    s.insert(s.end(), v.shape.begin(), v.shape.end());
    return reshape(v, s, name + "_expand", g.unique_blob_name(v.name + "_expand"));
}

std::string Layout::memorydata(const std::vector<float>& data0, const Shape& shape, size_t rank, const std::string& name)
{
    Shape s(rank > shape.size() ? rank - shape.size() : 0, 1);
    s.insert(s.end(), shape.begin(), shape.end());
    if (s.size() != rank || (rank > 1 && s[0] != 1))
        throw NotSupported("constant operand of shape " + shape_string(shape) + " against a rank " + std::to_string(rank)
                           + " activation");
    if ((int64_t)data0.size() != shape_count(s))
        throw ConvertError("constant of shape " + shape_string(shape) + " holds " + std::to_string(data0.size()) + " values");
    std::vector<float> data = data0;
    std::vector<int> k;
    if (rank == 4)
    {
        // NHWC -> CHW
        const int64_t H = s[1], W = s[2], C = s[3];
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++)
                for (int64_t ch = 0; ch < C; ch++)
                    data[(size_t)((ch * H + y) * W + x)] = data0[(size_t)((y * W + x) * C + ch)];
        k = {checked_int(C), checked_int(H), checked_int(W)};
    }
    else if (rank <= 1)
    {
        k = {checked_int((int64_t)data.size())};
    }
    else
    {
        for (size_t i = 1; i < s.size(); i++)
            k.push_back(checked_int(s[i]));
    }
    const std::string top = g.unique_blob_name(name + "_const");
    Layer& l = emit(g, MemoryDataSpec(), top, {}, {top});
    set_shape_params(l, k);
    l.weights.push_back(Weight(data, false));
    return top;
}

} // namespace nhwc
} // namespace convert
} // namespace kite
