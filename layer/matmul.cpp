#include "matmul.h"

#include "log.h"

namespace kite {

namespace {

// a blob seen as batch (c, d) of rows x cols matrices
struct BatchedView
{
    const float* data;
    int batch_c;
    int batch_d;
    int rows;
    int cols;
    size_t cstep;     // between c batches
    size_t dstep;     // between d batches
};

void make_view(const Mat& m, BatchedView& v)
{
    v.data = m;
    v.rows = m.dims >= 2 ? m.h : 1;
    v.cols = m.w;
    v.batch_c = 1;
    v.batch_d = 1;
    v.dstep = (size_t)v.rows * v.cols;
    v.cstep = v.dstep;
    if (m.dims == 3)
    {
        // a 3-D blob's channels align with the innermost batch axis (d) of a 4-D one
        v.batch_d = m.c;
        v.dstep = m.cstep;
        v.cstep = m.cstep * m.c;
    }
    else if (m.dims == 4)
    {
        v.batch_c = m.c;
        v.batch_d = m.d;
        v.dstep = (size_t)m.w * m.h;
        v.cstep = m.cstep;
    }
}

inline bool broadcastable(int a, int b)
{
    return a == b || a == 1 || b == 1;
}

} // namespace

MatMul::MatMul()
{
    one_blob_only = false;
    support_inplace = false;
}

int MatMul::load_param(const ParamDict& pd)
{
    transB = pd.get(PARAM_TRANS_B, 0);
    return 0;
}

int MatMul::sizes(const Mat& A, const Mat& B, Sizes& s) const
{
    const char* n = name.c_str();
    if (A.dims < 1 || A.dims > 4 || B.dims < 1 || B.dims > 4)
    {
        KITE_LOGE("MatMul '%s': bad input dims %d and %d", n, A.dims, B.dims);
        return -1;
    }
    BatchedView a, b;
    make_view(A, a);
    make_view(B, b);
    // a 1-D B is a column vector (K x 1), whatever transB says
    const bool b_vector = B.dims == 1;
    s.b_trans = transB && !b_vector;
    if (b_vector)
    {
        b.rows = B.w;
        b.cols = 1;
    }
    s.M = a.rows;
    s.K = a.cols;
    const int KB = s.b_trans ? b.cols : b.rows;
    s.N = s.b_trans ? b.rows : b.cols;
    if (s.K != KB)
    {
        KITE_LOGE("MatMul '%s': A is %d x %d and B is %d x %d%s, inner sizes differ", n, s.M, s.K, b.rows, b.cols,
                  s.b_trans ? " (transposed)" : "");
        return -1;
    }
    if (!broadcastable(a.batch_c, b.batch_c) || !broadcastable(a.batch_d, b.batch_d))
    {
        KITE_LOGE("MatMul '%s': batch shapes (%d, %d) and (%d, %d) do not broadcast", n, a.batch_c, a.batch_d,
                  b.batch_c, b.batch_d);
        return -1;
    }
    s.a_bc = a.batch_c;
    s.a_bd = a.batch_d;
    s.b_bc = b.batch_c;
    s.b_bd = b.batch_d;
    s.bc = a.batch_c > b.batch_c ? a.batch_c : b.batch_c;
    s.bd = a.batch_d > b.batch_d ? a.batch_d : b.batch_d;
    const int max_dims = A.dims > B.dims ? A.dims : B.dims;

    // numpy result shape: batch axes, then M unless A is a vector, then N unless B is
    s.rank = 0;
    if (max_dims == 4)
        s.shape[s.rank++] = s.bc;
    if (max_dims >= 3)
        s.shape[s.rank++] = s.bd;
    if (A.dims != 1)
        s.shape[s.rank++] = s.M;
    if (!b_vector)
        s.shape[s.rank++] = s.N;
    if (s.rank == 0)
        s.shape[s.rank++] = 1;
    return 0;
}

int MatMul::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    if (bottom_blobs.size() != 2 || top_blobs.empty())
    {
        KITE_LOGE("MatMul '%s': expects 2 inputs, got %d", name.c_str(), (int)bottom_blobs.size());
        return -1;
    }
    const Mat& A = bottom_blobs[0];
    const Mat& B = bottom_blobs[1];
    Sizes z;
    if (sizes(A, B, z) != 0)
        return -1;
    BatchedView a, b;
    make_view(A, a);
    make_view(B, b);
    const int M = z.M, N = z.N, bd = z.bd;
    const int max_dims = A.dims > B.dims ? A.dims : B.dims;
    const int* shape = z.shape;
    Mat& top = top_blobs[0];
    if (z.rank == 1)
        top.create(shape[0], 4u, opt.blob_allocator);
    else if (z.rank == 2)
        top.create(shape[1], shape[0], 4u, opt.blob_allocator);
    else if (z.rank == 3)
        top.create(shape[2], shape[1], shape[0], 4u, opt.blob_allocator);
    else
        top.create(shape[3], shape[2], shape[1], shape[0], 4u, opt.blob_allocator);
    if (top.empty())
        return -100;

    // output batches are laid out like the inputs: c outer, d inner
    const size_t mn = (size_t)M * N;
    size_t out_dstep = mn, out_cstep = mn * bd;
    if (top.dims == 3 && max_dims == 3)
        out_dstep = top.cstep, out_cstep = top.cstep * bd;
    if (top.dims == 4)
        out_dstep = mn, out_cstep = top.cstep;
    if (top.dims == 3 && max_dims == 4)
    {
        // one of them was a vector: (M or N, d, c) planes of d rows
        out_dstep = (size_t)top.w, out_cstep = top.cstep;
    }
    Plan p;
    p.a = a.data;
    p.b = b.data;
    p.out = top;
    p.M = M;
    p.N = N;
    p.K = z.K;
    p.b_trans = z.b_trans;
    p.bc = z.bc;
    p.bd = bd;
    p.a_bc = z.a_bc;
    p.a_bd = z.a_bd;
    p.b_bc = z.b_bc;
    p.b_bd = z.b_bd;
    p.a_cstep = a.cstep;
    p.a_dstep = a.dstep;
    p.b_cstep = b.cstep;
    p.b_dstep = b.dstep;
    p.out_cstep = out_cstep;
    p.out_dstep = out_dstep;
    return run(p, opt);
}

int MatMul::run(const Plan& p, const Option& opt) const
{
    const int M = p.M, N = p.N, K = p.K;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int ci = 0; ci < p.bc; ci++)
    {
        for (int di = 0; di < p.bd; di++)
        {
            const float* ap = p.a_at(ci, di);
            const float* bp = p.b_at(ci, di);
            float* op = p.out_at(ci, di);
            for (int i = 0; i < M; i++)
            {
                for (int j = 0; j < N; j++)
                {
                    float sum = 0.f;
                    for (int k = 0; k < K; k++)
                    {
                        const float bv = p.b_trans ? bp[(size_t)j * K + k] : bp[(size_t)k * N + j];
                        sum += ap[(size_t)i * K + k] * bv;
                    }
                    op[(size_t)i * N + j] = sum;
                }
            }
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(MatMul)

} // namespace kite
