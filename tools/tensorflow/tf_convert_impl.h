#ifndef KITE_TOOLS_TF_CONVERT_IMPL_H
#define KITE_TOOLS_TF_CONVERT_IMPL_H

// Internal to tensorflow2kite: the converter state shared by tf_convert.cpp
// (graph walk, layout helpers, emitters) and tf_ops.cpp (op handlers).

#include "tf_const.h"
#include "tf_convert.h"

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace kite_tf {
class AttrValue;
class NodeDef;
} // namespace kite_tf

namespace kite {
namespace tf {

// thrown by an op handler: the node goes to the unsupported-ops report
struct Unsupported : public std::runtime_error
{
    explicit Unsupported(const std::string& why)
        : std::runtime_error(why)
    {
    }
};

// One TF tensor: a constant, or a kite blob with its TF shape (batch first).
// Rank-4 blobs are stored CHW (kite layout); other ranks in TF order.
struct Value
{
    bool is_const = false;
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
    int run(const std::string& bytes, std::vector<std::string>& output_names, std::string& error);

private:
    const ConvertOptions& opt;
    convert::Graph& g;
    convert::UnsupportedOps& unsupported;

    std::map<std::string, std::vector<std::string> > data_inputs; // node -> input tensor keys
    std::map<std::string, int> consumers;                         // tensor key -> readers
    std::map<std::string, Value> values;                          // tensor key -> value
    std::map<std::string, int> blob_aliases;                      // blob -> tensors holding it
    std::map<std::string, int> blob_layer;                        // blob -> Convolution/InnerProduct layer index
    std::map<std::string, const kite_tf::NodeDef*> nodes;         // by name

    // attributes
    static const kite_tf::AttrValue* attr(const kite_tf::NodeDef& n, const char* name);
    static int64_t attr_i(const kite_tf::NodeDef& n, const char* name, int64_t def);
    static float attr_f(const kite_tf::NodeDef& n, const char* name, float def);
    static bool attr_b(const kite_tf::NodeDef& n, const char* name, bool def);
    static std::string attr_s(const kite_tf::NodeDef& n, const char* name, const std::string& def);
    static std::vector<int64_t> attr_ints(const kite_tf::NodeDef& n, const char* name);

    // layout: kite shape (outermost first) of a TF shape; CHW for rank 4
    static std::vector<int> kdims(const Shape& s);
    // the TF memory order as a kite shape (HWC for rank 4)
    static std::vector<int> source_kdims(const Shape& s);
    // rank 4 with H*W > 1 and C > 1: CHW and HWC orders differ
    static bool order_differs(const Shape& s);
    // TF axis -> kite axis (batch excluded)
    static int kaxis(int64_t a, size_t rank);
    static void set_shape_params(convert::Layer& l, const std::vector<int>& k);

    // values
    static Value blob_value(const std::string& blob, const Shape& shape);
    static Value const_value(const Const& c);
    const Value& input(const kite_tf::NodeDef& n, int i);
    int input_count(const kite_tf::NodeDef& n);
    const Const& const_input(const kite_tf::NodeDef& n, int i, const char* what);
    const Value& blob_input(const kite_tf::NodeDef& n, int i);
    std::string out_blob(const kite_tf::NodeDef& n, int k = 0);
    void set_output(const kite_tf::NodeDef& n, int k, const Value& v);
    convert::Layer& add_layer(const std::string& type, const std::string& name, const std::vector<std::string>& bottoms,
                              const std::vector<std::string>& tops);

    // emitters
    std::string to_source_order(const Value& v, const std::string& name);
    Value emit_reshape(const Value& v, const Shape& target, const std::string& name, const std::string& top);
    Value expand_rank(const Value& v, size_t rank, const std::string& name);
    std::string emit_memorydata(const Const& c, size_t rank, const std::string& name);
    bool foldable(const Value& x, const std::string& key);
    bool try_fold_affine(const kite_tf::NodeDef& n, const Value& x, const std::string& key, const Const* scale,
                         const Const* bias, bool negate_bias = false);
    bool try_scale(const kite_tf::NodeDef& n, const Value& x, const Const& c);
    // valid until the next add_layer
    const convert::Layer* producer_layer(const std::string& blob, const char* type);
    bool try_hard_sigmoid(const kite_tf::NodeDef& n, const Value& x, double scale);
    bool try_hard_swish(const kite_tf::NodeDef& n, const Value& a, const Value& b);
    bool try_fold_activation(const kite_tf::NodeDef& n, const Value& x, const std::string& key, int type,
                             const std::vector<float>& params);

    void add_placeholder(const kite_tf::NodeDef& n, size_t index);
    void rename_blob(const std::string& from, const std::string& to);
    std::string finish_output(const std::string& key, DataFormat fmt);

    // tf_ops.cpp
    void convert_node(const kite_tf::NodeDef& n);
    void op_conv(const kite_tf::NodeDef& n, bool depthwise);
    void op_pool(const kite_tf::NodeDef& n);
    void op_deconv(const kite_tf::NodeDef& n);
    void op_batchnorm(const kite_tf::NodeDef& n);
    void op_binary(const kite_tf::NodeDef& n);
    void op_unary(const kite_tf::NodeDef& n);
    void op_reduce(const kite_tf::NodeDef& n);
    void op_pad(const kite_tf::NodeDef& n);
    void op_concat(const kite_tf::NodeDef& n);
    void op_reshape(const kite_tf::NodeDef& n);
    void op_slice(const kite_tf::NodeDef& n);
    void op_matmul(const kite_tf::NodeDef& n);
    void op_resize(const kite_tf::NodeDef& n);
    void op_transpose(const kite_tf::NodeDef& n);
    void op_const_only(const kite_tf::NodeDef& n);
    std::string input_key(const kite_tf::NodeDef& n, int i);
    bool is_swish(const kite_tf::NodeDef& n, const Value& a, const Value& b);
};

} // namespace tf
} // namespace kite

#endif // KITE_TOOLS_TF_CONVERT_IMPL_H
