#include "shape_testutil.h"

using namespace shapetest;
using kite::test::IntArrayMat;

static void check(const Shape& s, const std::vector<int>& axes, const Shape& want)
{
    Mat in = seq(s);
    ParamDict pd;
    pd.set(3, IntArrayMat(axes));
    EXPECT_TRUE(matches(run("ExpandDims", pd, {in})[0], want, [&](const Shape& idx) {
        // drop the inserted axes: the remaining indices in order
        Shape k;
        std::vector<bool> ins(want.size(), false);
        for (int a : axes)
            ins[a < 0 ? a + (int)want.size() : a] = true;
        for (size_t i = 0; i < idx.size(); i++)
            if (!ins[i])
                k.push_back(idx[i]);
        return lget(in, k);
    })) << str(s);
}

TEST(ExpandDims, axes)
{
    check({7}, {0}, {1, 7});
    check({7}, {1}, {7, 1});
    check({7}, {0, 1}, {1, 1, 7});
    check({7}, {0, 2}, {1, 7, 1});
    check({7}, {0, 1, 3}, {1, 1, 7, 1});
    check({3, 5}, {0}, {1, 3, 5});
    check({3, 5}, {1}, {3, 1, 5});
    check({3, 5}, {-1}, {3, 5, 1});
    check({3, 5}, {0, -1}, {1, 3, 5, 1});
    check({4, 3, 5}, {0}, {1, 4, 3, 5});
    check({4, 3, 5}, {2}, {4, 3, 1, 5});
    ParamDict pd;
    pd.set(3, IntArrayMat({0, 1}));
    EXPECT_TRUE(fails("ExpandDims", pd, {seq({4, 3, 5})})); // 5 dims
    pd.set(3, IntArrayMat({3}));
    EXPECT_TRUE(fails("ExpandDims", pd, {seq({3, 5})}));    // out of range
    pd.set(3, IntArrayMat({1, 1}));
    EXPECT_TRUE(fails("ExpandDims", pd, {seq({5})}));       // repeated
}

TEST(Squeeze, flags_and_axes)
{
    struct Case
    {
        Shape in;
        std::vector<std::pair<int, int> > flags;
        std::vector<int> axes;
        Shape out;
    };
    const std::vector<Case> cases = {
        {{1, 1, 5}, {{1, 1}, {2, 1}}, {}, {5}},
        {{1, 1, 1}, {{0, 1}, {1, 1}, {2, 1}}, {}, {1}},
        {{3, 1, 5}, {{0, 1}}, {}, {3, 1, 5}},
        {{3, 1, 5}, {{1, 1}}, {}, {3, 5}},
        {{1, 3, 5}, {{2, 1}}, {}, {3, 5}},
        {{3, 1}, {{0, 1}}, {}, {3}},
        {{1, 4}, {{1, 1}}, {}, {4}},
        {{2, 1, 3, 5}, {{11, 1}}, {}, {2, 3, 5}},
        {{1, 1, 3, 5}, {{11, 1}, {2, 1}}, {}, {3, 5}},
        {{2, 1, 1, 4}, {{1, 1}}, {}, {2, 1, 4}},
        {{1, 3, 5}, {}, {0}, {3, 5}},
        {{2, 3, 1}, {}, {-1}, {2, 3}},
        {{1, 3, 2}, {}, {1}, {1, 3, 2}},
        {{1, 1, 3, 5}, {}, {0, 1}, {3, 5}},
        {{1, 1}, {}, {0, 1}, {1}},
    };
    for (const Case& c : cases)
    {
        Mat in = seq(c.in);
        ParamDict pd = params(c.flags);
        if (!c.axes.empty())
            pd.set(3, IntArrayMat(c.axes));
        // squeezing keeps the row-major order: compare flat positions
        std::vector<float> flat;
        for_each_index(c.in, [&](const Shape& i) { flat.push_back(lget(in, i)); });
        size_t k = 0;
        Mat out = run("Squeeze", pd, {in})[0];
        EXPECT_TRUE(matches(out, c.out, [&](const Shape&) { return flat[k++]; })) << str(c.in);
    }
    ParamDict pd;
    pd.set(3, IntArrayMat({3}));
    EXPECT_TRUE(fails("Squeeze", pd, {seq({1, 3, 5})}));
}
