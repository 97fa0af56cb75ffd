#include "detectionoutput.h"

#include "common/detection_common.h"
#include "log.h"

#include <cmath>

namespace kite {

using detection::BBox;

DetectionOutput::DetectionOutput()
{
    one_blob_only = false;
    support_inplace = false;
}

int DetectionOutput::load_param(const ParamDict& pd)
{
    num_class = pd.get(PARAM_NUM_CLASS, 0);
    nms_threshold = pd.get(PARAM_NMS_THRESHOLD, 0.05f);
    nms_top_k = pd.get(PARAM_NMS_TOP_K, 300);
    keep_top_k = pd.get(PARAM_KEEP_TOP_K, 100);
    confidence_threshold = pd.get(PARAM_CONFIDENCE_THRESHOLD, 0.5f);
    variances[0] = pd.get(PARAM_VARIANCE0, 0.1f);
    variances[1] = pd.get(PARAM_VARIANCE1, 0.1f);
    variances[2] = pd.get(PARAM_VARIANCE2, 0.2f);
    variances[3] = pd.get(PARAM_VARIANCE3, 0.2f);

    if (num_class < 1 && num_class != -233)
    {
        KITE_LOGE("DetectionOutput '%s': num_class (param 0) is %d; it must be >= 1 (or -233 for MXNet style)", name.c_str(), num_class);
        return -1;
    }
    return 0;
}

int DetectionOutput::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    if (bottom_blobs.size() < 3 || top_blobs.empty())
    {
        KITE_LOGE("DetectionOutput '%s': needs 3 inputs (location, confidence, priorbox), got %d", name.c_str(), (int)bottom_blobs.size());
        return -1;
    }
    const Mat& location = bottom_blobs[0];
    const Mat& confidence = bottom_blobs[1];
    const Mat& priorbox = bottom_blobs[2];
    const bool mxnet_style = num_class == -233;

    if (priorbox.dims != 2 || (!mxnet_style && (priorbox.h < 2 || priorbox.w % 4 != 0)) || (mxnet_style && priorbox.w != 4))
    {
        KITE_LOGE("DetectionOutput '%s': priorbox must be dims 2 with %s, got dims %d w %d h %d", name.c_str(),
                  mxnet_style ? "w 4 (MXNet style)" : "w = 4 * num_prior and 2 rows (boxes, variances)",
                  priorbox.dims, priorbox.w, priorbox.h);
        return -1;
    }
    const int num_prior = mxnet_style ? priorbox.h : priorbox.w / 4;
    const int classes = mxnet_style ? confidence.h : num_class;

    Mat loc = detection::flatten_fp32(location, opt.workspace_allocator);
    Mat conf = detection::flatten_fp32(confidence, opt.workspace_allocator);
    if (loc.empty() || conf.empty())
    {
        KITE_LOGE("DetectionOutput '%s': empty location or confidence input", name.c_str());
        return -1;
    }
    if ((size_t)loc.w < (size_t)num_prior * 4)
    {
        KITE_LOGE("DetectionOutput '%s': location has %d values, need 4 * num_prior = %d", name.c_str(), loc.w, num_prior * 4);
        return -1;
    }
    if (mxnet_style)
    {
        if (confidence.dims != 2 || confidence.w != num_prior || confidence.h < 1)
        {
            KITE_LOGE("DetectionOutput '%s': MXNet style confidence must be dims 2 with w = num_prior %d, got dims %d w %d h %d",
                      name.c_str(), num_prior, confidence.dims, confidence.w, confidence.h);
            return -1;
        }
    }
    else if ((size_t)conf.w < (size_t)num_prior * num_class)
    {
        KITE_LOGE("DetectionOutput '%s': confidence has %d values, need num_prior * num_class = %d * %d", name.c_str(), conf.w, num_prior, num_class);
        return -1;
    }

    const float* loc_ptr = loc;
    const float* conf_ptr = conf;
    const float* pb_ptr = priorbox.row(0);
    const float* var_ptr = mxnet_style ? nullptr : priorbox.row(1);

    // decode every prior (ncnn may skip priors whose background score is
    // >= 1 - confidence_threshold; for softmax confidences those priors can
    // never pass the threshold, so the result is the same)
    Mat bboxes;
    bboxes.create(4, num_prior, 4u, opt.workspace_allocator);
    if (bboxes.empty())
        return -100;

    #pragma omp parallel for num_threads(opt.num_threads)
    for (int i = 0; i < num_prior; i++)
    {
        const float* l = loc_ptr + (size_t)i * 4;
        const float* pb = pb_ptr + (size_t)i * 4;
        const float* var = var_ptr ? var_ptr + (size_t)i * 4 : variances;
        float* bbox = bboxes.row(i);

        const float pb_w = pb[2] - pb[0];
        const float pb_h = pb[3] - pb[1];
        const float pb_cx = (pb[0] + pb[2]) * 0.5f;
        const float pb_cy = (pb[1] + pb[3]) * 0.5f;

        const float cx = var[0] * l[0] * pb_w + pb_cx;
        const float cy = var[1] * l[1] * pb_h + pb_cy;
        const float bw = std::exp(var[2] * l[2]) * pb_w;
        const float bh = std::exp(var[3] * l[3]) * pb_h;

        bbox[0] = cx - bw * 0.5f;
        bbox[1] = cy - bh * 0.5f;
        bbox[2] = cx + bw * 0.5f;
        bbox[3] = cy + bh * 0.5f;
    }

    std::vector<std::vector<BBox> > class_rects(classes);
    std::vector<std::vector<float> > class_scores(classes);

    // class 0 is the background
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int c = 1; c < classes; c++)
    {
        std::vector<BBox> rects;
        std::vector<float> scores;
        for (int j = 0; j < num_prior; j++)
        {
            // Caffe: num_prior x num_class; MXNet: num_class x num_prior
            const float score = mxnet_style ? conf_ptr[(size_t)c * num_prior + j] : conf_ptr[(size_t)j * classes + c];
            if (score > confidence_threshold)
            {
                const float* b = bboxes.row(j);
                BBox r = {b[0], b[1], b[2], b[3], c};
                rects.push_back(r);
                scores.push_back(score);
            }
        }

        detection::sort_descent(rects, scores);
        if (nms_top_k < (int)rects.size())
        {
            rects.resize(nms_top_k < 0 ? 0 : nms_top_k);
            scores.resize(rects.size());
        }

        std::vector<int> picked;
        detection::nms_sorted(rects, picked, nms_threshold);
        for (size_t k = 0; k < picked.size(); k++)
        {
            class_rects[c].push_back(rects[picked[k]]);
            class_scores[c].push_back(scores[picked[k]]);
        }
    }

    std::vector<BBox> rects;
    std::vector<float> scores;
    for (int c = 1; c < classes; c++)
    {
        rects.insert(rects.end(), class_rects[c].begin(), class_rects[c].end());
        scores.insert(scores.end(), class_scores[c].begin(), class_scores[c].end());
    }

    detection::sort_descent(rects, scores);
    if (keep_top_k < (int)rects.size())
    {
        rects.resize(keep_top_k < 0 ? 0 : keep_top_k);
        scores.resize(rects.size());
    }

    Mat& top_blob = top_blobs[0];
    const int num_detected = (int)rects.size();
    if (num_detected == 0)
    {
        // ncnn leaves the output empty and succeeds
        top_blob.release();
        return 0;
    }

    top_blob.create(6, num_detected, 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    for (int i = 0; i < num_detected; i++)
    {
        float* out = top_blob.row(i);
        out[0] = (float)rects[i].label;
        out[1] = scores[i];
        out[2] = rects[i].xmin;
        out[3] = rects[i].ymin;
        out[4] = rects[i].xmax;
        out[5] = rects[i].ymax;
    }
    return 0;
}

DEFINE_LAYER_CREATOR(DetectionOutput)

} // namespace kite
