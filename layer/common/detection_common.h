#ifndef KITE_LAYER_COMMON_DETECTION_COMMON_H
#define KITE_LAYER_COMMON_DETECTION_COMMON_H

// Helpers shared by the detection post-processing layers (DetectionOutput,
// YoloDetectionOutput, Yolov3DetectionOutput, Proposal).
//
// The ordering of detections must be exactly ncnn's, including the order of
// equal scores, so that outputs compare equal row by row. ncnn sorts with a
// plain recursive quicksort (Hoare partition, middle element as pivot,
// descending) which is not stable; sort_descent below implements that same
// algorithm, so ties land where ncnn puts them. IoU has no "+1" pixel term and
// suppression is strict: a box is dropped when IoU > threshold.

#include "mat.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace kite {
namespace detection {

struct BBox
{
    float xmin;
    float ymin;
    float xmax;
    float ymax;
    int label;
};

// Descending quicksort of items by scores (both vectors permuted together),
// on the inclusive range [left, right].
template<typename T>
void sort_descent(std::vector<T>& items, std::vector<float>& scores, int left, int right)
{
    int i = left;
    int j = right;
    const float pivot = scores[(left + right) / 2];

    while (i <= j)
    {
        // the bounds checks never change the result; they only guard
        // against NaN scores breaking the usual partition invariants
        while (i < right && scores[i] > pivot)
            i++;
        while (j > left && scores[j] < pivot)
            j--;

        if (i <= j)
        {
            std::swap(items[i], items[j]);
            std::swap(scores[i], scores[j]);
            i++;
            j--;
        }
    }

    if (left < j)
        sort_descent(items, scores, left, j);
    if (i < right)
        sort_descent(items, scores, i, right);
}

template<typename T>
void sort_descent(std::vector<T>& items, std::vector<float>& scores)
{
    if (items.empty() || scores.empty())
        return;
    sort_descent(items, scores, 0, (int)scores.size() - 1);
}

template<typename R>
inline float intersection_area(const R& a, const R& b)
{
    if (a.xmin > b.xmax || a.xmax < b.xmin || a.ymin > b.ymax || a.ymax < b.ymin)
        return 0.f;
    const float iw = std::min(a.xmax, b.xmax) - std::max(a.xmin, b.xmin);
    const float ih = std::min(a.ymax, b.ymax) - std::max(a.ymin, b.ymin);
    return iw * ih;
}

// Greedy NMS over boxes already sorted by descending score: keep a box unless
// its IoU with an already kept box exceeds threshold. Returns kept indices.
// IoU of two zero-area boxes is 0/0: ncnn's source keeps the box (NaN > t is
// false), but ncnn as built for x86 suppresses it in Proposal (where clipping
// to the image makes such boxes common); nan_suppresses selects that.
template<typename R>
void nms_sorted(const std::vector<R>& boxes, std::vector<int>& picked, float threshold, bool nan_suppresses = false)
{
    picked.clear();
    const int n = (int)boxes.size();
    std::vector<float> areas(n);
    for (int i = 0; i < n; i++)
        areas[i] = (boxes[i].xmax - boxes[i].xmin) * (boxes[i].ymax - boxes[i].ymin);

    for (int i = 0; i < n; i++)
    {
        bool keep = true;
        for (size_t k = 0; k < picked.size(); k++)
        {
            const int p = picked[k];
            const float inter = intersection_area(boxes[i], boxes[p]);
            const float uni = areas[i] + areas[p] - inter;
            // written as a comparison of the quotient (not inter > t * uni)
            // so that 0/0 keeps the box exactly as ncnn does
            const float iou = inter / uni;
            if (iou > threshold || (nan_suppresses && iou != iou))
                keep = false;
        }
        if (keep)
            picked.push_back(i);
    }
}

static inline float sigmoid(float x)
{
    return 1.f / (1.f + std::exp(-x));
}

// Number of scalars that can be read contiguously from m.data (the first
// channel for dims 3/4, everything for dims 1/2).
static inline size_t contiguous_count(const Mat& m)
{
    if (m.empty())
        return 0;
    if (m.dims <= 2)
        return (size_t)m.w * m.h;
    if (m.c == 1 || m.cstep == (size_t)m.w * m.h * m.d)
        return (size_t)m.w * m.h * m.d * m.c;
    return (size_t)m.w * m.h * m.d;
}

// All scalars of m as one contiguous fp32 array (a copy only when channels
// are padded). Returns an empty Mat on allocation failure.
static inline Mat flatten_fp32(const Mat& m, Allocator* allocator)
{
    const size_t total = (size_t)m.w * m.h * m.d * (m.dims >= 3 ? m.c : 1);
    if (contiguous_count(m) >= total)
    {
        Mat v = m;
        v.dims = 1;
        v.w = (int)total;
        v.h = 1;
        v.d = 1;
        v.c = 1;
        v.cstep = total;
        return v;
    }
    Mat v;
    v.create((int)total, 4u, allocator);
    if (v.empty())
        return v;
    const size_t plane = (size_t)m.w * m.h * m.d;
    for (int q = 0; q < m.c; q++)
        memcpy((float*)v.data + plane * q, (const float*)m.channel(q).data, plane * sizeof(float));
    return v;
}

} // namespace detection
} // namespace kite

#endif // KITE_LAYER_COMMON_DETECTION_COMMON_H
