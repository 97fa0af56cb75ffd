#ifndef KITE_CONVERT_INPUT_SIZE_H
#define KITE_CONVERT_INPUT_SIZE_H

// Converted models that run at any input size their source accepts.
//
// The converters give every tensor a static shape (the size they convert at,
// A) and fold shape arithmetic to constants. To find the sizes that derive
// from the input, a converter converts the model a second time at a probe
// size B (spatial axes scaled by different factors, so that height- and
// width-derived values differ) and hands both graphs here: a parameter equal
// at A and B is a constant; a Reshape size that differs is rewritten to what
// the layer's inputs give at run time (0: the input's own axis, -1: inferred,
// else a shape expression "1h" naming an earlier blob that has that size at
// both A and B, passed to the layer as an extra input). Anything else that
// differs (a constant tensor, another layer's parameter, the layer list)
// means the source itself fixes its input size; the reason names it.

#include "graph.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kite {
namespace convert {

// kite blob name -> its kite shape, outermost axis first ([c,h,w], [c,d,h,w], [h,w], [w])
typedef std::map<std::string, std::vector<int64_t> > BlobShapes;

// Rewrites `a` (converted at size A, blob shapes `sa`) so that it also runs at
// other sizes, using `b` (converted at B, shapes `sb`). Returns "" on success;
// otherwise why the model's size is fixed (then `a` is left unchanged).
std::string generalize_input_size(Graph& a, const BlobShapes& sa, const Graph& b, const BlobShapes& sb);

// Marks every Input layer of `g` as fixed (Input::PARAM_FIXED_SIZE): kite
// then refuses an input of another shape with a message instead of running
// a graph whose folded constants hold only at the converted size.
void mark_input_size_fixed(Graph& g);

// "[1,3,224,224]"
std::string dims_text(const std::vector<int64_t>& s);

} // namespace convert
} // namespace kite

#endif
