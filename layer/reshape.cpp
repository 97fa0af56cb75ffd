#include "reshape.h"

#include "common/shape_util.h"
#include "expression.h"
#include "log.h"

namespace kite {

Reshape::Reshape()
{
    one_blob_only = true;
    support_inplace = false;
    support_fp16_storage = true;
    support_bf16_storage = true;
    support_int8_storage = true;
}

int Reshape::load_param(const ParamDict& pd)
{
    w = pd.get(PARAM_W, -233);
    h = pd.get(PARAM_H, -233);
    d = pd.get(PARAM_D, -233);
    c = pd.get(PARAM_C, -233);
    shape_expr = pd.get(PARAM_SHAPE_EXPR, std::string());
    if (pd.get(PARAM_INPUT_BATCH_AXIS, 233) != 233 || pd.get(PARAM_OUTPUT_BATCH_AXIS, 233) != 233)
    {
        KITE_LOGE("Reshape '%s': batch axes (12/13) are not supported", name.c_str());
        return -1;
    }
    one_blob_only = true;
    if (!shape_expr.empty())
    {
        const int blobs = count_expression_blobs(shape_expr);
        if (blobs < 0)
        {
            KITE_LOGE("Reshape '%s': malformed shape expression '%s'", name.c_str(), shape_expr.c_str());
            return -1;
        }
        if (blobs > 1)
            one_blob_only = false;
        ndim = 0; // from the expression at run time
        return 0;
    }
    ndim = 4;
    if (d == -233)
        ndim = 3;
    if (c == -233)
        ndim = 2;
    if (h == -233)
        ndim = 1;
    if (w == -233)
        ndim = 0;
    if (ndim == 0)
    {
        KITE_LOGE("Reshape '%s': no output shape given", name.c_str());
        return -1;
    }
    const int vals[4] = {w, h, d, c};
    for (int i = 0; i < 4; i++)
    {
        if (vals[i] < -1 && vals[i] != -233)
        {
            KITE_LOGE("Reshape '%s': invalid size %d", name.c_str(), vals[i]);
            return -1;
        }
    }
    return 0;
}

int Reshape::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    std::vector<Mat> bottoms(1, bottom_blob);
    std::vector<Mat> tops(1);
    int ret = forward(bottoms, tops, opt);
    top_blob = tops[0];
    return ret;
}

int Reshape::output_shape(const std::vector<Mat>& shapes, int s[4], int& n) const
{
    const Mat& bottom_blob = shapes[0];
    // out sizes in (w, h, d, c) order; n = output dims
    s[0] = w, s[1] = h, s[2] = d, s[3] = c;
    n = ndim;
    if (!shape_expr.empty())
    {
        std::vector<int> list;
        if (eval_list_expression(shape_expr, shapes, list) != 0)
        {
            KITE_LOGE("Reshape '%s': cannot evaluate shape expression '%s'", name.c_str(), shape_expr.c_str());
            return -1;
        }
        n = (int)list.size();
        if (n < 1 || n > 4)
        {
            KITE_LOGE("Reshape '%s': shape expression '%s' gives %d sizes (need 1..4)", name.c_str(), shape_expr.c_str(), n);
            return -1;
        }
        // w, h, [d,] c
        s[0] = list[0];
        s[1] = n >= 2 ? list[1] : 1;
        s[2] = n == 4 ? list[2] : 1;
        s[3] = n == 3 ? list[2] : n == 4 ? list[3] : 1;
    }
    // the axes the output has, in (w, h, d, c) slots
    bool used[4] = {true, n >= 2, n == 4, n >= 3};
    const int in_sizes[4] = {bottom_blob.w, bottom_blob.h, bottom_blob.d, bottom_blob.c};
    const size_t total = (size_t)bottom_blob.w * bottom_blob.h * bottom_blob.d * bottom_blob.c;
    int infer = -1;
    size_t known = 1;
    for (int i = 0; i < 4; i++)
    {
        if (!used[i])
        {
            s[i] = 1;
            continue;
        }
        if (s[i] == 0)
            s[i] = in_sizes[i];
        if (s[i] == -1)
        {
            if (infer >= 0)
            {
                KITE_LOGE("Reshape '%s': more than one size to infer (-1)", name.c_str());
                return -1;
            }
            infer = i;
            continue;
        }
        if (s[i] <= 0)
        {
            KITE_LOGE("Reshape '%s': invalid output size %d", name.c_str(), s[i]);
            return -1;
        }
        known *= (size_t)s[i];
    }
    if (infer >= 0)
    {
        if (known == 0 || total % known != 0)
        {
            KITE_LOGE("Reshape '%s': %zu elements cannot be split by %zu to infer a size", name.c_str(), total, known);
            return -1;
        }
        s[infer] = (int)(total / known);
        known *= (size_t)s[infer];
    }
    if (known != total)
    {
        char buf[64];
        KITE_LOGE("Reshape '%s': input %s has %zu elements, the shape [w=%d h=%d d=%d c=%d] needs %zu", name.c_str(),
                  shape::dims_string(bottom_blob, buf, sizeof(buf)), total, s[0], s[1], s[2], s[3], known);
        return -1;
    }

    return 0;
}

int Reshape::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    if (bottom_blobs.empty() || top_blobs.size() != 1)
    {
        KITE_LOGE("Reshape '%s': expects >= 1 input and 1 output", name.c_str());
        return -1;
    }
    const Mat& bottom_blob = bottom_blobs[0];
    Mat& top_blob = top_blobs[0];
    if (!shape::plain_blob(bottom_blob))
    {
        KITE_LOGE("Reshape '%s': input must be a non-empty elempack 1 blob of dims 1..4", name.c_str());
        return -1;
    }
    int s[4], n;
    if (output_shape(bottom_blobs, s, n) != 0)
        return -1;

    if (n == 1)
        top_blob = bottom_blob.reshape(s[0], opt.blob_allocator);
    if (n == 2)
        top_blob = bottom_blob.reshape(s[0], s[1], opt.blob_allocator);
    if (n == 3)
        top_blob = bottom_blob.reshape(s[0], s[1], s[3], opt.blob_allocator);
    if (n == 4)
        top_blob = bottom_blob.reshape(s[0], s[1], s[2], s[3], opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    return 0;
}

DEFINE_LAYER_CREATOR(Reshape)

} // namespace kite
