#ifndef KITE_CAFFE_PARSER_H
#define KITE_CAFFE_PARSER_H

// Caffe deploy.prototxt (text) + .caffemodel (binary) -> kite_convert Graph.
// Used by caffe2kite and by the fuzz target (tests/fuzz/fuzz_caffe.cpp).

#include "graph.h"
#include "report.h"

#include <string>

namespace kite {
namespace convert {
namespace caffe {

// Parse both files from memory and convert every layer. An empty `model`
// means no weights (then layers with weights fail unless allow_missing_weights,
// which fills zeros: benchmarks, fuzzing of the prototxt alone).
// Returns 0; -1 with `error` set (malformed input, bad blob sizes, ...); or 1
// when only unsupported layers were found (listed in `unsupported`).
int convert_caffe(const std::string& prototxt, const std::string& model, Graph& g, UnsupportedOps& unsupported, std::string& error, bool allow_missing_weights = false);

} // namespace caffe
} // namespace convert

// the name callers used before the converters shared kite::convert
namespace caffe = convert::caffe;
} // namespace kite

#endif // KITE_CAFFE_PARSER_H
