// onnx2kite: ONNX ModelProto -> kite graph (ncnn param/bin).
//
// Every tensor gets a static shape (graph inputs must be fixed, or are fixed
// with input shapes given on the command line); constant sub-graphs (the
// Shape/Gather/Unsqueeze/Concat/Reshape chains of PyTorch exports, Constant
// nodes, initializers) are evaluated here, and only the rest becomes layers.
//
// Layout: kite drops the batch axis. An ONNX tensor of rank r maps to a blob
// of the "kept" axes: axis 0 is dropped when r >= 2 and it has size 1, then
// further size-1 axes from the left while more than 4 remain. Ops whose
// natural kite output differs from that mapping get a Reshape behind them.
#ifndef KITE_TOOLS_ONNX_CONVERT_H
#define KITE_TOOLS_ONNX_CONVERT_H

#include "emit.h"
#include "graph.h"
#include "input_size.h"

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace kite {
namespace convert {
namespace onnx {

typedef kite::convert::Graph KGraph;
typedef kite::convert::Layer KLayer;

// the generated protobuf classes (onnx_subset.proto, package kite.convert.onnx.pb)
namespace pb {
class NodeProto;
class ModelProto;
class GraphProto;
class TensorProto;
} // namespace pb
using namespace pb;

typedef std::vector<int64_t> Shape;

using kite::convert::ConvertError;

// a constant tensor; values held as double (exact for fp32 and for the
// integers shape arithmetic uses)
struct Const
{
    Shape shape;
    int dtype = 1; // ONNX TensorProto.DataType
    std::vector<double> v;
    size_t numel() const;
    bool is_int() const;
    std::vector<float> floats() const;
    std::vector<int64_t> ints() const;
};

size_t shape_numel(const Shape& s);
std::string shape_str(const Shape& s);

struct ConvertOptions
{
    std::map<std::string, Shape> input_shapes; // overrides for graph inputs
    // the second conversion at a probe size (convert_onnx_buffer): the
    // overrides may differ from dimensions the model declares fixed
    bool probe = false;
    // convert a second time at a probe size to make input-derived sizes
    // follow the input (tools/convert/input_size.h)
    bool any_size = true;
    // stop once the graph inputs have their shapes (convert_onnx_buffer's
    // first pass: the probe conversion runs before the real one)
    bool inputs_only = false;
};

struct ConvertStats
{
    std::map<std::string, int> onnx_ops;   // op type -> count in the model
    int folded_nodes = 0;
    int inlined_calls = 0; // calls of model-local functions replaced by their bodies
    // why the converted model runs only at the converted input size ("" when it runs at any)
    std::string fixed_size;
    // where the conversion ran at another size than the one given (why), "" if not
    std::string size_note;
};

class Converter
{
public:
    explicit Converter(const ConvertOptions& opt) : opt_(opt) {}

    // throws ConvertError with a one-line reason
    // `outputs` receives the kite blob names of the graph outputs
    // `model` is left unchanged (its initializers are set aside while the graph is copied)
    // the initializers' raw_data is freed from `model` as they are decoded, except in
    // the probe and inputs-only passes (convert_onnx_buffer runs those first)
    void convert(ModelProto& model, KGraph& out, std::vector<std::string>& outputs, ConvertStats* stats);

public:
    // --- used by the op emitters (onnx_ops*.cpp) and folding (onnx_fold.cpp)
    const NodeProto* node_ = nullptr;
    int opset_ = 13;
    KGraph g_;
    std::vector<std::string> outputs_;
    std::map<std::string, Shape> shapes_;
    // constants by ONNX name; read them through is_const / find_const: large
    // initializers are decoded on first use (lazy_) and large constants are
    // dropped once their last reader node ran (peak memory near the file size)
    mutable std::map<std::string, Const> consts_;
    mutable std::map<std::string, TensorProto*> lazy_;
    bool free_raw_ = false; // this conversion is the model's last reader: free raw_data once decoded
    std::map<std::string, int> uses_; // readers left (nodes; graph outputs count once for good)
    bool is_const(const std::string& name) const { return consts_.count(name) || lazy_.count(name); }
    const Const* find_const(const std::string& name) const; // nullptr when not a constant
    std::map<std::string, std::string> blob_; // ONNX name -> kite blob
    // tensors of more than 4 non-unit axes (Swin's window partition, its
    // q/k/v split): the blob holds the same elements in the same order in a
    // <= 4-axis shape, recorded here; only Reshape, Transpose, Gather and the
    // pass-through ops read them
    std::map<std::string, Shape> wide_;
    // the kite shape of the blobs whose shape is known (Input, set_out, reshape)
    kite::convert::BlobShapes kshapes_;
    int counter_ = 0;

    // attributes of the current node
    bool has_attr(const char* name) const;
    int64_t attr_i(const char* name, int64_t def) const;
    float attr_f(const char* name, float def) const;
    std::string attr_s(const char* name, const std::string& def) const;
    std::vector<int64_t> attr_ints(const char* name) const;
    std::vector<float> attr_floats(const char* name) const;
    bool attr_tensor(const char* name, Const& out) const;

    int n_in() const;
    int n_out() const;
    const std::string& in_name(int i) const;   // "" when absent
    const std::string& out_name(int i) const;
    bool has_in(int i) const;
    bool in_const(int i) const;
    const Const& cin(int i) const;             // throws unless constant
    const Shape& in_shape(int i) const;        // throws when unknown
    Shape blob_kshape(int i) const;            // the kite shape of input i's blob (wide_ or kshape(in_shape))
    bool in_wide(int i) const;
    std::string node_desc() const;
    [[noreturn]] void fail(const std::string& why) const;

    // layout mapping
    static std::vector<int> kept_axes(const Shape& s);
    static Shape kshape(const Shape& s);
    int kaxis(const Shape& s, int64_t onnx_axis) const; // -1 when dropped; throws if out of range
    static int64_t norm_axis(int64_t axis, size_t rank);

    // blob helpers
    std::string uniq(const std::string& base);
    std::string blob(int input);                 // kite blob of an input (const -> MemoryData)
    std::string const_blob(const std::string& onnx_name, const Const& c, const Shape& kshape_wanted);
    KLayer& add(const std::string& type, const std::vector<std::string>& bottoms, const std::vector<std::string>& tops);
    // a layer of a typed spec (tools/convert/emit.h), named after the node
    template<class Spec>
    KLayer& emit(const Spec& s, const std::vector<std::string>& bottoms, const std::vector<std::string>& tops)
    {
        KLayer& l = add(s.type, bottoms, tops);
        s.write(l.params);
        return l;
    }
    std::string reshape(const std::string& b, const Shape& from_k, const Shape& to_k);
    // declare an output: its ONNX shape, the blob that holds it and that blob's kite shape
    void set_out(int i, const Shape& onnx_shape, const std::string& b, const Shape& b_kshape);
    void set_const(int i, const Const& c);
    std::string top_name(int i); // blob name to use for output i when no reshape follows

    // folding
    bool fold(); // true when the node was evaluated as a constant

    // The folded tensor `name` evaluated again with the shapes of some
    // tensors replaced (the Shape nodes reading them see `shapes`): how a
    // value computed from shapes at conversion follows the input. false when
    // it is not computed from constants and shapes only.
    // `leaves`: the tensors whose shapes it reads.
    bool reevaluate(const std::string& name, const std::map<std::string, Shape>& shapes, Const& out,
                    std::set<std::string>* leaves = nullptr) const;
    const GraphProto* graph_ = nullptr;  // the graph being converted (functions inlined)
    mutable size_t reevaluate_budget_ = size_t(1) << 20; // nodes reevaluate may still fold (bounds hostile models)
    std::map<std::string, int> producer_; // tensor -> index of the node writing it

    // per-op emission; returns false for an op type nobody handles
    bool emit();

private:
    ConvertOptions opt_;
};

// all op types onnx2kite understands (emitted or folded)
bool op_supported(const std::string& op_type);
std::vector<std::string> supported_ops();

// whole pipeline on a buffer; fills `err` and returns false on failure
bool convert_onnx_buffer(const void* data, size_t size, const ConvertOptions& opt, KGraph& out,
                         std::vector<std::string>& outputs, ConvertStats* stats, std::string& err);
// the same on a file, parsed in blocks (the file's bytes are not held)
bool convert_onnx_file(const char* path, const ConvertOptions& opt, KGraph& out, std::vector<std::string>& outputs,
                       ConvertStats* stats, std::string& err);
// the same on a string it releases once parsed (pass a moved string: the
// file's bytes are not held through the conversion)
bool convert_onnx_bytes(std::string bytes, const ConvertOptions& opt, KGraph& out, std::vector<std::string>& outputs,
                        ConvertStats* stats, std::string& err);

} // namespace onnx
} // namespace convert
} // namespace kite

// the name callers used before the converters shared kite::convert
namespace kite_onnx = kite::convert::onnx;

#endif
