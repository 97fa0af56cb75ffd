#ifndef KITE_TOOLS_TF_CONVERT_H
#define KITE_TOOLS_TF_CONVERT_H

// tensorflow2kite's converter: a frozen TensorFlow GraphDef (NHWC) to the
// converters' graph (kite/ncnn layers, NCHW with the batch axis dropped).
//
// Layout (seed 002): every rank-4 activation is kept in kite's CHW layout.
//  - fixed-format ops (Conv2D, DepthwiseConv2dNative, pooling, batch norm,
//    BiasAdd) work on that layout directly;
//  - transposable ops (element-wise, Concat, Pad, Mean/Max over axes,
//    StridedSlice/Slice, Softmax) get their axes and constant operands
//    rewritten for it;
//  - source-format ops (Reshape, Squeeze, ExpandDims) need the TF memory
//    order: a Permute to HWC is inserted before them, and back to CHW after
//    a reshape to rank 4, only when the order differs (H*W > 1 and C > 1).
// Ranks 2 and 3 (batch, ...) keep TF's order. The batch must be 1.

#include "graph.h"
#include "report.h"

#include <string>
#include <vector>

namespace kite {
namespace convert {
namespace tf {

enum DataFormat
{
    FORMAT_NHWC,
    FORMAT_NCHW,
    FORMAT_NONE,
};

struct ConvertOptions
{
    std::vector<std::string> inputs;              // Placeholder names (default: every Placeholder)
    std::vector<std::vector<int64_t> > input_shapes; // per input, TF order (fills unknown dims)
    std::vector<DataFormat> input_formats;        // per input (default NHWC)
    std::vector<std::string> outputs;             // tensor names (default: unconsumed nodes)
    std::vector<DataFormat> output_formats;       // per output (default NHWC)
    // input_shapes may differ from dimensions the model declares (the probe
    // conversion of convert_graphdef)
    bool probe = false;
};

// Parse `bytes` as a GraphDef and convert it into `g` (the bytes are released
// once parsed: pass a moved string to hold the file's size only once). Unsupported ops are
// collected in `unsupported` (the graph is then incomplete). Returns 0, or -1
// with `error` set (malformed file, inconsistent graph, bad options).
// `output_names` receives the blob names of the outputs.
// With `fixed_size`, the model is converted a second time at a probe size and
// sizes that follow the input derive from it at run time
// (tools/convert/input_size.h); when the model's source fixes its input size,
// *fixed_size says why (else it is left empty).
int convert_graphdef(std::string bytes, const ConvertOptions& opt, convert::Graph& g,
                     convert::UnsupportedOps& unsupported, std::vector<std::string>& output_names, std::string& error,
                     std::string* fixed_size = nullptr);
// the same on a file, parsed in blocks (its bytes are not held)
int convert_graphdef_file(const char* path, const ConvertOptions& opt, convert::Graph& g,
                          convert::UnsupportedOps& unsupported, std::vector<std::string>& output_names, std::string& error,
                          std::string* fixed_size = nullptr);

} // namespace tf
} // namespace convert

// the name callers used before the converters shared kite::convert
namespace tf = convert::tf;
} // namespace kite

#endif // KITE_TOOLS_TF_CONVERT_H
