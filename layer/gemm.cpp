#include "gemm.h"

#include "log.h"

namespace kite {

namespace {

// a row-major matrix view of a blob: rows x cols with a row stride
struct MatView
{
    const float* data;
    int rows;
    int cols;
    size_t row_stride;
};

// 2-D: rows = h; 3-D with h == 1: one row per channel; 1-D: one row
bool view_of(const Mat& m, MatView& v)
{
    if (m.dims == 1)
    {
        v.data = m;
        v.rows = 1;
        v.cols = m.w;
        v.row_stride = m.w;
        return true;
    }
    if (m.dims == 2)
    {
        v.data = m;
        v.rows = m.h;
        v.cols = m.w;
        v.row_stride = m.w;
        return true;
    }
    if (m.dims == 3 && m.h == 1)
    {
        v.data = m;
        v.rows = m.c;
        v.cols = m.w;
        v.row_stride = m.cstep;
        return true;
    }
    return false;
}

} // namespace

Gemm::Gemm()
{
    one_blob_only = false;
    support_inplace = false;
}

int Gemm::load_param(const ParamDict& pd)
{
    alpha = pd.get(PARAM_ALPHA, 1.f);
    beta = pd.get(PARAM_BETA, 1.f);
    transA = pd.get(PARAM_TRANS_A, 0);
    transB = pd.get(PARAM_TRANS_B, 0);
    constantA = pd.get(PARAM_CONSTANT_A, 0);
    constantB = pd.get(PARAM_CONSTANT_B, 0);
    constantC = pd.get(PARAM_CONSTANT_C, 0);
    constantM = pd.get(PARAM_CONSTANT_M, 0);
    constantN = pd.get(PARAM_CONSTANT_N, 0);
    constantK = pd.get(PARAM_CONSTANT_K, 0);
    constant_broadcast_type_C = pd.get(PARAM_CONSTANT_BROADCAST_TYPE_C, 0);
    output_N1M = pd.get(PARAM_OUTPUT_N1M, 0);
    output_elempack = pd.get(PARAM_OUTPUT_ELEMPACK, 0);
    output_elemtype = pd.get(PARAM_OUTPUT_ELEMTYPE, 0);
    output_transpose = pd.get(PARAM_OUTPUT_TRANSPOSE, 0);
    int8_scale_term = pd.get(PARAM_INT8_SCALE_TERM, 0);

    const char* n = name.c_str();
    if (constantA && (constantM <= 0 || constantK <= 0))
    {
        KITE_LOGE("Gemm '%s': constant A needs positive M and K (got %d, %d)", n, constantM, constantK);
        return -1;
    }
    if (constantB && (constantN <= 0 || constantK <= 0))
    {
        KITE_LOGE("Gemm '%s': constant B needs positive N and K (got %d, %d)", n, constantN, constantK);
        return -1;
    }
    if (constantC)
    {
        if (constant_broadcast_type_C < BROADCAST_C_SCALAR || constant_broadcast_type_C > BROADCAST_C_1N)
        {
            KITE_LOGE("Gemm '%s': constant_broadcast_type_C %d is not 0..4", n, constant_broadcast_type_C);
            return -1;
        }
        const int t = constant_broadcast_type_C;
        if ((t == BROADCAST_C_M || t == BROADCAST_C_M1 || t == BROADCAST_C_MN) && constantM <= 0)
        {
            KITE_LOGE("Gemm '%s': constant C of broadcast type %d needs a positive M", n, t);
            return -1;
        }
        if ((t == BROADCAST_C_MN || t == BROADCAST_C_1N) && constantN <= 0)
        {
            KITE_LOGE("Gemm '%s': constant C of broadcast type %d needs a positive N", n, t);
            return -1;
        }
    }
    if (int8_scale_term)
    {
        KITE_LOGE("Gemm '%s': int8 quantized gemm (int8_scale_term) is not supported by the reference", n);
        return -1;
    }
    return 0;
}

int Gemm::load_model(const ModelBin& mb)
{
    if (constantA)
    {
        A_data = transA ? mb.load(constantM, constantK, 0) : mb.load(constantK, constantM, 0);
        if (A_data.empty())
            return -100;
    }
    if (constantB)
    {
        B_data = transB ? mb.load(constantK, constantN, 0) : mb.load(constantN, constantK, 0);
        if (B_data.empty())
            return -100;
    }
    if (constantC)
    {
        switch (constant_broadcast_type_C)
        {
        case BROADCAST_C_SCALAR:
            C_data = mb.load(1, 0);
            break;
        case BROADCAST_C_M:
            C_data = mb.load(constantM, 0);
            break;
        case BROADCAST_C_M1:
            C_data = mb.load(1, constantM, 0);
            break;
        case BROADCAST_C_MN:
            C_data = mb.load(constantN, constantM, 0);
            break;
        default:
            C_data = mb.load(constantN, 1, 0);
            break;
        }
        if (C_data.empty())
            return -100;
    }
    return 0;
}

int Gemm::resolve_c(const Mat& C, int M, int N, int& broadcast_type_C) const
{
    const char* n = name.c_str();
    if (C.dims == 0) // no C (a GPU driver passes data-less shape Mats)
        return 0;
    if (!constantC)
    {
        // infer how C broadcasts from its shape, as ncnn does
        bool ok = false;
        if (C.dims == 1 && C.w == 1)
            broadcast_type_C = BROADCAST_C_SCALAR, ok = true;
        if (C.dims == 1 && C.w == M)
            broadcast_type_C = BROADCAST_C_M, ok = true;
        if (C.dims == 1 && C.w == N)
            broadcast_type_C = BROADCAST_C_1N, ok = true;
        if (C.dims == 2 && C.w == 1 && C.h == M)
            broadcast_type_C = BROADCAST_C_M1, ok = true;
        if (C.dims == 2 && C.w == N && C.h == M)
            broadcast_type_C = BROADCAST_C_MN, ok = true;
        if (C.dims == 2 && C.w == N && C.h == 1)
            broadcast_type_C = BROADCAST_C_1N, ok = true;
        if (!ok)
        {
            KITE_LOGE("Gemm '%s': C of dims %d (%d x %d) does not broadcast to %d x %d", n, C.dims, C.w, C.h, M, N);
            return -1;
        }
    }
    // constant C is checked too: its size follows the constant M/N, the inputs may differ
    size_t want = broadcast_type_C == BROADCAST_C_SCALAR ? 1 : broadcast_type_C == BROADCAST_C_MN ? (size_t)M * N
                  : broadcast_type_C == BROADCAST_C_1N ? (size_t)N : (size_t)M;
    if ((size_t)C.w * C.h * C.d * C.c < want || (C.dims >= 3 && C.c > 1))
    {
        KITE_LOGE("Gemm '%s': C has %d values, broadcast type %d needs %zu", n, C.w * C.h, broadcast_type_C, want);
        return -1;
    }
    return 0;
}

int Gemm::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    const char* n = name.c_str();
    const int need = (constantA ? 0 : 1) + (constantB ? 0 : 1);
    if ((int)bottom_blobs.size() < need || (int)bottom_blobs.size() > need + (constantC ? 0 : 1) || top_blobs.empty())
    {
        KITE_LOGE("Gemm '%s': expects %d input(s)%s, got %d", n, need, constantC ? "" : " (+ optional C)", (int)bottom_blobs.size());
        return -1;
    }
    int bi = 0;
    const Mat& A0 = constantA ? A_data : bottom_blobs[bi++];
    const Mat B_loaded = constantB ? loaded_B_data() : Mat();
    if (constantB && B_loaded.empty())
    {
        KITE_LOGE("Gemm '%s': no constant B (out of memory rebuilding it from the packed copy?)", n);
        return -100;
    }
    const Mat& B0 = constantB ? B_loaded : bottom_blobs[bi++];
    Mat C;
    int broadcast_type_C = BROADCAST_C_SCALAR;
    if (constantC)
    {
        C = C_data;
        broadcast_type_C = constant_broadcast_type_C;
    }
    else if (bi < (int)bottom_blobs.size())
    {
        C = bottom_blobs[bi];
    }

    MatView a, b;
    if (!view_of(A0, a) || !view_of(B0, b))
    {
        KITE_LOGE("Gemm '%s': A and B must be 1-D, 2-D or (w, 1, c) blobs, got dims %d and %d", n, A0.dims, B0.dims);
        return -1;
    }
    const int M = transA ? a.cols : a.rows;
    const int K = transA ? a.rows : a.cols;
    const int KB = transB ? b.cols : b.rows;
    const int N = transB ? b.rows : b.cols;
    if (K != KB)
    {
        KITE_LOGE("Gemm '%s': A is %d x %d and B is %d x %d, inner sizes differ", n, M, K, KB, N);
        return -1;
    }

    if (resolve_c(C, M, N, broadcast_type_C) != 0)
        return -1;
    const float* c = C.empty() ? nullptr : (const float*)C.data;

    Mat& top_blob = top_blobs[0];
    const int out_rows = output_transpose ? N : M;
    const int out_cols = output_transpose ? M : N;
    if (output_N1M)
        top_blob.create(out_cols, 1, out_rows, 4u, opt.blob_allocator);
    else
        top_blob.create(out_cols, out_rows, 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    const size_t out_stride = output_N1M ? top_blob.cstep : (size_t)out_cols;
    float* out = top_blob;

    #pragma omp parallel for num_threads(opt.num_threads)
    for (int i = 0; i < M; i++)
    {
        for (int j = 0; j < N; j++)
        {
            float sum = 0.f;
            if (c)
            {
                if (broadcast_type_C == BROADCAST_C_SCALAR)
                    sum = c[0];
                else if (broadcast_type_C == BROADCAST_C_M || broadcast_type_C == BROADCAST_C_M1)
                    sum = c[i];
                else if (broadcast_type_C == BROADCAST_C_MN)
                    sum = c[(size_t)i * N + j];
                else
                    sum = c[j];
                sum *= beta;
            }
            for (int k = 0; k < K; k++)
            {
                const float av = transA ? a.data[a.row_stride * k + i] : a.data[a.row_stride * i + k];
                const float bv = transB ? b.data[b.row_stride * j + k] : b.data[b.row_stride * k + j];
                sum += av * bv;
            }
            sum *= alpha;
            if (output_transpose)
                out[out_stride * j + i] = sum;
            else
                out[out_stride * i + j] = sum;
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(Gemm)

} // namespace kite
