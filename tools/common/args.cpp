#include "args.h"

#include <cerrno>
#include <cstdlib>

namespace kite {
namespace tools {

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
