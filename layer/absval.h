#ifndef KITE_LAYER_ABSVAL_H
#define KITE_LAYER_ABSVAL_H

#include "layer.h"

namespace kite {

// y = |x| (ncnn AbsVal; any dims, in place)
class AbsVal : public Layer
{
public:
    AbsVal();
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;
};

} // namespace kite

#endif // KITE_LAYER_ABSVAL_H
