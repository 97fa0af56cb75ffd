// Storage and arithmetic types of the Vulkan shaders. cmake/kite_vulkan.cmake
// compiles every .comp once per precision variant:
//   fp32    nothing defined: blobs are float, arithmetic float
//   fp16s   KITE_FP16_STORAGE: blobs are float16_t (VK_KHR_16bit_storage,
//           storageBuffer16BitAccess), arithmetic float
//   fp16a   KITE_FP16_STORAGE + KITE_FP16_ARITHMETIC: blobs float16_t and
//           afp arithmetic in float16_t (shaderFloat16)
// and the runtime picks the variant from what the device reports and what
// Option asks (use_fp16_storage / use_fp16_arithmetic), see
// VulkanDevice::variant().
//
// Blob (activation) buffers are declared with sfp / sfpvec4 elements and read
// and written only through the load/store helpers, which convert to and from
// the arithmetic type afp / afpvec4. Weights, biases and index maps stay
// float buffers in every variant (read them as float, convert with afp()),
// except weights a driver uploads in the storage type
// (vkl::upload_weights(opt, m, true)): those are wfp / wfpvec4 buffers, read
// through float() / vec4().
// Values that accumulate many terms where fp16 would lose the answer
// (softmax/layernorm sums) may stay float in every variant.
#ifndef KITE_VK_TYPES_H
#define KITE_VK_TYPES_H

#if defined(KITE_FP16_STORAGE) || defined(KITE_FP16_ARITHMETIC)
#extension GL_EXT_shader_16bit_storage : require
#define sfp float16_t
#define sfpvec4 f16vec4
#else
#define sfp float
#define sfpvec4 vec4
#endif
#define wfp sfp
#define wfpvec4 sfpvec4

#if defined(KITE_FP16_ARITHMETIC)
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define afp float16_t
#define afpvec4 f16vec4
#else
#define afp float
#define afpvec4 vec4
#endif

// blob element i as afp / store an afp (or float) value
#define load1(buf, i) afp(buf[i])
#define store1(buf, i, v) buf[i] = sfp(v)
#define load4(buf, i) afpvec4(buf[i])
#define store4(buf, i, v) buf[i] = sfpvec4(v)
// the same through float (for code that computes in float in every variant)
#define loadf(buf, i) float(buf[i])
#define loadf4(buf, i) vec4(buf[i])

#endif // KITE_VK_TYPES_H
