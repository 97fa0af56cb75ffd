#ifndef KITE_TOOLS_NPY_H
#define KITE_TOOLS_NPY_H

// Reading and writing numpy .npy files as Mats.
//
// numpy shape <-> Mat: (w) dims 1, (h, w) dims 2, (c, h, w) dims 3,
// (c, d, h, w) dims 4. Files are written as float32 ('<f4', C order, format
// version 1.0). Reading accepts float16/32/64 and (u)int8/16/32/64 and
// converts to float32; a 0-d array reads as one value.

#include "mat.h"

#include <cstdio>
#include <string>

namespace kite {
namespace tools {

// Returns "" on success, else why the file could not be read.
std::string read_npy(const char* path, Mat& m);
// The same from an open stream (not closed; e.g. fmemopen), `name` in messages.
std::string read_npy_stream(FILE* fp, const char* name, Mat& m);
// m must be fp32 (elemsize 4) with elempack 1. Returns "" or the reason.
std::string write_npy(const char* path, const Mat& m);

// "[w,h,c]" style description of a Mat's logical shape (elempack unfolded)
std::string mat_shape_string(const Mat& m);

} // namespace tools
} // namespace kite

#endif // KITE_TOOLS_NPY_H
