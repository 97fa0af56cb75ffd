// ONNX Pad and Resize/Upsample.
#include "onnx_ops.h"

#include "binaryop.h"
#include "permute.h"

#include <cmath>

namespace kite {
namespace convert {
namespace onnx {

// Pads computed from the input's own shape as (m - x % m) % m at the end of
// an axis (Swin pads its feature map to whole windows): that multiple m per
// axis (1: the pad does not follow the input), found by evaluating the pads
// again at sizes x + 1, x + 2, ... past two sizes without a pad (at most
// x + 2 * kMaxMultiple). false if a pad follows the input otherwise.
static const int kMaxMultiple = 64;

static bool pad_multiples(const Converter& cv, const Shape& s, const std::vector<int64_t>& pads, std::vector<int64_t>& mult)
{
    const size_t r = s.size();
    mult.assign(r, 1);
    for (size_t a = 1; a < r; a++)
    {
        std::vector<int64_t> end(1, pads[a + r]);
        int zero = end[0] == 0 ? 0 : -1, period = 0; // the last size with no pad; the distance between two
        for (int d = 1; d <= 2 * kMaxMultiple && (!period || d <= zero + 2); d++)
        {
            Shape s2 = s;
            s2[a] += d;
            Const c;
            if (!cv.reevaluate(cv.in_name(1), {{cv.in_name(0), s2}}, c))
                return d == 1 && a == 1; // not computed from shapes: constant pads
            std::vector<int64_t> p2 = c.ints();
            if (p2.size() != pads.size())
                return false;
            for (size_t k = 0; k < p2.size(); k++)
                if (k != a + r && p2[k] != pads[k])
                    return false;
            end.push_back(p2[a + r]);
            if (d == 1 && end[1] == end[0])
                break; // this pad does not follow the axis
            if (end.back() == 0)
            {
                if (zero >= 0 && !period)
                    period = d - zero;
                zero = d;
            }
        }
        if (end.size() == 2)
            continue;
        int64_t found = 0;
        for (int64_t m = 2; m <= kMaxMultiple && !found; m++)
        {
            bool fits = true;
            for (size_t d = 0; d < end.size() && fits; d++)
                fits = end[d] == (m - (s[a] + (int64_t)d) % m) % m;
            if (fits)
                found = m;
        }
        if (!found)
            return false;
        mult[a] = found;
    }
    return true;
}

// A Pad to whole multiples of m (pad_multiples) on a batch-1 tensor of
// rank 4 whose last axis does not follow: padded by m - 1, then cropped to
// the reference [ceil(h / m) * m, ceil(w / m) * m, c] built from the input's
// shape at run time (Pooling with kernel and stride m over it padded by m - 1, Interp
// nearest by m, broadcast against one pixel's channels). Returns false (and
// emits nothing) where that does not apply.
static bool emit_pad_to_multiple(Converter& cv, const Shape& s, const std::vector<int64_t>& pads, float value, const Shape& o)
{
    std::vector<int64_t> mult;
    const size_t r = s.size();
    if (r != 4 || s[0] != 1 || !pad_multiples(cv, s, pads, mult) || (mult[1] == 1 && mult[2] == 1) || mult[3] != 1)
        return false;
    for (size_t k = 0; k < 2 * r; k++)
        if (k != 5 && k != 6 && pads[k] != 0)
            return false;
    const Shape ks = cv.blob_kshape(0);
    if (ks != Shape({s[1], s[2], s[3]}))
        return false;
    const int mc = (int)mult[1], mh = (int)mult[2];
    const std::string x = cv.blob(0), base = cv.out_name(0);
    // padded by m - 1 at the end of both axes
    PaddingSpec pd;
    pd.top = 0;
    pd.bottom = mh - 1;
    pd.left = 0;
    pd.right = 0;
    pd.front = 0;
    pd.behind = mc - 1;
    pd.pad_type = Padding::PAD_CONSTANT;
    pd.value = value;
    const std::string padded = cv.uniq(base + "_padmax");
    cv.emit(pd, {x}, {padded});
    // the reference [ceil(h / mc) * mc, ceil(w / mh) * mh, c]
    CropSpec one_ch;
    one_ch.starts = std::vector<int>{0};
    one_ch.ends = std::vector<int>{1};
    one_ch.axes = std::vector<int>{2};
    const std::string plane = cv.uniq(base + "_plane");
    cv.emit(one_ch, {x}, {plane}); // [h, w, 1]
    const std::string chw = cv.uniq(base + "_plane_t");
    cv.emit(PermuteSpec::order(4), {plane}, {chw}); // [1, h, w]
    PoolingSpec pool;
    pool.pooling_type = PoolingSpec::MAX;
    // valid mode on the input padded by m - 1: ceil(n / m) cells (full
    // mode would add a tail pad where the kernel is larger than the input)
    pool.kernel(mh, mc).stride(mh, mc).pads(0, mh - 1, 0, mc - 1);
    pool.pad_mode = 1;
    const std::string cells = cv.uniq(base + "_cells");
    cv.emit(pool, {chw}, {cells}); // [1, ceil(h / mc), ceil(w / mh)]
    InterpSpec up;
    up.resize_type = 1; // nearest
    up.height_scale = (float)mc;
    up.width_scale = (float)mh;
    const std::string grid = cv.uniq(base + "_grid");
    cv.emit(up, {cells}, {grid}); // [1, H, W]
    const std::string grid_t = cv.uniq(base + "_grid_t");
    cv.emit(PermuteSpec::order(3), {grid}, {grid_t}); // [H, W, 1]
    CropSpec pixel;
    pixel.starts = std::vector<int>{0, 0};
    pixel.ends = std::vector<int>{1, 1};
    pixel.axes = std::vector<int>{0, 1};
    const std::string px = cv.uniq(base + "_pixel");
    cv.emit(pixel, {x}, {px}); // [1, 1, c]
    const std::string ref = cv.uniq(base + "_ref");
    cv.emit(BinaryOpSpec::op(BinaryOp::Operation_ADD), {grid_t, px}, {ref}); // [H, W, c]
    const std::string t = cv.top_name(0);
    cv.emit(CropSpec(), {padded, ref}, {t});
    cv.set_out(0, o, t, Converter::kshape(o));
    return true;
}

void emit_pad(Converter& cv)
{
    Shape s = cv.in_shape(0);
    std::vector<int64_t> pads = cv.has_in(1) ? cv.cin(1).ints() : cv.attr_ints("pads");
    float value = cv.has_in(2) ? const_scalar(cv, 2, 0.f) : cv.attr_f("value", 0.f);
    if (cv.has_in(3))
        cv.fail("the axes input is not converted");
    std::string mode = cv.attr_s("mode", "constant");
    size_t r = s.size();
    if (pads.size() != 2 * r || r != 4 || s[0] != 1)
        cv.fail("only 4-D batch-1 padding is converted, got " + shape_str(s));
    for (int64_t p : pads)
        if (p < 0)
            cv.fail("negative pads (cropping) are not converted");
    if (pads[0] || pads[4])
        cv.fail("padding the batch axis is not converted");
    int type = mode == "constant" ? Padding::PAD_CONSTANT : mode == "edge" ? Padding::PAD_REPLICATE : mode == "reflect" ? Padding::PAD_REFLECT : -1;
    if (type < 0)
        cv.fail("mode '" + mode + "' is not converted");
    Shape o(r);
    for (size_t i = 0; i < r; i++)
        o[i] = s[i] + pads[i] + pads[i + r];
    if (type == Padding::PAD_CONSTANT && cv.has_in(1) && emit_pad_to_multiple(cv, s, pads, value, o))
        return;
    std::string t = cv.top_name(0);
    PaddingSpec pd;
    pd.top = (int)pads[2];
    pd.bottom = (int)pads[6];
    pd.left = (int)pads[3];
    pd.right = (int)pads[7];
    pd.pad_type = type;
    pd.value = value;
    pd.front = (int)pads[1];
    pd.behind = (int)pads[5];
    cv.emit(pd, {cv.blob(0)}, {t});
    cv.set_out(0, o, t, Converter::kshape(o));
}

void emit_resize(Converter& cv)
{
    Shape s = cv.in_shape(0);
    if (s.size() != 4 || s[0] != 1)
        cv.fail("only 4-D batch-1 inputs are converted");
    std::string mode = cv.attr_s("mode", "nearest");
    std::string ctm = cv.attr_s("coordinate_transformation_mode", "half_pixel");
    std::vector<float> scales;
    Shape o = s;
    bool upsample = cv.node_->op_type() == "Upsample";
    if (upsample)
    {
        scales = cv.has_in(1) ? cv.cin(1).floats() : cv.attr_floats("scales");
        ctm = "asymmetric";
    }
    else
    {
        if (cv.has_in(3))
        {
            std::vector<int64_t> sz = cv.cin(3).ints();
            if (sz.size() != 4)
                cv.fail("sizes must have 4 values");
            o = Shape(sz.begin(), sz.end());
        }
        else if (cv.has_in(2))
            scales = cv.cin(2).floats();
        else
            cv.fail("neither scales nor sizes given");
        if (cv.has_attr("axes") || cv.attr_i("antialias", 0))
            cv.fail("axes / antialias are not converted");
    }
    if (!scales.empty())
    {
        if (scales.size() != 4)
            cv.fail("scales must have 4 values");
        for (int i = 0; i < 4; i++)
        {
            o[i] = (int64_t)std::floor(s[i] * scales[i]);
            // kite maps coordinates by the size ratio; ONNX by the scale
            if (std::fabs(s[i] * scales[i] - (double)o[i]) > 1e-4)
                cv.fail("scale " + std::to_string(scales[i]) + " does not give an integral size; kite maps coordinates by the size ratio");
        }
    }
    if (o[0] != 1 || o[1] != s[1])
        cv.fail("resizing the batch or channel axis is not converted");
    int type, align = 0;
    if (mode == "nearest")
    {
        std::string nm = cv.attr_s("nearest_mode", "round_prefer_floor");
        type = 1;
        if (ctm != "asymmetric" || (nm != "floor" && !(nm == "round_prefer_floor" && !scales.empty() && scales[2] >= 1 && scales[3] >= 1 && scales[2] == std::floor(scales[2]) && scales[3] == std::floor(scales[3]))))
            cv.fail("nearest resize is converted for asymmetric coordinates with floor rounding (or integer upscales) only");
    }
    else if (mode == "linear" || mode == "bilinear")
    {
        type = 2;
        if (ctm == "align_corners")
        {
            align = 1;
            if (o[2] < 2 || o[3] < 2)
                cv.fail("align_corners to an output of size 1 is not converted");
        }
        else if (!(ctm == "half_pixel" || (ctm == "pytorch_half_pixel" && o[2] > 1 && o[3] > 1)))
            cv.fail("linear resize with coordinate_transformation_mode '" + ctm + "' is not converted");
    }
    else
        cv.fail("mode '" + mode + "' is not converted");
    std::string t = cv.top_name(0);
    InterpSpec ip;
    ip.resize_type = type;
    ip.output_height = (int)o[2];
    ip.output_width = (int)o[3];
    ip.align_corner = align;
    cv.emit(ip, {cv.blob(0)}, {t});
    cv.set_out(0, o, t, Converter::kshape(o));
}

} // namespace onnx
} // namespace convert
} // namespace kite
