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
// - a positive scalar BinaryOp mul/div after one whose fused activation is
//   ReLU, LeakyReLU or Clip folds into its weights (Clip's bounds scaled)
// - a zero constant Padding (width/height only) before a Convolution or
//   ConvolutionDepthWise becomes the convolution's pads
// - scalar BinaryOp add/sub/mul/div before a Convolution fold into its
//   weights and bias, its pad value set so the border stays zero after them
// - global Pooling -> Reshape [1,1,C] -> 1x1 Convolutions -> Reshape [N] (a
//   classifier head as convolutions) becomes InnerProduct layers
// A fusion needs the conv's output to have no other reader and not to be a
// requested output; int8 and dynamic-weight layers are left alone.

#include "graph.h"
#include "writer.h"

#include <string>
#include <vector>

namespace kite {
namespace convert {

struct OptimizeStats
{
    int split = 0, dropout = 0, flatten = 0;
    int batchnorm = 0, scale = 0, binaryop = 0, activation = 0, padding = 0, head = 0;
};

// outputs: blobs that must keep existing (empty: every unconsumed blob)
int optimize_graph(Graph& g, const std::vector<std::string>& outputs, OptimizeStats& stats);

// The converters' fusion step (tensorflow2kite, tflite2kite on fp32 graphs): finalize
// (single-assignment blob names, order) then optimize_graph keeping fo.outputs; the
// caller's finalize_and_write follows. Returns 0 or -1 with g.error set.
int optimize_converted(Graph& g, const FinalizeOptions& fo, OptimizeStats& stats);

// BatchNorm layers whose input comes straight from a conv-like layer
int batchnorm_after_conv(const Graph& g);

} // namespace convert
} // namespace kite

#endif // KITE_OPTIMIZE_H
