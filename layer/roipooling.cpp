#include "roipooling.h"

#include "common/detection_common.h"
#include "log.h"

#include <algorithm>
#include <cmath>

namespace kite {

ROIPooling::ROIPooling()
{
    one_blob_only = false;
    support_inplace = false;
}

int ROIPooling::load_param(const ParamDict& pd)
{
    pooled_width = pd.get(PARAM_POOLED_WIDTH, 0);
    pooled_height = pd.get(PARAM_POOLED_HEIGHT, 0);
    spatial_scale = pd.get(PARAM_SPATIAL_SCALE, 1.f);
    if (pooled_width < 1 || pooled_height < 1)
    {
        KITE_LOGE("ROIPooling '%s': pooled size %d x %d must be >= 1 (params 0, 1)", name.c_str(), pooled_width, pooled_height);
        return -1;
    }
    return 0;
}

int ROIPooling::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    if (bottom_blobs.size() < 2 || top_blobs.empty() || bottom_blobs[0].dims != 3 || detection::contiguous_count(bottom_blobs[1]) < 4)
    {
        KITE_LOGE("ROIPooling '%s': needs a dims-3 feature map and an ROI blob of 4 values", name.c_str());
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

    const int roi_x1 = (int)std::round(roi[0] * spatial_scale);
    const int roi_y1 = (int)std::round(roi[1] * spatial_scale);
    const int roi_x2 = (int)std::round(roi[2] * spatial_scale);
    const int roi_y2 = (int)std::round(roi[3] * spatial_scale);
    const int roi_w = std::max(roi_x2 - roi_x1 + 1, 1);
    const int roi_h = std::max(roi_y2 - roi_y1 + 1, 1);
    // the exact quotient, as ncnn's source computes it (see roipooling.h on
    // builds of ncnn that start exact-integer bins one pixel early)
    const float bin_w = (float)roi_w / (float)pooled_width;
    const float bin_h = (float)roi_h / (float)pooled_height;

    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < channels; q++)
    {
        const float* ptr = bottom_blob.channel(q);
        float* outptr = top_blob.channel(q);
        for (int ph = 0; ph < pooled_height; ph++)
        {
            for (int pw = 0; pw < pooled_width; pw++)
            {
                int hstart = (int)(roi_y1 + std::floor(ph * bin_h));
                int wstart = (int)(roi_x1 + std::floor(pw * bin_w));
                int hend = (int)(roi_y1 + std::ceil((ph + 1) * bin_h));
                int wend = (int)(roi_x1 + std::ceil((pw + 1) * bin_w));
                hstart = std::min(std::max(hstart, 0), h);
                wstart = std::min(std::max(wstart, 0), w);
                hend = std::min(std::max(hend, 0), h);
                wend = std::min(std::max(wend, 0), w);

                const bool is_empty = hend <= hstart || wend <= wstart;
                float m = is_empty ? 0.f : ptr[hstart * w + wstart];
                for (int y = hstart; y < hend; y++)
                    for (int x = wstart; x < wend; x++)
                        m = std::max(m, ptr[y * w + x]);
                outptr[pw] = m;
            }
            outptr += pooled_width;
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(ROIPooling)

} // namespace kite
