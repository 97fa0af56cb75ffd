#ifndef KITE_LAYER_SHUFFLECHANNEL_H
#define KITE_LAYER_SHUFFLECHANNEL_H

#include "layer.h"

namespace kite {

// Channel shuffle of a dims 3 or 4 blob: the channels, seen as a
// (group, channels/group) matrix, are transposed: output channel
// i * group + g is input channel g * (channels/group) + i. reverse = 1 undoes
// it (the same with group and channels/group swapped).
class ShuffleChannel : public Layer
{
public:
    enum ParamId
    {
        PARAM_GROUP = 0,
        PARAM_REVERSE = 1,
    };

    ShuffleChannel();
    int load_param(const ParamDict& pd) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    int group;
    int reverse;
};

} // namespace kite

#endif // KITE_LAYER_SHUFFLECHANNEL_H
