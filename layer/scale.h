#ifndef KITE_LAYER_SCALE_H
#define KITE_LAYER_SCALE_H

#include "layer.h"

namespace kite {

// y = x * scale (+ bias) per channel (w of a 1-D blob, h of a 2-D one, c
// otherwise). scale_data_size -233: the scales come from a second input blob
// (and there is no bias).
class Scale : public Layer
{
public:
    enum ParamId
    {
        PARAM_SCALE_DATA_SIZE = 0,
        PARAM_BIAS_TERM = 1,
    };

    Scale();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int forward_inplace(std::vector<Mat>& bottom_top_blobs, const Option& opt) const override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    int scale_data_size;
    int bias_term;
    Mat scale_data;
    Mat bias_data;

protected:
    int apply(Mat& blob, const Mat& scale, const Mat& bias, const Option& opt) const;
};

} // namespace kite

#endif // KITE_LAYER_SCALE_H
