#include "args.h"

#include <algorithm>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifndef KITE_VERSION_STRING
#define KITE_VERSION_STRING "unknown"
#endif

namespace kite {
namespace tools {

const char* kite_version()
{
    return KITE_VERSION_STRING;
}

void print_help(const ToolInfo& info)
{
    // usage lines: the synopsis may hold several, one per '\n'
    std::string syn = info.synopsis ? info.synopsis : "";
    size_t start = 0;
    bool first = true;
    while (true)
    {
        size_t nl = syn.find('\n', start);
        std::string line = syn.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
        printf("%s %s %s\n", first ? "usage:" : "      ", info.name, line.c_str());
        first = false;
        if (nl == std::string::npos)
            break;
        start = nl + 1;
    }
    if (info.summary)
        printf("\n%s\n", info.summary);
    printf("\n");
    size_t width = 0;
    for (const ToolOption& o : info.options)
        width = std::max(width, strlen(o.spelling));
    width = std::max(width, strlen("-h, --help"));
    width = std::min(width, (size_t)34); // a longer spelling just pushes its help to the right
    auto row = [&](const char* spelling, const char* help) { printf("  %-*s  %s\n", (int)width, spelling, help); };
    for (const ToolOption& o : info.options)
        row(o.spelling, o.help);
    row("-h, --help", "print this help on stdout and exit");
    row("--version", "print the kite version and exit");
    if (info.notes)
        printf("\n%s\n", info.notes);
    printf("\nexit status: 0 success, 1 failure, 2 usage error\n");
}

int handle_standard_options(const ToolInfo& info, int argc, char** argv)
{
    for (int i = 1; i < argc; i++)
    {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
        {
            print_help(info);
            return fflush(stdout) == 0 ? EXIT_OK : EXIT_RUNTIME;
        }
        if (strcmp(argv[i], "--version") == 0)
        {
            printf("%s (kite) %s\n", info.name, kite_version());
            return fflush(stdout) == 0 ? EXIT_OK : EXIT_RUNTIME;
        }
    }
    return -1;
}

static std::string one_line(std::string s)
{
    for (char& ch : s)
        if (ch == '\n' || ch == '\r')
            ch = ' ';
    return s;
}

int usage_error(const ToolInfo& info, const std::string& what)
{
    fprintf(stderr, "%s: error: %s (see '%s --help')\n", info.name, one_line(what).c_str(), info.name);
    return EXIT_USAGE;
}

int failure(const ToolInfo& info, const std::string& what)
{
    fprintf(stderr, "%s: error: %s\n", info.name, what.c_str());
    return EXIT_RUNTIME;
}

void progress(const ToolInfo& info, const std::string& what)
{
    fprintf(stderr, "%s: %s\n", info.name, what.c_str());
    fflush(stderr);
}

std::string quoted(const std::string& path)
{
    return "'" + path + "'";
}

std::string file_error(const char* action, const std::string& path, int err)
{
    std::string s = std::string(action) + " " + quoted(path);
    if (err != 0)
        s += std::string(": ") + strerror(err);
    return s;
}

bool parse_int_arg(const std::string& s, long long& v)
{
    if (s.empty())
        return false;
    char* end = nullptr;
    errno = 0;
    long long x = strtoll(s.c_str(), &end, 10);
    if (errno != 0 || *end != 0)
        return false;
    v = x;
    return true;
}

bool parse_shape(const std::string& s0, std::vector<int>& shape)
{
    std::string s = s0;
    if (!s.empty() && s.front() == '[')
    {
        if (s.back() != ']')
            return false;
        s = s.substr(1, s.size() - 2);
    }
    shape.clear();
    size_t start = 0;
    while (true)
    {
        size_t p = s.find(',', start);
        std::string tok = s.substr(start, p == std::string::npos ? std::string::npos : p - start);
        while (!tok.empty() && tok.front() == ' ')
            tok.erase(tok.begin());
        while (!tok.empty() && tok.back() == ' ')
            tok.pop_back();
        long long v;
        if (!parse_int_arg(tok, v) || v <= 0 || v > (1 << 30))
            return false;
        shape.push_back((int)v);
        if (p == std::string::npos)
            break;
        start = p + 1;
    }
    return shape.size() >= 1 && shape.size() <= 4;
}

std::string shape_to_string(const std::vector<int>& shape)
{
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); i++)
    {
        if (i)
            s += ",";
        s += std::to_string(shape[i]);
    }
    return s + "]";
}

bool split_blob_value(const std::string& s, const std::vector<std::string>& known_names, std::string& blob,
                      std::string& value, const char* value_start)
{
    size_t best = 0;
    bool found = false;
    for (const std::string& n : known_names)
    {
        if (n.size() + 1 <= s.size() && s.compare(0, n.size(), n) == 0 && s[n.size()] == ':' && (!found || n.size() > best))
        {
            best = n.size();
            found = true;
        }
    }
    if (found)
    {
        blob = s.substr(0, best);
        value = s.substr(best + 1);
        return true;
    }
    size_t p = std::string::npos;
    if (value_start)
    {
        if (s.compare(0, std::string(value_start).size(), value_start) == 0)
        {
            blob.clear();
            value = s;
            return false;
        }
        size_t q = s.rfind(std::string(":") + value_start);
        if (q != std::string::npos)
            p = q;
    }
    if (p == std::string::npos)
        p = s.find(':');
    if (p == std::string::npos)
    {
        blob.clear();
        value = s;
        return false;
    }
    blob = s.substr(0, p);
    value = s.substr(p + 1);
    return true;
}

} // namespace tools
} // namespace kite
