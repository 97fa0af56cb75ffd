#ifndef KITE_LAYER_CAST_H
#define KITE_LAYER_CAST_H

#include "layer.h"

namespace kite {

// Converts the element type: 1 fp32, 2 fp16, 3 int8, 4 bf16 (type_from must
// describe the input: its elemsize is checked). To int8 rounds to nearest
// (halves away from zero) and saturates to [-127, 127], as ncnn's float2int8;
// from int8 is exact. Other pairs go through fp32.
class Cast : public Layer
{
public:
    enum ParamId
    {
        PARAM_TYPE_FROM = 0,
        PARAM_TYPE_TO = 1,
    };
    enum ElementType
    {
        TYPE_AUTO = 0,
        TYPE_FP32 = 1,
        TYPE_FP16 = 2,
        TYPE_INT8 = 3,
        TYPE_BF16 = 4,
    };

    Cast();
    int load_param(const ParamDict& pd) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    int type_from;
    int type_to;
};

} // namespace kite

#endif // KITE_LAYER_CAST_H
