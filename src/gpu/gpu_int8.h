// Shared by the GPU backends' downloads: a blob that a GPU layer left as
// int8 (requantized output) travels as float integers on the device; on the
// way back it becomes the int8 Mat the CPU layer would have made.
#pragma once

#include "mat.h"
#include "option.h"

namespace kite {

// m: fp32, elempack 1, every value an integer in [-127, 127]; replaced by an
// int8 Mat of the same shape (elemsize 1) from opt.blob_allocator. -100 when
// the allocation fails.
int float_integers_to_int8(Mat& m, const Option& opt);

} // namespace kite
