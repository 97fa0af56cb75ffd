#ifndef KITE_CONVERT_READER_H
#define KITE_CONVERT_READER_H

// Reading a text .param + .bin back into a Graph (kiteoptimize).

#include "graph.h"

#include <string>

namespace kite {
namespace convert {

// Parse a text .param (magic 7767517). Arrays become int or float arrays
// (float when any element is written as a float), quoted values strings.
// Returns 0, or -1 with `error` naming the line and the problem.
int parse_param_text(const std::string& text, Graph& g, std::string& error);

// Load param + bin with kite's Net (which checks them) and record every
// weight buffer each layer reads, in order, into the Graph: type 0 buffers
// come back tagged (int8 buffers keep int8, fp16 is expanded to fp32), type
// 1 untagged.
int read_model(const std::string& param_path, const std::string& bin_path, Graph& g, std::string& error);

} // namespace convert
} // namespace kite

#endif // KITE_CONVERT_READER_H
