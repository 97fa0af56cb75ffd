#include "testutil.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>

using namespace kite;
using namespace kite::test;

// independent formulation in integers: a pixel belongs to bin ph when it lies
// in [y1 + floor(ph * rh / PH), y1 + ceil((ph + 1) * rh / PH)) (roipooling.h)
static int bin_start(int k, int r, int P)
{
    return k * r / P;
}
static int bin_end(int k, int r, int P)
{
    return ((k + 1) * r + P - 1) / P;
}
static Mat naive(const Mat& in, const float* roi, int PW, int PH, float scale)
{
    const int x1 = (int)std::lround(roi[0] * scale), y1 = (int)std::lround(roi[1] * scale);
    const int x2 = (int)std::lround(roi[2] * scale), y2 = (int)std::lround(roi[3] * scale);
    const int rw = std::max(x2 - x1 + 1, 1), rh = std::max(y2 - y1 + 1, 1);
    Mat out(PW, PH, in.c);
    for (int q = 0; q < in.c; q++)
        for (int ph = 0; ph < PH; ph++)
            for (int pw = 0; pw < PW; pw++)
            {
                float m = -FLT_MAX;
                bool any = false;
                for (int y = 0; y < in.h; y++)
                    for (int x = 0; x < in.w; x++)
                    {
                        const bool iny = y >= y1 + bin_start(ph, rh, PH) && y < y1 + bin_end(ph, rh, PH);
                        const bool inx = x >= x1 + bin_start(pw, rw, PW) && x < x1 + bin_end(pw, rw, PW);
                        if (iny && inx)
                        {
                            m = std::max(m, ((const float*)in.channel(q).data)[y * in.w + x]);
                            any = true;
                        }
                    }
                ((float*)out.channel(q).data)[ph * PW + pw] = any ? m : 0.f;
            }
    return out;
}

TEST(ROIPooling, against_naive)
{
    reseed(11);
    for (int iter = 0; iter < 30; iter++)
    {
        const int w = rand_int(3, 14), h = rand_int(3, 14), c = rand_int(1, 4);
        const float scale = rand_int(0, 1) ? 1.f : 0.5f;
        Mat in = RandomMat(w, h, c);
        Mat roi(4);
        roi[0] = rand_float(-2.f, w / scale);
        roi[1] = rand_float(-2.f, h / scale);
        roi[2] = roi[0] + rand_float(0.f, w / scale);
        roi[3] = roi[1] + rand_float(0.f, h / scale);
        const int PW = rand_int(1, 5), PH = rand_int(1, 5);
        ParamDict pd;
        pd.set(0, PW);
        pd.set(1, PH);
        pd.set(2, scale);
        std::vector<Mat> out;
        KITE_EXPECT_LAYER_OK(test_layer("ROIPooling", pd, {}, {in, roi}, TestLayerFlags(), &out));
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(compare_mat(out[0], naive(in, roi, PW, PH, scale), 0.f), "") << "iter " << iter;
    }
}

TEST(ROIPooling, bad_input)
{
    ParamDict pd;
    std::string why;
    EXPECT_TRUE(run_reference("ROIPooling", pd, {}, {RandomMat(4, 4, 1), RandomMat(4)}, &why).empty()); // pooled 0
    pd.set(0, 2);
    pd.set(1, 2);
    EXPECT_TRUE(run_reference("ROIPooling", pd, {}, {RandomMat(4, 4, 1), RandomMat(3)}, &why).empty()); // roi too short
}
