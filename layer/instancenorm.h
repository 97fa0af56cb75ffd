#ifndef KITE_LAYER_INSTANCENORM_H
#define KITE_LAYER_INSTANCENORM_H

#include "layer.h"

namespace kite {

// Normalise every channel over its own values, then y = x_hat * gamma + beta
// when affine. ncnn InstanceNorm.
class InstanceNorm : public Layer
{
public:
    enum ParamId
    {
        PARAM_CHANNELS = 0,
        PARAM_EPS = 1,
        PARAM_AFFINE = 2,
    };

    InstanceNorm();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    int channels;
    float eps;
    int affine;
    Mat gamma_data;
    Mat beta_data;
};

} // namespace kite

#endif // KITE_LAYER_INSTANCENORM_H
