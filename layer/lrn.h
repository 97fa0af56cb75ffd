#ifndef KITE_LAYER_LRN_H
#define KITE_LAYER_LRN_H

#include "layer.h"

namespace kite {

// Local response normalisation of a 3-D blob (ncnn/caffe LRN):
// y = x * (bias + alpha / n * sum of x^2 over the local region) ^ -beta,
// the region being local_size channels (across) or a local_size^2 window
// (within channel, n = local_size^2).
class LRN : public Layer
{
public:
    enum ParamId
    {
        PARAM_REGION_TYPE = 0,
        PARAM_LOCAL_SIZE = 1,
        PARAM_ALPHA = 2,
        PARAM_BETA = 3,
        PARAM_BIAS = 4,
    };
    enum RegionType
    {
        ACROSS_CHANNELS = 0,
        WITHIN_CHANNEL = 1,
    };

    LRN();
    int load_param(const ParamDict& pd) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    int region_type;
    int local_size;
    float alpha;
    float beta;
    float bias;
};

} // namespace kite

#endif // KITE_LAYER_LRN_H
