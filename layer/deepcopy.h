#ifndef KITE_LAYER_DEEPCOPY_H
#define KITE_LAYER_DEEPCOPY_H

#include "layer.h"

namespace kite {

// A copy of the input that shares no memory with it.
class DeepCopy : public Layer
{
public:
    DeepCopy();
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;
};

} // namespace kite

#endif // KITE_LAYER_DEEPCOPY_H
