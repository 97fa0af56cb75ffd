#include "input_size.h"

#include "emit.h"
#include "layer/binaryop.h"
#include "layer/crop.h"
#include "layer/input.h"
#include "layer/interp.h"
#include "layer/memorydata.h"
#include "layer/reshape.h"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace kite {
namespace convert {

namespace {

bool same_value(const ParamValue& x, const ParamValue& y)
{
    return x.type == y.type && x.i == y.i && memcmp(&x.f, &y.f, sizeof(float)) == 0 && x.ints == y.ints && x.floats == y.floats && x.s == y.s;
}

// the first parameter id whose value differs, -1 if none
int first_difference(const ParamSet& x, const ParamSet& y)
{
    for (const auto& kv : x.all())
    {
        const ParamValue* o = y.find(kv.first);
        if (!o || !same_value(kv.second, *o))
            return kv.first;
    }
    for (const auto& kv : y.all())
        if (!x.has(kv.first))
            return kv.first;
    return -1;
}

std::string value_text(const ParamSet& p, int id)
{
    const ParamValue* v = p.find(id);
    if (!v)
        return "absent";
    if (v->type == ParamValue::INT)
        return std::to_string(v->i);
    if (v->type == ParamValue::FLOAT)
        return format_float(v->f);
    if (v->type == ParamValue::STRING)
        return "'" + v->s + "'";
    std::string t = "[";
    size_t n = v->type == ParamValue::INT_ARRAY ? v->ints.size() : v->floats.size();
    for (size_t i = 0; i < n && i < 8; i++)
        t += (i ? "," : "") + (v->type == ParamValue::INT_ARRAY ? std::to_string(v->ints[i]) : format_float(v->floats[i]));
    return t + (n > 8 ? ",...]" : "]");
}

// a kite shape (outermost first) as Mat sizes in (w, h, d, c) slots
void slot_sizes(const std::vector<int64_t>& k, int64_t out[4])
{
    const size_t r = k.size();
    out[0] = r >= 1 ? k[r - 1] : 1;
    out[1] = r >= 2 ? k[r - 2] : 1;
    out[2] = r == 4 ? k[1] : 1;
    out[3] = r >= 3 ? k[0] : 1;
}

const char kSlotLetter[4] = {'w', 'h', 'd', 'c'};

const std::vector<int64_t>* find_shape(const BlobShapes& s, const std::string& blob)
{
    auto it = s.find(blob);
    return it == s.end() ? nullptr : &it->second;
}

// Rewrites Reshape layer `i` of `a` whose sizes differ between A and B.
// Returns "" or why it cannot.
std::string generalize_reshape(Graph& a, size_t i, const BlobShapes& sa, const Layer& lb, const BlobShapes& sb)
{
    Layer& la = a.layers[i];
    if (la.params.has(Reshape::PARAM_SHAPE_EXPR))
        return "Reshape '" + la.name + "' already has a shape expression that differs between the sizes";
    const int ids[4] = {Reshape::PARAM_W, Reshape::PARAM_H, Reshape::PARAM_D, Reshape::PARAM_C};
    bool used[4];
    int64_t va[4], vb[4];
    for (int s = 0; s < 4; s++)
    {
        used[s] = la.params.has(ids[s]) && la.params.get_int(ids[s], -233) != -233;
        va[s] = la.params.get_int(ids[s], -233);
        vb[s] = lb.params.get_int(ids[s], -233);
        if (used[s] != (lb.params.has(ids[s]) && vb[s] != -233))
            return "Reshape '" + la.name + "' has another rank at the other size";
    }
    // the expression lists w, h, [d,] c
    std::vector<int> order;
    for (int s : {0, 1, 2, 3})
        if (used[s])
            order.push_back(s);
    if (order.empty() || la.bottoms.empty())
        return "Reshape '" + la.name + "' has no shape";
    const std::vector<int64_t>* ina = find_shape(sa, la.bottoms[0]);
    const std::vector<int64_t>* inb = find_shape(sb, la.bottoms[0]);
    int64_t ia[4] = {0, 0, 0, 0}, ib[4] = {0, 0, 0, 0};
    if (ina && inb)
    {
        slot_sizes(*ina, ia);
        slot_sizes(*inb, ib);
    }
    bool infer_taken = false;
    for (int s : order)
        infer_taken = infer_taken || (va[s] == -1 && vb[s] == -1);
    std::string term[4];
    std::vector<int> pending;
    for (int s : order)
    {
        if (va[s] == vb[s])
            term[s] = std::to_string(va[s]);
        else if (ina && inb && ia[s] == va[s] && ib[s] == vb[s])
            term[s] = "0"; // the input's own size on this axis
        else if (va[s] <= 0 || vb[s] <= 0)
            return "Reshape '" + la.name + "' size " + std::to_string(va[s]) + " / " + std::to_string(vb[s]);
        else
            pending.push_back(s);
    }
    bool expression = false;
    std::vector<std::string> refs; // extra bottoms
    for (size_t k = 0; k < pending.size(); k++)
    {
        const int s = pending[k];
        if (!infer_taken)
        {
            term[s] = "-1";
            infer_taken = true;
            continue;
        }
        // a blob that has this size at both A and B: the layer's input, then
        // the nearest earlier layers' outputs; failing that, one whose size is
        // this size times the same whole factor f at both ("//(0h,f)": the
        // windows per row of Swin's window partition)
        std::string found;
        for (int pass = 0; pass < 2 && found.empty(); pass++)
        for (size_t j = i + 1; j-- > 0 && found.empty();)
        {
            const std::vector<std::string>& cands = j == i ? std::vector<std::string>(1, la.bottoms[0]) : a.layers[j].tops;
            for (const std::string& c : cands)
            {
                const std::vector<int64_t>* ca = find_shape(sa, c);
                const std::vector<int64_t>* cb = find_shape(sb, c);
                if (!ca || !cb)
                    continue;
                int64_t xa[4], xb[4];
                slot_sizes(*ca, xa);
                slot_sizes(*cb, xb);
                for (int t = 0; t < 4 && found.empty(); t++)
                {
                    const int64_t f = xa[t] / va[s];
                    if (pass == 0 ? (xa[t] != va[s] || xb[t] != vb[s])
                                  : (f < 2 || xa[t] != va[s] * f || xb[t] != vb[s] * f))
                        continue;
                    int index = 0;
                    if (j != i)
                    {
                        size_t r = 0;
                        while (r < refs.size() && refs[r] != c)
                            r++;
                        if (r == refs.size())
                        {
                            if (la.bottoms.size() + refs.size() >= 10)
                                break;
                            refs.push_back(c);
                        }
                        index = (int)(la.bottoms.size() + r);
                    }
                    found = std::to_string(index) + kSlotLetter[t];
                    if (pass == 1)
                        found = "//(" + found + "," + std::to_string(f) + ")";
                }
                if (!found.empty())
                    break;
            }
        }
        if (found.empty())
            return "Reshape '" + la.name + "': no blob has its size " + std::to_string(va[s]) + " (" + std::to_string(vb[s]) + " at the other size)";
        term[s] = found;
        expression = true;
    }
    if (!expression)
    {
        for (int s : order)
            la.params.set(ids[s], (int)std::stol(term[s]));
        return "";
    }
    std::string expr;
    for (int s : order)
        expr += (expr.empty() ? "" : ",") + term[s];
    for (int s : order)
        la.params.erase(ids[s]);
    la.params.set_string(Reshape::PARAM_SHAPE_EXPR, expr);
    for (const std::string& r : refs)
        la.bottoms.push_back(r);
    return "";
}

// Interp layer `i` whose output size differs between A and B (ONNX Resize
// sizes computed from a shape): the size of an earlier blob that has it at
// both (dynamic_target_size, that blob as the second input), else a scale
// when the size is the input's times the same factor at both. Returns "" or
// why it cannot.
std::string generalize_interp(Graph& a, size_t i, const BlobShapes& sa, const Layer& lb, const BlobShapes& sb)
{
    Layer& la = a.layers[i];
    const int ids[2] = {Interp::PARAM_OUTPUT_WIDTH, Interp::PARAM_OUTPUT_HEIGHT};
    // only the output size may differ
    for (const auto& kv : la.params.all())
        if (kv.first != ids[0] && kv.first != ids[1])
        {
            const ParamValue* o = lb.params.find(kv.first);
            if (!o || !same_value(kv.second, *o))
                return "layer '" + la.name + "' (Interp) has parameter " + std::to_string(kv.first) + " = " + value_text(la.params, kv.first)
                       + " at one size and " + value_text(lb.params, kv.first) + " at the other";
        }
    const int64_t oa[2] = {la.params.get_int(ids[0], 0), la.params.get_int(ids[1], 0)};
    const int64_t ob[2] = {lb.params.get_int(ids[0], 0), lb.params.get_int(ids[1], 0)};
    if (la.bottoms.size() != 1 || oa[0] <= 0 || oa[1] <= 0 || ob[0] <= 0 || ob[1] <= 0)
        return "Interp '" + la.name + "' output size " + std::to_string(oa[0]) + "x" + std::to_string(oa[1]) + " / " + std::to_string(ob[0]) + "x"
               + std::to_string(ob[1]);
    // an earlier blob of that width and height at both sizes
    for (size_t j = i; j-- > 0;)
        for (const std::string& c : a.layers[j].tops)
        {
            const std::vector<int64_t>* ca = find_shape(sa, c);
            const std::vector<int64_t>* cb = find_shape(sb, c);
            if (!ca || !cb || ca->size() < 2 || cb->size() < 2)
                continue;
            int64_t xa[4], xb[4];
            slot_sizes(*ca, xa);
            slot_sizes(*cb, xb);
            if (xa[0] == oa[0] && xa[1] == oa[1] && xb[0] == ob[0] && xb[1] == ob[1])
            {
                la.params.erase(ids[0]);
                la.params.erase(ids[1]);
                la.params.set(Interp::PARAM_DYNAMIC_TARGET_SIZE, 1);
                la.bottoms.push_back(c);
                return "";
            }
        }
    const std::vector<int64_t>* ina = find_shape(sa, la.bottoms[0]);
    const std::vector<int64_t>* inb = find_shape(sb, la.bottoms[0]);
    if (ina && inb && ina->size() >= 2 && inb->size() >= 2)
    {
        int64_t ia[4], ib[4];
        slot_sizes(*ina, ia);
        slot_sizes(*inb, ib);
        // out = in * f exactly at both sizes, on both axes
        if (oa[0] * ib[0] == ob[0] * ia[0] && oa[1] * ib[1] == ob[1] * ia[1])
        {
            la.params.erase(ids[0]);
            la.params.erase(ids[1]);
            la.params.set(Interp::PARAM_WIDTH_SCALE, (float)((double)oa[0] / (double)ia[0]));
            la.params.set(Interp::PARAM_HEIGHT_SCALE, (float)((double)oa[1] / (double)ia[1]));
            if ((int64_t)(ia[0] * ((float)oa[0] / ia[0])) == oa[0] && (int64_t)(ib[0] * ((float)ob[0] / ib[0])) == ob[0]
                && (int64_t)(ia[1] * ((float)oa[1] / ia[1])) == oa[1] && (int64_t)(ib[1] * ((float)ob[1] / ib[1])) == ob[1])
                return "";
            la.params.erase(Interp::PARAM_WIDTH_SCALE);
            la.params.erase(Interp::PARAM_HEIGHT_SCALE);
            la.params.set(ids[0], (int)oa[0]);
            la.params.set(ids[1], (int)oa[1]);
        }
    }
    return "Interp '" + la.name + "': no blob has its output size " + std::to_string(oa[0]) + "x" + std::to_string(oa[1]) + " (" + std::to_string(ob[0])
           + "x" + std::to_string(ob[1]) + " at the other size)";
}

// Crop layer `i` (numpy-style starts/ends) whose bounds differ between A and
// B: a bound at the same distance from the end of its axis at both becomes
// that negative offset (-233 for the end itself). Returns "" or why it cannot.
std::string generalize_crop(Graph& a, size_t i, const BlobShapes& sa, const Layer& lb, const BlobShapes& sb)
{
    Layer& la = a.layers[i];
    for (const auto& kv : la.params.all())
        if (kv.first != Crop::PARAM_STARTS && kv.first != Crop::PARAM_ENDS)
        {
            const ParamValue* o = lb.params.find(kv.first);
            if (!o || !same_value(kv.second, *o))
                return "layer '" + la.name + "' (Crop) has parameter " + std::to_string(kv.first) + " = " + value_text(la.params, kv.first)
                       + " at one size and " + value_text(lb.params, kv.first) + " at the other";
        }
    std::vector<int> st = la.params.get_ints(Crop::PARAM_STARTS), en = la.params.get_ints(Crop::PARAM_ENDS);
    const std::vector<int> stb = lb.params.get_ints(Crop::PARAM_STARTS), enb = lb.params.get_ints(Crop::PARAM_ENDS);
    const std::vector<int> axes = la.params.get_ints(Crop::PARAM_AXES);
    const std::vector<int64_t>* ina = la.bottoms.empty() ? nullptr : find_shape(sa, la.bottoms[0]);
    const std::vector<int64_t>* inb = la.bottoms.empty() ? nullptr : find_shape(sb, la.bottoms[0]);
    if (st.empty() || st.size() != en.size() || st.size() != stb.size() || en.size() != enb.size() || !ina || !inb || ina->size() != inb->size())
        return "Crop '" + la.name + "' has bounds that follow the input";
    const int dims = (int)ina->size();
    for (size_t k = 0; k < st.size(); k++)
    {
        int axis = axes.empty() ? (int)k : (k < axes.size() ? axes[k] : -1000);
        if (axis < 0)
            axis += dims;
        if (axis < 0 || axis >= dims)
            return "Crop '" + la.name + "' has bounds that follow the input";
        const int64_t za = (*ina)[axis], zb = (*inb)[axis];
        int* va[2] = {&st[k], &en[k]};
        const int vb[2] = {stb[k], enb[k]};
        for (int j = 0; j < 2; j++)
        {
            int64_t x = *va[j], y = vb[j];
            if (x == y)
                continue;
            if (x >= 0 && y >= 0 && x - za == y - zb && x - za <= 0)
                *va[j] = x == za ? (j ? -233 : 0) : (int)(x - za);
            else
                return "Crop '" + la.name + "' has bound " + std::to_string(x) + " at one size and " + std::to_string(y) + " at the other (axis of "
                       + std::to_string(za) + " and " + std::to_string(zb) + ")";
        }
    }
    la.params.set_ints(Crop::PARAM_STARTS, st);
    la.params.set_ints(Crop::PARAM_ENDS, en);
    return "";
}

// ---- shifted-window attention masks (Swin) ----------------------------------
//
// torchvision's Swin builds, for each shifted block, a mask from the padded
// feature map's size: a region-id map r of [pH, pW] (rows [0, pH-wh) id 0,
// [pH-wh, pH-sh) 1, [pH-sh, pH) 2; 3 * row id + column id likewise), cut
// into wh x ww windows, mask[w][i][j] = r_w[i] != r_w[j] ? -100 : 0. The
// converter folds it to a constant of [nW, (1,) N, N]; here that constant is
// recognised by its values and replaced by layers that compute it from the
// padded map's shape at run time: -100 * min((r_i - r_j)^2, 1).

const int kCropEnd = -233; // a numpy-style Crop end: the end of the axis

struct WindowMask
{
    int64_t wh = 0, ww = 0, sh = 0, sw = 0;
};

// the region id of row y in an axis of `p` rows (window `w`, shift `s`): 0, 1 or 2
int region_of(int64_t y, int64_t p, int64_t w, int64_t s)
{
    if (s == 0)
        return 0; // torchvision's slices (-w, -0) and (-0, None): one region
    return y < p - w ? 0 : y < p - s ? 1 : 2;
}

std::vector<float> window_mask_values(int64_t ph, int64_t pw, const WindowMask& m)
{
    const int64_t nwh = ph / m.wh, nww = pw / m.ww, n = m.wh * m.ww;
    std::vector<float> v;
    v.reserve((size_t)(nwh * nww * n * n));
    std::vector<int> r((size_t)n);
    for (int64_t wy = 0; wy < nwh; wy++)
        for (int64_t wx = 0; wx < nww; wx++)
        {
            for (int64_t k = 0; k < n; k++)
                r[(size_t)k] = 3 * region_of(wy * m.wh + k / m.ww, ph, m.wh, m.sh) + region_of(wx * m.ww + k % m.ww, pw, m.ww, m.sw);
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = 0; j < n; j++)
                    v.push_back(r[(size_t)i] != r[(size_t)j] ? -100.f : 0.f);
        }
    return v;
}

// a MemoryData's kite shape, outermost first
std::vector<int64_t> memorydata_shape(const ParamSet& p)
{
    const int w = p.get_int(MemoryData::PARAM_W, 0), h = p.get_int(MemoryData::PARAM_H, 0), c = p.get_int(MemoryData::PARAM_C, 0),
              d = p.get_int(MemoryData::PARAM_D, 0);
    if (d)
        return {c, d, h, w};
    if (c)
        return {c, h, w};
    if (h)
        return {h, w};
    return {w};
}

// [nW, N, N] or [nW, 1, N, N]: nW and N, else false
bool mask_dims(const std::vector<int64_t>& s, int64_t& nw, int64_t& n)
{
    if (!(s.size() == 3 || (s.size() == 4 && s[1] == 1)) || s.back() != s[s.size() - 2])
        return false;
    nw = s[0];
    n = s.back();
    return nw > 0 && n > 0;
}

// MemoryData layer `i` of `a` whose constant differs between A and B: the
// shifted-window mask of the padded map that an earlier Padding layer writes
// (the same values at A, the same hash at B). Returns "" and the layers
// computing it (the MemoryData's top) in `out`, or why not.
std::string window_mask_layers(const Graph& a, size_t i, const BlobShapes& sa, const Layer& lb, const BlobShapes& sb, std::vector<Layer>& out)
{
    const Layer& la = a.layers[i];
    const std::string why = "the constant '" + la.name + "' (computed from the input size at conversion) differs between the sizes";
    if (la.tops.size() != 1 || la.weights.size() != 1 || lb.weights.size() != 1 || la.weights[0].dropped || la.weights[0].storage != Weight::FP32)
        return why;
    const std::string& top = la.tops[0];
    const std::vector<int64_t> sha = memorydata_shape(la.params), shb = memorydata_shape(lb.params);
    const std::vector<int64_t>* ma = &sha;
    int64_t nwa, na, nwb, nb;
    if (!mask_dims(sha, nwa, na) || !mask_dims(shb, nwb, nb) || na != nb || sha.size() != shb.size())
        return why;
    const std::vector<float>& values = la.weights[0].data;
    for (float v : values)
        if (v != 0.f && v != -100.f)
            return why;
    // the nearest earlier padded map of [pH, pW, C] whose windows fit
    for (size_t j = i; j-- > 0;)
    {
        const Layer& p = a.layers[j];
        // a Padding, or the Crop to a reference that pads to whole windows (onnx2kite's Pad to a multiple)
        bool padded = p.type == "Padding";
        if (p.type == "Crop" && p.bottoms.size() == 2)
            for (size_t q = j; q-- > 0 && !padded;)
                if (std::find(a.layers[q].tops.begin(), a.layers[q].tops.end(), p.bottoms[0]) != a.layers[q].tops.end())
                {
                    padded = a.layers[q].type == "Padding";
                    break;
                }
        if (!padded || p.tops.size() != 1)
            continue;
        const std::vector<int64_t>* pa = find_shape(sa, p.tops[0]);
        const std::vector<int64_t>* pb = find_shape(sb, p.tops[0]);
        if (!pa || !pb || pa->size() != 3 || pb->size() != 3)
            continue;
        for (int64_t wh = 1; wh <= na; wh++)
        {
            if (na % wh)
                continue;
            WindowMask m;
            m.wh = wh;
            m.ww = na / wh;
            const int64_t pha = (*pa)[0], pwa = (*pa)[1], phb = (*pb)[0], pwb = (*pb)[1];
            if (pha % m.wh || pwa % m.ww || phb % m.wh || pwb % m.ww || (pha / m.wh) * (pwa / m.ww) != nwa || (phb / m.wh) * (pwb / m.ww) != nwb)
                continue;
            for (m.sh = 0; m.sh < m.wh; m.sh++)
                for (m.sw = 0; m.sw < m.ww; m.sw++)
                {
                    if ((m.sh == 0 && m.sw == 0) || window_mask_values(pha, pwa, m) != values)
                        continue;
                    Weight wb(window_mask_values(phb, pwb, m), la.weights[0].tagged);
                    if (wb.size() != lb.weights[0].size() || wb.values_hash() != lb.weights[0].values_hash())
                        continue;
                    // found: the layers, on a 3-D blob [pH, pW, 1] (axes c, h, w)
                    Graph g;
                    const std::string base = top + "_wmask";
                    int k = 0;
                    auto blob = [&]() { return base + std::to_string(k++); };
                    auto crop = [&](const std::string& in, int axis, int start, int end) {
                        CropSpec c;
                        c.starts = std::vector<int>{start};
                        c.ends = std::vector<int>{end};
                        c.axes = std::vector<int>{axis};
                        const std::string o = blob();
                        emit(g, c, o, {in}, {o});
                        return o;
                    };
                    auto binary = [&](const std::string& in, int op, float v) {
                        const std::string o = blob();
                        emit(g, BinaryOpSpec::scalar(op, v), o, {in}, {o});
                        return o;
                    };
                    auto concat = [&](const std::vector<std::string>& in, int axis) {
                        const std::string o = blob();
                        emit(g, ConcatSpec::on(axis), o, in, {o});
                        return o;
                    };
                    // zeros of [pH, pW, 1]
                    std::string r = binary(crop(p.tops[0], 2, 0, 1), BinaryOp::Operation_MUL, 0.f);
                    // region ids along an axis (0: rows, 1: columns): the last
                    // window's span gets 1 / 2 (times `scale`); the map is
                    // rebuilt as (map without its first window span) ++ (that span)
                    auto label = [&](const std::string& in, int axis, int w, int s, float scale) {
                        if (s == 0)
                            return in;
                        const std::string last = crop(in, axis, -w, kCropEnd);
                        const std::string one = binary(crop(last, axis, 0, w - s), BinaryOp::Operation_ADD, scale);
                        const std::string two = binary(crop(last, axis, w - s, w), BinaryOp::Operation_ADD, 2 * scale);
                        return crop(concat({in, concat({one, two}, axis)}, axis), axis, w, kCropEnd);
                    };
                    r = label(r, 0, (int)m.wh, (int)m.sh, 3.f);
                    r = label(r, 1, (int)m.ww, (int)m.sw, 1.f);
                    // windows: [nWh, wh, nWw, ww] -> [nWh, nWw, wh, ww] -> [nW, N] as [nW, N, 1] and [nW, 1, N]
                    {
                        const std::string o = blob();
                        Layer& l = g.add("Reshape", o, {r}, {o});
                        l.params.set_string(Reshape::PARAM_SHAPE_EXPR, std::to_string(m.ww) + ",//(0h," + std::to_string(m.ww) + ")," + std::to_string(m.wh)
                                                                           + ",//(0c," + std::to_string(m.wh) + ")");
                        r = o;
                    }
                    {
                        const std::string o = blob();
                        emit(g, PermuteSpec::order(2), o, {r}, {o}); // (w, h, d, c) <- (w, d, h, c)
                        r = o;
                    }
                    ReshapeSpec col, row;
                    col.w = 1;
                    col.h = (int)na;
                    col.c = -1;
                    row.w = (int)na;
                    row.h = 1;
                    row.c = -1;
                    const std::string ri = blob(), rj = blob();
                    emit(g, col, ri, {r}, {ri});
                    emit(g, row, rj, {r}, {rj});
                    const std::string d = blob();
                    emit(g, BinaryOpSpec::op(BinaryOp::Operation_SUB), d, {ri, rj}, {d});
                    // (r_i - r_j)^2 by a two-input BinaryOp (GPU backends have BinaryOp, not UnaryOp)
                    const std::string ad = blob();
                    emit(g, BinaryOpSpec::op(BinaryOp::Operation_MUL), ad, {d, d}, {ad});
                    const std::string last = ma->size() == 4 ? blob() : top;
                    emit(g, BinaryOpSpec::scalar(BinaryOp::Operation_MUL, -100.f), last, {binary(ad, BinaryOp::Operation_MIN, 1.f)}, {last});
                    if (ma->size() == 4)
                    {
                        ReshapeSpec s4;
                        s4.w = (int)na;
                        s4.h = (int)na;
                        s4.d = 1;
                        s4.c = -1;
                        emit(g, s4, top, {last}, {top});
                    }
                    out = std::move(g.layers);
                    return "";
                }
        }
    }
    return why + " and is not a shifted-window mask of an earlier padded map";
}

} // namespace

void mark_input_size_fixed(Graph& g)
{
    for (Layer& l : g.layers)
        if (l.type == "Input")
            l.params.set(Input::PARAM_FIXED_SIZE, 1);
}

std::string dims_text(const std::vector<int64_t>& s)
{
    std::string t = "[";
    for (size_t i = 0; i < s.size(); i++)
        t += (i ? "," : "") + std::to_string(s[i]);
    return t + "]";
}

std::string generalize_input_size(Graph& a, const BlobShapes& sa, const Graph& b, const BlobShapes& sb)
{
    std::vector<size_t> masks; // MemoryData layers whose constant follows the input size
    for (size_t i = 0; i < a.layers.size() || i < b.layers.size(); i++)
    {
        if (i >= a.layers.size() || i >= b.layers.size())
            return "the converted graph has " + std::to_string(a.layers.size()) + " layers at one size and " + std::to_string(b.layers.size())
                   + " at the other";
        const Layer& x = a.layers[i];
        const Layer& y = b.layers[i];
        if (x.type != y.type || x.bottoms != y.bottoms || x.tops != y.tops)
            return "the converted graph differs from layer '" + x.name + "' (" + x.type + ") on: '" + y.name + "' (" + y.type + ") at the other size ("
                   + std::to_string(a.layers.size()) + " and " + std::to_string(b.layers.size()) + " layers)";
        if (x.weights.size() != y.weights.size())
            return "layer '" + x.name + "' (" + x.type + ") has other weights";
        if (x.type == "MemoryData" && x.weights.size() == 1
            && (x.weights[0].size() != y.weights[0].size() || x.weights[0].values_hash() != y.weights[0].values_hash()))
        {
            masks.push_back(i); // replaced by layers below when it is a shifted-window mask
            continue;
        }
        for (size_t k = 0; k < x.weights.size(); k++)
        {
            if (x.weights[k].size() != y.weights[k].size())
                return x.type == "MemoryData" ? "the constant '" + x.name + "' (computed from the input size at conversion) has another size (" + std::to_string(x.weights[k].size()) + " and "
                                                    + std::to_string(y.weights[k].size()) + " values)"
                                              : "layer '" + x.name + "' (" + x.type + ") has weights of another size";
            if (x.type == "MemoryData" && x.weights[k].values_hash() != y.weights[k].values_hash()) // y may be a probe's (values dropped)
                return "the constant '" + x.name + "' has other values";
        }
    }
    // Reshape layers are rewritten in place; the originals come back on a failure
    std::vector<std::pair<size_t, Layer> > saved;
    std::string why;
    for (size_t i = 0; i < a.layers.size() && why.empty(); i++)
    {
        const Layer& y = b.layers[i];
        const int id = first_difference(a.layers[i].params, y.params);
        if (id < 0 || a.layers[i].type == "Input" || std::find(masks.begin(), masks.end(), i) != masks.end())
            continue;
        const std::string& t = a.layers[i].type;
        if (t == "Reshape" || t == "Interp" || t == "Crop")
        {
            saved.push_back(std::make_pair(i, a.layers[i]));
            why = t == "Reshape" ? generalize_reshape(a, i, sa, y, sb) : t == "Interp" ? generalize_interp(a, i, sa, y, sb) : generalize_crop(a, i, sa, y, sb);
            continue;
        }
        const Layer& x = a.layers[i];
        why = "layer '" + x.name + "' (" + x.type + ") has parameter " + std::to_string(id) + " = " + value_text(x.params, id) + " at one size and "
              + value_text(y.params, id) + " at the other";
    }
    // constants that follow the input size: layers computing them at run time
    std::vector<std::vector<Layer> > computed(masks.size());
    for (size_t k = 0; k < masks.size() && why.empty(); k++)
        why = window_mask_layers(a, masks[k], sa, b.layers[masks[k]], sb, computed[k]);
    if (!why.empty())
    {
        for (auto& kv : saved)
            a.layers[kv.first] = std::move(kv.second);
        return why;
    }
    for (size_t k = masks.size(); k-- > 0;)
    {
        const size_t i = masks[k];
        a.layers.erase(a.layers.begin() + (std::ptrdiff_t)i);
        a.layers.insert(a.layers.begin() + (std::ptrdiff_t)i, std::make_move_iterator(computed[k].begin()), std::make_move_iterator(computed[k].end()));
    }
    return "";
}

} // namespace convert
} // namespace kite
