#include "input_size.h"

#include "layer/crop.h"
#include "layer/input.h"
#include "layer/interp.h"
#include "layer/reshape.h"

#include <cstring>

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
        // the nearest earlier layers' outputs
        std::string found;
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
                    if (xa[t] != va[s] || xb[t] != vb[s])
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
        if (id < 0 || a.layers[i].type == "Input")
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
    if (!why.empty())
        for (auto& kv : saved)
            a.layers[kv.first] = std::move(kv.second);
    return why;
}

} // namespace convert
} // namespace kite
