#ifndef KITE_GPU_OPENCL_CL_API_H
#define KITE_GPU_OPENCL_CL_API_H

// The OpenCL entry points kite uses, loaded at run time from the ICD loader
// (libOpenCL.so.1) so that the library still loads and runs on the CPU where
// no OpenCL is installed. Only the types come from the Khronos headers.

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

namespace kite {
namespace cl {

// X(name, return type, parameter list)
#define KITE_CL_FUNCTIONS(X)                                                                                              \
    X(clGetPlatformIDs, cl_int, (cl_uint, cl_platform_id*, cl_uint*))                                                  \
    X(clGetPlatformInfo, cl_int, (cl_platform_id, cl_platform_info, size_t, void*, size_t*))                           \
    X(clGetDeviceIDs, cl_int, (cl_platform_id, cl_device_type, cl_uint, cl_device_id*, cl_uint*))                      \
    X(clGetDeviceInfo, cl_int, (cl_device_id, cl_device_info, size_t, void*, size_t*))                                 \
    X(clCreateContext, cl_context, (const cl_context_properties*, cl_uint, const cl_device_id*, void(CL_CALLBACK*)(const char*, const void*, size_t, void*), void*, cl_int*)) \
    X(clReleaseContext, cl_int, (cl_context))                                                                          \
    X(clCreateCommandQueue, cl_command_queue, (cl_context, cl_device_id, cl_command_queue_properties, cl_int*))        \
    X(clReleaseCommandQueue, cl_int, (cl_command_queue))                                                               \
    X(clCreateBuffer, cl_mem, (cl_context, cl_mem_flags, size_t, void*, cl_int*))                                      \
    X(clCreateImage, cl_mem, (cl_context, cl_mem_flags, const cl_image_format*, const cl_image_desc*, void*, cl_int*)) \
    X(clReleaseMemObject, cl_int, (cl_mem))                                                                            \
    X(clCreateProgramWithSource, cl_program, (cl_context, cl_uint, const char**, const size_t*, cl_int*))              \
    X(clCreateProgramWithBinary, cl_program, (cl_context, cl_uint, const cl_device_id*, const size_t*, const unsigned char**, cl_int*, cl_int*)) \
    X(clBuildProgram, cl_int, (cl_program, cl_uint, const cl_device_id*, const char*, void(CL_CALLBACK*)(cl_program, void*), void*)) \
    X(clGetProgramBuildInfo, cl_int, (cl_program, cl_device_id, cl_program_build_info, size_t, void*, size_t*))        \
    X(clGetProgramInfo, cl_int, (cl_program, cl_program_info, size_t, void*, size_t*))                                 \
    X(clReleaseProgram, cl_int, (cl_program))                                                                          \
    X(clCreateKernel, cl_kernel, (cl_program, const char*, cl_int*))                                                   \
    X(clReleaseKernel, cl_int, (cl_kernel))                                                                            \
    X(clGetKernelInfo, cl_int, (cl_kernel, cl_kernel_info, size_t, void*, size_t*))                                    \
    X(clGetExtensionFunctionAddressForPlatform, void*, (cl_platform_id, const char*))                                  \
    X(clSetKernelArg, cl_int, (cl_kernel, cl_uint, size_t, const void*))                                               \
    X(clGetKernelWorkGroupInfo, cl_int, (cl_kernel, cl_device_id, cl_kernel_work_group_info, size_t, void*, size_t*))  \
    X(clEnqueueNDRangeKernel, cl_int, (cl_command_queue, cl_kernel, cl_uint, const size_t*, const size_t*, const size_t*, cl_uint, const cl_event*, cl_event*)) \
    X(clEnqueueWriteBuffer, cl_int, (cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void*, cl_uint, const cl_event*, cl_event*)) \
    X(clEnqueueReadBuffer, cl_int, (cl_command_queue, cl_mem, cl_bool, size_t, size_t, void*, cl_uint, const cl_event*, cl_event*)) \
    X(clEnqueueReadImage, cl_int, (cl_command_queue, cl_mem, cl_bool, const size_t*, const size_t*, size_t, size_t, void*, cl_uint, const cl_event*, cl_event*)) \
    X(clEnqueueWriteImage, cl_int, (cl_command_queue, cl_mem, cl_bool, const size_t*, const size_t*, size_t, size_t, const void*, cl_uint, const cl_event*, cl_event*)) \
    X(clEnqueueMapBuffer, void*, (cl_command_queue, cl_mem, cl_bool, cl_map_flags, size_t, size_t, cl_uint, const cl_event*, cl_event*, cl_int*)) \
    X(clEnqueueUnmapMemObject, cl_int, (cl_command_queue, cl_mem, void*, cl_uint, const cl_event*, cl_event*))         \
    X(clFinish, cl_int, (cl_command_queue))                                                                            \
    X(clFlush, cl_int, (cl_command_queue))                                                                             \
    X(clWaitForEvents, cl_int, (cl_uint, const cl_event*))                                                             \
    X(clGetEventProfilingInfo, cl_int, (cl_event, cl_profiling_info, size_t, void*, size_t*))                         \
    X(clReleaseEvent, cl_int, (cl_event))

struct Api
{
#define KITE_CL_DECLARE(name, ret, args) ret(CL_API_CALL* name) args;
    KITE_CL_FUNCTIONS(KITE_CL_DECLARE)
#undef KITE_CL_DECLARE
};

// The loaded entry points, or nullptr when no usable libOpenCL exists (the
// reason is logged once). Thread-safe; loads on the first call.
const Api* api();

// Readable name of an OpenCL error code.
const char* error_string(cl_int err);

} // namespace cl
} // namespace kite

#endif // KITE_GPU_OPENCL_CL_API_H
