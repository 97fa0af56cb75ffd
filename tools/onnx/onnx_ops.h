// What the ONNX op emitters (onnx_ops*.cpp) share: the shape helpers of
// onnx_fold.cpp, the operand of element-wise ops, small emit helpers, and the
// emitter of each op family, which Converter::emit() (onnx_ops.cpp) calls.
#ifndef KITE_TOOLS_ONNX_OPS_H
#define KITE_TOOLS_ONNX_OPS_H

#include "onnx_convert.h"

#include "onnx_subset.pb.h"

#include <string>
#include <vector>

namespace kite {
namespace convert {
namespace onnx {

// shape helpers (onnx_fold.cpp)
Shape broadcast_shape(const Converter& cv, const Shape& a, const Shape& b);
Shape infer_reshape(const Converter& cv, const Shape& in, const std::vector<int64_t>& spec, bool allowzero);

// Slice parameters resolved against a shape: per axis start, end, step
struct SliceRange
{
    std::vector<int64_t> start, end, step; // per axis of the input, full rank
    Shape out;
};
SliceRange resolve_slice(const Converter& cv, const Shape& in, std::vector<int64_t> starts, std::vector<int64_t> ends, std::vector<int64_t> axes, std::vector<int64_t> steps);
std::vector<int64_t> axes_arg(const Converter& cv, int input_index, const char* attr);
void slice_args(const Converter& cv, std::vector<int64_t>& starts, std::vector<int64_t>& ends, std::vector<int64_t>& axes, std::vector<int64_t>& steps);
Shape unsqueeze_shape(const Converter& cv, const Shape& in, const std::vector<int64_t>& axes);
Shape squeeze_shape(const Converter& cv, const Shape& in, const std::vector<int64_t>& axes);
std::vector<int64_t> transpose_perm(const Converter& cv, size_t rank);

// an operand of an element-wise op: a constant, or a blob with its ONNX shape
struct Operand
{
    Shape shape;
    const Const* c = nullptr;
    std::string name; // for naming the MemoryData of a constant
    std::string blob; // kite blob (shape kshape(shape)) when not constant
};

Operand operand(Converter& cv, int i);
// the operand laid out on the given axes of a rank-r frame (its shape
// right-aligned, missing leading axes are 1)
std::string operand_on(Converter& cv, const Operand& x, size_t r, const std::vector<int>& axes);

// a layer whose output has its input's shape
template<class Spec>
void emit_same(Converter& cv, const Spec& spec, const std::vector<kite::convert::Weight>& weights = {})
{
    Shape s = cv.in_shape(0);
    std::string t = cv.top_name(0);
    KLayer& l = cv.emit(spec, {cv.blob(0)}, {t});
    l.weights = weights;
    cv.set_out(0, s, t, Converter::kshape(s));
}

inline kite::convert::Weight raw(const std::vector<float>& v)
{
    return kite::convert::Weight(v, false);
}

inline kite::convert::Weight tagged(const std::vector<float>& v)
{
    return kite::convert::Weight(v, true);
}

// fails unless the batch (first axis) is 1
void check_batch1(const Converter& cv, const Shape& s);
// the scalar constant input i, or def when it is absent
float const_scalar(const Converter& cv, int i, float def);

// the op families, one file each
void emit_binary(Converter& cv, int op); // onnx_ops_elementwise.cpp
void emit_expand(Converter& cv);

void emit_conv(Converter& cv, bool transpose); // onnx_ops_conv.cpp
void emit_pool(Converter& cv, int type, bool global);
void emit_gemm(Converter& cv);
void emit_matmul(Converter& cv);

void emit_transpose(Converter& cv); // onnx_ops_shape.cpp
void emit_concat(Converter& cv);
void emit_split(Converter& cv);
void emit_slice(Converter& cv);
void emit_gather(Converter& cv);

void emit_softmax(Converter& cv, bool log); // onnx_ops_reduce.cpp
void emit_reduce(Converter& cv, int op);
void emit_norms(Converter& cv, const std::string& op);

void emit_pad(Converter& cv); // onnx_ops_pad.cpp
void emit_resize(Converter& cv);

} // namespace onnx
} // namespace convert
} // namespace kite

#endif // KITE_TOOLS_ONNX_OPS_H
