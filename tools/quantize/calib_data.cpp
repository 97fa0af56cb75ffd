#include "calib_data.h"

#include "common/npy.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <sys/stat.h>

#include <stb/stb_image.h>

namespace kite {
namespace quantize {

bool parse_floats(const std::string& s0, std::vector<float>& v)
{
    std::string s = s0;
    if (!s.empty() && s.front() == '[')
        s.erase(0, 1);
    if (!s.empty() && s.back() == ']')
        s.pop_back();
    v.clear();
    size_t start = 0;
    while (start <= s.size())
    {
        size_t p = s.find(',', start);
        std::string tok = s.substr(start, p == std::string::npos ? std::string::npos : p - start);
        char* end = nullptr;
        errno = 0;
        float f = strtof(tok.c_str(), &end);
        if (tok.empty() || *end != '\0' || errno != 0)
            return false;
        v.push_back(f);
        if (p == std::string::npos)
            break;
        start = p + 1;
    }
    return !v.empty();
}

bool valid_pixel(const std::string& s)
{
    return s == "RGB" || s == "BGR" || s == "GRAY" || s == "RGBA" || s == "BGRA";
}

static std::string lower_ext(const std::string& path)
{
    size_t dot = path.rfind('.');
    size_t slash = path.rfind('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
        return "";
    std::string e = path.substr(dot + 1);
    for (char& c : e)
        c = (char)tolower((unsigned char)c);
    return e;
}

static bool known_ext(const std::string& e)
{
    return e == "npy" || e == "jpg" || e == "jpeg" || e == "png" || e == "bmp" || e == "ppm" || e == "pgm";
}

std::string list_data(const std::string& data, std::vector<std::string>& files)
{
    files.clear();
    struct stat st;
    if (stat(data.c_str(), &st) != 0)
        return "cannot access '" + data + "': " + strerror(errno);
    if (S_ISDIR(st.st_mode))
    {
        DIR* d = opendir(data.c_str());
        if (!d)
            return "cannot read folder '" + data + "'";
        while (struct dirent* e = readdir(d))
        {
            std::string n = e->d_name;
            if (n[0] != '.' && known_ext(lower_ext(n)))
                files.push_back(data + "/" + n);
        }
        closedir(d);
        std::sort(files.begin(), files.end());
        if (files.empty())
            return "folder '" + data + "' holds no .jpg/.jpeg/.png/.bmp/.ppm/.pgm/.npy files";
        return "";
    }
    if (known_ext(lower_ext(data)))
    {
        files.push_back(data);
        return "";
    }
    std::ifstream f(data.c_str());
    if (!f)
        return "cannot open list '" + data + "': " + strerror(errno);
    std::string dir;
    size_t slash = data.rfind('/');
    if (slash != std::string::npos)
        dir = data.substr(0, slash + 1);
    std::string line;
    while (std::getline(f, line))
    {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
            line.pop_back();
        if (line.empty() || line[0] == '#')
            continue;
        files.push_back(line[0] == '/' ? line : dir + line);
    }
    if (files.empty())
        return "list '" + data + "' names no files";
    return "";
}

std::string load_input(const std::string& path, const DataOptions& opt, Mat& m)
{
    if (lower_ext(path) == "npy")
    {
        std::string e = tools::read_npy(path.c_str(), m);
        return e.empty() ? e : path + ": " + e;
    }
    std::vector<unsigned char> bytes;
    {
        FILE* f = fopen(path.c_str(), "rb");
        if (!f)
            return path + ": cannot open: " + strerror(errno);
        unsigned char buf[65536];
        size_t n;
        while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
            bytes.insert(bytes.end(), buf, buf + n);
        const bool bad = ferror(f) != 0;
        fclose(f);
        if (bad)
            return path + ": read error";
    }
    return decode_image(bytes.data(), bytes.size(), path, opt, m);
}

// 16-bit images are decoded without stb's channel conversion (stb_image 2.27's
// 16-bit PNM path converts channels with the 8-bit routine and then reads past
// the buffer: found by fuzz_image); kite converts them here.
static unsigned char* load_16_as_8(const unsigned char* mem, int size, int& w, int& h, int want)
{
    int c = 0;
    stbi_us* d16 = stbi_load_16_from_memory(mem, size, &w, &h, &c, 0);
    if (!d16)
        return nullptr;
    if (c < 1 || c > 4 || w <= 0 || h <= 0)
    {
        stbi_image_free(d16);
        return nullptr;
    }
    const size_t n = (size_t)w * h;
    unsigned char* out = (unsigned char*)malloc(n * want);
    if (!out)
    {
        stbi_image_free(d16);
        return nullptr;
    }
    for (size_t i = 0; i < n; i++)
    {
        const stbi_us* p = d16 + i * c;
        unsigned char v[4];
        for (int k = 0; k < c; k++)
            v[k] = (unsigned char)(p[k] >> 8);
        unsigned char r = v[0], g = c >= 3 ? v[1] : v[0], b = c >= 3 ? v[2] : v[0];
        unsigned char a = c == 2 ? v[1] : c == 4 ? v[3] : 255;
        unsigned char* o = out + i * want;
        if (want == 1)
            o[0] = c >= 3 ? (unsigned char)((r * 77 + g * 150 + b * 29) >> 8) : r;
        else
        {
            o[0] = r;
            o[1] = g;
            o[2] = b;
            if (want == 4)
                o[3] = a;
        }
    }
    stbi_image_free(d16);
    return out;
}

std::string decode_image(const unsigned char* mem, size_t size, const std::string& name, const DataOptions& opt, Mat& m)
{
    if (size == 0 || size > (size_t)INT_MAX)
        return name + ": cannot decode image (" + (size == 0 ? "empty file" : "file too large") + ")";
    const std::string& px = opt.pixel;
    int want = px == "GRAY" ? 1 : (px == "RGBA" || px == "BGRA") ? 4 : 3;
    int w = 0, h = 0, c = 0;
    // a calibration image beyond opt.max_pixels (64 Mpixel) is refused before
    // decoding (a corrupt or hostile header would otherwise make stb allocate gigabytes)
    // (stb_image 2.27 reports a top-down BMP's height as negative: the size is |w| x |h|)
    if (stbi_info_from_memory(mem, (int)size, &w, &h, &c) && std::llabs((long long)w) * std::llabs((long long)h) > opt.max_pixels)
        return name + ": image too large (" + std::to_string(std::llabs((long long)w)) + " x " + std::to_string(std::llabs((long long)h)) + " pixels, at most " +
               (opt.max_pixels % (1 << 20) == 0 ? std::to_string(opt.max_pixels >> 20) + " Mpixel)"
                                                : std::to_string(opt.max_pixels) + " pixels)");
    const bool is16 = stbi_is_16_bit_from_memory(mem, (int)size) != 0;
    unsigned char* data = is16 ? load_16_as_8(mem, (int)size, w, h, want) : stbi_load_from_memory(mem, (int)size, &w, &h, &c, want);
    if (!data)
    {
        const char* why = stbi_failure_reason();
        return name + ": cannot decode image (" + (why ? why : "unsupported") + ")";
    }
    const bool from_malloc = is16;
    int type = want == 1 ? Mat::PIXEL_GRAY
               : want == 4 ? (px == "RGBA" ? Mat::PIXEL_RGBA : Mat::PIXEL_RGBA2BGRA)
                           : (px == "RGB" ? Mat::PIXEL_RGB : Mat::PIXEL_RGB2BGR);
    int tw = opt.shape.size() >= 2 ? opt.shape[0] : w;
    int th = opt.shape.size() >= 2 ? opt.shape[1] : h;
    m = Mat::from_pixels_resize(data, type, w, h, tw, th);
    if (from_malloc)
        free(data);
    else
        stbi_image_free(data);
    if (m.empty())
        return name + ": conversion to a Mat failed";
    if (!opt.mean.empty() || !opt.norm.empty())
    {
        if ((!opt.mean.empty() && (int)opt.mean.size() != m.c) || (!opt.norm.empty() && (int)opt.norm.size() != m.c))
            return "mean/norm need " + std::to_string(m.c) + " values (pixel=" + px + ")";
        m.substract_mean_normalize(opt.mean.empty() ? nullptr : opt.mean.data(),
                                   opt.norm.empty() ? nullptr : opt.norm.data());
    }
    return "";
}

std::vector<float> flatten(const Mat& m)
{
    std::vector<float> v;
    if (m.empty())
        return v;
    const size_t plane = (size_t)m.w * m.h * m.d;
    if (m.dims <= 2)
    {
        const float* p = m;
        v.assign(p, p + plane);
        return v;
    }
    v.reserve(plane * m.c);
    for (int q = 0; q < m.c; q++)
    {
        const float* p = m.channel(q);
        v.insert(v.end(), p, p + plane);
    }
    return v;
}

} // namespace quantize
} // namespace kite
