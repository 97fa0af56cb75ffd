// Loads every case of the bad-input corpus (tests/badinput/gen_corpus.py, made
// at test time into the build folder) through every loading path of Net:
// text param from file and memory, binary param from file and a memory
// reader, weights from file, mmap, memory and a memory reader. Malformed
// inputs must return an error with a message; nothing may crash (the
// sanitizer build checks memory safety). Well-formed controls must load and
// run, so the test notices a loader that rejects everything.

#include "datareader.h"
#include "layer.h"
#include "log.h"
#include "net.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace kite;

// sanitizer runtimes call this before they exit on an error (weak: absent
// without sanitizers)
extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

namespace {

// the case being loaded, named when the process dies on it
char g_current_case[512];

void print_current_case()
{
    static const char prefix[] = "\ntest_badinput: crashed on corpus case: ";
    ssize_t r = write(2, prefix, sizeof(prefix) - 1);
    r = write(2, g_current_case, strlen(g_current_case));
    r = write(2, "\n", 1);
    (void)r;
}

void crash_handler(int sig)
{
    print_current_case();
    signal(sig, SIG_DFL);
    raise(sig);
}

void install_crash_reporting()
{
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
        signal(sig, crash_handler);
    if (__sanitizer_set_death_callback)
        __sanitizer_set_death_callback(print_current_case);
}

struct Case
{
    std::string kind;   // text, bin, model
    std::string expect; // ok, fail, any
    std::string file;
    std::string weights;
    std::vector<std::string> requires_;
    std::string pair;
};

struct LogCapture
{
    int errors = 0;
    std::string last;
};

void capture_sink(int level, const char* message, void* userdata)
{
    LogCapture* cap = (LogCapture*)userdata;
    if (level == LOG_ERROR)
    {
        cap->errors++;
        cap->last = message;
    }
}

std::string corpus_dir()
{
    const char* d = getenv("KITE_BADINPUT_DIR");
    return d ? d : "";
}

std::vector<unsigned char> read_bytes(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    return std::vector<unsigned char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

std::vector<Case> read_manifest()
{
    std::vector<Case> cases;
    std::ifstream f(corpus_dir() + "/manifest.txt");
    std::string line;
    while (std::getline(f, line))
    {
        std::istringstream ss(line);
        Case c;
        ss >> c.kind >> c.expect >> c.file;
        std::string tok;
        while (ss >> tok)
        {
            if (tok.compare(0, 9, "requires=") == 0)
            {
                std::stringstream rs(tok.substr(9));
                std::string t;
                while (std::getline(rs, t, ','))
                    c.requires_.push_back(t);
            }
            else if (tok.compare(0, 5, "pair=") == 0)
                c.pair = tok.substr(5);
            else
                c.weights = tok;
        }
        if (!c.file.empty())
            cases.push_back(c);
    }
    return cases;
}

bool types_built(const Case& c)
{
    for (const std::string& t : c.requires_)
    {
        Layer* l = create_layer(t.c_str());
        if (!l)
            return false;
        delete l;
    }
    return true;
}

// Run every output of a loaded net on an input shaped as its Input layers say.
// Returns 0 when every extract succeeded.
int run_net(const Net& net)
{
    Extractor ex = net.create_extractor();
    ex.set_num_threads(1);
    for (size_t i = 0; i < net.layers().size(); i++)
    {
        const Layer* l = net.layers()[i];
        if (l->type != "Input" || l->tops.empty())
            continue;
        const ParamDict& pd = net.layer_param((int)i);
        int w = pd.get(0, 0), h = pd.get(1, 0), c = pd.get(2, 0);
        if (w <= 0 || w > 4096 || h > 4096 || c > 4096)
            return -1;
        Mat in;
        if (c > 0)
            in.create(w, h > 0 ? h : 1, c);
        else if (h > 0)
            in.create(w, h);
        else
            in.create(w);
        if (in.empty())
            return -1;
        in.fill(0.5f);
        if (ex.input(l->tops[0], in) != 0)
            return -1;
    }
    int ret = 0;
    for (int b : net.output_indexes())
    {
        Mat out;
        if (ex.extract(b, out) != 0)
            ret = -1;
    }
    return ret;
}

// One load attempt: result and what it logged.
struct Attempt
{
    int ret;
    int errors;
    std::string message;
};

class BadInput : public ::testing::Test
{
protected:
    void SetUp() override
    {
        set_log_sink(capture_sink, &cap);
    }
    void TearDown() override
    {
        set_log_sink(nullptr, nullptr);
    }
    void begin()
    {
        cap = LogCapture();
        clear_last_error();
    }
    // ret != 0 must come with a message, both in the sink and last_error()
    Attempt end(int ret)
    {
        Attempt a{ret, cap.errors, cap.last};
        if (ret != 0)
        {
            EXPECT_GT(cap.errors, 0) << "failed without logging an error";
            EXPECT_STRNE(last_error(), "") << "last_error() is empty after a failure";
        }
        return a;
    }

    // load the param of a case through one path; 0 on success
    Attempt load_param(Net& net, const Case& c, int path)
    {
        const std::string file = corpus_dir() + "/" + c.file;
        begin();
        int ret;
        if (c.kind == "bin")
        {
            if (path == 0)
                ret = net.load_param_bin(file.c_str());
            else
            {
                std::vector<unsigned char> data = read_bytes(file);
                // an exact-size heap copy so that ASan sees any overread
                unsigned char* mem = (unsigned char*)malloc(data.empty() ? 1 : data.size());
                if (!data.empty())
                    memcpy(mem, data.data(), data.size());
                DataReaderFromMemory dr(mem, data.size());
                ret = net.load_param_bin(dr);
                free(mem);
            }
        }
        else
        {
            if (path == 0)
                ret = net.load_param(file.c_str());
            else
            {
                std::vector<unsigned char> data = read_bytes(file);
                std::string text(data.begin(), data.end());
                ret = net.load_param_mem(text.c_str());
            }
        }
        return end(ret);
    }

    // load weights through one of four paths
    Attempt load_model(Net& net, const std::vector<unsigned char>& data, const std::string& file, int path)
    {
        begin();
        int ret;
        if (path == 0)
            ret = net.load_model(file.c_str());
        else if (path == 1)
            ret = net.load_model_mmap(file.c_str());
        else
        {
            unsigned char* mem = (unsigned char*)malloc(data.empty() ? 1 : data.size());
            if (!data.empty())
                memcpy(mem, data.data(), data.size());
            if (path == 2)
            {
                size_t used = net.load_model(mem, data.size());
                ret = net.model_loaded() ? 0 : -1;
                if (ret == 0 && !data.empty())
                    EXPECT_GT(used, 0u) << "load_model(mem) succeeded but reports 0 bytes used";
            }
            else
            {
                DataReaderFromMemory dr(mem, data.size());
                ret = net.load_model(dr);
            }
            // weights from memory are used in place: run before freeing
            Attempt a = end(ret);
            if (ret == 0)
                a.ret = run_net(net);
            net.clear();
            free(mem);
            return a;
        }
        Attempt a = end(ret);
        if (ret == 0)
            a.ret = run_net(net);
        return a;
    }

    LogCapture cap;
};

TEST_F(BadInput, corpus)
{
    ASSERT_FALSE(corpus_dir().empty()) << "KITE_BADINPUT_DIR is not set (run through ctest)";
    std::vector<Case> cases = read_manifest();
    ASSERT_GT(cases.size(), 100u) << "corpus missing or tiny in " << corpus_dir();

    install_crash_reporting();
    std::map<std::string, std::vector<std::pair<std::string, bool> > > pairs;
    int checked_fail = 0, checked_ok = 0, skipped = 0;
    for (const Case& c : cases)
    {
        SCOPED_TRACE(c.kind + " " + c.expect + " " + c.file);
        snprintf(g_current_case, sizeof(g_current_case), "%s %s %s/%s", c.kind.c_str(), c.expect.c_str(),
                 corpus_dir().c_str(), c.file.c_str());
        const bool built = types_built(c);
        if (c.kind == "model")
        {
            if (!built)
            {
                skipped++;
                continue;
            }
            const std::string wfile = corpus_dir() + "/" + c.weights;
            std::vector<unsigned char> wdata = read_bytes(wfile);
            for (int path = 0; path < 4; path++)
            {
                Net net;
                net.opt.num_threads = 1;
                Attempt p = load_param(net, c, path & 1);
                bool ok = p.ret == 0;
                if (ok)
                {
                    Attempt m = load_model(net, wdata, wfile, path);
                    ok = m.ret == 0;
                }
                if (c.expect == "ok")
                    EXPECT_TRUE(ok) << "weights path " << path << ": a valid model failed: " << cap.last;
                else if (c.expect == "fail")
                    EXPECT_FALSE(ok) << "weights path " << path << ": a malformed model loaded and ran";
            }
            (c.expect == "ok" ? checked_ok : checked_fail)++;
            continue;
        }

        bool first_ok = false;
        for (int path = 0; path < 2; path++)
        {
            Net net;
            net.opt.num_threads = 1;
            Attempt a = load_param(net, c, path);
            if (path == 0)
                first_ok = a.ret == 0;
            else
                EXPECT_EQ(first_ok, a.ret == 0) << "file and memory loading disagree";
            if (c.expect == "fail")
            {
                EXPECT_NE(a.ret, 0) << "path " << path << ": malformed param accepted";
            }
            else if (c.expect == "ok" && built)
            {
                EXPECT_EQ(a.ret, 0) << "path " << path << ": valid param rejected: " << a.message;
            }
            if (a.ret == 0)
            {
                // a param without weights: extracting must fail cleanly
                // (no model loaded) or, after zero weights, run
                Extractor ex = net.create_extractor();
                Mat out;
                if (!net.output_indexes().empty())
                    EXPECT_NE(ex.extract(net.output_indexes()[0], out), 0) << "extract before load_model succeeded";
                if (c.expect == "ok" && net.load_model_empty() == 0)
                    EXPECT_EQ(run_net(net), 0) << "valid graph failed to run: " << cap.last;
            }
        }
        if (!c.pair.empty())
            pairs[c.pair].push_back(std::make_pair(c.file, first_ok));
        if (c.expect == "fail")
            checked_fail++;
        else if (c.expect == "ok")
            built ? checked_ok++ : skipped++;
    }
    // text and binary forms of one graph load alike (checks the binary loader
    // and the corpus generator against the text loader)
    for (const auto& kv : pairs)
        for (const auto& f : kv.second)
            EXPECT_EQ(f.second, kv.second[0].second) << kv.first << ": " << f.first << " vs " << kv.second[0].first;

    EXPECT_GT(checked_fail, 1000);
    EXPECT_GT(checked_ok, 0);
    printf("bad-input corpus: %d malformed cases rejected, %d valid controls loaded, %d skipped (layer types not built)\n",
           checked_fail, checked_ok, skipped);
}

} // namespace
