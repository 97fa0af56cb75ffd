#ifndef KITE_LAYER_SPLIT_H
#define KITE_LAYER_SPLIT_H

#include "layer.h"

namespace kite {

// Hands the same blob to several consumers (no copy).
class Split : public Layer
{
public:
    Split();
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;
};

} // namespace kite

#endif // KITE_LAYER_SPLIT_H
