#include "roialign.h"

#include "common/detection_common.h"
#include "log.h"

#include <algorithm>
#include <cmath>

namespace kite {

ROIAlign::ROIAlign()
{
    one_blob_only = false;
    support_inplace = false;
}

int ROIAlign::load_param(const ParamDict& pd)
{
    pooled_width = pd.get(PARAM_POOLED_WIDTH, 0);
    pooled_height = pd.get(PARAM_POOLED_HEIGHT, 0);
    spatial_scale = pd.get(PARAM_SPATIAL_SCALE, 1.f);
    sampling_ratio = pd.get(PARAM_SAMPLING_RATIO, 0);
    aligned = pd.get(PARAM_ALIGNED, 0) != 0;
    version = pd.get(PARAM_VERSION, 0);
    if (pooled_width < 1 || pooled_height < 1)
    {
        KITE_LOGE("ROIAlign '%s': pooled size %d x %d must be >= 1 (params 0, 1)", name.c_str(), pooled_width, pooled_height);
        return -1;
    }
    if (version != 0 && version != 1)
    {
        KITE_LOGE("ROIAlign '%s': version (param 5) must be 0 or 1, got %d", name.c_str(), version);
        return -1;
    }
    if (sampling_ratio < 0)
    {
        KITE_LOGE("ROIAlign '%s': sampling_ratio (param 3) must be >= 0, got %d", name.c_str(), sampling_ratio);
        return -1;
    }
    return 0;
}

// x, y >= 0 here; coordinates at or past the last column/row use it
static inline float bilinear(const float* ptr, int w, int h, float x, float y)
{
    int x0 = (int)x;
    int y0 = (int)y;
    int x1 = x0 + 1;
    int y1 = y0 + 1;
    float a0 = x1 - x;
    float a1 = x - x0;
    float b0 = y1 - y;
    float b1 = y - y0;
    if (x1 >= w)
    {
        x0 = std::min(x0, w - 1);
        x1 = w - 1;
        a0 = 1.f;
        a1 = 0.f;
    }
    if (y1 >= h)
    {
        y0 = std::min(y0, h - 1);
        y1 = h - 1;
        b0 = 1.f;
        b1 = 0.f;
    }
    const float r0 = ptr[y0 * w + x0] * a0 + ptr[y0 * w + x1] * a1;
    const float r1 = ptr[y1 * w + x0] * a0 + ptr[y1 * w + x1] * a1;
    return r0 * b0 + r1 * b1;
}

int ROIAlign::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    if (bottom_blobs.size() < 2 || top_blobs.empty() || bottom_blobs[0].dims != 3 || detection::contiguous_count(bottom_blobs[1]) < 4)
    {
        KITE_LOGE("ROIAlign '%s': needs a dims-3 feature map and an ROI blob of 4 values", name.c_str());
        return -1;
    }
    const Mat& bottom_blob = bottom_blobs[0];
    const int w = bottom_blob.w;
    const int h = bottom_blob.h;
    const int channels = bottom_blob.c;
    const float* roi = bottom_blobs[1];

    Mat& top_blob = top_blobs[0];
    top_blob.create(pooled_width, pooled_height, channels, 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;

    float roi_x1 = roi[0] * spatial_scale;
    float roi_y1 = roi[1] * spatial_scale;
    float roi_x2 = roi[2] * spatial_scale;
    float roi_y2 = roi[3] * spatial_scale;
    if (aligned)
    {
        roi_x1 -= 0.5f;
        roi_y1 -= 0.5f;
        roi_x2 -= 0.5f;
        roi_y2 -= 0.5f;
    }
    float roi_w = roi_x2 - roi_x1;
    float roi_h = roi_y2 - roi_y1;
    if (!aligned)
    {
        roi_w = std::max(roi_w, 1.f);
        roi_h = std::max(roi_h, 1.f);
    }
    const float bin_w = roi_w / (float)pooled_width;
    const float bin_h = roi_h / (float)pooled_height;

    if (version == 0)
    {
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < channels; q++)
        {
            const float* ptr = bottom_blob.channel(q);
            float* outptr = top_blob.channel(q);
            for (int ph = 0; ph < pooled_height; ph++)
            {
                for (int pw = 0; pw < pooled_width; pw++)
                {
                    float hstart = roi_y1 + ph * bin_h;
                    float wstart = roi_x1 + pw * bin_w;
                    float hend = roi_y1 + (ph + 1) * bin_h;
                    float wend = roi_x1 + (pw + 1) * bin_w;
                    hstart = std::min(std::max(hstart, 0.f), (float)h);
                    wstart = std::min(std::max(wstart, 0.f), (float)w);
                    hend = std::min(std::max(hend, 0.f), (float)h);
                    wend = std::min(std::max(wend, 0.f), (float)w);

                    if (hend <= hstart || wend <= wstart)
                    {
                        outptr[pw] = 0.f;
                        continue;
                    }
                    const int grid_h = sampling_ratio > 0 ? sampling_ratio : (int)std::ceil(hend - hstart);
                    const int grid_w = sampling_ratio > 0 ? sampling_ratio : (int)std::ceil(wend - wstart);
                    float sum = 0.f;
                    for (int by = 0; by < grid_h; by++)
                    {
                        const float y = hstart + (by + 0.5f) * bin_h / (float)grid_h;
                        for (int bx = 0; bx < grid_w; bx++)
                        {
                            const float x = wstart + (bx + 0.5f) * bin_w / (float)grid_w;
                            sum += bilinear(ptr, w, h, x, y);
                        }
                    }
                    outptr[pw] = sum / (float)(grid_h * grid_w);
                }
                outptr += pooled_width;
            }
        }
        return 0;
    }

    // version 1: Detectron2
    const int grid_h = sampling_ratio > 0 ? sampling_ratio : (int)std::ceil(roi_h / pooled_height);
    const int grid_w = sampling_ratio > 0 ? sampling_ratio : (int)std::ceil(roi_w / pooled_width);
    const float count = (float)std::max(grid_h * grid_w, 1);

    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < channels; q++)
    {
        const float* ptr = bottom_blob.channel(q);
        float* outptr = top_blob.channel(q);
        for (int ph = 0; ph < pooled_height; ph++)
        {
            for (int pw = 0; pw < pooled_width; pw++)
            {
                float sum = 0.f;
                for (int by = 0; by < grid_h; by++)
                {
                    float y = roi_y1 + ph * bin_h + (by + 0.5f) * bin_h / (float)grid_h;
                    for (int bx = 0; bx < grid_w; bx++)
                    {
                        float x = roi_x1 + pw * bin_w + (bx + 0.5f) * bin_w / (float)grid_w;
                        if (y < -1.f || y > h || x < -1.f || x > w)
                            continue;
                        sum += bilinear(ptr, w, h, std::max(x, 0.f), std::max(y, 0.f));
                    }
                }
                outptr[pw] = sum / count;
            }
            outptr += pooled_width;
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(ROIAlign)

} // namespace kite
