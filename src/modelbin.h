#ifndef KITE_MODELBIN_H
#define KITE_MODELBIN_H

#include "mat.h"

#include <cstdio>

#include <vector>

namespace kite {

class DataReader;
class Layer;
class ParamDict;

// Hands a layer its weight buffers in the order the layer asks for them.
// type 0: the buffer starts with a 4-byte tag (fp32, fp16, int8 or a legacy
// uint8 lookup table); fp16 and the table are expanded to fp32, int8 stays
// int8 (elemsize 1). type 1: raw fp32, no tag.
// load() returns an empty Mat on error, after logging what was wrong.
class ModelBin
{
public:
    virtual ~ModelBin();
    virtual Mat load(int w, int type) const = 0;
    virtual Mat load(int w, int h, int type) const;
    virtual Mat load(int w, int h, int c, int type) const;
    virtual Mat load(int w, int h, int d, int c, int type) const;
    // called by the Net before each layer loads its weights (no-op by default;
    // random-weight generators use it to scale values to the layer)
    virtual void begin_layer(const Layer* layer, const ParamDict& pd) const;
};

class ModelBinFromDataReader : public ModelBin
{
public:
    explicit ModelBinFromDataReader(const DataReader& dr);
    using ModelBin::load;
    Mat load(int w, int type) const override;

private:
    const DataReader& dr;
};

// Weights already in memory as Mats, handed out in order (tests, converters).
class ModelBinFromMatArray : public ModelBin
{
public:
    explicit ModelBinFromMatArray(const Mat* weights, int count = -1);
    using ModelBin::load;
    Mat load(int w, int type) const override;

private:
    const Mat* weights;
    int count;
    mutable int index;
};

// Records what a model reads, so the same weights can be written out as an
// ncnn-compatible .bin (kiterun writebin=). Wraps another ModelBin.
class ModelBinRecorder : public ModelBin
{
public:
    explicit ModelBinRecorder(const ModelBin& inner);
    using ModelBin::load;
    Mat load(int w, int type) const override;
    void begin_layer(const Layer* layer, const ParamDict& pd) const override;
    // type 0 buffers are written fp32-tagged (int8 buffers keep their int8 tag)
    int write(FILE* fp) const;

private:
    const ModelBin& inner;
    mutable std::vector<std::pair<int, Mat> > records;
};

} // namespace kite

#endif // KITE_MODELBIN_H
