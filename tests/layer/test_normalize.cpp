#include "math_test_helpers.h"

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(Normalize, l2_norm_is_scale)
{
    reseed(69);
    Mat in = RandomMat(5, 4, 6);
    for (int as : {0, 1})
        for (int ac : {0, 1})
            for (int shared : {0, 1})
                for (int em : {0, 1, 2})
                {
                    Mat scale = RandomMat(shared ? 1 : 6, 0.5f, 2.f);
                    ParamDict pd;
                    pd.set(0, as);
                    pd.set(4, ac);
                    pd.set(1, shared);
                    pd.set(2, 1e-6f);
                    pd.set(9, em);
                    pd.set(3, shared ? 1 : 6);
                    std::vector<Mat> out = run_all("Normalize", pd, {scale}, {in});
                    ASSERT_EQ(out.size(), 1u);
                    const Mat& o = out[0];
                    auto sc = [&](int q) { return shared ? scale[0] : scale[q]; };
                    if (!as && !ac)
                    {
                        EXPECT_EQ(at(o, 1, 1, 0, 2), at(in, 1, 1, 0, 2)); // left unchanged, as ncnn
                    }
                    else if (as && ac)
                    {
                        double s = 0;
                        for (int q = 0; q < 6; q++)
                            for (int i = 0; i < 20; i++)
                            {
                                double v = ((const float*)o.channel(q).data)[i] / sc(q);
                                s += v * v;
                            }
                        EXPECT_NEAR(s, 1.0, 1e-4);
                    }
                    else if (ac)
                    {
                        double s = 0;
                        for (int q = 0; q < 6; q++)
                            s += std::pow(at(o, 3, 2, 0, q) / sc(q), 2);
                        EXPECT_NEAR(s, 1.0, 1e-4);
                    }
                    else
                    {
                        double s = 0;
                        for (int i = 0; i < 20; i++)
                            s += std::pow(((const float*)o.channel(4).data)[i] / sc(4), 2);
                        EXPECT_NEAR(s, 1.0, 1e-4);
                    }
                }
    ParamDict pd;
    pd.set(3, 4);
    EXPECT_TRUE(reference_fails("Normalize", pd, {RandomMat(4)}, {in}));
    ParamDict p0;
    EXPECT_TRUE(reference_fails("Normalize", p0, {}, {in}));
}
