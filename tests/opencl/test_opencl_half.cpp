// Half arithmetic (cl_khr_fp16) is chosen only when the Option asks for it
// and the device has the extension; the programs written with common.h.cl's
// FLOAT macros build in the float variant everywhere and in the half
// variant where the device has cl_khr_fp16 (PoCL has not: there the test
// checks the fallback decision and the float builds).
#include "testutil.h"

#include "gpu/opencl/cl_runtime.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

using namespace kite;
using namespace kite::cl;

namespace kite {
namespace cl {
const char* const* embedded_program_names(); // generated from shaders/opencl/*.cl
}
} // namespace kite

TEST(OpenCLHalf, Decision)
{
    Context fake; // no device: only the capability flag matters
    Option opt;
    opt.use_fp16_arithmetic = true;
    fake.has_fp16 = false;
    EXPECT_FALSE(half_arithmetic(&fake, opt)) << "half arithmetic chosen on a device without cl_khr_fp16";
    fake.has_fp16 = true;
    EXPECT_TRUE(half_arithmetic(&fake, opt));
    opt.use_fp16_arithmetic = false;
    EXPECT_FALSE(half_arithmetic(&fake, opt)) << "half arithmetic chosen without use_fp16_arithmetic";
    EXPECT_FALSE(half_arithmetic(nullptr, opt));

    EXPECT_EQ(program_options("conv", true), "-DKITE_HALF");
    EXPECT_EQ(program_options("conv", false), "");
    EXPECT_EQ(program_options("int8", true), "") << "int8.cl emulates the CPU's integer arithmetic: never half";
    EXPECT_EQ(program_options("transformer", true), "") << "softmax/layernorm sums stay in float";
}

TEST(OpenCLHalf, DeviceAndPrograms)
{
    Context* ctx = Context::get(0);
    if (!ctx)
    {
        printf("no OpenCL device: skipped\n");
        return;
    }
    printf("device %s: cl_khr_fp16 %s\n", ctx->device_name.c_str(), ctx->has_fp16 ? "yes" : "no");
    Option opt;
    opt.use_opencl = true;
    opt.use_fp16_storage = true;
    opt.use_fp16_arithmetic = true;
    {
        Session s(ctx, opt);
        EXPECT_EQ(s.half_arith, ctx->has_fp16);
        EXPECT_EQ(gpu_backend(BACKEND_OPENCL)->fp16_arithmetic(opt), ctx->has_fp16);
    }
    for (const char* const* n = embedded_program_names(); *n; n++)
    {
        EXPECT_EQ(ctx->prepare_program(*n, false), 0) << "float variant of " << *n;
        if (ctx->has_fp16)
            EXPECT_EQ(ctx->prepare_program(*n, true), 0) << "half variant of " << *n;
    }
}
