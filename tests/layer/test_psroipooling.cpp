#include "testutil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

static Mat naive(const Mat& in, const float* roi, int PW, int PH, float scale, int dim)
{
    const double x1 = std::round(roi[0]) * scale, y1 = std::round(roi[1]) * scale;
    const double x2 = std::round(roi[2] + 1.f) * scale, y2 = std::round(roi[3] + 1.f) * scale;
    const double rw = std::max(x2 - x1, 0.1), rh = std::max(y2 - y1, 0.1);
    Mat out(PW, PH, dim);
    for (int k = 0; k < dim; k++)
        for (int ph = 0; ph < PH; ph++)
            for (int pw = 0; pw < PW; pw++)
            {
                const float* p = in.channel((k * PH + ph) * PW + pw);
                double sum = 0;
                int n = 0;
                for (int y = 0; y < in.h; y++)
                    for (int x = 0; x < in.w; x++)
                        if (y >= std::floor(y1 + ph * rh / PH) && y < std::ceil(y1 + (ph + 1) * rh / PH) && x >= std::floor(x1 + pw * rw / PW) && x < std::ceil(x1 + (pw + 1) * rw / PW))
                        {
                            sum += p[y * in.w + x];
                            n++;
                        }
                ((float*)out.channel(k).data)[ph * PW + pw] = n ? (float)(sum / n) : 0.f;
            }
    return out;
}

TEST(PSROIPooling, against_naive)
{
    reseed(12);
    for (int iter = 0; iter < 30; iter++)
    {
        const int w = rand_int(3, 14), h = rand_int(3, 14), PW = rand_int(1, 4), PH = rand_int(1, 4), dim = rand_int(1, 3);
        const float scale = rand_int(0, 1) ? 1.f : 0.25f;
        Mat in = RandomMat(w, h, dim * PW * PH);
        Mat roi(4);
        roi[0] = rand_float(-2.f, w / scale);
        roi[1] = rand_float(-2.f, h / scale);
        roi[2] = roi[0] + rand_float(0.f, w / scale);
        roi[3] = roi[1] + rand_float(0.f, h / scale);
        ParamDict pd;
        pd.set(0, PW);
        pd.set(1, PH);
        pd.set(2, scale);
        pd.set(3, dim);
        std::vector<Mat> out;
        KITE_EXPECT_LAYER_OK(test_layer("PSROIPooling", pd, {}, {in, roi}, TestLayerFlags(), &out));
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(compare_mat(out[0], naive(in, roi, PW, PH, scale, dim), 1e-5f), "") << "iter " << iter;
    }
}

TEST(PSROIPooling, channel_mismatch)
{
    ParamDict pd;
    pd.set(0, 2);
    pd.set(1, 2);
    pd.set(3, 2);
    std::string why;
    EXPECT_TRUE(run_reference("PSROIPooling", pd, {}, {RandomMat(5, 5, 7), RandomMat(4)}, &why).empty());
}
