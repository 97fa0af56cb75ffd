#include "shape_testutil.h"

using namespace shapetest;

TEST(MemoryData, every_dims_from_the_model)
{
    struct Case
    {
        std::vector<std::pair<int, int> > p;
        Shape out;
    };
    const std::vector<Case> cases = {
        {{{0, 7}}, {7}},
        {{{0, 5}, {1, 3}}, {3, 5}},
        {{{0, 5}, {1, 3}, {2, 4}}, {4, 3, 5}},
        {{{0, 3}, {1, 5}, {11, 2}, {2, 3}}, {3, 2, 5, 3}},
        {{}, {1}},
    };
    for (const Case& c : cases)
    {
        size_t total = 1;
        for (int v : c.out)
            total *= v;
        Mat w((int)total);
        for (size_t i = 0; i < total; i++)
            w[i] = 0.5f + (float)i;
        std::string why;
        std::vector<Mat> out = kite::test::run_reference("MemoryData", params(c.p), {w}, {}, &why, 1);
        ASSERT_EQ(out.size(), 1u) << why;
        size_t k = 0;
        EXPECT_TRUE(matches(out[0], c.out, [&](const Shape&) { return 0.5f + (float)k++; })) << str(c.out);
        // every other implementation (GPU rows keep the data on the device)
        EXPECT_EQ(run("MemoryData", params(c.p), {}, 1, {w}).size(), 1u) << str(c.out);
    }
    // the model must provide the data
    std::string why;
    EXPECT_TRUE(kite::test::run_reference("MemoryData", params({{0, 4}}), {}, {}, &why, 1).empty());
    EXPECT_TRUE(kite::test::run_reference("MemoryData", params({{0, -4}}), {Mat(4)}, {}, &why, 1).empty());
}

TEST(DeepCopy, copies_every_dims)
{
    for (const Shape& s : all_dims_shapes())
    {
        Mat in = seq(s);
        Mat out = run("DeepCopy", ParamDict(), {in})[0];
        EXPECT_NE(out.data, in.data);
        EXPECT_TRUE(matches(out, s, [&](const Shape& i) { return lget(in, i); }));
    }
}
