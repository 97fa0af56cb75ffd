#ifndef KITE_LAYER_H
#define KITE_LAYER_H

#include "mat.h"
#include "modelbin.h"
#include "option.h"
#include "paramdict.h"
#include "gpu/gpu.h"

#include <string>
#include <vector>

namespace kite {

enum Backend
{
    BACKEND_CPU = 0,
    BACKEND_VULKAN = 1,
    BACKEND_OPENCL = 2,
};

// Return codes used throughout the runtime.
enum
{
    KITE_OK = 0,
    KITE_ERROR = -1,
    KITE_OOM = -100,
};

class Layer
{
public:
    Layer();
    virtual ~Layer();

    // read parameters; return 0, or -1 (after logging) for invalid values
    virtual int load_param(const ParamDict& pd);
    // read weights in the layer's fixed order
    virtual int load_model(const ModelBin& mb);
    // prepare for inference (transform weights, choose kernels)
    virtual int create_pipeline(const Option& opt);
    virtual int destroy_pipeline(const Option& opt);

    // An optimised implementation may refuse the parameters it was given
    // (after load_param); the registry then takes the next row for this type.
    virtual bool accept() const { return true; }

    // The kernel this implementation chose for its parameters, where it has
    // several ("gemm", "winograd63", "direct", "int8-vnni", ...), for the
    // placement report (kiterun placement=1); nullptr where there is one path.
    // Valid after create_pipeline.
    virtual const char* kernel_path() const { return nullptr; }

    // An int8 layer that quantizes a float input with one scale
    // (Convolution, ConvolutionDepthWise, InnerProduct with int8 weights):
    // that scale; 0 for every other layer. quantize_input makes of `bottom`
    // (fp32, elempack 1) the int8 blob its forward would quantize it to (0),
    // or returns 1 where it does not quantize its input. A GPU session with
    // fp16 storage uploads such a layer's input quantized on the host from
    // fp32, so that fp16 rounding never moves it by an int8 step.
    virtual float int8_input_scale() const { return 0.f; }
    virtual int quantize_input(const Mat& bottom, Mat& top, const Option& opt) const;

public:
    // capability flags: the Net converts every input to what the layer takes
    bool one_blob_only;         // exactly one input and one output
    bool support_inplace;       // forward_inplace is implemented
    bool support_packing;       // accepts elempack 4/8 (the Net packs inputs when enabled)
    bool support_fp16_storage;  // accepts and produces fp16 blobs
    bool support_bf16_storage;  // accepts and produces bf16 blobs
    bool support_int8_storage;  // accepts int8 blobs
    bool support_vulkan;
    bool support_opencl;

public:
    // multi-blob forward
    virtual int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const;
    virtual int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const;
    virtual int forward_inplace(std::vector<Mat>& bottom_top_blobs, const Option& opt) const;
    virtual int forward_inplace(Mat& bottom_top_blob, const Option& opt) const;

    // GPU layers (backend BACKEND_VULKAN / BACKEND_OPENCL): record the work
    // on `session`; inputs arrive in the layout the session's
    // convert_for_layer gave them. The default logs and fails.
    virtual int forward_gpu(const std::vector<GpuBlobPtr>& bottom_blobs, std::vector<GpuBlobPtr>& top_blobs, GpuSession& session, const Option& opt) const;

public:
    void* userdata;
    int typeindex;         // ncnn layer enum index, or -1 for custom layers
    std::string type;
    std::string name;
    int backend;           // Backend
    int isa;               // CpuIsa the implementation was compiled for
    std::vector<int> bottoms;
    std::vector<int> tops;
    // shape hints from the param file (-23330), may be empty
    std::vector<Mat> bottom_shapes;
    std::vector<Mat> top_shapes;
};

typedef Layer* (*layer_creator_func)(void* userdata);
typedef void (*layer_destroyer_func)(Layer* layer, void* userdata);

struct LayerRegistryEntry
{
    const char* type;
    int typeindex;
    int backend;   // Backend
    int isa;       // CpuIsa
    layer_creator_func creator;
};

// every row compiled in, in the order the Net tries them for each type:
// GPU rows, then CPU rows from best ISA to worst, the reference last
const LayerRegistryEntry* layer_registry(int* count);

// type name <-> ncnn type index ("" / -1 if unknown)
int layer_to_index(const char* type);
const char* layer_type_name(int index);

// Create the implementation of `type` for one backend and ISA, exactly that
// row (tests use this to force an implementation); nullptr if none.
Layer* create_layer(const char* type, int backend, int isa);
// The reference implementation of `type`; nullptr if unknown.
Layer* create_layer(const char* type);
Layer* create_layer(int typeindex);

} // namespace kite

// Token pasting that expands its arguments first.
#define KITE_CAT_(a, b) a##_##b
#define KITE_CAT(a, b) KITE_CAT_(a, b)

// Defines the creator function the generated registry refers to:
// Layer* <Class>_layer_creator(void*)
#define DEFINE_LAYER_CREATOR(name)                                 \
    ::kite::Layer* KITE_CAT(name, layer_creator)(void* /*userdata*/) \
    {                                                              \
        return new name;                                           \
    }

#endif // KITE_LAYER_H
