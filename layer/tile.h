#ifndef KITE_LAYER_TILE_H
#define KITE_LAYER_TILE_H

#include "layer.h"

namespace kite {

// Repeats the blob (as ncnn). With repeats (array param 2) it is numpy.tile:
// the repeats line up with the innermost axes (the last one is w); more
// repeats than dims give more output dims (at most 4), with the input kept
// in its (c, d, h, w) place as ncnn does: a dims 3 blob (c, h, w) tiled with
// 4 repeats (rc, rd, rh, rw) becomes (c*rc, rd, h*rh, w*rw). Otherwise the blob is
// repeated `tiles` times along `axis` (ncnn numbering, outermost first;
// negative counts from the end).
class Tile : public Layer
{
public:
    enum ParamId
    {
        PARAM_AXIS = 0,
        PARAM_TILES = 1,
        PARAM_REPEATS = 2,
    };

    Tile();
    int load_param(const ParamDict& pd) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    int axis;
    int tiles;
    Mat repeats;
};

} // namespace kite

#endif // KITE_LAYER_TILE_H
