// The declared shape of a model's input blob, and a Mat of a given shape:
// shared by kiterun, benchkite and kitecheck (header-only, so benchkite and
// the Python module, which compile benchkite.cpp without kite_toolcommon,
// need nothing more).
#ifndef KITE_TOOLS_INPUT_SHAPE_H
#define KITE_TOOLS_INPUT_SHAPE_H

#include "mat.h"
#include "net.h"

#include <string>
#include <vector>

namespace kite {
namespace tools {

// [w], [w,h], [w,h,c] or [w,h,d,c] from the Input layer's params (0=w 1=h
// 11=d 2=c), else from the blob's -23330 shape hint; empty if neither says
inline std::vector<int> declared_input_shape(const Net& net, int blob_index)
{
    const Blob& b = net.blobs()[blob_index];
    if (b.producer >= 0)
    {
        const ParamDict& pd = net.layer_param(b.producer);
        int w = pd.get(0, 0), h = pd.get(1, 0), d = pd.get(11, 0), c = pd.get(2, 0);
        if (w > 0 && h > 0 && d > 0 && c > 0)
            return {w, h, d, c};
        if (w > 0 && h > 0 && c > 0)
            return {w, h, c};
        if (w > 0 && h > 0 && c <= 0)
            return {w, h};
        if (w > 0 && h <= 0 && c <= 0)
            return {w};
    }
    const Mat& hint = b.shape;
    if (hint.dims == 1 && hint.w > 0)
        return {hint.w};
    if (hint.dims == 2 && hint.w > 0 && hint.h > 0)
        return {hint.w, hint.h};
    if (hint.dims == 3 && hint.w > 0 && hint.h > 0 && hint.c > 0)
        return {hint.w, hint.h, hint.c};
    if (hint.dims == 4 && hint.w > 0 && hint.h > 0 && hint.d > 0 && hint.c > 0)
        return {hint.w, hint.h, hint.d, hint.c};
    return {};
}

// an fp32 Mat of shape s (1 to 4 values, as declared_input_shape gives them)
inline Mat make_shape_mat(const std::vector<int>& s)
{
    if (s.size() == 1)
        return Mat(s[0], (size_t)4u);
    if (s.size() == 2)
        return Mat(s[0], s[1], (size_t)4u);
    if (s.size() == 3)
        return Mat(s[0], s[1], s[2], (size_t)4u);
    return Mat(s[0], s[1], s[2], s[3], (size_t)4u);
}

// "" when `given` (shape=) fits input `name` as the model declares it: the
// same rank and, for [w,h,c] / [w,h,d,c], the same channels (width, height and
// depth may differ: a model converted for any input size runs at others);
// otherwise the refusal, naming the input. No declared shape: "".
inline std::string input_shape_misfit(const std::string& name, const std::vector<int>& declared, const std::vector<int>& given)
{
    if (declared.empty())
        return "";
    auto text = [](const std::vector<int>& s) {
        std::string t = "[";
        for (size_t i = 0; i < s.size(); i++)
            t += (i ? "," : "") + std::to_string(s[i]);
        return t + "]";
    };
    const std::string head = "input '" + name + "': shape " + text(given) + " does not fit the model's input " + text(declared) + " (";
    if (declared.size() != given.size())
        return head + std::to_string(given.size()) + " axes given, " + std::to_string(declared.size()) + " declared; kite lists w,h,c)";
    if (declared.size() >= 3 && declared.back() != given.back())
        return head + std::to_string(given.back()) + " channels given, the model's input has " + std::to_string(declared.back())
               + "; kite lists w,h,c: channels last in the list)";
    return "";
}

} // namespace tools
} // namespace kite

#endif // KITE_TOOLS_INPUT_SHAPE_H
