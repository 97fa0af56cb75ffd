#ifndef KITE_CONVERT_NHWC_H
#define KITE_CONVERT_NHWC_H

// The data-format rules of seed 002 for converters of NHWC formats
// (TensorFlow Lite; tensorflow2kite keeps its own copy for now): every rank-4
// NHWC activation lives in kite's CHW layout, ranks 2 and 3 keep the source
// order without the batch (batch must be 1). These helpers map shapes and
// axes, and emit the Permute / Reshape / MemoryData layers the rules need.

#include "emit.h"
#include "graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kite {
namespace convert {
namespace nhwc {

typedef std::vector<int64_t> Shape;

// what a converter reports as an unsupported op (not a malformed file)
struct NotSupported : public ConvertError
{
    explicit NotSupported(const std::string& why)
        : ConvertError(why)
    {
    }
};

// Permute order types between kite's CHW and the source's HWC memory order
// (layer/permute.h numbers the orders of the three axes)
enum
{
    PERMUTE_CHW_TO_HWC = 3, // (w,h,c) <- (c,w,h)
    PERMUTE_HWC_TO_CHW = 4, // (w,h,c) <- (h,c,w)
};

std::string shape_string(const Shape& s);
// element count; throws ConvertError on negative or too large shapes
int64_t shape_count(const Shape& s);
// v as an int dimension; throws ConvertError outside [0, INT_MAX]
int checked_int(int64_t v);

// kite's dims (outermost first) of a source shape: CHW for rank 4, the source
// order without the batch for ranks 2 and 3. NotSupported: batch > 1, rank > 4.
std::vector<int> kite_dims(const Shape& s);
// the source memory order as kite dims (HWC for rank 4)
std::vector<int> source_dims(const Shape& s);
// rank 4 with H*W > 1 and C > 1: CHW and HWC orders differ
bool order_differs(const Shape& s);
// a source axis (negative: from the end) -> kite axis (batch excluded)
int kite_axis(int64_t a, size_t rank);
// Reshape / MemoryData / Input shape params (w, h, c) of kite dims
void set_shape_params(Layer& l, const std::vector<int>& dims);
// the Permute order_type of a source permutation `perm` of a rank-3/4 tensor
// on kite's layout (batch axis fixed); 0 where it is the identity there
int permute_order(const std::vector<int64_t>& perm);
// TF/TFLite SAME padding of one axis: input `in`, effective kernel `ek`, stride `s`
void same_pads(int64_t in, int64_t ek, int64_t s, int64_t& before, int64_t& after);

// The Padding layer of a source Pad / PadV2 / MirrorPad: `p` holds the
// paddings, (before, after) per axis of the rank-2..4 input shape `in`
// (batch unpadded); `out` receives the padded shape. NotSupported: a pad
// outside 0..65536, padding of the batch, another rank.
PaddingSpec pad_spec(const std::vector<int64_t>& p, const Shape& in, int pad_type, float value, Shape& out);

// `in` permuted by the source permutation `perm` (out[i] = in[perm[i]]);
// ConvertError unless perm is a permutation of in's axes
Shape permuted_shape(const Shape& in, const std::vector<int64_t>& perm);

// The shape of the concatenation of `shapes` along source axis `axis` (in
// 0..rank-1); ConvertError where the ranks or the other axes differ.
Shape concat_shape(const std::vector<Shape>& shapes, int64_t axis);

// A source reduction (Sum/Mean/Max/... over `raw_axes`, negative from the
// end) of an input of shape `in`, laid out on kite's layout
struct ReducePlan
{
    std::vector<int64_t> axes; // the source axes, sorted, each once
    Shape kept;                // the shape with the reduced axes kept as 1
    Shape out;                 // the result's shape (kept with keepdims, else without them)
    bool over_hw = false;      // rank 4 over H and W exactly: a global pooling does it
    // the Reduction layer (Reduction::OP_* `operation`, kite axes); without
    // keepdims on rank 4 it keeps them (kite's CHW order) and a Reshape to
    // `out` follows (reshape_after)
    ReductionSpec spec;
    bool reshape_after = false;
};
ReducePlan reduce_plan(const std::vector<int64_t>& raw_axes, const Shape& in, bool keepdims, int operation);

// A blob and its source shape (batch first)
struct Blob
{
    std::string name;
    Shape shape;
};

// emitters on a graph
class Layout
{
public:
    explicit Layout(Graph& graph)
        : g(graph)
    {
    }
    // the blob in source memory order (a Permute CHW -> HWC where the orders differ)
    std::string to_source_order(const Blob& v, const std::string& layer_name);
    // reshape to `target` (source semantics: row-major in the source order)
    Blob reshape(const Blob& v, const Shape& target, const std::string& layer_name, const std::string& top);
    // leading 1s up to `rank`
    Blob expand_rank(const Blob& v, size_t rank, const std::string& layer_name);
    // a MemoryData layer holding a constant (source shape, row-major) broadcast
    // against a rank-`rank` activation; returns its blob
    std::string memorydata(const std::vector<float>& data, const Shape& shape, size_t rank, const std::string& name);

private:
    Graph& g;
};

} // namespace nhwc
} // namespace convert
} // namespace kite

#endif // KITE_CONVERT_NHWC_H
