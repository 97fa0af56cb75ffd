#ifndef KITE_MEMORY_LIMIT_H
#define KITE_MEMORY_LIMIT_H

// Option::memory_limit (issue 20): a model whose declared sizes need more
// memory than allowed fails at load, naming the layer, before anything of
// that size is allocated. Internal to the Net.

#include "mat.h"
#include "modelbin.h"
#include "paramdict.h"

#include <cstddef>
#include <string>
#include <vector>

namespace kite {

class Layer;

// bytes of w*h*d*c fp32 values (non-positive sizes count as 1), or SIZE_MAX
// when the product overflows
size_t declared_bytes(long long w, long long h, long long d, long long c);

// the shapes a param line declares: an Input's w/h/d/c (params 0, 1, 11, 2)
// and every -23330 output shape hint; 0 when each fits in `limit` (0: no
// limit), else -100 after logging which layer and blob is too large
int check_declared_shapes(const std::string& type, const std::string& name, const ParamDict& pd,
                          const std::vector<Mat>& top_shapes, size_t limit, const char* where);

// Wraps the ModelBin a Net loads from: a buffer that would take the weights
// loaded so far past `limit` fails (an empty Mat, a log line naming the
// layer) before the inner ModelBin allocates it.
class ModelBinWithLimit : public ModelBin
{
public:
    ModelBinWithLimit(const ModelBin& inner, size_t limit);
    using ModelBin::load;
    Mat load(int w, int type) const override;
    Mat load(int w, int h, int type) const override;
    Mat load(int w, int h, int c, int type) const override;
    Mat load(int w, int h, int d, int c, int type) const override;
    void begin_layer(const Layer* layer, const ParamDict& pd) const override;

private:
    bool admit(long long w, long long h, long long d, long long c) const;
    const ModelBin& inner;
    size_t limit;
    mutable size_t used;
    mutable const Layer* layer;
};

} // namespace kite

#endif // KITE_MEMORY_LIMIT_H
