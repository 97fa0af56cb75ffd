#include "rnn.h"

#include "log.h"

#include <cmath>

namespace kite {

int recurrent_prepare(const char* type, const char* name, const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs,
                      int input_size, int num_directions, const int* state_sizes, int state_count, int out_size,
                      std::vector<std::vector<float> >& states, const Option& opt)
{
    const int nin = (int)bottom_blobs.size();
    const int nout = (int)top_blobs.size();
    if ((nin != 1 && nin != 1 + state_count) || (nout != 1 && nout != 1 + state_count))
    {
        KITE_LOGE("%s '%s': expects 1 or %d inputs and outputs, got %d and %d", type, name, 1 + state_count, nin, nout);
        return -1;
    }
    const Mat& x = bottom_blobs[0];
    if (x.dims > 2 || x.w != input_size)
    {
        KITE_LOGE("%s '%s': input must be (%d, T), got dims %d w %d", type, name, input_size, x.dims, x.w);
        return -1;
    }
    states.assign(state_count, std::vector<float>());
    for (int s = 0; s < state_count; s++)
    {
        const size_t n = (size_t)state_sizes[s] * num_directions;
        states[s].assign(n, 0.f);
        if (nin > 1)
        {
            const Mat& st = bottom_blobs[1 + s];
            if (st.dims > 2 || (size_t)st.w * st.h != n || st.w != state_sizes[s])
            {
                KITE_LOGE("%s '%s': state input %d must be (%d, %d), got dims %d (%d, %d)", type, name, s + 1,
                          state_sizes[s], num_directions, st.dims, st.w, st.h);
                return -1;
            }
            const float* p = st;
            for (size_t i = 0; i < n; i++)
                states[s][i] = p[i];
        }
    }
    const int T = x.dims == 2 ? x.h : 1;
    top_blobs[0].create(out_size * num_directions, T, 4u, opt.blob_allocator);
    if (top_blobs[0].empty())
        return -100;
    for (int s = 0; nout > 1 && s < state_count; s++)
    {
        top_blobs[1 + s].create(state_sizes[s], num_directions, 4u, opt.blob_allocator);
        if (top_blobs[1 + s].empty())
            return -100;
    }
    return 0;
}

RNN::RNN()
{
    one_blob_only = false;
    support_inplace = false;
}

int RNN::load_param(const ParamDict& pd)
{
    num_output = pd.get(PARAM_NUM_OUTPUT, 0);
    weight_data_size = pd.get(PARAM_WEIGHT_DATA_SIZE, 0);
    direction = pd.get(PARAM_DIRECTION, 0);
    const char* n = name.c_str();
    if (direction < 0 || direction > 2)
    {
        KITE_LOGE("RNN '%s': direction %d is not 0..2", n, direction);
        return -1;
    }
    const int dirs = direction == 2 ? 2 : 1;
    if (num_output <= 0 || weight_data_size <= 0 || weight_data_size % ((long long)dirs * num_output) != 0)
    {
        KITE_LOGE("RNN '%s': weight_data_size %d is not a positive multiple of %d directions x num_output %d", n,
                  weight_data_size, dirs, num_output);
        return -1;
    }
    input_size = weight_data_size / dirs / num_output;
    if (pd.get(PARAM_INT8_SCALE_TERM, 0))
    {
        KITE_LOGE("RNN '%s': int8 weights are not supported by the reference", n);
        return -1;
    }
    return 0;
}

int RNN::load_model(const ModelBin& mb)
{
    const int dirs = direction == 2 ? 2 : 1;
    weight_xc_data = mb.load(input_size * num_output * dirs, 0);
    if (weight_xc_data.empty())
        return -100;
    bias_c_data = mb.load(num_output * dirs, 0);
    if (bias_c_data.empty())
        return -100;
    weight_hc_data = mb.load(num_output * num_output * dirs, 0);
    if (weight_hc_data.empty())
        return -100;
    return 0;
}

int RNN::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    const int dirs = direction == 2 ? 2 : 1;
    std::vector<std::vector<float> > states;
    int ret = recurrent_prepare("RNN", name.c_str(), bottom_blobs, top_blobs, input_size, dirs, &num_output, 1, num_output, states, opt);
    if (ret != 0)
        return ret;
    const Mat& x = bottom_blobs[0];
    const int T = x.dims == 2 ? x.h : 1;
    Mat& top = top_blobs[0];
    std::vector<float> hnew(num_output);

    for (int d = 0; d < dirs; d++)
    {
        const bool reverse = direction == 1 || d == 1;
        const float* wxc = (const float*)weight_xc_data + (size_t)d * num_output * input_size;
        const float* bias = (const float*)bias_c_data + (size_t)d * num_output;
        const float* whc = (const float*)weight_hc_data + (size_t)d * num_output * num_output;
        float* h = states[0].data() + (size_t)d * num_output;
        for (int step = 0; step < T; step++)
        {
            const int t = reverse ? T - 1 - step : step;
            const float* xt = x.row(t);
            #pragma omp parallel for num_threads(opt.num_threads)
            for (int q = 0; q < num_output; q++)
            {
                float sum = bias[q];
                const float* wx = wxc + (size_t)q * input_size;
                for (int i = 0; i < input_size; i++)
                    sum += wx[i] * xt[i];
                const float* wh = whc + (size_t)q * num_output;
                for (int i = 0; i < num_output; i++)
                    sum += wh[i] * h[i];
                hnew[q] = tanhf(sum);
            }
            float* out = top.row(t) + d * num_output;
            for (int q = 0; q < num_output; q++)
            {
                h[q] = hnew[q];
                out[q] = hnew[q];
            }
        }
    }
    if (top_blobs.size() > 1)
    {
        float* p = top_blobs[1];
        for (size_t i = 0; i < states[0].size(); i++)
            p[i] = states[0][i];
    }
    return 0;
}

DEFINE_LAYER_CREATOR(RNN)

} // namespace kite
