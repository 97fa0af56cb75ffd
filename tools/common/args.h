#ifndef KITE_TOOLS_ARGS_H
#define KITE_TOOLS_ARGS_H

// Small helpers for the tools' key=value command lines.

#include <string>
#include <vector>

namespace kite {
namespace tools {

// "[w,h,c]" (or "w,h,c", 1..4 positive ints) -> {w,h,c}. Returns false if malformed.
bool parse_shape(const std::string& s, std::vector<int>& shape);
std::string shape_to_string(const std::vector<int>& shape);

// Parse a non-negative / any int; false if not entirely a number.
bool parse_int_arg(const std::string& s, long long& v);

// "BLOB:VALUE" where blob names may themselves contain ':' (onnx::Add_1):
// the longest known name followed by ':' wins; otherwise the split is at the
// last ':' before `value_start` (e.g. "[" for shapes) or the first ':'.
// Returns false when there is no ':' at all (value only, blob empty).
bool split_blob_value(const std::string& s, const std::vector<std::string>& known_names, std::string& blob,
                      std::string& value, const char* value_start = nullptr);

} // namespace tools
} // namespace kite

#endif // KITE_TOOLS_ARGS_H
