#include "proposal.h"

#include "common/detection_common.h"
#include "log.h"

#include <cmath>

namespace kite {

namespace {
struct Rect
{
    float xmin;
    float ymin;
    float xmax;
    float ymax;
};
} // namespace

Proposal::Proposal()
{
    one_blob_only = false;
    support_inplace = false;

    ratios.create(3);
    ratios[0] = 0.5f;
    ratios[1] = 1.f;
    ratios[2] = 2.f;
    scales.create(3);
    scales[0] = 8.f;
    scales[1] = 16.f;
    scales[2] = 32.f;
}

int Proposal::load_param(const ParamDict& pd)
{
    feat_stride = pd.get(PARAM_FEAT_STRIDE, 16);
    base_size = pd.get(PARAM_BASE_SIZE, 16);
    pre_nms_topN = pd.get(PARAM_PRE_NMS_TOPN, 6000);
    after_nms_topN = pd.get(PARAM_AFTER_NMS_TOPN, 300);
    nms_thresh = pd.get(PARAM_NMS_THRESH, 0.7f);
    min_size = pd.get(PARAM_MIN_SIZE, 16);

    // the anchors' sides are base_size / sqrt(ratio) * scale, held as ints
    if (base_size < 1 || base_size > 65536 || after_nms_topN < 1)
    {
        KITE_LOGE("Proposal '%s': base_size %d must be in 1..65536 and after_nms_topN %d >= 1", name.c_str(), base_size,
                  after_nms_topN);
        return -1;
    }

    const int num_ratio = ratios.w;
    const int num_scale = scales.w;
    anchors.create(4, num_ratio * num_scale);
    if (anchors.empty())
        return -100;
    const float cx = base_size * 0.5f;
    const float cy = base_size * 0.5f;
    for (int i = 0; i < num_ratio; i++)
    {
        const float ar = ratios[i];
        const int r_w = (int)std::round(base_size / std::sqrt(ar));
        const int r_h = (int)std::round(r_w * ar);
        for (int j = 0; j < num_scale; j++)
        {
            const float rs_w = r_w * scales[j];
            const float rs_h = r_h * scales[j];
            float* a = anchors.row(i * num_scale + j);
            a[0] = cx - rs_w * 0.5f;
            a[1] = cy - rs_h * 0.5f;
            a[2] = cx + rs_w * 0.5f;
            a[3] = cy + rs_h * 0.5f;
        }
    }
    return 0;
}

int Proposal::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    if (bottom_blobs.size() < 3 || top_blobs.empty())
    {
        KITE_LOGE("Proposal '%s': needs 3 inputs (scores, bbox deltas, im_info), got %d", name.c_str(), (int)bottom_blobs.size());
        return -1;
    }
    const Mat& score_blob = bottom_blobs[0];
    const Mat& bbox_blob = bottom_blobs[1];
    const Mat& im_info_blob = bottom_blobs[2];
    const int num_anchors = anchors.h;
    const int w = score_blob.w;
    const int h = score_blob.h;

    if (score_blob.dims != 3 || score_blob.c < 2 * num_anchors)
    {
        KITE_LOGE("Proposal '%s': scores must be dims 3 with >= %d channels, got dims %d c %d", name.c_str(), 2 * num_anchors, score_blob.dims, score_blob.c);
        return -1;
    }
    if (bbox_blob.dims != 3 || bbox_blob.w != w || bbox_blob.h != h || bbox_blob.c < 4 * num_anchors)
    {
        KITE_LOGE("Proposal '%s': bbox deltas must be dims 3 (%d, %d, >= %d), got dims %d (%d, %d, %d)", name.c_str(), w, h, 4 * num_anchors,
                  bbox_blob.dims, bbox_blob.w, bbox_blob.h, bbox_blob.c);
        return -1;
    }
    if (detection::contiguous_count(im_info_blob) < 3)
    {
        KITE_LOGE("Proposal '%s': im_info needs 3 values (height, width, scale)", name.c_str());
        return -1;
    }

    Mat proposals;
    proposals.create(4, w * h, num_anchors, 4u, opt.workspace_allocator);
    if (proposals.empty())
        return -100;

    const float* im_info = im_info_blob;
    const float im_h = im_info[0];
    const float im_w = im_info[1];
    const float im_scale = im_info[2];

    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < num_anchors; q++)
    {
        const float* dxp = bbox_blob.channel(q * 4);
        const float* dyp = bbox_blob.channel(q * 4 + 1);
        const float* dwp = bbox_blob.channel(q * 4 + 2);
        const float* dhp = bbox_blob.channel(q * 4 + 3);
        Mat pbs = proposals.channel(q);
        const float* anchor = anchors.row(q);
        const float anchor_w = anchor[2] - anchor[0];
        const float anchor_h = anchor[3] - anchor[1];

        float anchor_y = anchor[1];
        for (int i = 0; i < h; i++)
        {
            float anchor_x = anchor[0];
            for (int j = 0; j < w; j++)
            {
                const int idx = i * w + j;
                float* pb = pbs.row(idx);
                const float cx = anchor_x + anchor_w * 0.5f;
                const float cy = anchor_y + anchor_h * 0.5f;
                const float pcx = cx + anchor_w * dxp[idx];
                const float pcy = cy + anchor_h * dyp[idx];
                const float pw = anchor_w * std::exp(dwp[idx]);
                const float ph = anchor_h * std::exp(dhp[idx]);
                pb[0] = std::max(std::min(pcx - pw * 0.5f, im_w - 1), 0.f);
                pb[1] = std::max(std::min(pcy - ph * 0.5f, im_h - 1), 0.f);
                pb[2] = std::max(std::min(pcx + pw * 0.5f, im_w - 1), 0.f);
                pb[3] = std::max(std::min(pcy + ph * 0.5f, im_h - 1), 0.f);
                anchor_x += feat_stride;
            }
            anchor_y += feat_stride;
        }
    }

    std::vector<Rect> boxes;
    std::vector<float> scores;
    const float min_boxsize = min_size * im_scale;
    for (int q = 0; q < num_anchors; q++)
    {
        const Mat pbs = proposals.channel(q);
        const float* sp = score_blob.channel(q + num_anchors);
        for (int i = 0; i < w * h; i++)
        {
            const float* pb = pbs.row(i);
            if (pb[2] - pb[0] + 1 >= min_boxsize && pb[3] - pb[1] + 1 >= min_boxsize)
            {
                Rect r = {pb[0], pb[1], pb[2], pb[3]};
                boxes.push_back(r);
                scores.push_back(sp[i]);
            }
        }
    }

    detection::sort_descent(boxes, scores);
    if (pre_nms_topN > 0 && pre_nms_topN < (int)boxes.size())
    {
        boxes.resize(pre_nms_topN);
        scores.resize(pre_nms_topN);
    }

    std::vector<int> picked;
    detection::nms_sorted(boxes, picked, nms_thresh, true);
    const int count = std::min((int)picked.size(), after_nms_topN);
    if (count == 0)
    {
        KITE_LOGE("Proposal '%s': no proposal survived the size filter and NMS (ncnn fails here too)", name.c_str());
        return -1;
    }

    Mat& roi_blob = top_blobs[0];
    roi_blob.create(4, 1, count, 4u, opt.blob_allocator);
    if (roi_blob.empty())
        return -100;
    for (int i = 0; i < count; i++)
    {
        float* out = roi_blob.channel(i);
        const Rect& r = boxes[picked[i]];
        out[0] = r.xmin;
        out[1] = r.ymin;
        out[2] = r.xmax;
        out[3] = r.ymax;
    }

    if (top_blobs.size() > 1)
    {
        Mat& score_out = top_blobs[1];
        score_out.create(1, 1, count, 4u, opt.blob_allocator);
        if (score_out.empty())
            return -100;
        for (int i = 0; i < count; i++)
            ((float*)score_out.channel(i).data)[0] = scores[picked[i]];
    }
    return 0;
}

DEFINE_LAYER_CREATOR(Proposal)

} // namespace kite
