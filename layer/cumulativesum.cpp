#include "cumulativesum.h"

#include "common/shape_util.h"
#include "log.h"

namespace kite {

CumulativeSum::CumulativeSum()
{
    one_blob_only = true;
    support_inplace = true;
}

int CumulativeSum::load_param(const ParamDict& pd)
{
    axis = pd.get(PARAM_AXIS, 0);
    return 0;
}

int CumulativeSum::forward_inplace(Mat& m, const Option& opt) const
{
    if (!shape::plain_blob(m) || m.elemsize != 4)
    {
        KITE_LOGE("CumulativeSum '%s': input must be a non-empty fp32 elempack 1 blob of dims 1..4", name.c_str());
        return -1;
    }
    const int a = shape::normalize_axis(axis, m.dims);
    if (a < 0)
    {
        KITE_LOGE("CumulativeSum '%s': axis %d out of range for a %d-dims input", name.c_str(), axis, m.dims);
        return -1;
    }
    int ext[4];
    shape::to_cdhw(shape::dims_of(m), ext);
    const int ax = shape::cdhw_axis(m.dims, a);
    // walk every line along ax: the other three coordinates enumerate the lines
    int other[3], k = 0;
    for (int i = 0; i < 4; i++)
        if (i != ax)
            other[k++] = i;
    const int n0 = ext[other[0]], n1 = ext[other[1]], n2 = ext[other[2]];
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int i0 = 0; i0 < n0; i0++)
    {
        for (int i1 = 0; i1 < n1; i1++)
        {
            for (int i2 = 0; i2 < n2; i2++)
            {
                int coord[4];
                coord[other[0]] = i0;
                coord[other[1]] = i1;
                coord[other[2]] = i2;
                float sum = 0.f;
                for (int t = 0; t < ext[ax]; t++)
                {
                    coord[ax] = t;
                    float* p = (float*)shape::ptr_at(m, coord[0], coord[1], coord[2], coord[3]);
                    sum += *p;
                    *p = sum;
                }
            }
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(CumulativeSum)

} // namespace kite
