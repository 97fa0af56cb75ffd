#ifndef KITE_LAYER_GROUPNORM_H
#define KITE_LAYER_GROUPNORM_H

#include "layer.h"

namespace kite {

// Split the channels (w of a 1-D blob, h of a 2-D one, c otherwise) into
// `group` groups, normalise each group over all its values, then per channel
// y = x_hat * gamma + beta when affine. ncnn GroupNorm.
class GroupNorm : public Layer
{
public:
    enum ParamId
    {
        PARAM_GROUP = 0,
        PARAM_CHANNELS = 1,
        PARAM_EPS = 2,
        PARAM_AFFINE = 3,
    };

    GroupNorm();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    int group;
    int channels;
    float eps;
    int affine;
    Mat gamma_data;
    Mat beta_data;
};

} // namespace kite

#endif // KITE_LAYER_GROUPNORM_H
