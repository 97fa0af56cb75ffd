// What cl_runtime.cpp shares with the other parts of Session (cl_replay.cpp,
// cl_defer.cpp); not part of the OpenCL runtime's interface.
#ifndef KITE_GPU_OPENCL_CL_RUNTIME_INTERNAL_H
#define KITE_GPU_OPENCL_CL_RUNTIME_INTERNAL_H

#include "cl_runtime.h"

#include <vector>

namespace kite {
namespace cl {

// a copy of the settings in effect
opencl::Settings settings();

// CPU time of the calling thread (ms): host cost without the time the
// scheduler gave to others (PoCL's worker threads run the kernels meanwhile)
double thread_cpu_ms();

// m as fp32: an int8 or fp16 Mat converted, any other as it is; -100 when
// out of memory
int as_float32(const Mat& m, Mat& out, const Option& opt);

// an elempack-1 Mat of `s`'s shape
void create_like(Mat& m, const Mat& s, size_t elemsize, const Option& opt);

// the arguments last set on each kernel (KernelArgs keeps them there)
void shadow_arg(cl_kernel k, cl_uint i, size_t n, const void* p);
std::vector<std::vector<unsigned char> > shadowed_args(cl_kernel k);

} // namespace cl
} // namespace kite

#endif // KITE_GPU_OPENCL_CL_RUNTIME_INTERNAL_H
