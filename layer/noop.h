#ifndef KITE_LAYER_NOOP_H
#define KITE_LAYER_NOOP_H

#include "layer.h"

namespace kite {

// Passes every input through unchanged (ncnn Noop: in place, any number of blobs).
class Noop : public Layer
{
public:
    Noop();
    int forward_inplace(std::vector<Mat>& bottom_top_blobs, const Option& opt) const override;
};

} // namespace kite

#endif // KITE_LAYER_NOOP_H
