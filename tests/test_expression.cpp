#include "expression.h"
#include "testutil.h"

#include <gtest/gtest.h>

using namespace kite;

static std::vector<int> eval(const std::string& e, const std::vector<Mat>& blobs, int expect_ret = 0)
{
    std::vector<int> out;
    EXPECT_EQ(eval_list_expression(e, blobs, out), expect_ret) << e;
    return out;
}

TEST(Expression, literals_and_blob_sizes)
{
    std::vector<Mat> blobs = {Mat(10, 6, 4), Mat(7, 5)};
    EXPECT_EQ(eval("1w,1h,128", blobs), (std::vector<int>{7, 5, 128}));
    EXPECT_EQ(eval("0c,0h,0w,0d", blobs), (std::vector<int>{4, 6, 10, 1}));
    EXPECT_EQ(count_expression_blobs("1w,1h,128"), 2);
    EXPECT_EQ(count_expression_blobs("12,3"), 0);
}

TEST(Expression, prefix_operators)
{
    std::vector<Mat> blobs = {Mat(10, 6, 4)};
    EXPECT_EQ(eval("/(0w,2),*(0h,2),0c", blobs), (std::vector<int>{5, 12, 4}));
    EXPECT_EQ(eval("-(0w,3)", blobs), (std::vector<int>{7}));
    EXPECT_EQ(eval("//(0w,3)", blobs), (std::vector<int>{3}));
    EXPECT_EQ(eval("max(0w,0h),min(0w,0h)", blobs), (std::vector<int>{10, 6}));
    EXPECT_EQ(eval("+(*(0w,0h),1)", blobs), (std::vector<int>{61}));
    EXPECT_EQ(eval("ceil(/(0w,4))", blobs), (std::vector<int>{3}));
    EXPECT_EQ(eval("floor(/(0w,4))", blobs), (std::vector<int>{2}));
    EXPECT_EQ(eval("neg(0c)", blobs), (std::vector<int>{-4}));
}

TEST(Expression, packed_blobs_report_unpacked_sizes)
{
    Mat m(3, 2, 2, (size_t)16u, 4, nullptr); // c=2 packs of 4 = 8 channels
    EXPECT_EQ(eval("0c", {m}), (std::vector<int>{8}));
}

TEST(Expression, malformed_is_an_error_not_a_crash)
{
    std::vector<Mat> blobs = {Mat(10, 6, 4)};
    eval("", blobs, -1);
    eval("+(0w)", blobs, -1);       // missing operand
    eval("*", blobs, -1);
    eval("2w", blobs, -1);          // no input 2
    eval("foo(0w)", blobs, -1);
    eval("//(0w,0)", blobs, -1);    // integer division by zero
    eval("lshift(1,99)", blobs, -1);
}
