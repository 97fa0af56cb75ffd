#ifndef KITE_QUANTIZE_CALIB_DATA_H
#define KITE_QUANTIZE_CALIB_DATA_H

// Calibration inputs for kitequantize: a folder of images (JPEG, PNG, BMP,
// PPM/PGM, decoded with stb_image) or .npy tensors, or a text file listing
// them one per line (relative paths are relative to the list's folder).

#include "mat.h"

#include <string>
#include <vector>

namespace kite {
namespace quantize {

struct DataOptions
{
    std::vector<int> shape;   // [w,h(,c)]: images are resized to w x h; empty: the image's own size
    std::vector<float> mean;  // per channel, subtracted (images only)
    std::vector<float> norm;  // per channel, multiplied after the mean (images only)
    std::string pixel = "BGR"; // the channel order the model wants: RGB, BGR, GRAY, RGBA, BGRA
    int limit = 0;            // use at most this many files (0: all)
    long long max_pixels = 64LL << 20; // images with more pixels are refused before decoding
};

// Parse "[a,b,c]" / "a,b,c" into floats. false if malformed.
bool parse_floats(const std::string& s, std::vector<float>& v);
bool valid_pixel(const std::string& s);

// The files DATA names, sorted (folder) or in list order. "" or the reason.
std::string list_data(const std::string& data, std::vector<std::string>& files);
// One input: .npy as stored (float32 Mat), an image decoded, resized,
// converted to `pixel` order, mean/norm applied. "" or the reason.
std::string load_input(const std::string& path, const DataOptions& opt, Mat& m);
// An image file's bytes decoded like load_input does; `name` in messages.
std::string decode_image(const unsigned char* mem, size_t size, const std::string& name, const DataOptions& opt, Mat& m);

// A Mat's values, channel after channel without the channel padding (fp32, elempack 1)
std::vector<float> flatten(const Mat& m);

} // namespace quantize
} // namespace kite

#endif // KITE_QUANTIZE_CALIB_DATA_H
