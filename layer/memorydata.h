#ifndef KITE_LAYER_MEMORYDATA_H
#define KITE_LAYER_MEMORYDATA_H

#include "layer.h"

namespace kite {

// A constant blob read from the model: no inputs, one output. Its dims
// follow the sizes given: w only -> dims 1, w h -> 2, w h c -> 3, with d -> 4
// (all zero: one value). load_type is the ModelBin type (1 raw fp32,
// 0 tagged fp32/fp16/int8).
class MemoryData : public Layer
{
public:
    enum ParamId
    {
        PARAM_W = 0,
        PARAM_H = 1,
        PARAM_C = 2,
        PARAM_D = 11,
        PARAM_LOAD_TYPE = 21,
    };

    MemoryData();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

public:
    int w, h, d, c;
    int load_type;
    Mat data;
};

} // namespace kite

#endif // KITE_LAYER_MEMORYDATA_H
