#ifndef KITE_LAYER_SOFTMAX_H
#define KITE_LAYER_SOFTMAX_H

#include "layer.h"

#include <vector>

namespace kite {

// softmax along one axis. Axes count from the outermost of the blob's own
// dims (dims 3: 0 = c, 1 = h, 2 = w; dims 4: 0 = c, 1 = d, 2 = h, 3 = w);
// negative axes count from the end. ncnn rejects axis != 0 unless fixbug0=1
// (old param files used another convention).
class Softmax : public Layer
{
public:
    enum ParamId
    {
        PARAM_AXIS = 0,
        PARAM_FIXBUG0 = 1,
    };

    Softmax();
    int load_param(const ParamDict& pd) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    int axis;
};

// The axes of a blob outermost first (c, d, h, w as present) with their
// element strides (cstep padding included), for per-axis layers.
struct BlobAxes
{
    int n;
    int ext[4];
    size_t st[4];
};
BlobAxes blob_axes(const Mat& m);
// offset of the first element of every line along `axis` (0..n-1)
std::vector<size_t> line_starts(const BlobAxes& b, int axis);

} // namespace kite

#endif // KITE_LAYER_SOFTMAX_H
