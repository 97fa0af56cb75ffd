#ifndef KITE_TOOLS_TFLITE_MODEL_H
#define KITE_TOOLS_TFLITE_MODEL_H

// A TensorFlow Lite model (.tflite, the "TFL3" flatbuffer) read into plain
// structs: tensors, operators with their decoded options, constant buffers.
//
// Reading uses the flatbuffers library (flatbuffers::Verifier and
// flatbuffers::Table) with kite's own accessors: the field ids of TFLite's
// schema that kite reads are listed in tflite_model.cpp; no generated code
// and no copy of the schema. Every table, vector and string is verified
// before it is read, and indices (tensor, buffer, operator code) are checked,
// so a malformed file gives a ConvertError naming the problem, never a crash.

#include "emit.h" // ConvertError

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kite {
namespace convert {
namespace tflite {

// TensorType values of the schema
enum TensorType
{
    TT_FLOAT32 = 0,
    TT_FLOAT16 = 1,
    TT_INT32 = 2,
    TT_UINT8 = 3,
    TT_INT64 = 4,
    TT_STRING = 5,
    TT_BOOL = 6,
    TT_INT16 = 7,
    TT_INT8 = 9,
    TT_FLOAT64 = 10,
};
const char* tensor_type_name(int type);
// bytes per element, 0 for types kite does not read
size_t tensor_type_size(int type);

// BuiltinOperator values of the ops kite knows by name
enum BuiltinOp
{
    OP_ADD = 0,
    OP_AVERAGE_POOL_2D = 1,
    OP_CONCATENATION = 2,
    OP_CONV_2D = 3,
    OP_DEPTHWISE_CONV_2D = 4,
    OP_DEQUANTIZE = 6,
    OP_FULLY_CONNECTED = 9,
    OP_LOGISTIC = 14,
    OP_MAX_POOL_2D = 17,
    OP_MUL = 18,
    OP_RELU = 19,
    OP_RELU_N1_TO_1 = 20,
    OP_RELU6 = 21,
    OP_RESHAPE = 22,
    OP_RESIZE_BILINEAR = 23,
    OP_SOFTMAX = 25,
    OP_TANH = 28,
    OP_PAD = 34,
    OP_TRANSPOSE = 39,
    OP_MEAN = 40,
    OP_SUB = 41,
    OP_DIV = 42,
    OP_SQUEEZE = 43,
    OP_STRIDED_SLICE = 45,
    OP_EXP = 47,
    OP_PRELU = 54,
    OP_MAXIMUM = 55,
    OP_MINIMUM = 57,
    OP_NEG = 59,
    OP_PADV2 = 60,
    OP_TRANSPOSE_CONV = 67,
    OP_EXPAND_DIMS = 70,
    OP_LOG = 73,
    OP_SUM = 74,
    OP_SQRT = 75,
    OP_RSQRT = 76,
    OP_REDUCE_MAX = 82,
    OP_SQUARE = 92,
    OP_RESIZE_NEAREST_NEIGHBOR = 97,
    OP_LEAKY_RELU = 98,
    OP_SQUARED_DIFFERENCE = 99,
    OP_ABS = 101,
    OP_ELU = 111,
    OP_QUANTIZE = 114,
    OP_HARD_SWISH = 117,
    OP_BATCH_MATMUL = 126,
    OP_GELU = 150,
    OP_CUSTOM = 32,
    OP_CAST = 53,
    OP_SHAPE = 77,
    OP_PACK = 83,
    OP_GATHER = 36,
    OP_REDUCE_PROD = 81,
};
// "CONV_2D", ... for the ops above, "BUILTIN_<n>" otherwise
std::string op_name(int code);

// ActivationFunctionType
enum FusedActivation
{
    ACT_NONE = 0,
    ACT_RELU = 1,
    ACT_RELU_N1_TO_1 = 2,
    ACT_RELU6 = 3,
    ACT_TANH = 4,
    ACT_SIGN_BIT = 5,
};

struct Quantization
{
    std::vector<float> scale;
    std::vector<int64_t> zero_point;
    int axis = 0; // quantized_dimension
    bool present() const { return !scale.empty(); }
};

struct Tensor
{
    std::string name;
    std::vector<int> shape;
    std::vector<int> shape_signature; // -1 for dynamic dimensions; empty if absent
    int type = TT_FLOAT32;
    Quantization q;
    const uint8_t* data = nullptr; // constant data (inside the file), or null
    size_t size = 0;               // bytes of data
    bool is_variable = false;
    bool sparse = false;
};

// The options of every op kite converts, decoded from its builtin_options
// table (defaults as in the schema where the table or a field is absent).
struct Options
{
    int padding = 0; // 0 SAME, 1 VALID
    int stride_w = 1, stride_h = 1, dilation_w = 1, dilation_h = 1;
    int filter_w = 0, filter_h = 0, depth_multiplier = 0;
    int activation = ACT_NONE;
    int axis = 0;
    bool keep_dims = false, keep_num_dims = false;
    bool align_corners = false, half_pixel_centers = false;
    float beta = 1.f, alpha = 0.f;
    int begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0, shrink_axis_mask = 0, offset = 0;
    std::vector<int> squeeze_dims, new_shape;
    bool adj_x = false, adj_y = false, approximate = false;
    int weights_format = 0;
};

struct Operator
{
    int code = 0;       // BuiltinOperator
    std::string custom; // custom_code of CUSTOM ops
    int version = 1;
    std::vector<int> inputs, outputs; // tensor indices (-1: optional input absent)
    Options opt;
};

struct Model
{
    uint32_t version = 0;
    std::string description;
    size_t subgraph_count = 0;
    std::vector<Tensor> tensors; // of the first (main) subgraph
    std::vector<Operator> ops;
    std::vector<int> inputs, outputs;
};

// Parse (and verify) a .tflite file held in data[0, size) (kept alive by the
// caller: tensors point into it). Throws ConvertError on malformed input.
void parse_model(const uint8_t* data, size_t size, Model& m);

} // namespace tflite
} // namespace convert
} // namespace kite

#endif // KITE_TOOLS_TFLITE_MODEL_H
