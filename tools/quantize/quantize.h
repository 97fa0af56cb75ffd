#ifndef KITE_QUANTIZE_QUANTIZE_H
#define KITE_QUANTIZE_QUANTIZE_H

// int8 post-training quantization (kitequantize): calibration tables in
// ncnn2table's format, activation thresholds from blob statistics, and int8
// models in ncnn2int8's form.
//
// Table format (ncnn2table / ncnn2int8), one line per entry, values separated
// by spaces:
//   <layer>_param_0 s0 s1 ...   weight scales of a quantized layer: one per
//                               output channel (Convolution, InnerProduct) or
//                               per group (ConvolutionDepthWise)
//   <layer> s                   the scale of the layer's input blob
// A scale multiplies: int8 = round(x * s), s = 127 / threshold.

#include "graph.h"

#include <istream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kite {
namespace quantize {

struct Table
{
    std::map<std::string, std::vector<float> > weight; // layer name -> weight scales
    std::map<std::string, float> blob;                 // layer name -> input scale
    std::vector<std::string> order;                    // layer names, in the order written
};

// Read / write a table. Errors name the line and the problem. 0 or -1.
int read_table(const std::string& path, Table& t, std::string& error);
// The same from a stream; `path` names it in messages.
int read_table_stream(std::istream& in, const std::string& path, Table& t, std::string& error);
int write_table(const std::string& path, const Table& t, std::string& error);

// Convolution, ConvolutionDepthWise or InnerProduct with fp32 (or fp16)
// weights that can be made int8 (no int8 scales yet, no dynamic weight).
bool is_quantizable(const convert::Layer& l);

// The per-output-channel (per-group for ConvolutionDepthWise) weight scales
// ncnn2table computes: 127 / absmax (1 for an all-zero channel).
std::vector<float> weight_scales(const convert::Layer& l);

// round half away from zero, clamp to [-127, 127] (ncnn's float2int8)
signed char float2int8(float v);

// Histogram of |x| over [0, absmax] for one blob, and the thresholds the
// methods choose from it.
struct BlobStat
{
    double absmax = 0;
    std::vector<double> hist; // bins over [0, absmax_fixed]; empty until the histogram pass
    double hist_max = 0;      // the range the histogram covers
    double count = 0;         // values seen (zeros included)
    double sum_abs = 0;       // for ACIQ
    void add_absmax(const float* p, size_t n);
    void init_hist(int bins);
    void add_hist(const float* p, size_t n);
};

enum Method
{
    METHOD_KL,
    METHOD_MINMAX,
    METHOD_PERCENTILE,
    METHOD_ACIQ,
    METHOD_MSE, // the threshold with the least expected squared error (clipping + rounding) on the histogram
};
bool parse_method(const std::string& s, Method& m);
const char* method_name(Method m);

// The clipping threshold of a blob under `method` (needs the histogram except
// for minmax). percentile: the fraction of |x| kept, e.g. 0.9999.
double threshold_for(const BlobStat& st, Method method, double percentile = 0.9999);
// KL: ncnn2table's search (target 128 bins, thresholds 128..bins) on a histogram
// of non-negative values; returns the chosen threshold in bins (exclusive end)
int kl_threshold_bin(const std::vector<double>& hist, int target_bins = 128);

struct Int8Options
{
    bool fp16_rest = false;          // other layers' weights stored as fp16
    bool requantize = true;          // fuse requantize between consecutive int8 conv layers
    bool fold_padding = true;        // zero Padding before a convolution becomes the convolution's pads
    // shift non-negative (ReLU / clip(0, hi)) inputs of int8 layers to [-T/2, T/2], the whole int8
    // range (quantize.cpp, center_activations): 0 off, 1 readers without padding only (default),
    // 2 padded readers too (their padding becomes an fp32 Padding layer with the shifted pad value:
    // more accurate, but the pair loses requantize fusion, slower)
    int center = 1;
    std::set<std::string> keep_fp32; // layer names left in fp32
    // bias correction: per layer, the mean of its input per input channel
    // (Convolution / ConvolutionDepthWise) or per input element (InnerProduct);
    // layers absent are not corrected
    std::map<std::string, std::vector<double> > input_mean;
    // empirical correction: per layer, the mean shift of each output channel
    // (int8 net - fp32 net) measured on data, removed from the bias
    std::map<std::string, std::vector<double> > output_shift;
    // int8 weights chosen beforehand (gptq_weights), used instead of rounding each
    // weight to nearest (by layer name; ignored when the size does not match)
    std::map<std::string, std::vector<signed char> > weight_int8;
};

// Input statistics of one quantizable layer for gptq_weights: per group of its
// weights (ConvolutionDepthWise: per group, else one), the sum and the sum of
// outer products (upper triangle) of the K-long input patches one output reads.
struct InputMoments
{
    int groups = 0, K = 0;
    double n = 0;              // patches seen per group
    std::vector<double> sum;   // groups * K
    std::vector<double> outer; // groups * K * K
};
// Add one fp32 input (c planes of h x w, no channel padding) of layer l, with the
// layer's padding. 0, or -1 with error (SAME padding, a size change, more than 4608 inputs per output).
int add_input_moments(const convert::Layer& l, const float* x, int c, int h, int w, InputMoments& m, std::string& error);
// GPTQ (Frantar et al. 2022): the int8 weights of l with scales ws, rounded one
// input after the other (largest input variance first), each rounding error
// compensated on the weights not yet rounded so that the output changes least
// on inputs with the covariance of m. Rounds to nearest where m has fewer than
// min_inputs_per_weight * K patches (*applied, if given: whether any group used GPTQ).
// 0, or -1 with error.
int gptq_weights(const convert::Layer& l, const std::vector<float>& ws, const InputMoments& m, std::vector<signed char>& q,
                 std::string& error, int min_inputs_per_weight = 4, bool* applied = nullptr);

// Turn every quantizable layer that has table entries (and is not kept fp32)
// into int8: weights quantized with the table's weight scales, int8_scale_term
// as ncnn2int8 writes it (2 Convolution / InnerProduct, 1 ConvolutionDepthWise),
// then requantize fusion (int8_scale_term + 100, the next layer's input scale
// as output scale) where an int8 Convolution/ConvolutionDepthWise feeds only
// another one. `log` gets one line per change. 0 or -1 with `error`.
// `offsets` (optional) gets, per blob that activation centring shifted, the
// constant m with int8-model value + m = fp32-model value.
int make_int8(convert::Graph& g, const Table& t, const Int8Options& opt, std::vector<std::string>& log,
              std::string& error, std::map<std::string, float>* offsets = nullptr);

// A zero-constant spatial Padding whose only reader is a Convolution /
// ConvolutionDepthWise (TensorFlow-style SAME padding as onnx exports it) is
// folded into the convolution's pads, so that int8 convolutions meet without
// an fp32 layer between them. Returns the number folded.
int fold_padding(convert::Graph& g, std::vector<std::string>& log);

// cosine similarity accumulator
struct Cosine
{
    double dot = 0, n1 = 0, n2 = 0;
    void add(const float* a, const float* b, size_t n);
    double value() const;
};

} // namespace quantize
} // namespace kite

#endif // KITE_QUANTIZE_QUANTIZE_H
