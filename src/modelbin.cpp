#include "modelbin.h"

#include "datareader.h"
#include "log.h"

#include <cstdio>

namespace kite {

static const unsigned int TAG_FP32 = 0x00000000;
static const unsigned int TAG_FP16 = 0x01306B47;
static const unsigned int TAG_INT8 = 0x000D4B38;
static const unsigned int TAG_FP32_ALT = 0x0002C056;

ModelBin::~ModelBin() {}
void ModelBin::begin_layer(const Layer*, const ParamDict&) const {}


Mat ModelBin::load(int w, int h, int type) const
{
    if (w <= 0 || h <= 0 || (size_t)w * h > INT32_MAX)
    {
        KITE_LOGE("model bin: bad weight shape %d x %d", w, h);
        return Mat();
    }
    Mat m = load(w * h, type);
    return m.empty() ? m : m.reshape(w, h);
}

Mat ModelBin::load(int w, int h, int c, int type) const
{
    if (w <= 0 || h <= 0 || c <= 0 || (size_t)w * h * c > INT32_MAX)
    {
        KITE_LOGE("model bin: bad weight shape %d x %d x %d", w, h, c);
        return Mat();
    }
    Mat m = load(w * h * c, type);
    return m.empty() ? m : m.reshape(w, h, c);
}

Mat ModelBin::load(int w, int h, int d, int c, int type) const
{
    if (w <= 0 || h <= 0 || d <= 0 || c <= 0 || (size_t)w * h * d * c > INT32_MAX)
    {
        KITE_LOGE("model bin: bad weight shape %d x %d x %d x %d", w, h, d, c);
        return Mat();
    }
    Mat m = load(w * h * d * c, type);
    return m.empty() ? m : m.reshape(w, h, d, c);
}

ModelBinFromDataReader::ModelBinFromDataReader(const DataReader& _dr) : dr(_dr)
{
}

// read n bytes into a new or referenced buffer
static bool read_exact(const DataReader& dr, void* dst, size_t n)
{
    return dr.read(dst, n) == n;
}

static bool check_remaining(const DataReader& dr, size_t need, const char* what)
{
    size_t left = dr.remaining();
    if (left != SIZE_MAX && need > left)
    {
        KITE_LOGE("model bin truncated: %s needs %zu bytes but only %zu are left", what, need, left);
        return false;
    }
    return true;
}

Mat ModelBinFromDataReader::load(int w, int type) const
{
    if (w <= 0)
    {
        KITE_LOGE("model bin: bad weight count %d", w);
        return Mat();
    }
    if (type == 1)
    {
        size_t bytes = (size_t)w * 4;
        if (!check_remaining(dr, bytes, "fp32 buffer"))
            return Mat();
        const void* ref = nullptr;
        const bool referenced = dr.reference(bytes, &ref) == bytes;
        if (referenced && ((uintptr_t)ref & 3) == 0)
            return Mat(w, (void*)ref, (size_t)4u);
        Mat m(w, (size_t)4u);
        if (m.empty())
            return m;
        if (referenced)
        {
            // in memory but misaligned: the bytes are consumed, copy them
            memcpy(m.data, ref, bytes);
            return m;
        }
        if (!read_exact(dr, m.data, bytes))
        {
            KITE_LOGE("model bin truncated: fp32 buffer of %d values", w);
            return Mat();
        }
        return m;
    }
    if (type != 0)
    {
        KITE_LOGE("model bin: unknown load type %d", type);
        return Mat();
    }

    unsigned int tag = 0;
    if (!read_exact(dr, &tag, 4))
    {
        KITE_LOGE("model bin truncated: missing the tag of a buffer of %d values", w);
        return Mat();
    }
    if (tag == TAG_FP16)
    {
        size_t bytes = align_size((size_t)w * 2, 4);
        if (!check_remaining(dr, bytes, "fp16 buffer"))
            return Mat();
        std::vector<unsigned short> half((size_t)w + 2);
        if (!read_exact(dr, half.data(), bytes))
        {
            KITE_LOGE("model bin truncated: fp16 buffer of %d values", w);
            return Mat();
        }
        Mat m(w, (size_t)4u);
        if (m.empty())
            return m;
        float* p = m;
        for (int i = 0; i < w; i++)
            p[i] = float16_to_float32(half[i]);
        return m;
    }
    if (tag == TAG_INT8)
    {
        size_t bytes = align_size((size_t)w, 4);
        if (!check_remaining(dr, bytes, "int8 buffer"))
            return Mat();
        Mat m(w, (size_t)1u);
        if (m.empty())
            return m;
        if (!read_exact(dr, m.data, (size_t)w))
        {
            KITE_LOGE("model bin truncated: int8 buffer of %d values", w);
            return Mat();
        }
        unsigned char pad[4];
        if (bytes > (size_t)w && !read_exact(dr, pad, bytes - w))
        {
            KITE_LOGE("model bin truncated: int8 buffer padding");
            return Mat();
        }
        return m;
    }
    if (tag == TAG_FP32 || tag == TAG_FP32_ALT)
    {
        // reuse the type 1 path for the payload
        return load(w, 1);
    }
    // legacy quantized: 256-entry fp32 table, then one uint8 index per value
    size_t bytes = 256 * 4 + align_size((size_t)w, 4);
    if (!check_remaining(dr, bytes - 4, "quantized buffer"))
        return Mat();
    // the tag we read is the first table entry
    float table[256];
    memcpy(&table[0], &tag, 4);
    if (!read_exact(dr, &table[1], 255 * 4))
    {
        KITE_LOGE("model bin truncated: quantization table");
        return Mat();
    }
    std::vector<unsigned char> idx(align_size((size_t)w, 4));
    if (!read_exact(dr, idx.data(), idx.size()))
    {
        KITE_LOGE("model bin truncated: quantized buffer of %d values", w);
        return Mat();
    }
    Mat m(w, (size_t)4u);
    if (m.empty())
        return m;
    float* p = m;
    for (int i = 0; i < w; i++)
        p[i] = table[idx[i]];
    return m;
}

ModelBinFromMatArray::ModelBinFromMatArray(const Mat* _weights, int _count) : weights(_weights), count(_count), index(0)
{
}

Mat ModelBinFromMatArray::load(int w, int type) const
{
    if (count >= 0 && index >= count)
    {
        KITE_LOGE("model weights: layer asked for buffer %d but only %d were given", index + 1, count);
        return Mat();
    }
    Mat m = weights[index++];
    if (m.empty())
        return m;
    size_t n = (size_t)m.w * m.h * m.d * m.c;
    if (n != (size_t)w)
    {
        KITE_LOGE("model weights: buffer %d has %zu values, layer wants %d", index, n, w);
        return Mat();
    }
    Mat flat = m.reshape(w);
    return flat;
}

ModelBinRecorder::ModelBinRecorder(const ModelBin& _inner) : inner(_inner)
{
}

void ModelBinRecorder::begin_layer(const Layer* layer, const ParamDict& pd) const
{
    inner.begin_layer(layer, pd);
}

Mat ModelBinRecorder::load(int w, int type) const
{
    Mat m = inner.load(w, type);
    if (!m.empty())
        records.push_back(std::make_pair(type, m));
    return m;
}

int ModelBinRecorder::write(FILE* fp) const
{
    for (const auto& r : records)
    {
        const Mat& m = r.second;
        size_t n = (size_t)m.w * m.h * m.d * m.c;
        if (r.first == 0)
        {
            unsigned int tag = m.elemsize == 1 ? TAG_INT8 : TAG_FP32;
            if (fwrite(&tag, 4, 1, fp) != 1)
                return -1;
        }
        size_t bytes = n * m.elemsize;
        if (fwrite(m.data, 1, bytes, fp) != bytes)
            return -1;
        static const unsigned char zeros[4] = {0, 0, 0, 0};
        size_t pad = align_size(bytes, 4) - bytes;
        if (pad && fwrite(zeros, 1, pad, fp) != pad)
            return -1;
    }
    return 0;
}

} // namespace kite
