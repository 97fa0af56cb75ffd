#include "tflite_model.h"

#include <flatbuffers/flatbuffers.h>

#include <climits>
#include <cstring>

// Field ids of TensorFlow Lite's schema (tensorflow/lite/schema/schema.fbs)
// that kite reads. A field with id n is at vtable offset 4 + 2 * n; a union
// field takes two ids (its type, then its value).

namespace kite {
namespace convert {
namespace tflite {

namespace {

using flatbuffers::Table;
using flatbuffers::Vector;
using flatbuffers::voffset_t;

constexpr voffset_t vt(int id)
{
    return (voffset_t)(4 + 2 * id);
}

// table Model
enum
{
    MODEL_VERSION = 0,
    MODEL_OPERATOR_CODES = 1,
    MODEL_SUBGRAPHS = 2,
    MODEL_DESCRIPTION = 3,
    MODEL_BUFFERS = 4,
};
// table OperatorCode
enum
{
    OPCODE_DEPRECATED_BUILTIN_CODE = 0, // byte
    OPCODE_CUSTOM_CODE = 1,
    OPCODE_VERSION = 2,
    OPCODE_BUILTIN_CODE = 3, // int
};
// table SubGraph
enum
{
    SUBGRAPH_TENSORS = 0,
    SUBGRAPH_INPUTS = 1,
    SUBGRAPH_OUTPUTS = 2,
    SUBGRAPH_OPERATORS = 3,
};
// table Buffer
enum
{
    BUFFER_DATA = 0,
    BUFFER_OFFSET = 1, // ulong: data outside the flatbuffer (models over 2 GB)
    BUFFER_SIZE = 2,
};
// table Tensor
enum
{
    TENSOR_SHAPE = 0,
    TENSOR_TYPE = 1, // byte
    TENSOR_BUFFER = 2, // uint
    TENSOR_NAME = 3,
    TENSOR_QUANTIZATION = 4,
    TENSOR_IS_VARIABLE = 5,
    TENSOR_SPARSITY = 6,
    TENSOR_SHAPE_SIGNATURE = 7,
};
// table QuantizationParameters
enum
{
    QUANT_SCALE = 2,
    QUANT_ZERO_POINT = 3, // [long]
    QUANT_DETAILS_TYPE = 4,
    QUANT_QUANTIZED_DIMENSION = 6,
};
// table Operator
enum
{
    OPERATOR_OPCODE_INDEX = 0,
    OPERATOR_INPUTS = 1,
    OPERATOR_OUTPUTS = 2,
    OPERATOR_BUILTIN_OPTIONS_TYPE = 3,
    OPERATOR_BUILTIN_OPTIONS = 4,
};

// One verified read of a table. Every accessor verifies the field before
// reading it; a failure throws ConvertError naming `what` and the field.
class Reader
{
public:
    Reader(flatbuffers::Verifier& v, const Table* t, const std::string& what)
        : v_(v), t_(t), what_(what)
    {
        if (t_ && !t_->VerifyTableStart(v_))
            bad("table");
    }
    ~Reader()
    {
        if (t_)
            v_.EndTable();
    }
    bool present() const { return t_ != nullptr; }

    template<typename T>
    T scalar(int id, T def, const char* field) const
    {
        if (!t_)
            return def;
        if (!t_->VerifyField<T>(v_, vt(id), sizeof(T)))
            bad(field);
        return t_->GetField<T>(vt(id), def);
    }
    const Table* table(int id, const char* field) const
    {
        if (!t_)
            return nullptr;
        if (!t_->VerifyOffset(v_, vt(id)))
            bad(field);
        return t_->GetPointer<const Table*>(vt(id));
    }
    template<typename T>
    const Vector<T>* vector(int id, const char* field) const
    {
        if (!t_)
            return nullptr;
        if (!t_->VerifyOffset(v_, vt(id)))
            bad(field);
        const Vector<T>* p = t_->GetPointer<const Vector<T>*>(vt(id));
        if (p && !v_.VerifyVector(p))
            bad(field);
        return p;
    }
    std::string string(int id, const char* field) const
    {
        if (!t_)
            return std::string();
        if (!t_->VerifyOffset(v_, vt(id)))
            bad(field);
        const flatbuffers::String* s = t_->GetPointer<const flatbuffers::String*>(vt(id));
        if (!s)
            return std::string();
        if (!v_.VerifyString(s))
            bad(field);
        return s->str();
    }
    template<typename T>
    std::vector<T> scalars(int id, const char* field) const
    {
        // copied bytewise: the verifier checks the vector's length word, not
        // the alignment of 8-byte elements (zero_point: [long])
        std::vector<T> r;
        if (const Vector<T>* p = vector<T>(id, field))
        {
            r.resize(p->size());
            if (!r.empty())
                memcpy(r.data(), p->Data(), r.size() * sizeof(T));
        }
        return r;
    }
    // the i-th table of a verified vector of tables
    static const Table* element(const Vector<flatbuffers::Offset<Table> >* vec, flatbuffers::uoffset_t i)
    {
        return vec->Get(i);
    }

    [[noreturn]] void bad(const char* field) const
    {
        throw ConvertError("malformed file: " + what_ + ": " + field + " is out of bounds or misaligned");
    }

private:
    flatbuffers::Verifier& v_;
    const Table* t_;
    std::string what_;
};

typedef Vector<flatbuffers::Offset<Table> > TableVector;

// BuiltinOptions of the ops kite reads (field ids of each options table)
void read_options(flatbuffers::Verifier& v, const Table* t, int code, const std::string& what, Options& o)
{
    Reader r(v, t, what + ": builtin_options");
    if (!r.present())
        return;
    switch (code)
    {
    case OP_CONV_2D: // Conv2DOptions
        o.padding = r.scalar<int8_t>(0, 0, "padding");
        o.stride_w = r.scalar<int32_t>(1, 0, "stride_w");
        o.stride_h = r.scalar<int32_t>(2, 0, "stride_h");
        o.activation = r.scalar<int8_t>(3, 0, "fused_activation_function");
        o.dilation_w = r.scalar<int32_t>(4, 1, "dilation_w_factor");
        o.dilation_h = r.scalar<int32_t>(5, 1, "dilation_h_factor");
        break;
    case OP_DEPTHWISE_CONV_2D: // DepthwiseConv2DOptions
        o.padding = r.scalar<int8_t>(0, 0, "padding");
        o.stride_w = r.scalar<int32_t>(1, 0, "stride_w");
        o.stride_h = r.scalar<int32_t>(2, 0, "stride_h");
        o.depth_multiplier = r.scalar<int32_t>(3, 0, "depth_multiplier");
        o.activation = r.scalar<int8_t>(4, 0, "fused_activation_function");
        o.dilation_w = r.scalar<int32_t>(5, 1, "dilation_w_factor");
        o.dilation_h = r.scalar<int32_t>(6, 1, "dilation_h_factor");
        break;
    case OP_AVERAGE_POOL_2D:
    case OP_MAX_POOL_2D: // Pool2DOptions
        o.padding = r.scalar<int8_t>(0, 0, "padding");
        o.stride_w = r.scalar<int32_t>(1, 0, "stride_w");
        o.stride_h = r.scalar<int32_t>(2, 0, "stride_h");
        o.filter_w = r.scalar<int32_t>(3, 0, "filter_width");
        o.filter_h = r.scalar<int32_t>(4, 0, "filter_height");
        o.activation = r.scalar<int8_t>(5, 0, "fused_activation_function");
        break;
    case OP_FULLY_CONNECTED: // FullyConnectedOptions
        o.activation = r.scalar<int8_t>(0, 0, "fused_activation_function");
        o.weights_format = r.scalar<int8_t>(1, 0, "weights_format");
        o.keep_num_dims = r.scalar<uint8_t>(2, 0, "keep_num_dims") != 0;
        break;
    case OP_SOFTMAX: // SoftmaxOptions
        o.beta = r.scalar<float>(0, 0.f, "beta");
        break;
    case OP_CONCATENATION: // ConcatenationOptions
        o.axis = r.scalar<int32_t>(0, 0, "axis");
        o.activation = r.scalar<int8_t>(1, 0, "fused_activation_function");
        break;
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_DIV: // Add/Sub/Mul/DivOptions: fused_activation_function first
        o.activation = r.scalar<int8_t>(0, 0, "fused_activation_function");
        break;
    case OP_RESHAPE: // ReshapeOptions
        o.new_shape = r.scalars<int32_t>(0, "new_shape");
        break;
    case OP_MEAN:
    case OP_SUM:
    case OP_REDUCE_PROD:
    case OP_REDUCE_MAX: // ReducerOptions
        o.keep_dims = r.scalar<uint8_t>(0, 0, "keep_dims") != 0;
        break;
    case OP_RESIZE_BILINEAR: // ResizeBilinearOptions (ids 0, 1: deprecated sizes)
        o.align_corners = r.scalar<uint8_t>(2, 0, "align_corners") != 0;
        o.half_pixel_centers = r.scalar<uint8_t>(3, 0, "half_pixel_centers") != 0;
        break;
    case OP_RESIZE_NEAREST_NEIGHBOR: // ResizeNearestNeighborOptions
        o.align_corners = r.scalar<uint8_t>(0, 0, "align_corners") != 0;
        o.half_pixel_centers = r.scalar<uint8_t>(1, 0, "half_pixel_centers") != 0;
        break;
    case OP_LEAKY_RELU: // LeakyReluOptions
        o.alpha = r.scalar<float>(0, 0.f, "alpha");
        break;
    case OP_TRANSPOSE_CONV: // TransposeConvOptions
        o.padding = r.scalar<int8_t>(0, 0, "padding");
        o.stride_w = r.scalar<int32_t>(1, 0, "stride_w");
        o.stride_h = r.scalar<int32_t>(2, 0, "stride_h");
        o.activation = r.scalar<int8_t>(3, 0, "fused_activation_function");
        break;
    case OP_STRIDED_SLICE: // StridedSliceOptions
        o.begin_mask = r.scalar<int32_t>(0, 0, "begin_mask");
        o.end_mask = r.scalar<int32_t>(1, 0, "end_mask");
        o.ellipsis_mask = r.scalar<int32_t>(2, 0, "ellipsis_mask");
        o.new_axis_mask = r.scalar<int32_t>(3, 0, "new_axis_mask");
        o.shrink_axis_mask = r.scalar<int32_t>(4, 0, "shrink_axis_mask");
        o.offset = r.scalar<uint8_t>(5, 0, "offset");
        break;
    case OP_SQUEEZE: // SqueezeOptions
        o.squeeze_dims = r.scalars<int32_t>(0, "squeeze_dims");
        break;
    case OP_BATCH_MATMUL: // BatchMatMulOptions
        o.adj_x = r.scalar<uint8_t>(0, 0, "adj_x") != 0;
        o.adj_y = r.scalar<uint8_t>(1, 0, "adj_y") != 0;
        break;
    case OP_PACK: // PackOptions
        o.axis = r.scalar<int32_t>(1, 0, "axis");
        break;
    case OP_GATHER: // GatherOptions (batch_dims 0 only: constants of shapes)
        o.axis = r.scalar<int32_t>(0, 0, "axis");
        break;
    case OP_GELU: // GeluOptions
        o.approximate = r.scalar<uint8_t>(0, 0, "approximate") != 0;
        break;
    default:
        break;
    }
}

} // namespace

const char* tensor_type_name(int type)
{
    switch (type)
    {
    case TT_FLOAT32: return "FLOAT32";
    case TT_FLOAT16: return "FLOAT16";
    case TT_INT32: return "INT32";
    case TT_UINT8: return "UINT8";
    case TT_INT64: return "INT64";
    case TT_STRING: return "STRING";
    case TT_BOOL: return "BOOL";
    case TT_INT16: return "INT16";
    case TT_INT8: return "INT8";
    case TT_FLOAT64: return "FLOAT64";
    }
    return "an unknown type";
}

size_t tensor_type_size(int type)
{
    switch (type)
    {
    case TT_FLOAT32:
    case TT_INT32: return 4;
    case TT_FLOAT16:
    case TT_INT16: return 2;
    case TT_UINT8:
    case TT_INT8:
    case TT_BOOL: return 1;
    case TT_INT64:
    case TT_FLOAT64: return 8;
    }
    return 0;
}

std::string op_name(int code)
{
    // BuiltinOperator names by value ("" where the schema has no op)
    static const char* const names[] = {
        "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE", "DEQUANTIZE",
        "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED", "HASHTABLE_LOOKUP", "L2_NORMALIZATION", "L2_POOL_2D",
        "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC", "LSH_PROJECTION", "LSTM", "MAX_POOL_2D", "MUL", "RELU",
        "RELU_N1_TO_1", "RELU6", "RESHAPE", "RESIZE_BILINEAR", "RNN", "SOFTMAX", "SPACE_TO_DEPTH", "SVDF", "TANH",
        "CONCAT_EMBEDDINGS", "SKIP_GRAM", "CALL", "CUSTOM", "EMBEDDING_LOOKUP_SPARSE", "PAD",
        "UNIDIRECTIONAL_SEQUENCE_RNN", "GATHER", "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND", "TRANSPOSE", "MEAN",
        "SUB", "DIV", "SQUEEZE", "UNIDIRECTIONAL_SEQUENCE_LSTM", "STRIDED_SLICE", "BIDIRECTIONAL_SEQUENCE_RNN",
        "EXP", "TOPK_V2", "SPLIT", "LOG_SOFTMAX", "DELEGATE", "BIDIRECTIONAL_SEQUENCE_LSTM", "CAST", "PRELU",
        "MAXIMUM", "ARG_MAX", "MINIMUM", "LESS", "NEG", "PADV2", "GREATER", "GREATER_EQUAL", "LESS_EQUAL",
        "SELECT", "SLICE", "SIN", "TRANSPOSE_CONV", "SPARSE_TO_DENSE", "TILE", "EXPAND_DIMS", "EQUAL",
        "NOT_EQUAL", "LOG", "SUM", "SQRT", "RSQRT", "SHAPE", "POW", "ARG_MIN", "FAKE_QUANT", "REDUCE_PROD",
        "REDUCE_MAX", "PACK", "LOGICAL_OR", "ONE_HOT", "LOGICAL_AND", "LOGICAL_NOT", "UNPACK", "REDUCE_MIN",
        "FLOOR_DIV", "REDUCE_ANY", "SQUARE", "ZEROS_LIKE", "FILL", "FLOOR_MOD", "RANGE",
        "RESIZE_NEAREST_NEIGHBOR", "LEAKY_RELU", "SQUARED_DIFFERENCE", "MIRROR_PAD", "ABS", "SPLIT_V", "UNIQUE",
        "CEIL", "REVERSE_V2", "ADD_N", "GATHER_ND", "COS", "WHERE", "RANK", "ELU", "REVERSE_SEQUENCE",
        "MATRIX_DIAG", "QUANTIZE", "MATRIX_SET_DIAG", "ROUND", "HARD_SWISH", "IF", "WHILE",
        "NON_MAX_SUPPRESSION_V4", "NON_MAX_SUPPRESSION_V5", "SCATTER_ND", "SELECT_V2", "DENSIFY", "SEGMENT_SUM",
        "BATCH_MATMUL", "PLACEHOLDER_FOR_GREATER_OP_CODES", "CUMSUM", "CALL_ONCE", "BROADCAST_TO", "RFFT2D",
        "CONV_3D", "IMAG", "REAL", "COMPLEX_ABS", "HASHTABLE", "HASHTABLE_FIND", "HASHTABLE_IMPORT",
        "HASHTABLE_SIZE", "REDUCE_ALL", "CONV_3D_TRANSPOSE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE",
        "BROADCAST_ARGS", "RANDOM_STANDARD_NORMAL", "BUCKETIZE", "RANDOM_UNIFORM", "MULTINOMIAL", "GELU",
        "DYNAMIC_UPDATE_SLICE", "RELU_0_TO_1", "UNSORTED_SEGMENT_PROD", "UNSORTED_SEGMENT_MAX",
        "UNSORTED_SEGMENT_SUM", "ATAN2", "UNSORTED_SEGMENT_MIN", "SIGN", "BITCAST", "BITWISE_XOR", "RIGHT_SHIFT",
        "STABLEHLO_LOGISTIC", "STABLEHLO_ADD", "STABLEHLO_DIVIDE", "STABLEHLO_MULTIPLY", "STABLEHLO_MAXIMUM",
        "STABLEHLO_RESHAPE", "STABLEHLO_CLAMP", "STABLEHLO_CONCATENATE", "STABLEHLO_BROADCAST_IN_DIM",
        "STABLEHLO_CONVOLUTION", "STABLEHLO_SLICE", "STABLEHLO_CUSTOM_CALL", "STABLEHLO_REDUCE", "STABLEHLO_ABS",
        "STABLEHLO_AND", "STABLEHLO_COSINE", "STABLEHLO_EXPONENTIAL", "STABLEHLO_FLOOR", "STABLEHLO_LOG",
        "STABLEHLO_MINIMUM", "STABLEHLO_NEGATE", "STABLEHLO_OR", "STABLEHLO_POWER", "STABLEHLO_REMAINDER",
        "STABLEHLO_RSQRT", "STABLEHLO_SELECT", "STABLEHLO_SUBTRACT", "STABLEHLO_TANH", "STABLEHLO_SCATTER",
        "STABLEHLO_COMPARE", "STABLEHLO_CONVERT", "STABLEHLO_DYNAMIC_SLICE", "STABLEHLO_DYNAMIC_UPDATE_SLICE",
        "STABLEHLO_PAD", "STABLEHLO_IOTA", "STABLEHLO_DOT_GENERAL", "STABLEHLO_REDUCE_WINDOW", "STABLEHLO_SORT",
        "STABLEHLO_WHILE", "STABLEHLO_GATHER", "STABLEHLO_TRANSPOSE", "DILATE", "STABLEHLO_RNG_BIT_GENERATOR",
        "REDUCE_WINDOW", "STABLEHLO_COMPOSITE", "STABLEHLO_SHIFT_LEFT", "STABLEHLO_CBRT", "STABLEHLO_CASE",
    };
    if (code >= 0 && code < (int)(sizeof(names) / sizeof(names[0])) && names[code][0])
        return names[code];
    return "BUILTIN_" + std::to_string(code);
}

void parse_model(const uint8_t* data, size_t size, Model& m)
{
    if (size < 8)
        throw ConvertError("not a TensorFlow Lite model: the file has " + std::to_string(size) + " bytes");
    if (memcmp(data + 4, "TFL3", 4) != 0)
        throw ConvertError("not a TensorFlow Lite model: the flatbuffer identifier is not 'TFL3'");
    // the flatbuffer is at most 2 GB; constant data beyond it is read by offset
    const size_t fb_size = size < (size_t)INT32_MAX ? size : (size_t)INT32_MAX - 1;
    flatbuffers::Verifier::Options vo;
    vo.max_depth = 16;
    flatbuffers::Verifier v(data, fb_size, vo);
    const flatbuffers::uoffset_t root_off = v.VerifyOffset(0);
    if (!root_off)
        throw ConvertError("malformed file: the root offset is out of bounds");
    Reader model(v, reinterpret_cast<const Table*>(data + root_off), "Model");
    m.version = model.scalar<uint32_t>(MODEL_VERSION, 0, "version");
    m.description = model.string(MODEL_DESCRIPTION, "description");

    // operator codes
    std::vector<int> codes;
    std::vector<std::string> customs;
    std::vector<int> versions;
    if (const TableVector* oc = model.vector<flatbuffers::Offset<Table> >(MODEL_OPERATOR_CODES, "operator_codes"))
        for (flatbuffers::uoffset_t i = 0; i < oc->size(); i++)
        {
            Reader c(v, oc->Get(i), "operator_codes[" + std::to_string(i) + "]");
            const int dep = c.scalar<int8_t>(OPCODE_DEPRECATED_BUILTIN_CODE, 0, "deprecated_builtin_code");
            const int code = c.scalar<int32_t>(OPCODE_BUILTIN_CODE, 0, "builtin_code");
            codes.push_back(code > dep ? code : dep); // the larger of the two (schema 3a)
            customs.push_back(c.string(OPCODE_CUSTOM_CODE, "custom_code"));
            versions.push_back(c.scalar<int32_t>(OPCODE_VERSION, 1, "version"));
        }

    // buffers: verified lazily below (only those that tensors use)
    const TableVector* buffers = model.vector<flatbuffers::Offset<Table> >(MODEL_BUFFERS, "buffers");

    const TableVector* subgraphs = model.vector<flatbuffers::Offset<Table> >(MODEL_SUBGRAPHS, "subgraphs");
    if (!subgraphs || subgraphs->size() == 0)
        throw ConvertError("malformed file: the model has no subgraph");
    m.subgraph_count = subgraphs->size();
    Reader sg(v, subgraphs->Get(0), "subgraphs[0]");

    const TableVector* tensors = sg.vector<flatbuffers::Offset<Table> >(SUBGRAPH_TENSORS, "tensors");
    const flatbuffers::uoffset_t ntensors = tensors ? tensors->size() : 0;
    m.tensors.resize(ntensors);
    for (flatbuffers::uoffset_t i = 0; i < ntensors; i++)
    {
        Tensor& t = m.tensors[i];
        const std::string what = "tensor " + std::to_string(i);
        Reader tr(v, tensors->Get(i), what);
        t.name = tr.string(TENSOR_NAME, "name");
        const std::string what_named = what + " '" + t.name + "'";
        t.shape = tr.scalars<int32_t>(TENSOR_SHAPE, "shape");
        t.shape_signature = tr.scalars<int32_t>(TENSOR_SHAPE_SIGNATURE, "shape_signature");
        if (t.shape.size() > 8)
            throw ConvertError(what_named + ": rank " + std::to_string(t.shape.size()) + " is more than 8");
        for (int d : t.shape)
            if (d < 0)
                throw ConvertError(what_named + ": negative dimension in its shape");
        t.type = tr.scalar<int8_t>(TENSOR_TYPE, 0, "type");
        t.is_variable = tr.scalar<uint8_t>(TENSOR_IS_VARIABLE, 0, "is_variable") != 0;
        t.sparse = tr.table(TENSOR_SPARSITY, "sparsity") != nullptr;
        {
            Reader q(v, tr.table(TENSOR_QUANTIZATION, "quantization"), what_named + ": quantization");
            t.q.scale = q.scalars<float>(QUANT_SCALE, "scale");
            t.q.zero_point = q.scalars<int64_t>(QUANT_ZERO_POINT, "zero_point");
            t.q.axis = q.scalar<int32_t>(QUANT_QUANTIZED_DIMENSION, 0, "quantized_dimension");
            if (q.scalar<uint8_t>(QUANT_DETAILS_TYPE, 0, "details_type") != 0)
                throw ConvertError(what_named + ": custom quantization details are not supported");
            if (!t.q.zero_point.empty() && t.q.zero_point.size() != t.q.scale.size())
                throw ConvertError(what_named + ": " + std::to_string(t.q.scale.size()) + " quantization scales and "
                                   + std::to_string(t.q.zero_point.size()) + " zero points");
        }
        const uint32_t bi = tr.scalar<uint32_t>(TENSOR_BUFFER, 0, "buffer");
        if (bi != 0) // buffer 0 is the empty sentinel
        {
            if (!buffers || bi >= buffers->size())
                throw ConvertError(what_named + ": buffer index " + std::to_string(bi) + " is out of range (the model has "
                                   + std::to_string(buffers ? buffers->size() : 0) + " buffers)");
            Reader br(v, buffers->Get(bi), "buffers[" + std::to_string(bi) + "]");
            const uint64_t off = br.scalar<uint64_t>(BUFFER_OFFSET, 0, "offset");
            const uint64_t len = br.scalar<uint64_t>(BUFFER_SIZE, 0, "size");
            if (off > 1)
            {
                if (off > size || len > size - off)
                    throw ConvertError(what_named + ": buffer " + std::to_string(bi) + " lies outside the file (offset "
                                       + std::to_string(off) + ", size " + std::to_string(len) + ", file "
                                       + std::to_string(size) + " bytes)");
                t.data = data + off;
                t.size = (size_t)len;
            }
            else if (const Vector<uint8_t>* d = br.vector<uint8_t>(BUFFER_DATA, "data"))
            {
                t.data = d->size() ? d->data() : nullptr;
                t.size = d->size();
            }
        }
        if (t.data)
        {
            const size_t es = tensor_type_size(t.type);
            uint64_t count = 1; // 64-bit on 32-bit targets too
            for (int d : t.shape)
            {
                if (d != 0 && count > ((uint64_t)1 << 40) / (uint64_t)d)
                    throw ConvertError(what_named + ": too many elements");
                count *= (uint64_t)d;
            }
            if (es && count * es != (uint64_t)t.size)
                throw ConvertError(what_named + ": its buffer holds " + std::to_string(t.size) + " bytes, its shape and type ("
                                   + tensor_type_name(t.type) + ") need " + std::to_string(count * es));
        }
    }

    auto check_index = [&](int idx, const std::string& where, bool optional) {
        if (idx == -1 && optional)
            return;
        if (idx < 0 || (size_t)idx >= ntensors)
            throw ConvertError(where + ": tensor index " + std::to_string(idx) + " is out of range (the subgraph has "
                               + std::to_string(ntensors) + " tensors)");
    };
    m.inputs = sg.scalars<int32_t>(SUBGRAPH_INPUTS, "inputs");
    m.outputs = sg.scalars<int32_t>(SUBGRAPH_OUTPUTS, "outputs");
    for (int i : m.inputs)
        check_index(i, "subgraph inputs", false);
    for (int i : m.outputs)
        check_index(i, "subgraph outputs", false);

    const TableVector* ops = sg.vector<flatbuffers::Offset<Table> >(SUBGRAPH_OPERATORS, "operators");
    const flatbuffers::uoffset_t nops = ops ? ops->size() : 0;
    m.ops.resize(nops);
    for (flatbuffers::uoffset_t i = 0; i < nops; i++)
    {
        Operator& op = m.ops[i];
        const std::string what = "operator " + std::to_string(i);
        Reader r(v, ops->Get(i), what);
        const uint32_t ci = r.scalar<uint32_t>(OPERATOR_OPCODE_INDEX, 0, "opcode_index");
        if (ci >= codes.size())
            throw ConvertError(what + ": opcode_index " + std::to_string(ci) + " is out of range (the model has "
                               + std::to_string(codes.size()) + " operator codes)");
        op.code = codes[ci];
        op.custom = customs[ci];
        op.version = versions[ci];
        op.inputs = r.scalars<int32_t>(OPERATOR_INPUTS, "inputs");
        op.outputs = r.scalars<int32_t>(OPERATOR_OUTPUTS, "outputs");
        const std::string where = what + " (" + (op.code == OP_CUSTOM ? op.custom : op_name(op.code)) + ")";
        for (int t : op.inputs)
            check_index(t, where + " input", true);
        for (int t : op.outputs)
            check_index(t, where + " output", false);
        r.scalar<uint8_t>(OPERATOR_BUILTIN_OPTIONS_TYPE, 0, "builtin_options_type");
        read_options(v, r.table(OPERATOR_BUILTIN_OPTIONS, "builtin_options"), op.code, where, op.opt);
    }
}

} // namespace tflite
} // namespace convert
} // namespace kite
