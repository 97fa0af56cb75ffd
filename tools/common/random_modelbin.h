#ifndef KITE_TOOLS_RANDOM_MODELBIN_H
#define KITE_TOOLS_RANDOM_MODELBIN_H

// Random weights for any graph, scaled to each layer so that deep nets
// neither explode nor vanish (kiterun `random`, model tests, fidelity runs).
//
// Values come from the seed, the layer name and the buffer index, so the same
// seed gives the same weights for a layer whatever else is in the graph; the
// one exception is the scale of residual branches (follow_graph below).
// Per layer type (ModelBin::begin_layer tells which layer asks):
//   Convolution*/Deconvolution*/InnerProduct: weight U(-1,1)*gain*sqrt(3/fan_in)
//     with fan_in = weight_data_size/num_output (deconvolution: divided by
//     stride_w*stride_h), gain = sqrt(2) when a ReLU-like activation is fused
//     (activation_type 1, 2, 5, 6), else 1; bias U(-0.1,0.1).
//     int8 (int8_scale_term set): the weight stays fp32 (both kite and ncnn
//     quantize it when loading); the first scale buffer holds 127/max|w| of
//     each of its chunks (per output channel, per group, or one for all), every
//     later scale buffer (bottom / top blob scales) holds 127/4, i.e. the
//     activations are assumed to lie within +-4.
//   Gemm: constant A/B U(-1,1)*sqrt(3/K); C U(-0.1,0.1); int8 scales of A per
//     row and of B as above.
//   MultiHeadAttention: q/k/v/out weights U(-1,1)*sqrt(3/fan_in), biases small.
//   BatchNorm: slope U(0.5,1.5), mean U(-0.1,0.1), var U(0.5,1.5) (positive), bias U(-0.1,0.1).
//   LayerNorm/GroupNorm/InstanceNorm/RMSNorm/Normalize/Scale: gamma U(0.5,1.5), beta U(-0.1,0.1).
//   PReLU: slopes U(0,0.25).  MemoryData/Embed: U(-0.5,0.5).
//   RNN/LSTM/GRU: U(-1,1)*sqrt(1/num_output).
//   anything else: U(-0.5,0.5).
// Every buffer is returned as fp32 (type 0 and type 1 alike).
//
// Residual sums (follow_graph): the scaling above keeps the variance of a
// chain of layers, but x + f(x) doubles it, so a net of N residual blocks
// ends 2^N times (yolo-fastest-1.1: 18 blocks, std ~100) above where it
// started: exp() in a detection layer overflows and int8 blob scales
// saturate. Where an Eltwise sum or a BinaryOp add of two blobs adds a
// branch that ends in a Convolution*/Deconvolution*/InnerProduct (through
// element-wise layers only) to an identity input (anything else: a Split,
// a pooling, another sum), the branch's last weight layer is scaled by
// 1/sqrt(L * branches), L = the number of such sums in the graph, so the
// trunk grows at most (1 + 1/L)^L < e in variance (as Fixup-style
// initialisations do). A sum of branches only (a projection shortcut + the
// block) scales each of its k branches by 1/sqrt(k).

#include "modelbin.h"
#include "paramdict.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kite {

class Net;

namespace tools {

class RandomModelBin : public ModelBin
{
public:
    explicit RandomModelBin(uint64_t seed);
    using ModelBin::load;
    Mat load(int w, int type) const override;
    void begin_layer(const Layer* layer, const ParamDict& pd) const override;
    // call after net.load_param, before net.load_model(*this): finds the
    // residual branches of the graph (see above)
    void follow_graph(const Net& net);
    // the extra weight gain follow_graph gave the layer (1 if none)
    double branch_gain(const Layer* layer) const;

    // what to put in one buffer
    struct Kind
    {
        enum
        {
            UNIFORM = 0,     // U(lo, hi)
            WEIGHT_SCALES,   // 127/max|w| per chunk of buffer `ref`
            CONSTANT,        // every value = lo
        };
        int mode;
        float lo;
        float hi;
        int ref;
    };

private:
    Kind kind_for(int index, int w) const;

    uint64_t seed;
    std::map<const Layer*, double> branch_gains;
    mutable std::string layer_type;
    mutable std::string layer_name;
    mutable std::vector<Kind> plan;
    mutable std::vector<Mat> loaded;   // this layer's buffers so far
    mutable int first_scale;           // index of the first int8 scale buffer, -1 if none
};

} // namespace tools
} // namespace kite

#endif // KITE_TOOLS_RANDOM_MODELBIN_H
