#ifndef KITE_LAYER_SLICE_H
#define KITE_LAYER_SLICE_H

#include "layer.h"

#include <vector>

namespace kite {

// Splits its input along one axis into as many outputs as the layer has.
// slices (array): the size of each output, -233 = an even share of what is
// left ((rest) / (outputs left)). indices (array, used when given): the split
// points, one fewer than the outputs; negative points count from the end.
// The slices must cover the axis exactly (ncnn's optimised paths read wrong
// rows when they do not, so no model relies on it).
class Slice : public Layer
{
public:
    enum ParamId
    {
        PARAM_SLICES = 0,
        PARAM_AXIS = 1,
        PARAM_INDICES = 2,
    };

    Slice();
    int load_param(const ParamDict& pd) override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;
    // [start, start + len) of each of n outputs on an axis of `size`; 0, or -1 (logged)
    int resolve_slices(int size, int n, std::vector<int>& starts, std::vector<int>& lens) const;

public:
    Mat slices;
    int axis;
    Mat indices;
};

} // namespace kite

#endif // KITE_LAYER_SLICE_H
