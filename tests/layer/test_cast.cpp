#include "shape_testutil.h"

#include <cmath>

using namespace shapetest;

TEST(Cast, fp32_fp16_bf16_int8)
{
    kite::test::reseed(5);
    for (const Shape& s : all_dims_shapes())
    {
        Mat in = make(s);
        for_each_index(s, [&](const Shape& i) { *lptr(in, i) = kite::test::rand_float(-200.f, 200.f); });
        // fp16: within half-precision rounding (rel 2^-11)
        Mat h = run("Cast", params({{0, 1}, {1, 2}}), {in})[0];
        ASSERT_EQ(h.elemsize, 2u);
        EXPECT_TRUE(matches(h, s, [&](const Shape& i) { return lget(in, i); }, 1.f / 2048));
        // back to fp32 is exact for fp16 values
        Mat f = run("Cast", params({{0, 2}, {1, 1}}), {h})[0];
        ASSERT_EQ(f.elemsize, 4u);
        Mat hf = kite::test::to_fp32_pack1(h);
        EXPECT_TRUE(matches(f, s, [&](const Shape& i) { return lget(hf, i); }));
        // bf16 truncates the mantissa to 7 bits
        std::string why;
        std::vector<Mat> b = kite::test::run_reference("Cast", params({{0, 1}, {1, 4}}), {}, {in}, &why, 1);
        ASSERT_EQ(b.size(), 1u) << why;
        ASSERT_EQ(b[0].elemsize, 2u);
        std::vector<Mat> bf = kite::test::run_reference("Cast", params({{0, 4}, {1, 1}}), {}, {b[0]}, &why, 1);
        ASSERT_EQ(bf.size(), 1u) << why;
        EXPECT_TRUE(matches(bf[0], s, [&](const Shape& i) { return lget(in, i); }, 1.f / 128));
        // int8: round half away from zero, saturate at +-127
        std::vector<Mat> q = kite::test::run_reference("Cast", params({{0, 1}, {1, 3}}), {}, {in}, &why, 1);
        ASSERT_EQ(q.size(), 1u) << why;
        ASSERT_EQ(q[0].elemsize, 1u);
        std::vector<Mat> qf = kite::test::run_reference("Cast", params({{0, 3}, {1, 1}}), {}, {q[0]}, &why, 1);
        ASSERT_EQ(qf.size(), 1u) << why;
        EXPECT_TRUE(matches(qf[0], s, [&](const Shape& i) {
            float v = std::round(lget(in, i));
            return std::max(-127.f, std::min(127.f, v));
        }));
    }
    EXPECT_TRUE(fails("Cast", params({{0, 2}, {1, 1}}), {seq({3, 4})})); // fp32 input declared fp16
    EXPECT_TRUE(fails("Cast", params({{0, 1}, {1, 5}}), {seq({3, 4})}));
}
