#ifndef KITE_TESTUTIL_H
#define KITE_TESTUTIL_H

// The shared test harness.
//
// Every layer test builds a ParamDict, weights and inputs from a seeded RNG and
// calls test_layer(). That runs the reference implementation, then every other
// registered implementation of the type that this CPU can run, over the option
// matrix (input elempack 1/4/8/16 where the implementation takes packing,
// fp16 storage on/off where supported, 1 and 2 threads, the 2-thread runs in
// light mode: drivers release loaded weights there), and compares each
// against the reference. A failure prints the seed, the implementation and the
// options so it can be replayed with KITE_TEST_SEED=<seed>.

#include "layer.h"
#include "mat.h"
#include "modelbin.h"
#include "net.h"
#include "option.h"
#include "paramdict.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kite {
namespace test {

// The seed of this test run (KITE_TEST_SEED, default 7); every RNG below
// derives from it.
uint64_t seed();
// Re-seed the harness RNG (each TEST should start with reseed(some constant)
// so tests are independent of execution order).
void reseed(uint64_t salt);

float rand_float(float lo = -1.f, float hi = 1.f);
int rand_int(int lo, int hi); // inclusive

// fp32, elempack 1, filled uniformly in [lo, hi)
Mat RandomMat(int w, float lo = -1.f, float hi = 1.f);
Mat RandomMat(int w, int h, float lo = -1.f, float hi = 1.f);
Mat RandomMat(int w, int h, int c, float lo = -1.f, float hi = 1.f);
Mat RandomMat(int w, int h, int d, int c, float lo = -1.f, float hi = 1.f);
// int8 values in [lo, hi] (elemsize 1)
Mat RandomS8Mat(int w, int lo = -127, int hi = 127);
// an array parameter from ints / floats
Mat IntArrayMat(const std::vector<int>& v);
Mat FloatArrayMat(const std::vector<float>& v);

// fp32 elempack 1 copy of any Mat (unpacks and widens fp16)
Mat to_fp32_pack1(const Mat& m, bool is_bf16 = false);

// Compare shapes and values: |a-b| <= epsilon * max(1, |b|) everywhere.
// Returns "" if equal, else a description of the first mismatch.
std::string compare_mat(const Mat& a, const Mat& b, float epsilon);

std::string shape_string(const Mat& m);

// Run one layer object on inputs (handles one_blob_only and in-place layers).
int run_layer_forward(const Layer* layer, const std::vector<Mat>& inputs, std::vector<Mat>& outputs, const Option& opt);

// Create `type` for (backend, isa), load params and weights, create the pipeline.
// Returns nullptr (and fills *why) on failure or if the implementation declines.
// top_shapes: shape hints set before create_pipeline (as Net does from -23330).
Layer* make_layer(const char* type, int backend, int isa, const ParamDict& pd, const std::vector<Mat>& weights,
                  const Option& opt, std::string* why, bool* declined = nullptr,
                  const std::vector<Mat>* top_shapes = nullptr);

struct TestLayerFlags
{
    float epsilon = 1e-3f;        // fp32 tolerance
    float epsilon_fp16 = 2e-2f;   // tolerance with fp16/bf16 storage
    float epsilon_gpu = -1.f;     // fp32 tolerance of the GPU rows where >= 0 (else epsilon)
    int top_count = 1;            // outputs the layer produces
    bool test_fp16 = true;        // run the fp16-storage variants where supported
    std::vector<Mat> top_shapes;  // shape hints (a param file's -23330) given to every implementation
    bool forbid_reference = false; // fail when a CPU driver hands a run to its reference (note_cpu_layer_on_reference)
};

// Reference vs every other implementation; returns "" on success, else a report
// that includes the seed. `outputs_ref`, if non-null, receives the reference outputs.
std::string test_layer(const char* type, const ParamDict& pd, const std::vector<Mat>& weights,
                       const std::vector<Mat>& inputs, const TestLayerFlags& flags = TestLayerFlags(),
                       std::vector<Mat>* outputs_ref = nullptr);

// Layer::kernel_path of `type`'s row of GPU backend `backend` (BACKEND_VULKAN /
// BACKEND_OPENCL) for these parameters (fp32, packing on; environment
// switches apply): "" where it names none, "-" where the backend has no
// usable device, the row declines or fails to build.
std::string gpu_kernel_path(const char* type, int backend, const ParamDict& pd, const std::vector<Mat>& weights);

// Run only the reference and return its outputs (empty vector + *why on failure).
std::vector<Mat> run_reference(const char* type, const ParamDict& pd, const std::vector<Mat>& weights,
                               const std::vector<Mat>& inputs, std::string* why, int top_count = 1);

} // namespace test
} // namespace kite

// gtest helpers: fail with the harness report
#define KITE_EXPECT_LAYER_OK(expr)               \
    do                                           \
    {                                            \
        std::string _kite_report = (expr);       \
        EXPECT_TRUE(_kite_report.empty()) << _kite_report; \
    } while (0)

#endif // KITE_TESTUTIL_H
