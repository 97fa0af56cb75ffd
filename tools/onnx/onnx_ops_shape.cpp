// ONNX ops that move data: Transpose, Concat, Split, Slice, Gather.
#include "onnx_ops.h"

#include "permute.h"

#include <algorithm>

namespace kite {
namespace convert {
namespace onnx {

static Shape with_axis(Shape s, size_t i, int64_t v)
{
    s[i] = v;
    return s;
}

// the kite Permute order type that moves axis q[j] of a blob of `dims` axes to position j; -1 if none
static int permute_order(int dims, const std::vector<int>& q)
{
    for (int ty = 0; ty < 24; ty++)
    {
        int pm[4];
        if (!kite::Permute::permutation(dims, ty, pm))
            continue;
        bool same = true;
        for (int i = 0; i < dims; i++)
            same = same && pm[i] == q[i];
        if (same)
            return ty;
    }
    return -1;
}

// A transpose of more than 4 non-unit axes (nu: the input's non-unit axes,
// q: output position -> index into nu). Axes that stay neighbours in the same
// order are merged; when more than 4 groups remain, the permutation is done
// as swaps of neighbouring groups, each a 4-axis Permute of the view
// (outer, X, Y, inner). The result is a wide tensor (more than 4 axes).
static void emit_wide_transpose(Converter& cv, const Shape& s, const std::vector<int>& nu, const std::vector<int>& q, const Shape& o)
{
    // groups: runs of q that are consecutive input axes
    std::vector<std::vector<int> > runs; // in output order, members index nu
    for (size_t j = 0; j < q.size(); j++)
    {
        if (j > 0 && q[j] == q[j - 1] + 1)
            runs.back().push_back(q[j]);
        else
            runs.push_back({q[j]});
    }
    const int G = (int)runs.size();
    std::vector<int> by_start(G); // groups in input order
    for (int g = 0; g < G; g++)
        by_start[g] = g;
    std::sort(by_start.begin(), by_start.end(), [&](int a, int b) { return runs[a].front() < runs[b].front(); });
    std::vector<int64_t> gdim(G, 1);
    for (int g = 0; g < G; g++)
        for (int m : runs[g])
            gdim[g] *= s[nu[m]];
    // cur: the groups in the blob's current order; target position of group g is g
    std::vector<int> cur = by_start;
    std::string b = cv.blob(0);
    Shape bk = cv.blob_kshape(0);
    auto current_dims = [&](const std::vector<int>& order) {
        Shape d;
        for (int g : order)
            d.push_back(gdim[g]);
        return d;
    };
    if (G <= 4)
    {
        Shape dims = current_dims(cur);
        std::vector<int> gq;
        for (int g = 0; g < G; g++)
            gq.push_back((int)(std::find(cur.begin(), cur.end(), g) - cur.begin()));
        int order = permute_order(G, gq);
        if (order < 0)
            cv.fail("no kite Permute order matches");
        std::string v = cv.reshape(b, bk, dims);
        std::string t = cv.uniq(cv.out_name(0));
        cv.emit(PermuteSpec::order(order), {v}, {t});
        cv.set_out(0, o, t, Shape(gdim.begin(), gdim.end())); // group g sits at output position g
        return;
    }
    for (int guard = 0; guard < G * G; guard++)
    {
        int k = -1;
        for (int i = 0; i + 1 < G && k < 0; i++)
            if (cur[i] > cur[i + 1])
                k = i;
        if (k < 0)
            break;
        int64_t outer = 1, inner = 1;
        for (int i = 0; i < k; i++)
            outer *= gdim[cur[i]];
        for (int i = k + 2; i < G; i++)
            inner *= gdim[cur[i]];
        const int64_t X = gdim[cur[k]], Y = gdim[cur[k + 1]];
        Shape view;
        if (outer > 1)
            view.push_back(outer);
        const int xi = (int)view.size();
        view.push_back(X);
        view.push_back(Y);
        if (inner > 1)
            view.push_back(inner);
        std::vector<int> vq;
        for (int i = 0; i < (int)view.size(); i++)
            vq.push_back(i == xi ? xi + 1 : i == xi + 1 ? xi : i);
        int order = permute_order((int)view.size(), vq);
        if (order < 0)
            cv.fail("no kite Permute order swaps two axes of " + shape_str(view));
        std::string v = cv.reshape(b, bk, view);
        std::string t = cv.uniq(cv.out_name(0));
        cv.emit(PermuteSpec::order(order), {v}, {t});
        std::swap(cur[k], cur[k + 1]);
        std::swap(view[xi], view[xi + 1]);
        b = t;
        bk = view;
    }
    cv.set_out(0, o, b, bk);
}

void emit_transpose(Converter& cv)
{
    Shape s = cv.in_shape(0);
    std::vector<int64_t> perm = transpose_perm(cv, s.size());
    Shape o;
    for (int64_t p : perm)
        o.push_back(s[p]);
    std::vector<int> nu;
    for (size_t i = 0; i < s.size(); i++)
        if (s[i] != 1)
            nu.push_back((int)i);
    std::vector<int> q;
    for (int64_t p : perm)
        if (s[p] != 1)
            q.push_back((int)(std::find(nu.begin(), nu.end(), (int)p) - nu.begin()));
    bool ident = true;
    for (size_t i = 0; i < q.size(); i++)
        ident = ident && q[i] == (int)i;
    if (ident)
    {
        cv.set_out(0, o, cv.blob(0), cv.blob_kshape(0));
        return;
    }
    if (nu.size() > 4)
    {
        emit_wide_transpose(cv, s, nu, q, o);
        return;
    }
    Shape sq, ko;
    for (int i : nu)
        sq.push_back(s[i]);
    for (int i : q)
        ko.push_back(sq[i]);
    const int order = permute_order((int)nu.size(), q);
    if (order < 0)
        cv.fail("no kite Permute order matches");
    std::string b = cv.reshape(cv.blob(0), Converter::kshape(s), sq);
    std::string t = cv.top_name(0);
    cv.emit(PermuteSpec::order(order), {b}, {t});
    cv.set_out(0, o, t, ko);
}

void emit_concat(Converter& cv)
{
    Shape s0 = cv.in_shape(0);
    int64_t axis = Converter::norm_axis(cv.attr_i("axis", 0), s0.size());
    if (axis < 0 || axis >= (int64_t)s0.size())
        cv.fail("axis out of range");
    Shape o = s0;
    o[axis] = 0;
    for (int i = 0; i < cv.n_in(); i++)
    {
        Shape si = cv.in_shape(i);
        if (si.size() != s0.size())
            cv.fail("inputs differ in rank");
        for (size_t k = 0; k < si.size(); k++)
            if ((int64_t)k != axis && si[k] != s0[k])
                cv.fail("inputs " + shape_str(s0) + " and " + shape_str(si) + " differ off the axis");
        o[axis] += si[axis];
    }
    std::vector<int> axes = Converter::kept_axes(o);
    int ka = (int)(std::find(axes.begin(), axes.end(), (int)axis) - axes.begin());
    if (ka == (int)axes.size())
        cv.fail("concatenation along a dropped unit axis");
    std::vector<std::string> bs;
    for (int i = 0; i < cv.n_in(); i++)
        if (cv.in_shape(i)[axis] > 0)
            bs.push_back(operand_on(cv, operand(cv, i), o.size(), axes));
    std::string t = cv.top_name(0);
    cv.emit(ConcatSpec::on(ka), bs, {t});
    cv.set_out(0, o, t, Converter::kshape(o));
}

void emit_split(Converter& cv)
{
    Shape s = cv.in_shape(0);
    int64_t axis = Converter::norm_axis(cv.attr_i("axis", 0), s.size());
    if (axis < 0 || axis >= (int64_t)s.size())
        cv.fail("axis out of range");
    std::vector<int64_t> sizes = cv.has_in(1) ? cv.cin(1).ints() : cv.attr_ints("split");
    int n = cv.n_out();
    if (sizes.empty())
    {
        int64_t each = (s[axis] + n - 1) / n;
        for (int i = 0; i < n; i++)
            sizes.push_back(std::min(each, s[axis] - each * i));
    }
    int64_t total = 0;
    for (int64_t v : sizes)
    {
        if (v < 0)
            cv.fail("negative split size");
        if (v > s[axis] - total) // also keeps the sum from overflowing
            cv.fail("split sizes exceed axis " + std::to_string(axis) + " of " + shape_str(s));
        total += v;
    }
    for (int64_t v : sizes)
        if (v == 0)
            cv.fail("empty split outputs are not converted");
    if ((int)sizes.size() != n || total != s[axis])
        cv.fail("split sizes do not cover axis " + std::to_string(axis) + " of " + shape_str(s));
    int ka = cv.kaxis(s, axis);
    if (ka < 0)
        cv.fail("split along a dropped unit axis");
    std::vector<std::string> tops;
    for (int i = 0; i < n; i++)
        tops.push_back(cv.uniq(cv.out_name(i)));
    convert::SliceSpec sl;
    sl.slices = std::vector<int>(sizes.begin(), sizes.end());
    sl.axis = ka;
    cv.emit(sl, {cv.blob(0)}, tops);
    for (int i = 0; i < n; i++)
    {
        Shape os = with_axis(s, axis, sizes[i]);
        Shape k = Converter::kshape(s);
        k[ka] = sizes[i];
        cv.set_out(i, os, tops[i], k);
    }
}

static void emit_crop(Converter& cv, const Shape& s, const std::vector<int64_t>& start, const std::vector<int64_t>& end, const Shape& o)
{
    // start/end per ONNX axis (full rank), step 1
    std::vector<int> st, en, ax;
    Shape k = Converter::kshape(s);
    for (size_t a = 0; a < s.size(); a++)
    {
        if (start[a] == 0 && end[a] == s[a])
            continue;
        int ka = cv.kaxis(s, (int64_t)a);
        if (ka < 0)
            cv.fail("slices a dropped unit axis to nothing");
        st.push_back((int)start[a]);
        en.push_back((int)end[a]);
        ax.push_back(ka);
        k[ka] = end[a] - start[a];
    }
    if (ax.empty())
    {
        cv.set_out(0, o, cv.blob(0), Converter::kshape(s));
        return;
    }
    std::string t = cv.top_name(0);
    CropSpec c;
    c.starts = st;
    c.ends = en;
    c.axes = ax;
    cv.emit(c, {cv.blob(0)}, {t});
    cv.set_out(0, o, t, k);
}

// the view (outer, mid..., inner) of a tensor of shape s around axis a (the
// axis split into `mid`; unit outer/inner left out); *at: mid's first position
static Shape axis_view(const Shape& s, size_t a, const Shape& mid, int* at)
{
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < a; i++)
        outer *= s[i];
    for (size_t i = a + 1; i < s.size(); i++)
        inner *= s[i];
    Shape view;
    if (outer > 1)
        view.push_back(outer);
    *at = (int)view.size();
    view.insert(view.end(), mid.begin(), mid.end());
    if (inner > 1)
        view.push_back(inner);
    return view;
}

// x[:, :H, :W, :] with the ends read from the shape of another tensor T of
// the same rank (Swin crops its padded map back to the block's input): the
// ends evaluated again with T's axes one larger each follow T on exactly the
// sliced axes, starts are 0, steps 1, and the other axes equal T's. Emits a
// Crop to the reference T (its size at run time) and returns true.
static bool emit_slice_to_reference(Converter& cv, const Shape& s, const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                                    const std::vector<int64_t>& axes, const std::vector<int64_t>& steps)
{
    if (cv.n_in() < 3 || cv.in_wide(0) || cv.opset_ < 10)
        return false;
    Const e0;
    std::set<std::string> leaves;
    if (!cv.reevaluate(cv.in_name(2), {}, e0, &leaves) || leaves.empty() || e0.ints() != ends)
        return false;
    const size_t r = s.size();
    std::vector<int> sliced(r, -1); // ONNX axis -> entry of ends
    if (starts.size() != ends.size() || (!axes.empty() && axes.size() != ends.size()))
        return false;
    for (size_t k = 0; k < ends.size(); k++)
    {
        const int64_t a = Converter::norm_axis(axes.empty() ? (int64_t)k : axes[k], r);
        if (a < 0 || a >= (int64_t)r || sliced[a] >= 0 || starts[k] != 0 || (k < steps.size() && steps[k] != 1))
            return false;
        sliced[a] = (int)k;
    }
    for (const std::string& t : leaves)
    {
        auto it = cv.shapes_.find(t);
        auto bt = cv.blob_.find(t);
        if (it == cv.shapes_.end() || bt == cv.blob_.end() || cv.is_const(t) || it->second.size() != r || cv.wide_.count(t))
            continue;
        const Shape& ts = it->second;
        bool fits = Converter::kshape(ts).size() == Converter::kshape(s).size();
        for (size_t a = 0; a < r && fits; a++)
            fits = sliced[a] >= 0 ? ends[sliced[a]] == ts[a] && ts[a] <= s[a] : ts[a] == s[a];
        for (size_t a = 0; a < r && fits; a++)
        {
            Shape t2 = ts;
            t2[a] += 1;
            Const e;
            if (!cv.reevaluate(cv.in_name(2), {{t, t2}}, e))
                return false;
            std::vector<int64_t> v = e.ints();
            if (v.size() != ends.size())
                return false;
            for (size_t k = 0; k < v.size() && fits; k++)
                fits = v[k] == ends[k] + (sliced[a] == (int)k ? 1 : 0);
        }
        if (!fits)
            continue;
        Shape o = ts;
        const std::string top = cv.top_name(0);
        cv.emit(CropSpec(), {cv.blob(0), bt->second}, {top});
        cv.set_out(0, o, top, Converter::kshape(o));
        return true;
    }
    return false;
}

void emit_slice(Converter& cv)
{
    Shape s = cv.in_shape(0);
    std::vector<int64_t> starts, ends, axes, steps;
    slice_args(cv, starts, ends, axes, steps);
    if (emit_slice_to_reference(cv, s, starts, ends, axes, steps))
        return;
    SliceRange sp = resolve_slice(cv, s, starts, ends, axes, steps);
    for (int64_t d : sp.out)
        if (d == 0)
            cv.fail("the slice is empty");
    bool strided = false;
    for (size_t a = 0; a < s.size(); a++)
        if (sp.step[a] != 1 && sp.out[a] > 1)
            strided = true;
    if (strided)
    {
        // x[..., start::step, ...] (Swin's patch merging): per sliced axis, the
        // view (outer, dim / step, step, inner) cropped on both middle axes
        std::string b = cv.blob(0);
        Shape bk = cv.blob_kshape(0), cur = s;
        for (size_t a = 0; a < s.size(); a++)
        {
            const int64_t st = sp.step[a] > 0 && sp.out[a] > 1 ? sp.step[a] : 1, n = sp.out[a], dim = cur[a];
            if (n == dim && st == 1)
                continue;
            if (sp.step[a] < 0 && n > 1)
                cv.fail("negative steps are not converted");
            if (dim % st != 0)
                cv.fail("a step of " + std::to_string(st) + " over an axis of " + std::to_string(dim) + " is not converted (not a divisor)");
            int km;
            Shape view = axis_view(cur, a, st > 1 ? Shape{dim / st, st} : Shape{dim}, &km);
            std::string v = cv.reshape(b, bk, view);
            CropSpec c;
            std::vector<int> cs{(int)(sp.start[a] / st)}, ce{(int)(sp.start[a] / st + n)}, ca{km};
            if (st > 1)
            {
                cs.push_back((int)(sp.start[a] % st));
                ce.push_back((int)(sp.start[a] % st + 1));
                ca.push_back(km + 1);
            }
            c.starts = cs;
            c.ends = ce;
            c.axes = ca;
            std::string t = cv.uniq(cv.out_name(0));
            cv.emit(c, {v}, {t});
            view[km] = n;
            if (st > 1)
                view[km + 1] = 1;
            b = t;
            bk = view;
            cur[a] = n;
        }
        cv.set_out(0, sp.out, b, bk);
        return;
    }
    std::vector<int64_t> en(s.size());
    for (size_t a = 0; a < s.size(); a++)
        en[a] = sp.start[a] + sp.out[a];
    emit_crop(cv, s, sp.start, en, sp.out);
}

void emit_gather(Converter& cv)
{
    Shape s = cv.in_shape(0);
    const Const& idx = cv.cin(1);
    int64_t axis = Converter::norm_axis(cv.attr_i("axis", 0), s.size());
    if (axis < 0 || axis >= (int64_t)s.size())
        cv.fail("axis out of range");
    std::vector<int64_t> ix = idx.ints();
    if (ix.empty())
        cv.fail("empty indices are not converted");
    for (int64_t& v : ix)
    {
        if (v < 0) v += s[axis];
        if (v < 0 || v >= s[axis])
            cv.fail("index out of range");
    }
    for (size_t i = 1; i < ix.size(); i++)
        if (ix[i] != ix[i - 1] + 1)
            cv.fail("only contiguous increasing indices are converted");
    Shape o(s.begin(), s.begin() + axis);
    o.insert(o.end(), idx.shape.begin(), idx.shape.end());
    o.insert(o.end(), s.begin() + axis + 1, s.end());
    if (cv.in_wide(0))
    {
        // a wide input: the view (outer, axis, inner) of its elements, cropped on the axis
        int ka;
        Shape view = axis_view(s, (size_t)axis, {s[axis]}, &ka);
        std::string v = cv.reshape(cv.blob(0), cv.blob_kshape(0), view);
        std::string t = cv.uniq(cv.out_name(0));
        CropSpec c;
        c.starts = std::vector<int>{(int)ix.front()};
        c.ends = std::vector<int>{(int)ix.back() + 1};
        c.axes = std::vector<int>{ka};
        cv.emit(c, {v}, {t});
        view[ka] = (int64_t)ix.size();
        cv.set_out(0, o, t, view);
        return;
    }
    std::vector<int64_t> st(s.size(), 0), en(s.begin(), s.end());
    st[axis] = ix.front();
    en[axis] = ix.back() + 1;
    emit_crop(cv, s, st, en, o);
}

} // namespace onnx
} // namespace convert
} // namespace kite
