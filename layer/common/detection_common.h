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
//
// Same result as comparing every box with every kept one (ncnn's loop), in
// less time: a box is dropped at the first kept box that suppresses it, and
// without nan_suppresses a kept box whose closed extent shares no point with
// the box's cannot suppress it (intersection_area is 0, the IoU 0 or 0/0),
// so only kept boxes in the grid cells the box covers are compared. Boxes the
// grid cannot place (NaN or infinite corners, xmax < xmin, or an extent over
// a quarter of the grid's side) are compared with every kept box / every box.
template<typename R>
void nms_sorted(const std::vector<R>& boxes, std::vector<int>& picked, float threshold, bool nan_suppresses = false)
{
    picked.clear();
    const int n = (int)boxes.size();
    std::vector<float> areas(n);
    for (int i = 0; i < n; i++)
        areas[i] = (boxes[i].xmax - boxes[i].xmin) * (boxes[i].ymax - boxes[i].ymin);

    auto suppresses = [&](int i, int p) {
        const float inter = intersection_area(boxes[i], boxes[p]);
        const float uni = areas[i] + areas[p] - inter;
        // written as a comparison of the quotient (not inter > t * uni)
        // so that 0/0 keeps the box exactly as ncnn does
        const float iou = inter / uni;
        return iou > threshold || (nan_suppresses && iou != iou);
    };
    // kept boxes as arrays, compared 16 at a time without branches (the
    // compiler vectorises the inner loop; same arithmetic as suppresses():
    // std::min(x, y) is (y < x) ? y : x, std::max(x, y) (x < y) ? y : x)
    struct Kept
    {
        std::vector<float> x0, y0, x1, y1, area;
        void push(const R& b, float a)
        {
            x0.push_back(b.xmin);
            y0.push_back(b.ymin);
            x1.push_back(b.xmax);
            y1.push_back(b.ymax);
            area.push_back(a);
        }
    };
    auto any_suppresses = [&](int i, const Kept& kept) {
        const R& a = boxes[i];
        const float ai = areas[i];
        const size_t m = kept.x0.size();
        for (size_t k0 = 0; k0 < m; k0 += 16)
        {
            const size_t kn = std::min(m - k0, (size_t)16);
            const float* bx0 = kept.x0.data() + k0;
            const float* by0 = kept.y0.data() + k0;
            const float* bx1 = kept.x1.data() + k0;
            const float* by1 = kept.y1.data() + k0;
            const float* ba = kept.area.data() + k0;
            int hit = 0;
            for (size_t k = 0; k < kn; k++)
            {
                const bool apart = (a.xmin > bx1[k]) | (a.xmax < bx0[k]) | (a.ymin > by1[k]) | (a.ymax < by0[k]);
                const float iw = (bx1[k] < a.xmax ? bx1[k] : a.xmax) - (a.xmin < bx0[k] ? bx0[k] : a.xmin);
                const float ih = (by1[k] < a.ymax ? by1[k] : a.ymax) - (a.ymin < by0[k] ? by0[k] : a.ymin);
                const float inter = apart ? 0.f : iw * ih;
                const float iou = inter / (ai + ba[k] - inter);
                hit |= (int)(iou > threshold) | ((int)nan_suppresses & (int)(iou != iou));
            }
            if (hit)
                return true;
        }
        return false;
    };
    Kept kept_all;
    auto against_all = [&](int i) {
        return !any_suppresses(i, kept_all);
    };
    auto keep_box = [&](int i) {
        picked.push_back(i);
        kept_all.push(boxes[i], areas[i]);
    };
    if (nan_suppresses || n < 64)
    {
        for (int i = 0; i < n; i++)
            if (against_all(i))
                keep_box(i);
        return;
    }

    auto finite_box = [&](int i) {
        const R& b = boxes[i];
        return std::isfinite(b.xmin) && std::isfinite(b.ymin) && std::isfinite(b.xmax) && std::isfinite(b.ymax) &&
               b.xmin <= b.xmax && b.ymin <= b.ymax;
    };
    float x0 = 0.f, x1 = 0.f, y0 = 0.f, y1 = 0.f;
    bool any = false;
    for (int i = 0; i < n; i++)
    {
        if (!finite_box(i))
            continue;
        const R& b = boxes[i];
        x0 = any ? std::min(x0, b.xmin) : b.xmin;
        x1 = any ? std::max(x1, b.xmax) : b.xmax;
        y0 = any ? std::min(y0, b.ymin) : b.ymin;
        y1 = any ? std::max(y1, b.ymax) : b.ymax;
        any = true;
    }
    const int G = 32; // cells a side
    const float sx = x1 - x0, sy = y1 - y0;
    float inv_x = any && sx > 0.f ? (float)G / sx : 0.f;
    float inv_y = any && sy > 0.f ? (float)G / sy : 0.f;
    if (!std::isfinite(inv_x)) // a span of inf, or so small that G / span overflows: one column
        inv_x = 0.f;
    if (!std::isfinite(inv_y))
        inv_y = 0.f;
    // monotone in v, so two closed intervals sharing a point share a cell
    auto cell = [&](float v, float o, float inv) {
        const float c = (v - o) * inv;
        return c <= 0.f ? 0 : c >= (float)(G - 1) ? G - 1 : (int)c;
    };
    std::vector<std::vector<int> > grid((size_t)G * G);
    Kept loose; // kept boxes the grid does not place
    std::vector<int> seen(n, -1);
    for (int i = 0; i < n; i++)
    {
        const R& b = boxes[i];
        int cx0 = 0, cx1 = 0, cy0 = 0, cy1 = 0;
        bool placed = finite_box(i);
        if (placed)
        {
            cx0 = cell(b.xmin, x0, inv_x);
            cx1 = cell(b.xmax, x0, inv_x);
            cy0 = cell(b.ymin, y0, inv_y);
            cy1 = cell(b.ymax, y0, inv_y);
            placed = cx1 - cx0 < G / 4 && cy1 - cy0 < G / 4;
        }
        bool keep = true;
        if (!placed)
            keep = against_all(i);
        else
        {
            keep = !any_suppresses(i, loose);
            for (int cy = cy0; cy <= cy1 && keep; cy++)
                for (int cx = cx0; cx <= cx1 && keep; cx++)
                {
                    const std::vector<int>& list = grid[(size_t)cy * G + cx];
                    for (size_t k = 0; k < list.size(); k++)
                    {
                        const int p = list[k];
                        if (seen[p] == i)
                            continue;
                        seen[p] = i;
                        if (suppresses(i, p))
                        {
                            keep = false;
                            break;
                        }
                    }
                }
        }
        if (!keep)
            continue;
        keep_box(i);
        if (!placed)
            loose.push(b, areas[i]);
        else
            for (int cy = cy0; cy <= cy1; cy++)
                for (int cx = cx0; cx <= cx1; cx++)
                    grid[(size_t)cy * G + cx].push_back(i);
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
