#ifndef KITE_LAYER_LAYERNORM_H
#define KITE_LAYER_LAYERNORM_H

#include "layer.h"

namespace kite {

// Normalise each row of w values (affine_size == w) or each channel plane of
// w*h values (3-D, affine_size == w*h) to mean 0, variance 1, then
// y = x_hat * gamma + beta when affine. ncnn LayerNorm.
class LayerNorm : public Layer
{
public:
    enum ParamId
    {
        PARAM_AFFINE_SIZE = 0,
        PARAM_EPS = 1,
        PARAM_AFFINE = 2,
    };

    LayerNorm();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;
    // elements normalised together for an input of this shape; -1 (logged) if none fits
    int norm_span(const Mat& shape) const;

public:
    int affine_size;
    float eps;
    int affine;
    Mat gamma_data;
    Mat beta_data;
};

} // namespace kite

#endif // KITE_LAYER_LAYERNORM_H
