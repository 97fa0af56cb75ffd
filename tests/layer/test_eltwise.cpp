#include "elementwise_check.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace kite;
using namespace kite::test;

static std::vector<Mat> same_shape_inputs(int n, int dims)
{
    std::vector<Mat> v;
    for (int i = 0; i < n; i++)
    {
        if (dims == 1)
            v.push_back(RandomMat(23));
        else if (dims == 2)
            v.push_back(RandomMat(9, 5));
        else if (dims == 3)
            v.push_back(RandomMat(7, 5, 3));
        else
            v.push_back(RandomMat(5, 4, 3, 2));
    }
    return v;
}

// op 0 prod, 1 sum, 2 max; coeffs only for sum
static std::string check(int op, const std::vector<float>& coeffs, const std::vector<Mat>& ins)
{
    ParamDict pd;
    pd.set(0, op);
    if (!coeffs.empty())
        pd.set(1, FloatArrayMat(coeffs));
    std::vector<Mat> out;
    std::string report = test_layer("Eltwise", pd, {}, ins, TestLayerFlags(), &out);
    if (!report.empty())
        return report;
    std::string err;
    for_each_coord(ins[0], [&](const Coord& c) {
        if (!err.empty())
            return;
        double w = 0;
        for (size_t i = 0; i < ins.size(); i++)
        {
            const double x = *elem_ptr(ins[i], c);
            if (op == 0)
                w = i == 0 ? x : w * x;
            else if (op == 1)
                w += (op == 1 && !coeffs.empty() ? coeffs[i] : 1.0) * x;
            else
                w = i == 0 ? x : std::max(w, x);
        }
        const double g = *elem_ptr(out[0], c);
        if (!close_enough(g, w, 1e-5))
            err = fmt_mismatch("Eltwise", c, *elem_ptr(ins[0], c), g, w);
    });
    return err;
}

TEST(Eltwise, prod_sum_max_any_dims)
{
    reseed(231);
    for (int dims = 1; dims <= 4; dims++)
        for (int n : {1, 2, 3, 5})
            for (int op : {0, 1, 2})
            {
                SCOPED_TRACE("op " + std::to_string(op) + " n " + std::to_string(n) + " dims " + std::to_string(dims));
                KITE_EXPECT_LAYER_OK(check(op, {}, same_shape_inputs(n, dims)));
            }
}

TEST(Eltwise, sum_with_coeffs)
{
    reseed(232);
    for (int dims = 1; dims <= 4; dims++)
    {
        KITE_EXPECT_LAYER_OK(check(1, {0.5f, -1.5f}, same_shape_inputs(2, dims)));
        KITE_EXPECT_LAYER_OK(check(1, {0.25f, 2.f, -0.75f}, same_shape_inputs(3, dims)));
        // more coeffs than inputs is fine
        KITE_EXPECT_LAYER_OK(check(1, {2.f, 3.f, 4.f, 5.f}, same_shape_inputs(3, dims)));
    }
}

TEST(Eltwise, coeffs_ignored_for_prod_and_max)
{
    reseed(233);
    std::vector<Mat> ins = same_shape_inputs(2, 3);
    ParamDict with, without;
    with.set(0, 0);
    with.set(1, FloatArrayMat({3.f, 3.f}));
    without.set(0, 0);
    std::string why;
    std::vector<Mat> a = run_reference("Eltwise", with, {}, ins, &why);
    std::vector<Mat> b = run_reference("Eltwise", without, {}, ins, &why);
    ASSERT_EQ(a.size(), 1u);
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(compare_mat(a[0], b[0], 0.f), "");
}

TEST(Eltwise, errors)
{
    reseed(234);
    ParamDict pd;
    pd.set(0, 1);
    // shapes differ
    EXPECT_EQ(reference_forward_ret("Eltwise", pd, {}, {RandomMat(7, 5, 3), RandomMat(7, 5, 4)}), -1);
    EXPECT_EQ(reference_forward_ret("Eltwise", pd, {}, {RandomMat(7, 5, 3), RandomMat(35, 3)}), -1);
    // fewer coeffs than inputs
    pd.set(1, FloatArrayMat({1.f, 2.f}));
    EXPECT_EQ(reference_forward_ret("Eltwise", pd, {}, {RandomMat(7), RandomMat(7), RandomMat(7)}), -1);
    // unknown op
    ParamDict bad;
    bad.set(0, 3);
    int load_ret = 0;
    reference_forward_ret("Eltwise", bad, {}, {RandomMat(7), RandomMat(7)}, &load_ret);
    EXPECT_EQ(load_ret, -1);
}
