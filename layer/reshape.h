#ifndef KITE_LAYER_RESHAPE_H
#define KITE_LAYER_RESHAPE_H

#include "layer.h"

#include <string>

namespace kite {

// Same data, new shape (as ncnn). w, h, d, c: a size, 0 = the input's size on
// that axis, -1 = inferred from the element count (at most one), -233 = axis
// absent: the output dims are 1 (only w), 2 (w, h), 3 (w, h, c) or 4. A shape
// expression (string param 6, e.g. "0w,*(0h,0c)", listed w first) overrides
// them; inputs after the first then only provide shapes. The element count
// must match.
class Reshape : public Layer
{
public:
    enum ParamId
    {
        PARAM_W = 0,
        PARAM_H = 1,
        PARAM_C = 2,
        PARAM_SHAPE_EXPR = 6,
        PARAM_D = 11,
        PARAM_INPUT_BATCH_AXIS = 12,
        PARAM_OUTPUT_BATCH_AXIS = 13,
    };

    Reshape();
    int load_param(const ParamDict& pd) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

    // The output sizes in (w, h, d, c) slots (absent axes 1) and the output
    // dims n for inputs of these unpacked shapes (only dims and sizes are
    // read); 0, or -1 after logging why they do not fit.
    int output_shape(const std::vector<Mat>& shapes, int s[4], int& n) const;

public:
    int w, h, d, c;
    int ndim;
    std::string shape_expr;
};

} // namespace kite

#endif // KITE_LAYER_RESHAPE_H
