#ifndef KITE_TOOLS_TFLITE_CONVERT_IMPL_H
#define KITE_TOOLS_TFLITE_CONVERT_IMPL_H

// Internal to tflite2kite: the converter state shared by tflite_convert.cpp
// (values, layout helpers, the walk over the operators) and tflite_ops.cpp
// (one handler per TFLite op).

#include "emit.h"
#include "nhwc.h"
#include "tflite_convert.h"
#include "tflite_model.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kite {
namespace convert {
namespace tflite {

// the NHWC data-format rules shared with the other NHWC converters (tools/convert/nhwc.h)
using nhwc::checked_int;
using nhwc::kite_axis;
using nhwc::kite_dims;
using nhwc::order_differs;
using nhwc::set_shape_params;
using nhwc::Shape;
using nhwc::shape_count;
using nhwc::shape_string;
using nhwc::source_dims;
// an op kite cannot convert: goes to the unsupported-ops report
typedef nhwc::NotSupported Unsupported;

// a constant tensor, values dequantized (real numbers), as double
struct Const
{
    Shape shape;
    std::vector<double> v;
    int64_t count() const { return (int64_t)v.size(); }
    std::vector<int64_t> ints() const
    {
        std::vector<int64_t> r;
        // saturated: a hostile file's constants may not fit (found by fuzz_tflite)
        for (double d : v)
            r.push_back(d != d ? 0 : d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN : (int64_t)d);
        return r;
    }
    std::vector<float> floats() const { return std::vector<float>(v.begin(), v.end()); }
};

// a TFLite tensor during conversion: a constant or a kite blob with its
// TFLite shape (batch first)
struct Value
{
    bool is_const = false;
    Const c;
    std::string blob;
    Shape shape;
};

struct Geometry
{
    int64_t kh, kw, sh, sw, dh, dw, pt, pb, pl, pr, oh, ow;
};

Geometry window_geometry(const Shape& x, int64_t kh, int64_t kw, const Options& o);
// numpy broadcast of two shapes; throws if incompatible
Shape broadcast_shape(const Shape& a, const Shape& b);

template<class Spec>
void set_conv_window(Spec& s, const Geometry& g)
{
    s.kernel((int)g.kw, (int)g.kh).dilation((int)g.dw, (int)g.dh).stride((int)g.sw, (int)g.sh);
    s.pads((int)g.pl, (int)g.pr, (int)g.pt, (int)g.pb);
}

class Converter
{
public:
    Converter(const Model& model, const ConvertOptions& o, Graph& graph, UnsupportedOps& u, ConvertStats& s)
        : m(model), opt(o), g(graph), unsupported(u), stats(s)
    {
    }
    void run();

private:
    const Model& m;
    const ConvertOptions& opt;
    Graph& g;
    UnsupportedOps& unsupported;
    ConvertStats& stats;

    std::map<int, Value> values;                       // tensor index -> value
    std::set<int> failed;                              // tensors of ops not converted
    std::map<std::pair<std::string, int>, std::string> shifted; // (blob, zero point) -> shifted blob
    std::map<int, int> consumers;                      // tensor -> readers (operators and graph outputs)
    std::map<std::string, int> scale_layer;            // blob -> Scale layer (without bias) writing it
    const Operator* cur = nullptr;                     // the op being converted
    std::string cur_name;                              // its layer name

    // ---- names and values ----
    static std::string clean(const std::string& s)
    {
        std::string r = s.substr(0, s.find(';'));
        if (r.size() > 96)
            r = r.substr(0, 96);
        for (char& c : r)
            if (c == ':' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '=')
                c = '_';
        return r.empty() ? std::string("t") : r;
    }
    const Tensor& tensor(int i) const { return m.tensors[(size_t)i]; }
    std::string out_blob(int k = 0)
    {
        if ((size_t)k >= cur->outputs.size())
            throw ConvertError("expects at least " + std::to_string(k + 1) + " outputs");
        return g.unique_blob_name(clean(tensor(cur->outputs[(size_t)k]).name));
    }
    Shape tensor_shape(int i) const
    {
        const Tensor& t = tensor(i);
        return Shape(t.shape.begin(), t.shape.end());
    }
    bool has_input(int i) const { return (size_t)i < cur->inputs.size() && cur->inputs[(size_t)i] >= 0; }
    const Value& input(int i);
    const Value& blob_input(int i)
    {
        const Value& v = input(i);
        if (v.is_const)
            throw Unsupported("constant input " + std::to_string(i) + " where an activation is expected");
        return v;
    }
    const Const& const_input(int i, const char* what)
    {
        const Value& v = input(i);
        if (!v.is_const)
            throw Unsupported(std::string(what) + " must be a constant");
        return v.c;
    }
    void set_output(int k, const Value& v)
    {
        if ((size_t)k >= cur->outputs.size())
            throw ConvertError("expects at least " + std::to_string(k + 1) + " outputs");
        values[cur->outputs[(size_t)k]] = v;
    }
    static Value blob_value(const std::string& blob, const Shape& shape)
    {
        Value v;
        v.blob = blob;
        v.shape = shape;
        return v;
    }
    static Value const_value(const Const& c)
    {
        Value v;
        v.is_const = true;
        v.c = c;
        v.shape = c.shape;
        return v;
    }
    Const read_const(const Tensor& t);

    template<class Spec>
    Layer& emit(const Spec& s, const std::string& name, const std::vector<std::string>& bottoms,
                const std::vector<std::string>& tops)
    {
        return convert::emit(g, s, name, bottoms, tops);
    }

    // ---- layout (tools/convert/nhwc.h) ----
    nhwc::Layout layout{g};
    std::string to_source_order(const Value& v, const std::string& name)
    {
        return layout.to_source_order(nhwc::Blob{v.blob, v.shape}, name);
    }
    Value emit_reshape(const Value& v, const Shape& target, const std::string& name, const std::string& top)
    {
        const nhwc::Blob b = layout.reshape(nhwc::Blob{v.blob, v.shape}, target, name, top);
        return blob_value(b.name, b.shape);
    }
    Value expand_rank(const Value& v, size_t rank, const std::string& name)
    {
        const nhwc::Blob b = layout.expand_rank(nhwc::Blob{v.blob, v.shape}, rank, name);
        return blob_value(b.name, b.shape);
    }
    std::string emit_memorydata(const Const& c, size_t rank, const std::string& name)
    {
        return layout.memorydata(c.floats(), c.shape, rank, name);
    }
    // tensor_index: the TFLite tensor blob holds (-1: none), for fold_shift
    std::string shift_input(const std::string& blob, int zero_point, float scale, int tensor_index = -1);
    bool fold_shift(const std::string& blob, int tensor_index, float c);

    // ---- ops ----
    void convert_op(const Operator& op);
    static bool handled(int code);
    void fused_activation(const std::string& bottom, const std::string& top, int act, const std::string& name);
    void finish_with_activation(Layer& l, int act, const std::string& top, const Shape& shape);
    void op_conv(bool depthwise);
    void op_fully_connected();
    void op_transpose_conv();
    void op_pool();
    void op_binary(int code);
    // x * LOGISTIC(x): the Value x of the pair (a, b), else null
    const Value* swish_input(const Value& a, const Value& b) const;
    void op_unary();
    void op_reduce();
    void op_reshape();
    void op_concat();
    void op_pad();
    void op_softmax();
    void op_resize();
    void op_strided_slice();
    void op_transpose();
    void op_shape_const();
    void op_batch_matmul();
    void op_prelu();
    void add_input(int index);
    void finish_output(int index);
};

} // namespace tflite
} // namespace convert
} // namespace kite

#endif // KITE_TOOLS_TFLITE_CONVERT_IMPL_H
