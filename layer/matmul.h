#ifndef KITE_LAYER_MATMUL_H
#define KITE_LAYER_MATMUL_H

#include "layer.h"

namespace kite {

// numpy-style matmul of two blobs (ncnn MatMul). The last two axes (h, w)
// are the matrix, leading axes (c, d) broadcast when equal or 1; a 1-D
// operand is a vector whose axis disappears from the result. transB: B holds
// N x K (w = K) instead of K x N.
class MatMul : public Layer
{
public:
    enum ParamId
    {
        PARAM_TRANS_B = 0,
    };

    MatMul();
    int load_param(const ParamDict& pd) override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

public:
    int transB;

protected:
    // The product's sizes, checked (logged on error, -1): matrices M x K and
    // K x N (B stored N x K when b_trans), output batches bc x bd (c outer, d
    // inner), each operand's own batch counts (1 where it broadcasts), and
    // the output's numpy shape (rank, shape[]: outermost first). The GPU
    // drivers take these and lay the operands out themselves.
    struct Sizes
    {
        int M, N, K;
        bool b_trans;
        int bc, bd;
        int a_bc, a_bd, b_bc, b_bd;
        int rank;
        int shape[4];
    };
    int sizes(const Mat& A, const Mat& B, Sizes& s) const;

    // The batched product once the shapes are checked: out(i, j) of batch
    // (ci, di) = sum_k a(i, k) b(k, j), operands broadcast over the batch axes.
    struct Plan
    {
        const float* a;
        const float* b;
        float* out;
        int M, N, K;
        bool b_trans;  // b holds N rows of K
        int bc, bd;    // output batches (c outer, d inner)
        int a_bc, a_bd, b_bc, b_bd;
        size_t a_cstep, a_dstep, b_cstep, b_dstep, out_cstep, out_dstep;
        const float* a_at(int ci, int di) const { return a + a_cstep * (ci % a_bc) + a_dstep * (di % a_bd); }
        const float* b_at(int ci, int di) const { return b + b_cstep * (ci % b_bc) + b_dstep * (di % b_bd); }
        float* out_at(int ci, int di) const { return out + out_cstep * ci + out_dstep * di; }
    };
    // the reference's scalar loops; optimised drivers override it
    virtual int run(const Plan& p, const Option& opt) const;
};

} // namespace kite

#endif // KITE_LAYER_MATMUL_H
