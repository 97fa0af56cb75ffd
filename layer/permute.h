#ifndef KITE_LAYER_PERMUTE_H
#define KITE_LAYER_PERMUTE_H

#include "layer.h"

namespace kite {

// Reorders the axes, numbered as ncnn does. The new (w, h, [d,] c) in terms
// of the old axes:
//   dims 2: 0 w h, 1 h w (transpose)
//   dims 3: 0 w h c, 1 h w c, 2 w c h, 3 c w h, 4 h c w, 5 c h w
//   dims 4: 0 whdc 1 hwdc 2 wdhc 3 dwhc 4 hdwc 5 dhwc 6 whcd 7 hwcd 8 wchd
//           9 cwhd 10 hcwd 11 chwd 12 wdch 13 dwch 14 wcdh 15 cwdh 16 dcwh
//           17 cdwh 18 hdcw 19 dhcw 20 hcdw 21 chdw 22 dchw 23 cdhw
// dims 1 is copied. Other orders for a blob of fewer dims are an error.
class Permute : public Layer
{
public:
    enum ParamId
    {
        PARAM_ORDER_TYPE = 0,
    };

    Permute();
    int load_param(const ParamDict& pd) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

    // the permutation for (dims, order_type): out logical axis i (outermost
    // first) is input logical axis perm[i]. false if the order is invalid.
    static bool permutation(int dims, int order_type, int* perm);

public:
    int order_type;
};

} // namespace kite

#endif // KITE_LAYER_PERMUTE_H
