#ifndef KITE_OPTIMIZE_H
#define KITE_OPTIMIZE_H

// kiteoptimize's graph passes (on a Graph read back from param/bin):
// - pass-through layers go: Split (finalize re-inserts the ones needed),
//   Dropout with scale 1, Noop, Flatten of an already 1-D blob (after
//   InnerProduct, Flatten, global Pooling)
// - a per-channel Scale after a BatchNorm folds into the BatchNorm
// - BatchNorm, per-channel Scale and scalar BinaryOp add/sub/mul/div after
//   Convolution, ConvolutionDepthWise, Deconvolution, DeconvolutionDepthWise
//   and InnerProduct fold into their weights and bias
// - ReLU, LeakyReLU, Clip, Sigmoid, Mish, HardSwish after them become the
//   layer's fused activation (param 9/10)
// A fusion needs the conv's output to have no other reader and not to be a
// requested output; int8 and dynamic-weight layers are left alone.

#include "graph.h"

#include <string>
#include <vector>

namespace kite {
namespace convert {

struct OptimizeStats
{
    int split = 0, dropout = 0, flatten = 0;
    int batchnorm = 0, scale = 0, binaryop = 0, activation = 0;
};

// outputs: blobs that must keep existing (empty: every unconsumed blob)
int optimize_graph(Graph& g, const std::vector<std::string>& outputs, OptimizeStats& stats);

// BatchNorm layers whose input comes straight from a conv-like layer
int batchnorm_after_conv(const Graph& g);

} // namespace convert
} // namespace kite

#endif // KITE_OPTIMIZE_H
