#ifndef KITE_TOOLS_TFLITE_CONVERT_H
#define KITE_TOOLS_TFLITE_CONVERT_H

// tflite2kite without its command line: a TensorFlow Lite model (fp32, fp16
// weights, or int8 quantized) onto kite's graph (tools/convert).
//
// Layout (seed 002, as tensorflow2kite): every rank-4 NHWC activation lives
// in kite's CHW layout, ranks 2 and 3 keep TFLite's order without the batch.
// The model's inputs and outputs keep TFLite's order (a rank-4 input blob
// holds H, W, C as kite's c, h, w: an (H, W, C) .npy for kiterun).
//
// Quantized models: values between layers are the real (dequantized) numbers.
// CONV_2D, DEPTHWISE_CONV_2D (depth multiplier 1) and FULLY_CONNECTED with
// int8 weights become kite's int8 Convolution / ConvolutionDepthWise /
// InnerProduct: TFLite's int8 weights and per-channel (or per-tensor) weight
// scales as they are, the input scale of the op's input tensor as
// bottom_blob_int8_scales, the int32 bias dequantized; an input zero point is
// handled by shifting the input onto kite's symmetric int8 grid (a scalar
// BinaryOp before the layer, the bias and the pad value corrected). Every
// other op runs in fp32 on dequantized constants.

#include "graph.h"
#include "report.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kite {
namespace convert {
namespace tflite {

struct ConvertOptions
{
    // false: int8 weights are dequantized to fp32 layers (no kite int8 layers)
    bool int8_layers = true;
};

struct ConvertStats
{
    int ops = 0;            // operators of the main subgraph
    int op_types = 0;       // distinct op types
    int int8_layers = 0;    // kite layers written with int8 weights
    int fp16_weights = 0;   // constant tensors stored as FLOAT16 in the file
    int float_weights = 0;  // FLOAT32 constant tensors with more than 1 element
    std::vector<std::string> inputs, outputs; // blob names written
};

// Converts model bytes into g. Returns 0, or -1 with `error` set (malformed
// file, bad model). Ops kite cannot convert are added to `unsupported` (the
// return is still 0; the caller prints the report and writes nothing).
int convert_model(const uint8_t* data, size_t size, const ConvertOptions& opt, Graph& g, UnsupportedOps& unsupported,
                  ConvertStats& stats, std::string& error);

} // namespace tflite
} // namespace convert
} // namespace kite

#endif // KITE_TOOLS_TFLITE_CONVERT_H
