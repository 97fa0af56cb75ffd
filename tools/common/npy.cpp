#include "npy.h"

#include "args.h"

#include <cstdio>
#include <cstring>
#include <vector>

namespace kite {
namespace tools {

static bool host_little_endian()
{
    const unsigned int one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

// value of key 'name' in the header dict, as raw text up to the next top-level comma
static bool header_field(const std::string& header, const char* name, std::string& value)
{
    std::string key1 = std::string("'") + name + "'";
    std::string key2 = std::string("\"") + name + "\"";
    size_t p = header.find(key1);
    size_t klen = key1.size();
    if (p == std::string::npos)
    {
        p = header.find(key2);
        klen = key2.size();
    }
    if (p == std::string::npos)
        return false;
    p = header.find(':', p + klen);
    if (p == std::string::npos)
        return false;
    p++;
    while (p < header.size() && header[p] == ' ')
        p++;
    size_t e = p;
    if (p < header.size() && header[p] == '(')
    {
        e = header.find(')', p);
        if (e == std::string::npos)
            return false;
        e++;
    }
    else
    {
        while (e < header.size() && header[e] != ',' && header[e] != '}')
            e++;
    }
    value = header.substr(p, e - p);
    // strip quotes and spaces
    while (!value.empty() && (value.back() == ' '))
        value.pop_back();
    if (value.size() >= 2 && (value[0] == '\'' || value[0] == '"'))
        value = value.substr(1, value.size() - 2);
    return true;
}

std::string read_npy_stream(FILE* fp, const char* path, Mat& m)
{
    std::string err;
    unsigned char magic[8];
    if (fread(magic, 1, 8, fp) != 8 || memcmp(magic, "\x93NUMPY", 6) != 0)
    {
        return std::string("'") + path + "' is not a .npy file";
    }
    size_t header_len = 0;
    if (magic[6] == 1)
    {
        unsigned char l[2];
        if (fread(l, 1, 2, fp) != 2)
        {
            return std::string("'") + path + "': truncated header";
        }
        header_len = l[0] | (l[1] << 8);
    }
    else if (magic[6] == 2 || magic[6] == 3)
    {
        unsigned char l[4];
        if (fread(l, 1, 4, fp) != 4)
        {
            return std::string("'") + path + "': truncated header";
        }
        header_len = (size_t)l[0] | ((size_t)l[1] << 8) | ((size_t)l[2] << 16) | ((size_t)l[3] << 24);
    }
    else
    {
        return std::string("'") + path + "': unsupported .npy version";
    }
    if (header_len > (1 << 20))
    {
        return std::string("'") + path + "': header too large";
    }
    std::string header(header_len, ' ');
    if (fread(&header[0], 1, header_len, fp) != header_len)
    {
        return std::string("'") + path + "': truncated header";
    }
    std::string descr, fortran, shape;
    if (!header_field(header, "descr", descr) || !header_field(header, "fortran_order", fortran) || !header_field(header, "shape", shape))
    {
        return std::string("'") + path + "': header lacks descr/fortran_order/shape";
    }
    if (fortran != "False")
    {
        return std::string("'") + path + "': fortran_order arrays are not supported (use np.ascontiguousarray)";
    }
    // shape "(a, b, c)" or "(a,)" or "()"
    std::vector<long> dims;
    {
        size_t i = 0;
        while (i < shape.size())
        {
            if (shape[i] >= '0' && shape[i] <= '9')
            {
                long v = 0;
                while (i < shape.size() && shape[i] >= '0' && shape[i] <= '9')
                {
                    v = v * 10 + (shape[i] - '0');
                    if (v > INT32_MAX)
                        break;
                    i++;
                }
                dims.push_back(v);
            }
            else
                i++;
        }
    }
    if (dims.size() > 4)
    {
        return std::string("'") + path + "': " + std::to_string(dims.size()) + "-d array, at most 4 dims supported";
    }
    if (dims.empty())
        dims.push_back(1);
    size_t total = 1;
    for (long d : dims)
    {
        if (d <= 0 || d > INT32_MAX)
        {
            return std::string("'") + path + "': empty or huge dimension in shape " + shape;
        }
        total *= (size_t)d;
        if (total > ((size_t)1 << 31))
        {
            return std::string("'") + path + "': array too large";
        }
    }
    if (descr.size() < 3)
    {
        return std::string("'") + path + "': bad descr '" + descr + "'";
    }
    char order = descr[0];
    char kind = descr[1];
    int size = atoi(descr.c_str() + 2);
    bool swap = (order == '>' && host_little_endian()) || (order == '<' && !host_little_endian());
    bool ok_kind = (kind == 'f' && (size == 2 || size == 4 || size == 8)) || ((kind == 'i' || kind == 'u') && (size == 1 || size == 2 || size == 4 || size == 8)) || (kind == 'b' && size == 1);
    if (!ok_kind)
    {
        return std::string("'") + path + "': unsupported dtype '" + descr + "'";
    }
    // the data the header declares must be in the file before anything is allocated
    // for it (a hostile header could ask for gigabytes; found by fuzz_npy)
    const long here = ftell(fp);
    if (here >= 0 && fseek(fp, 0, SEEK_END) == 0)
    {
        const long end = ftell(fp);
        if (end < here || (unsigned long long)(end - here) < (unsigned long long)total * size)
            return std::string("'") + path + "': truncated data (the header declares " + std::to_string(total)
                   + " values of " + std::to_string(size) + " bytes, the file holds " + std::to_string(end > here ? end - here : 0)
                   + " bytes of data)";
        if (fseek(fp, here, SEEK_SET) != 0)
            return std::string("'") + path + "': cannot seek";
    }
    std::vector<unsigned char> raw(total * size);
    if (fread(raw.data(), 1, raw.size(), fp) != raw.size())
    {
        return std::string("'") + path + "': truncated data";
    }

    std::vector<float> vals(total);
    for (size_t i = 0; i < total; i++)
    {
        unsigned char b[8];
        memcpy(b, &raw[i * size], size);
        if (swap)
            for (int k = 0; k < size / 2; k++)
            {
                unsigned char t = b[k];
                b[k] = b[size - 1 - k];
                b[size - 1 - k] = t;
            }
        float v = 0.f;
        if (kind == 'f' && size == 4)
            memcpy(&v, b, 4);
        else if (kind == 'f' && size == 8)
        {
            double dv;
            memcpy(&dv, b, 8);
            v = (float)dv;
        }
        else if (kind == 'f' && size == 2)
        {
            unsigned short h;
            memcpy(&h, b, 2);
            v = float16_to_float32(h);
        }
        else if (kind == 'i' || kind == 'b')
        {
            if (size == 1) v = (float)(signed char)b[0];
            if (size == 2) { short x; memcpy(&x, b, 2); v = (float)x; }
            if (size == 4) { int32_t x; memcpy(&x, b, 4); v = (float)x; }
            if (size == 8) { int64_t x; memcpy(&x, b, 8); v = (float)x; }
        }
        else
        {
            if (size == 1) v = (float)b[0];
            if (size == 2) { unsigned short x; memcpy(&x, b, 2); v = (float)x; }
            if (size == 4) { uint32_t x; memcpy(&x, b, 4); v = (float)x; }
            if (size == 8) { uint64_t x; memcpy(&x, b, 8); v = (float)x; }
        }
        vals[i] = v;
    }

    const int nd = (int)dims.size();
    Mat out;
    if (nd == 1)
        out.create((int)dims[0], (size_t)4u);
    else if (nd == 2)
        out.create((int)dims[1], (int)dims[0], (size_t)4u);
    else if (nd == 3)
        out.create((int)dims[2], (int)dims[1], (int)dims[0], (size_t)4u);
    else
        out.create((int)dims[3], (int)dims[2], (int)dims[1], (int)dims[0], (size_t)4u);
    if (out.empty())
        return std::string("'") + path + "': out of memory";
    const size_t plane = (size_t)out.w * out.h * out.d;
    for (int q = 0; q < out.c; q++)
        memcpy((float*)out.data + out.cstep * q, &vals[plane * q], plane * sizeof(float));
    m = out;
    return "";
}

std::string read_npy(const char* path, Mat& m)
{
    FILE* fp = fopen(path, "rb");
    if (!fp)
        return file_error("cannot open", path);
    std::string e = read_npy_stream(fp, path, m);
    fclose(fp);
    return e;
}

std::string write_npy(const char* path, const Mat& m)
{
    // an empty blob (e.g. no detections) is written as a float32 array of shape (0,)
    if (!m.empty() && (m.elemsize != 4 || m.elempack != 1))
        return "write_npy: need an fp32 Mat with elempack 1";
    std::string shape;
    if (m.dims == 0 || m.empty())
        shape = "(0,)";
    else if (m.dims == 1)
        shape = "(" + std::to_string(m.w) + ",)";
    else if (m.dims == 2)
        shape = "(" + std::to_string(m.h) + ", " + std::to_string(m.w) + ")";
    else if (m.dims == 3)
        shape = "(" + std::to_string(m.c) + ", " + std::to_string(m.h) + ", " + std::to_string(m.w) + ")";
    else
        shape = "(" + std::to_string(m.c) + ", " + std::to_string(m.d) + ", " + std::to_string(m.h) + ", " + std::to_string(m.w) + ")";
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
    // magic(6) + version(2) + len(2) + header + '\n' padded to a multiple of 64
    size_t total = 10 + header.size() + 1;
    size_t padded = (total + 63) / 64 * 64;
    header.append(padded - total, ' ');
    header.push_back('\n');

    FILE* fp = fopen(path, "wb");
    if (!fp)
        return file_error("cannot create", path);
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};
    pre[8] = (unsigned char)(header.size() & 0xff);
    pre[9] = (unsigned char)(header.size() >> 8);
    bool ok = fwrite(pre, 1, 10, fp) == 10 && fwrite(header.data(), 1, header.size(), fp) == header.size();
    if (ok && !m.empty())
    {
        const size_t plane = (size_t)m.w * m.h * m.d;
        const int channels = m.dims >= 3 ? m.c : 1;
        for (int q = 0; q < channels && ok; q++)
        {
            const float* p = (const float*)m.data + m.cstep * q;
            ok = fwrite(p, sizeof(float), plane, fp) == plane;
        }
    }
    if (fclose(fp) != 0)
        ok = false;
    if (!ok)
        return std::string("write error on '") + path + "'";
    return "";
}

std::string mat_shape_string(const Mat& m)
{
    if (m.dims == 0 || m.empty())
        return "[]";
    const int p = m.elempack > 0 ? m.elempack : 1;
    char buf[96];
    if (m.dims == 1)
        snprintf(buf, sizeof(buf), "[%d]", m.w * p);
    else if (m.dims == 2)
        snprintf(buf, sizeof(buf), "[%d,%d]", m.w, m.h * p);
    else if (m.dims == 3)
        snprintf(buf, sizeof(buf), "[%d,%d,%d]", m.w, m.h, m.c * p);
    else
        snprintf(buf, sizeof(buf), "[%d,%d,%d,%d]", m.w, m.h, m.d, m.c * p);
    return buf;
}

} // namespace tools
} // namespace kite
