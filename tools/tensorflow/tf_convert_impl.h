#ifndef KITE_TOOLS_TF_CONVERT_IMPL_H
#define KITE_TOOLS_TF_CONVERT_IMPL_H

// Internal to tensorflow2kite: the converter state shared by tf_convert.cpp
// (graph walk, layout helpers, emitters) and tf_ops.cpp (op handlers).

#include "emit.h"
#include "nhwc.h"
#include "input_size.h"
#include "tf_const.h"
#include "tf_convert.h"

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace kite {
namespace convert {
namespace tf {
namespace pb {
class AttrValue;
class GraphDef;
class NodeDef;
} // namespace pb

// Permute order types between kite's CHW and TensorFlow's HWC memory order
// (layer/permute.h numbers the orders of the three axes)
enum
{
    PERMUTE_CHW_TO_HWC = 3, // (w,h,c) <- (c,w,h)
    PERMUTE_HWC_TO_CHW = 4, // (w,h,c) <- (h,c,w)
};

// thrown by an op handler: the node goes to the unsupported-ops report (the
// shared NHWC helpers throw the same type)
using Unsupported = convert::nhwc::NotSupported;

// One TF tensor: a constant, or a kite blob with its TF shape (batch first).
// Rank-4 blobs are stored CHW (kite layout); other ranks in TF order.
struct Value
{
    bool is_const = false;
    bool released = false; // a large constant after its last reader (Converter::release_constant)
    Const c;
    std::string blob;
    Shape shape;
};

std::string tensor_key(const std::string& input); // "a" -> "a:0"
std::string key_node(const std::string& key);     // "a:1" -> "a"
bool known_op(const std::string& op);             // an op type tf_ops.cpp handles (at least on constants)

class Converter
{
public:
    Converter(const ConvertOptions& o, convert::Graph& graph, convert::UnsupportedOps& u)
        : opt(o), g(graph), unsupported(u)
    {
    }
    // converts the parsed graph (function calls inlined); with
    // release_tensor_content each Const's tensor_content is released from
    // `gd` once decoded (gd is then only good for reading its structure)
    int run(const pb::GraphDef& gd, std::vector<std::string>& output_names, std::string& error);
    bool release_tensor_content = false;
    // stop once the inputs have their shapes (input_shapes filled)
    bool inputs_only = false;
    // keep only the sizes and hashes of the layers' weights, not their values
    // (the probe conversion: input_size.h compares weights by size, constants by hash)
    bool drop_weight_values = false;

    // the kite shapes of blobs (input_size.h) and the inputs' TF shapes
    convert::BlobShapes kshapes;
    std::vector<std::pair<std::string, Shape> > input_shapes;

private:
    const ConvertOptions& opt;
    convert::Graph& g;
    convert::UnsupportedOps& unsupported;

    std::map<std::string, std::vector<std::string> > data_inputs; // node -> input tensor keys
    std::map<std::string, int> consumers;                         // tensor key -> readers
    std::map<std::string, Value> values;                          // tensor key -> value
    std::map<std::string, int> blob_aliases;                      // blob -> tensors holding it
    std::map<std::string, int> blob_layer;                        // blob -> Convolution/InnerProduct layer index
    std::map<std::string, const pb::NodeDef*> nodes;         // by name

    // constants of at least this many elements are released after their last reader
    static const int64_t kReleaseElements = 4096;
    void release_constant(const std::string& key);

    // attributes
    static const pb::AttrValue* attr(const pb::NodeDef& n, const char* name);
    static int64_t attr_i(const pb::NodeDef& n, const char* name, int64_t def);
    static float attr_f(const pb::NodeDef& n, const char* name, float def);
    static bool attr_b(const pb::NodeDef& n, const char* name, bool def);
    static std::string attr_s(const pb::NodeDef& n, const char* name, const std::string& def);
    static std::vector<int64_t> attr_ints(const pb::NodeDef& n, const char* name);

    // layout: kite shape (outermost first) of a TF shape; CHW for rank 4
    static std::vector<int> kdims(const Shape& s);
    // the TF memory order as a kite shape (HWC for rank 4)
    static std::vector<int> source_kdims(const Shape& s);
    // rank 4 with H*W > 1 and C > 1: CHW and HWC orders differ
    static bool order_differs(const Shape& s);
    // TF axis -> kite axis (batch excluded)
    static int kaxis(int64_t a, size_t rank);
    // Reshape / MemoryData / Input shape fields (w, h, c) from kite dims k (outermost first)
    // (records k as the kite shape of the layer's top, for input_size.h)
    void set_shape_params(convert::Layer& l, const std::vector<int>& k);

    // values
    Value blob_value(const std::string& blob, const Shape& shape); // records the blob's kite shape
    static Value const_value(const Const& c);
    const Value& input(const pb::NodeDef& n, int i);
    int input_count(const pb::NodeDef& n);
    const Const& const_input(const pb::NodeDef& n, int i, const char* what);
    const Value& blob_input(const pb::NodeDef& n, int i);
    std::string out_blob(const pb::NodeDef& n, int k = 0);
    void set_output(const pb::NodeDef& n, int k, const Value& v);
    convert::Layer& add_layer(const std::string& type, const std::string& name, const std::vector<std::string>& bottoms,
                              const std::vector<std::string>& tops);
    // a layer of a typed spec (tools/convert/emit.h)
    template<class Spec>
    convert::Layer& emit(const Spec& s, const std::string& name, const std::vector<std::string>& bottoms,
                         const std::vector<std::string>& tops)
    {
        convert::Layer& l = add_layer(s.type, name, bottoms, tops);
        s.write(l.params);
        return l;
    }

    // emitters
    std::string to_source_order(const Value& v, const std::string& name);
    Value emit_reshape(const Value& v, const Shape& target, const std::string& name, const std::string& top);
    Value expand_rank(const Value& v, size_t rank, const std::string& name);
    std::string emit_memorydata(const Const& c, size_t rank, const std::string& name);
    bool foldable(const Value& x, const std::string& key);
    bool try_fold_affine(const pb::NodeDef& n, const Value& x, const std::string& key, const Const* scale,
                         const Const* bias, bool negate_bias = false);
    bool try_scale(const pb::NodeDef& n, const Value& x, const Const& c);
    // valid until the next add_layer
    const convert::Layer* producer_layer(const std::string& blob, const char* type);
    bool try_hard_sigmoid(const pb::NodeDef& n, const Value& x, double scale);
    bool try_hard_swish(const pb::NodeDef& n, const Value& a, const Value& b);
    bool try_fold_activation(const pb::NodeDef& n, const Value& x, const std::string& key, int type,
                             const std::vector<float>& params);

    void add_placeholder(const pb::NodeDef& n, size_t index);
    void rename_blob(const std::string& from, const std::string& to);
    std::string finish_output(const std::string& key, DataFormat fmt);

    // tf_ops.cpp
    void convert_node(const pb::NodeDef& n);
    void op_conv(const pb::NodeDef& n, bool depthwise);
    void op_pool(const pb::NodeDef& n);
    void op_deconv(const pb::NodeDef& n);
    void op_batchnorm(const pb::NodeDef& n);
    void op_binary(const pb::NodeDef& n);
    void op_unary(const pb::NodeDef& n);
    void op_reduce(const pb::NodeDef& n);
    void op_pad(const pb::NodeDef& n);
    void op_concat(const pb::NodeDef& n);
    void op_reshape(const pb::NodeDef& n);
    void op_slice(const pb::NodeDef& n);
    void op_matmul(const pb::NodeDef& n);
    void op_resize(const pb::NodeDef& n);
    void op_transpose(const pb::NodeDef& n);
    void op_const_only(const pb::NodeDef& n);
    std::string input_key(const pb::NodeDef& n, int i);
    bool is_swish(const pb::NodeDef& n, const Value& a, const Value& b);

    // exact GELU, 0.5 * x * erfc(-x / sqrt 2) (tf.nn.gelu) or 0.5 * x * (1 + erf(x / sqrt 2)):
    // Erf/Erfc emit nothing; their value stays pending until the products
    // complete the pattern, which then becomes one GELU layer of x
    enum ErfState
    {
        ERF_E,  // erf(x / sqrt 2)
        ERF_S,  // 1 + erf(x / sqrt 2) = erfc(-x / sqrt 2)
        ERF_H,  // 0.5 * S
        ERF_XS, // x * S
    };
    struct PendingErf
    {
        std::string x;    // the GELU's input blob
        ErfState state;
        std::string node; // the Erf/Erfc node (for the error)
    };
    std::map<std::string, PendingErf> pending_erf; // blob -> state
    std::string gelu_source(const std::string& blob, bool erfc);
    bool try_gelu(const pb::NodeDef& n, const Value& a, const Value& b);
};

} // namespace tf
} // namespace convert
} // namespace kite

#endif // KITE_TOOLS_TF_CONVERT_IMPL_H
