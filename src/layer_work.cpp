#include "layer_work.h"

#include "layer.h"
#include "convolution.h"
#include "convolution1d.h"
#include "deconvolution.h"
#include "innerproduct.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace kite {

static int64_t elements(const Mat& m)
{
    return (int64_t)m.w * m.h * m.d * m.c * m.elempack;
}

// per-element cost of the cheap layers, 0 for a type not listed
static int elementwise_cost(const std::string& type)
{
    static const char* const cheap[] = {
        "AbsVal", "BatchNorm", "Bias", "BinaryOp", "BNLL", "Clip", "Concat", "Crop", "Dropout", "Eltwise",
        "Flatten", "HardSigmoid", "HardSwish", "Packing", "Padding", "Permute", "Pooling", "PReLU", "ReLU",
        "Reshape", "Scale", "ShuffleChannel", "Slice", "Split", "Threshold",
    };
    static const char* const costly[] = {
        "ELU", "GELU", "Mish", "SELU", "Sigmoid", "Softmax", "Swish", "TanH", "UnaryOp",
    };
    for (const char* t : cheap)
        if (type == t)
            return 4;
    for (const char* t : costly)
        if (type == t)
            return 16;
    return 0;
}

static int64_t out_extent(int in, int stride)
{
    return stride > 0 ? (in + stride - 1) / stride : in;
}

int64_t layer_forward_work(const Layer* layer, bool custom, const std::vector<Mat>& bottoms)
{
    // a custom layer may take a built-in type name: its class is unknown
    if (custom || bottoms.empty())
        return -1;
    const std::string& type = layer->type;
    const Mat& in = bottoms[0];
    // every implementation of these types (reference, CPU, GPU rows) derives
    // from the reference class, whose parameters are read here
    if (type == "Convolution" || type == "ConvolutionDepthWise")
    {
        const Convolution* l = static_cast<const Convolution*>(layer);
        if (l->weight_data_size <= 0 || bottoms.size() != 1)
            return -1; // weights given as inputs
        return out_extent(in.w, l->stride_w) * out_extent(in.h, l->stride_h) * in.d * l->weight_data_size;
    }
    if (type == "Deconvolution" || type == "DeconvolutionDepthWise")
    {
        const Deconvolution* l = static_cast<const Deconvolution*>(layer);
        if (l->weight_data_size <= 0 || bottoms.size() != 1)
            return -1;
        return (int64_t)in.w * in.h * in.d * l->weight_data_size;
    }
    if (type == "Convolution1D")
    {
        const Convolution1D* l = static_cast<const Convolution1D*>(layer);
        if (l->weight_data_size <= 0 || bottoms.size() != 1)
            return -1;
        return out_extent(in.w, l->stride_w) * l->weight_data_size;
    }
    if (type == "InnerProduct")
    {
        const InnerProduct* l = static_cast<const InnerProduct*>(layer);
        if (l->weight_data_size <= 0)
            return -1;
        const int64_t rows = in.dims == 2 ? (int64_t)in.h * in.elempack : 1;
        return rows * l->weight_data_size;
    }
    const int cost = elementwise_cost(type);
    if (cost == 0)
        return -1;
    int64_t n = 0;
    for (const Mat& b : bottoms)
        n += elements(b);
    return n * cost;
}

int64_t thread_min_work()
{
    static const int64_t v = [] {
        const char* e = getenv("KITE_THREAD_MIN_WORK");
        // off by default: libgomp pays for a team of another size than the
        // last one (its idle threads docked and woken again); on the GPU
        // machine's 16-core Xeon the rule at 65536 took the 16-thread
        // geomean against ncnn from 0.62 to 0.86 (12 small-layer graphs above
        // 1.0), and shufflenet_v2 at 16 threads on 2 cores ran 4x slower
        return e && *e ? (int64_t)atoll(e) : (int64_t)0;
    }();
    return v;
}

int threads_for_work(int num_threads, int64_t work, int64_t min_work)
{
    if (num_threads <= 1 || work < 0 || min_work <= 0)
        return num_threads;
    const int64_t t = work / min_work;
    return t < 1 ? 1 : t < num_threads ? (int)t : num_threads;
}

} // namespace kite
