#ifndef KITE_LAYER_STATISTICSPOOLING_H
#define KITE_LAYER_STATISTICSPOOLING_H

#include "layer.h"

namespace kite {

// Per channel mean over w*h (and, with include_stddev, the standard
// deviation appended after the means): a 1-D output of c or 2c values.
class StatisticsPooling : public Layer
{
public:
    enum ParamId
    {
        PARAM_INCLUDE_STDDEV = 0,
    };

    StatisticsPooling();
    int load_param(const ParamDict& pd) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    int include_stddev;
};

} // namespace kite

#endif // KITE_LAYER_STATISTICSPOOLING_H
