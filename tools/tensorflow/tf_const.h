#ifndef KITE_TOOLS_TF_CONST_H
#define KITE_TOOLS_TF_CONST_H

// Constant tensors of a TensorFlow graph and the few operations the
// converter evaluates on them (constant folding: shape arithmetic,
// Keras' batch-norm factors, Reshape/StridedSlice of weights).
//
// Values are held as double whatever the dtype (int32/int64 shape values are
// exact up to 2^53); `is_int` remembers whether the TF dtype was integral.
// Every function throws convert::ConvertError with a message on bad input.

#include "emit.h" // ConvertError

#include <cstdint>
#include <string>
#include <vector>

namespace kite {
namespace convert {
namespace tf {
namespace pb {
class TensorProto;
class TensorShapeProto;
} // namespace pb

typedef std::vector<int64_t> Shape;

// constants and shapes with more elements than this are rejected as
// malformed (default 2^28; the fuzzer lowers it)
void set_element_limit(int64_t n);

// element count of a shape; throws on negative or too large shapes
int64_t shape_count(const Shape& s);
std::string shape_string(const Shape& s);

struct Const
{
    Shape shape;
    std::vector<double> v;
    bool is_int = false;

    int rank() const { return (int)shape.size(); }
    int64_t count() const { return (int64_t)v.size(); }
    std::vector<int64_t> ints() const;
    std::vector<float> floats() const;
};

// TensorProto -> Const (float, double, half, int8..int64, uint8, bool)
Const const_from_proto(const pb::TensorProto& t);
// TensorShapeProto -> Shape (-1 for unknown dims); throws on unknown rank
Shape shape_from_proto(const pb::TensorShapeProto& s);

// numpy-style broadcast of two shapes; throws if incompatible
Shape broadcast_shape(const Shape& a, const Shape& b);
// element-wise binary op on constants with broadcasting; op is the TF op name
// (Add, AddV2, Sub, Mul, RealDiv, Maximum, Minimum, Pow, FloorDiv, FloorMod,
// SquaredDifference); returns false if op is not one of them
bool const_binary(const std::string& op, const Const& a, const Const& b, Const& out);
// element-wise unary op (Rsqrt, Sqrt, Neg, Square, Exp, Log, Abs, Reciprocal,
// Sigmoid, Tanh, Relu, Relu6, Floor, Ceil, Round, Cast); false if unknown
bool const_unary(const std::string& op, const Const& a, Const& out);
// a copy of `a` with its data permuted: out[i...] = a[perm applied]
Const const_transpose(const Const& a, const std::vector<int>& perm);
// the data of `a` (shape broadcastable to `s`) repeated to shape `s`
Const const_broadcast_to(const Const& a, const Shape& s);

// StridedSlice geometry: one entry per output axis before shrinking
struct SliceSpec
{
    std::vector<int64_t> begin, end, stride; // per input axis, resolved and clamped
    std::vector<bool> shrink;                // per input axis
    Shape out_shape;                         // after shrink
    Shape out_shape_full;                    // before shrink (rank of input)
};
// resolve begin/end/strides and masks against an input shape; throws on
// ellipsis/new-axis masks (not supported) or bad values
SliceSpec resolve_strided_slice(const Shape& in, const std::vector<int64_t>& begin, const std::vector<int64_t>& end,
                                const std::vector<int64_t>& strides, int64_t begin_mask, int64_t end_mask,
                                int64_t ellipsis_mask, int64_t new_axis_mask, int64_t shrink_mask);
Const const_strided_slice(const Const& a, const SliceSpec& s);

// Reshape target with one -1 resolved; throws if the counts disagree
Shape resolve_reshape(const Shape& in, const std::vector<int64_t>& target);

} // namespace tf
} // namespace convert
} // namespace kite

#endif // KITE_TOOLS_TF_CONST_H
