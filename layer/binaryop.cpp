#include "binaryop.h"

#include "common/math_ops.h"

#include <algorithm>
#include <cmath>

namespace kite {

BinaryOp::BinaryOp()
{
    one_blob_only = false;
    support_inplace = false;
}

int BinaryOp::load_param(const ParamDict& pd)
{
    op_type = pd.get(PARAM_OP_TYPE, 0);
    with_scalar = pd.get(PARAM_WITH_SCALAR, 0);
    b = pd.get(PARAM_B, 0.f);

    if (op_type < 0 || op_type >= Operation_COUNT)
    {
        KITE_LOGE("BinaryOp '%s': unknown op_type %d (0..%d)", name.c_str(), op_type, Operation_COUNT - 1);
        return -1;
    }

    // with a scalar operand it is a one-input, in-place layer
    one_blob_only = with_scalar != 0;
    support_inplace = with_scalar != 0;
    return 0;
}

namespace {

struct op_add { float operator()(float x, float y) const { return x + y; } };
struct op_sub { float operator()(float x, float y) const { return x - y; } };
struct op_mul { float operator()(float x, float y) const { return x * y; } };
struct op_div { float operator()(float x, float y) const { return x / y; } };
struct op_max { float operator()(float x, float y) const { return std::max(x, y); } };
struct op_min { float operator()(float x, float y) const { return std::min(x, y); } };
struct op_pow { float operator()(float x, float y) const { return powf(x, y); } };
struct op_rsub { float operator()(float x, float y) const { return y - x; } };
struct op_rdiv { float operator()(float x, float y) const { return y / x; } };
struct op_rpow { float operator()(float x, float y) const { return powf(y, x); } };
struct op_atan2 { float operator()(float x, float y) const { return atan2f(x, y); } };
struct op_ratan2 { float operator()(float x, float y) const { return atan2f(y, x); } };

// One operand seen in the output's rank: axes w, h, d, c (1 where absent);
// elements of one channel are contiguous (z, y, x order), channels cstep apart.
struct View
{
    const float* data;
    int w, h, d, c;
    size_t cstep;
};

static View view_of(const Mat& m)
{
    View v;
    v.data = (const float*)m.data;
    v.w = m.w;
    v.h = m.dims >= 2 ? m.h : 1;
    v.d = m.dims == 4 ? m.d : 1;
    v.c = m.dims >= 3 ? m.c : 1;
    v.cstep = m.dims >= 3 ? m.cstep : (size_t)v.w * v.h;
    return v;
}

// Expand m (rank m.dims) to rank outdims against the other operand, as ncnn does.
static View expand(const Mat& m, const Mat& other, int outdims)
{
    View v = view_of(m);
    if (m.dims >= outdims)
        return v;
    if (m.dims == 1)
    {
        const int n = m.w;
        v.w = v.h = v.d = v.c = 1;
        if (outdims == 2)
        {
            if (n == other.h)
                v.h = n; // one value per row
            else
                v.w = n;
            v.cstep = (size_t)n;
        }
        else
        {
            if (n == other.c)
            {
                v.c = n; // one value per channel
                v.cstep = 1;
            }
            else
            {
                v.w = n;
                v.cstep = (size_t)n;
            }
        }
        return v;
    }
    if (m.dims == 2)
    {
        // rows become channels, the row elements the next axis in
        v.w = 1;
        v.c = m.h;
        v.cstep = (size_t)m.w;
        if (outdims == 3)
        {
            v.h = m.w;
            v.d = 1;
        }
        else
        {
            v.h = 1;
            v.d = m.w;
        }
        return v;
    }
    // dims 3 against 4: [w,h,c] -> [1,w,h,c]
    v.w = 1;
    v.h = m.w;
    v.d = m.h;
    v.c = m.c;
    v.cstep = m.cstep;
    return v;
}

template<typename Op>
static void broadcast(const View& a, const View& b, Mat& top, const Option& opt)
{
    const Op op;
    const int w = std::max(a.w, b.w);
    const int h = std::max(a.h, b.h);
    const int d = std::max(a.d, b.d);
    const int c = std::max(a.c, b.c);
    const size_t top_cstep = top.dims >= 3 ? top.cstep : (size_t)w * h;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < c; q++)
    {
        float* outptr = (float*)top.data + top_cstep * q;
        const float* pa = a.data + a.cstep * (a.c == 1 ? 0 : q);
        const float* pb = b.data + b.cstep * (b.c == 1 ? 0 : q);
        for (int z = 0; z < d; z++)
        {
            const int za = a.d == 1 ? 0 : z;
            const int zb = b.d == 1 ? 0 : z;
            for (int y = 0; y < h; y++)
            {
                const float* ra = pa + ((size_t)za * a.h + (a.h == 1 ? 0 : y)) * a.w;
                const float* rb = pb + ((size_t)zb * b.h + (b.h == 1 ? 0 : y)) * b.w;
                const int ia = a.w == 1 ? 0 : 1;
                const int ib = b.w == 1 ? 0 : 1;
                for (int x = 0; x < w; x++)
                    outptr[x] = op(ra[x * ia], rb[x * ib]);
                outptr += w;
            }
        }
    }
}

template<typename Op>
static void scalar_inplace(Mat& m, float bv, const Option& opt)
{
    const Op op;
    apply_inplace(m, opt, "BinaryOp", std::string(), [&op, bv](float x) { return op(x, bv); });
}

} // namespace

float BinaryOp::apply(int op, float x, float y)
{
    switch (op)
    {
    case Operation_ADD: return op_add()(x, y);
    case Operation_SUB: return op_sub()(x, y);
    case Operation_MUL: return op_mul()(x, y);
    case Operation_DIV: return op_div()(x, y);
    case Operation_MAX: return op_max()(x, y);
    case Operation_MIN: return op_min()(x, y);
    case Operation_POW: return op_pow()(x, y);
    case Operation_RSUB: return op_rsub()(x, y);
    case Operation_RDIV: return op_rdiv()(x, y);
    case Operation_RPOW: return op_rpow()(x, y);
    case Operation_ATAN2: return op_atan2()(x, y);
    case Operation_RATAN2: return op_ratan2()(x, y);
    default: return x;
    }
}

static bool fp32_pack1(const Mat& m)
{
    return m.elempack == 1 && m.elemsize == 4u && m.dims >= 1 && m.dims <= 4 && m.data;
}

int BinaryOp::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    if (bottom_blobs.size() != 2)
    {
        KITE_LOGE("BinaryOp '%s': needs 2 inputs (or with_scalar=1), got %d", name.c_str(), (int)bottom_blobs.size());
        return -1;
    }
    const Mat& A = bottom_blobs[0];
    const Mat& B = bottom_blobs[1];
    if (!fp32_pack1(A) || !fp32_pack1(B))
    {
        KITE_LOGE("BinaryOp '%s': expects two fp32 elempack 1 inputs of dims 1..4", name.c_str());
        return -1;
    }

    const int outdims = std::max(A.dims, B.dims);
    const View va = expand(A, B, outdims);
    const View vb = expand(B, A, outdims);

    const int aw[4] = {va.w, va.h, va.d, va.c};
    const int bw[4] = {vb.w, vb.h, vb.d, vb.c};
    for (int i = 0; i < 4; i++)
    {
        if (aw[i] != bw[i] && aw[i] != 1 && bw[i] != 1)
        {
            KITE_LOGE("BinaryOp '%s': cannot broadcast dims %d [%d,%d,%d,%d] with dims %d [%d,%d,%d,%d] (seen as [%d,%d,%d,%d] and [%d,%d,%d,%d])",
                      name.c_str(), A.dims, A.w, A.h, A.d, A.c, B.dims, B.w, B.h, B.d, B.c,
                      va.w, va.h, va.d, va.c, vb.w, vb.h, vb.d, vb.c);
            return -1;
        }
    }
    const int outw = std::max(va.w, vb.w);
    const int outh = std::max(va.h, vb.h);
    const int outd = std::max(va.d, vb.d);
    const int outc = std::max(va.c, vb.c);

    if (top_blobs.empty())
        top_blobs.resize(1);
    Mat& top = top_blobs[0];
    if (outdims == 1)
        top.create(outw, 4u, opt.blob_allocator);
    else if (outdims == 2)
        top.create(outw, outh, 4u, opt.blob_allocator);
    else if (outdims == 3)
        top.create(outw, outh, outc, 4u, opt.blob_allocator);
    else
        top.create(outw, outh, outd, outc, 4u, opt.blob_allocator);
    if (top.empty())
        return -100;

    switch (op_type)
    {
    case Operation_ADD: broadcast<op_add>(va, vb, top, opt); break;
    case Operation_SUB: broadcast<op_sub>(va, vb, top, opt); break;
    case Operation_MUL: broadcast<op_mul>(va, vb, top, opt); break;
    case Operation_DIV: broadcast<op_div>(va, vb, top, opt); break;
    case Operation_MAX: broadcast<op_max>(va, vb, top, opt); break;
    case Operation_MIN: broadcast<op_min>(va, vb, top, opt); break;
    case Operation_POW: broadcast<op_pow>(va, vb, top, opt); break;
    case Operation_RSUB: broadcast<op_rsub>(va, vb, top, opt); break;
    case Operation_RDIV: broadcast<op_rdiv>(va, vb, top, opt); break;
    case Operation_RPOW: broadcast<op_rpow>(va, vb, top, opt); break;
    case Operation_ATAN2: broadcast<op_atan2>(va, vb, top, opt); break;
    case Operation_RATAN2: broadcast<op_ratan2>(va, vb, top, opt); break;
    default:
        KITE_LOGE("BinaryOp '%s': unknown op_type %d", name.c_str(), op_type);
        return -1;
    }
    return 0;
}

int BinaryOp::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    if (!fp32_pack1(bottom_top_blob))
    {
        KITE_LOGE("BinaryOp '%s': expects an fp32 elempack 1 input of dims 1..4", name.c_str());
        return -1;
    }
    Mat& m = bottom_top_blob;
    switch (op_type)
    {
    case Operation_ADD: scalar_inplace<op_add>(m, b, opt); break;
    case Operation_SUB: scalar_inplace<op_sub>(m, b, opt); break;
    case Operation_MUL: scalar_inplace<op_mul>(m, b, opt); break;
    case Operation_DIV: scalar_inplace<op_div>(m, b, opt); break;
    case Operation_MAX: scalar_inplace<op_max>(m, b, opt); break;
    case Operation_MIN: scalar_inplace<op_min>(m, b, opt); break;
    case Operation_POW: scalar_inplace<op_pow>(m, b, opt); break;
    case Operation_RSUB: scalar_inplace<op_rsub>(m, b, opt); break;
    case Operation_RDIV: scalar_inplace<op_rdiv>(m, b, opt); break;
    case Operation_RPOW: scalar_inplace<op_rpow>(m, b, opt); break;
    case Operation_ATAN2: scalar_inplace<op_atan2>(m, b, opt); break;
    case Operation_RATAN2: scalar_inplace<op_ratan2>(m, b, opt); break;
    default:
        KITE_LOGE("BinaryOp '%s': unknown op_type %d", name.c_str(), op_type);
        return -1;
    }
    return 0;
}

DEFINE_LAYER_CREATOR(BinaryOp)

} // namespace kite
