#ifndef KITE_EXPRESSION_H
#define KITE_EXPRESSION_H

#include "mat.h"

#include <string>
#include <vector>

namespace kite {

// Shape expressions, as newer ncnn param files write them for Reshape, Crop,
// Interp and others: a comma-separated list of prefix expressions, e.g.
//   "1w,1h,128"          (w and h of input 1, then 128)
//   "/(0w,2),*(0h,2),0c" (input 0's w/2, h*2, c)
// Operands: <blob index><w|h|d|c> and numeric literals. Operators (prefix,
// operands in parentheses): + - * // max min (integer when both are ints),
// / atan2 fmod pow remainder logaddexp (float), and or xor lshift rshift (int), abs neg sign square, trunc ceil floor
// round, and the unary float functions sqrt rsqrt exp log log10 sin cos tan
// asin acos atan sinh cosh tanh asinh acosh atanh erf reciprocal.

// number of input blobs the expression refers to (highest index + 1); -1 if malformed
int count_expression_blobs(const std::string& expr);

// Evaluate against the shapes of `blobs`; appends one integer per list item.
// Returns 0, or -1 (after logging) for a malformed expression or a bad blob index.
int eval_list_expression(const std::string& expr, const std::vector<Mat>& blobs, std::vector<int>& out);

} // namespace kite

#endif // KITE_EXPRESSION_H
