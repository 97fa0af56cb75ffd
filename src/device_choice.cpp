// device=auto (device_choice.h): time the model on each backend, keep the
// fastest, remember the choice on disk.
#include "device_choice.h"

#include "cpu.h"
#include "gpu/gpu.h"
#include "layer.h"
#include "log.h"
#include "net.h"
#include "platform.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace kite {

// ---------------------------------------------------------------- hashing

static inline uint64_t mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

uint64_t hash_bytes(const void* data, size_t size, uint64_t seed)
{
    const unsigned char* p = (const unsigned char*)data;
    uint64_t h = mix64(seed ^ 0x6b697465ULL) ^ (uint64_t)size;
    size_t i = 0;
    for (; i + 8 <= size; i += 8)
    {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ mix64(w)) * 0x9e3779b97f4a7c15ULL;
        h = (h << 27) | (h >> 37);
    }
    uint64_t tail = 0;
    for (size_t k = 0; i + k < size; k++)
        tail |= (uint64_t)p[i + k] << (8 * k);
    return mix64(h ^ mix64(tail + 1));
}

uint64_t hash_file(const char* path, uint64_t seed)
{
    FILE* fp = path ? fopen(path, "rb") : nullptr;
    if (!fp)
        return 0;
    std::vector<unsigned char> buf(1 << 20);
    uint64_t h = seed;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), fp)) > 0)
        h = hash_bytes(buf.data(), n, h);
    bool bad = ferror(fp) != 0;
    fclose(fp);
    return bad ? 0 : h;
}

// ---------------------------------------------------------------- cache file

static std::string default_cache_dir()
{
    const char* env = getenv("KITE_CACHE_DIR");
    if (env && env[0])
        return env;
    const char* xdg = getenv("XDG_CACHE_HOME");
    if (xdg && xdg[0])
        return std::string(xdg) + "/kite";
    const char* home = getenv("HOME");
    if (home && home[0])
        return std::string(home) + "/.cache/kite";
    return "";
}

static void make_dirs(const std::string& dir)
{
    for (size_t i = 1; i <= dir.size(); i++)
        if (i == dir.size() || dir[i] == '/')
            mkdir(dir.substr(0, i).c_str(), 0755);
}

// a key or description on one line without tabs
static std::string one_line(std::string s)
{
    for (char& c : s)
        if (c == '\t' || c == '\n' || c == '\r')
            c = ' ';
    return s;
}

static const char* backend_word(int backend)
{
    return backend == BACKEND_VULKAN ? "vulkan" : backend == BACKEND_OPENCL ? "opencl" : "cpu";
}

// the cache file's lines: KEY \t BACKEND DEVICE \t ms of each candidate
static bool read_cached(const std::string& file, const std::string& key, DeviceChoice& c)
{
    FILE* fp = fopen(file.c_str(), "rb");
    if (!fp)
        return false;
    std::string line;
    bool found = false;
    int ch;
    for (;;)
    {
        line.clear();
        while ((ch = fgetc(fp)) != EOF && ch != '\n')
            line.push_back((char)ch);
        size_t t1 = line.find('\t');
        if (t1 != std::string::npos && line.compare(0, t1, key) == 0 && t1 == key.size())
        {
            char word[16] = {0};
            int device = -1;
            if (sscanf(line.c_str() + t1 + 1, "%15s %d", word, &device) == 2 && device >= 0 && device < 1024)
            {
                int b = strcmp(word, "vulkan") == 0 ? BACKEND_VULKAN : strcmp(word, "opencl") == 0 ? BACKEND_OPENCL : strcmp(word, "cpu") == 0 ? BACKEND_CPU : -1;
                if (b >= 0)
                {
                    c.backend = b;
                    c.device = b == BACKEND_CPU ? 0 : device;
                    found = true; // the last line of a key wins
                }
            }
        }
        if (ch == EOF)
            break;
    }
    fclose(fp);
    return found;
}

static void write_cached(const std::string& dir, const std::string& file, const std::string& key, const DeviceChoice& c)
{
    make_dirs(dir);
    std::vector<std::string> keep;
    if (FILE* fp = fopen(file.c_str(), "rb"))
    {
        std::string line;
        int ch;
        for (;;)
        {
            line.clear();
            while ((ch = fgetc(fp)) != EOF && ch != '\n')
                line.push_back((char)ch);
            if (!line.empty() && !(line.compare(0, key.size(), key) == 0 && line.size() > key.size() && line[key.size()] == '\t'))
                keep.push_back(line);
            if (ch == EOF)
                break;
        }
        fclose(fp);
    }
    // the newest 256 choices stay
    if (keep.size() > 255)
        keep.erase(keep.begin(), keep.end() - 255);
    char tail[64];
    snprintf(tail, sizeof(tail), "\t%s %d\t", backend_word(c.backend), c.device);
    std::string line = key + tail;
    for (size_t i = 0; i < c.candidates.size(); i++)
    {
        char t[96];
        snprintf(t, sizeof(t), "%s%s:%d=%.4g", i ? " " : "", backend_word(c.candidates[i].backend), c.candidates[i].device, c.candidates[i].ms);
        line += t;
    }
    keep.push_back(line);
    // write beside and rename: a reader never sees half a file
    char tmp_suffix[32];
    snprintf(tmp_suffix, sizeof(tmp_suffix), ".%d.tmp", (int)getpid());
    std::string tmp = file + tmp_suffix;
    FILE* fp = fopen(tmp.c_str(), "wb");
    if (!fp)
        return;
    bool ok = true;
    for (const std::string& l : keep)
        ok = ok && fprintf(fp, "%s\n", l.c_str()) > 0;
    ok = (fclose(fp) == 0) && ok;
    if (!ok || rename(tmp.c_str(), file.c_str()) != 0)
        remove(tmp.c_str());
}

// ---------------------------------------------------------------- timing

static Mat random_input(const std::vector<int>& s, uint64_t seed)
{
    Mat m;
    if (s.size() == 1)
        m.create(s[0]);
    else if (s.size() == 2)
        m.create(s[0], s[1]);
    else if (s.size() == 3)
        m.create(s[0], s[1], s[2]);
    else if (s.size() == 4)
        m.create(s[0], s[1], s[2], s[3]);
    if (m.empty())
        return m;
    uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
    const size_t plane = (size_t)m.w * m.h * m.d;
    const int channels = m.dims >= 3 ? m.c : 1;
    for (int q = 0; q < channels; q++)
    {
        float* p = (float*)m.data + m.cstep * q;
        for (size_t j = 0; j < plane; j++)
        {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            p[j] = (float)((x >> 40) & 0xffff) / 32768.f - 1.f;
        }
    }
    return m;
}

// the shape an Input layer declares (0=w 1=h 11=d 2=c), empty when it has none
static std::vector<int> declared_shape(const Net& net, int blob_index)
{
    const Blob& b = net.blobs()[blob_index];
    if (b.producer < 0)
        return {};
    const ParamDict& pd = net.layer_param(b.producer);
    int w = pd.get(0, 0), h = pd.get(1, 0), c = pd.get(2, 0), d = pd.get(11, 0);
    if (w <= 0)
        return {};
    if (h <= 0)
        return {w};
    if (c <= 0)
        return {w, h};
    if (d > 0)
        return {w, h, d, c};
    return {w, h, c};
}

// best of settings.runs forwards after the warm-up; <0: an error code
static double time_forwards(Net& net, const std::vector<std::pair<std::string, Mat> >& inputs, const DeviceChoiceSettings& s, int& err)
{
    std::vector<std::string> outputs = net.output_names();
    double best = -1;
    const int total = std::max(0, s.warmup) + std::max(1, s.runs);
    for (int r = 0; r < total; r++)
    {
        auto t0 = std::chrono::steady_clock::now();
        Extractor ex = net.create_extractor();
        for (const auto& in : inputs)
        {
            err = ex.input(in.first.c_str(), in.second);
            if (err != 0)
                return -1;
        }
        for (const std::string& o : outputs)
        {
            Mat out;
            err = ex.extract(o.c_str(), out);
            if (err != 0)
                return -1;
        }
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (r >= std::max(0, s.warmup) && (best < 0 || ms < best))
            best = ms;
    }
    err = 0;
    return best;
}

std::string DeviceChoice::summary() const
{
    char buf[128];
    snprintf(buf, sizeof(buf), "device=auto: %s:%d", backend_word(backend), device);
    std::string s = backend == BACKEND_CPU ? "device=auto: cpu" : buf;
    if (from_cache)
        return s + " (cached in " + cache_file + ")";
    std::string timed;
    for (const DeviceCandidate& c : candidates)
    {
        char t[160];
        if (c.status != 0)
            snprintf(t, sizeof(t), "%s:%d failed (%d)", backend_word(c.backend), c.device, c.status);
        else
            snprintf(t, sizeof(t), "%s:%d %.3f ms", backend_word(c.backend), c.device, c.ms);
        timed += (timed.empty() ? "" : ", ") + std::string(t);
    }
    return s + " (" + timed + ")";
}

void apply_device_choice(const DeviceChoice& c, Option& opt)
{
    opt.use_vulkan_compute = c.backend == BACKEND_VULKAN;
    opt.use_opencl = c.backend == BACKEND_OPENCL;
    if (c.backend == BACKEND_VULKAN)
        opt.vulkan_device = c.device;
    if (c.backend == BACKEND_OPENCL)
        opt.opencl_device = c.device;
}

int choose_device(uint64_t model_hash, const Option& opt_in, const NetLoader& load,
                  const std::vector<std::pair<std::string, Mat> >& inputs_in, DeviceChoice& choice,
                  const DeviceChoiceSettings& settings)
{
    choice = DeviceChoice();
    Option base = opt_in;
    base.use_vulkan_compute = false;
    base.use_opencl = false;

    // the candidates: the CPU, then each GPU backend's device the Option names
    std::vector<DeviceCandidate> cands(1);
    {
        char cpu[96];
        snprintf(cpu, sizeof(cpu), "cpu %s threads=%d", cpu_isa_name(opt_in.max_cpu_isa < 0 ? cpu_best_isa() : opt_in.max_cpu_isa), opt_in.num_threads);
        cands[0].description = cpu;
    }
    const int gpu_backends[2] = {BACKEND_VULKAN, BACKEND_OPENCL};
    for (int b : gpu_backends)
    {
        GpuBackend* g = gpu_backend(b);
        Option o = base;
        if (b == BACKEND_VULKAN)
            o.use_vulkan_compute = true;
        else
            o.use_opencl = true;
        if (!g || !g->available(o))
            continue;
        DeviceCandidate c;
        c.backend = b;
        c.device = b == BACKEND_VULKAN ? opt_in.vulkan_device : opt_in.opencl_device;
        c.description = std::string(backend_word(b)) + ":" + std::to_string(c.device) + " " + g->device_description(o);
        cands.push_back(c);
    }

    // the inputs: given, or random of the declared shapes (a CPU load tells them)
    std::vector<std::pair<std::string, Mat> > inputs = inputs_in;
    Net cpu_net;
    cpu_net.opt = base;
    int cpu_load = load(cpu_net);
    if (cpu_load != 0)
    {
        KITE_LOGE("device=auto: the model does not load on the CPU (%d)", cpu_load);
        return cpu_load;
    }
    if (inputs.empty())
    {
        for (int bi : cpu_net.input_indexes())
        {
            std::vector<int> s = declared_shape(cpu_net, bi);
            if (s.empty())
            {
                KITE_LOGE("device=auto: input '%s' declares no shape (Input 0=w 1=h 2=c): give example inputs", cpu_net.blobs()[bi].name.c_str());
                return KITE_ERROR;
            }
            Mat m = random_input(s, (uint64_t)bi + 1);
            if (m.empty())
                return KITE_OOM;
            inputs.push_back(std::make_pair(cpu_net.blobs()[bi].name, m));
        }
    }

    // the key: kite, model, inputs, speed-relevant options, every candidate
    std::string key = std::string("kite ") + KITE_VERSION_STRING;
    {
        char h[32];
        snprintf(h, sizeof(h), " model %016llx", (unsigned long long)model_hash);
        key += h;
    }
    for (const auto& in : inputs)
    {
        const Mat& m = in.second;
        char s[96];
        snprintf(s, sizeof(s), ":%dd[%d,%d,%d,%d]", m.dims, m.w, m.h, m.d, m.c);
        key += " " + in.first + s;
    }
    {
        char o[96];
        snprintf(o, sizeof(o), " fp16s=%d fp16a=%d int8=%d pack=%d", (int)opt_in.use_fp16_storage, (int)opt_in.use_fp16_arithmetic,
                 (int)opt_in.use_int8_inference, (int)opt_in.use_packing_layout);
        key += o;
    }
    for (const DeviceCandidate& c : cands)
        key += " | " + c.description;
    key = one_line(key);
    choice.key = key;

    std::string dir = settings.cache_dir.empty() ? default_cache_dir() : settings.cache_dir;
    if (dir == "off")
        dir.clear();
    if (!dir.empty())
        choice.cache_file = dir + "/device-choice.txt";

    if (!choice.cache_file.empty() && !settings.refresh && read_cached(choice.cache_file, key, choice))
    {
        // a cached choice of a device that is no longer a candidate cannot
        // happen: the candidates are part of the key
        choice.from_cache = true;
        choice.candidates = cands;
        return 0;
    }

    // time every candidate; the CPU one reuses the Net loaded above
    int best = -1;
    for (size_t i = 0; i < cands.size(); i++)
    {
        DeviceCandidate& c = cands[i];
        int err = 0;
        if (c.backend == BACKEND_CPU)
        {
            c.ms = time_forwards(cpu_net, inputs, settings, err);
        }
        else
        {
            Net net;
            net.opt = base;
            DeviceChoice as;
            as.backend = c.backend;
            as.device = c.device;
            apply_device_choice(as, net.opt);
            err = load(net);
            if (err == 0)
                c.ms = time_forwards(net, inputs, settings, err);
        }
        c.status = err;
        if (err != 0)
        {
            c.ms = -1;
            KITE_LOGW("device=auto: %s could not run the model (%d); not a candidate", c.description.c_str(), err);
            continue;
        }
        if (best < 0 || c.ms < cands[best].ms)
            best = (int)i;
    }
    choice.candidates = cands;
    if (best < 0)
        return cands[0].status != 0 ? cands[0].status : KITE_ERROR;
    choice.backend = cands[best].backend;
    choice.device = cands[best].device;
    if (!choice.cache_file.empty())
        write_cached(dir, choice.cache_file, key, choice);
    return 0;
}

int choose_device(const char* parampath, const char* binpath, const Option& opt,
                  const std::vector<std::pair<std::string, Mat> >& inputs, DeviceChoice& choice,
                  const DeviceChoiceSettings& settings)
{
    choice = DeviceChoice();
    if (!parampath)
        return KITE_ERROR;
    const bool weights = binpath && binpath[0];
    bool binary_param = false;
    if (FILE* fp = fopen(parampath, "rb"))
    {
        int magic = 0;
        binary_param = fread(&magic, 4, 1, fp) == 1 && magic == 7767517;
        fclose(fp);
    }
    else
    {
        KITE_LOGE("device=auto: cannot open '%s'", parampath);
        return KITE_ERROR;
    }
    uint64_t h = hash_file(parampath, 1);
    h = weights ? hash_file(binpath, h) : hash_bytes("zero weights", 12, h);
    const std::string param = parampath, bin = weights ? binpath : "";
    NetLoader load = [binary_param, param, bin](Net& net) -> int {
        int r = binary_param ? net.load_param_bin(param.c_str()) : net.load_param(param.c_str());
        if (r != 0)
            return r;
        return bin.empty() ? net.load_model_empty() : net.load_model(bin.c_str());
    };
    return choose_device(h, opt, load, inputs, choice, settings);
}

} // namespace kite
